"""BEAM through the stages on the hand-written fixtures: the download stage recognises the chat
folders (dataset=local) and records the benchmark, the rule judge scores with the released
combination, the aggregate reports by ability and tier (released aggregation: per chat, then
over chats), retrieval metrics on BEAM's evidence, the paper table and the reader's prompt."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from confs import group
from memrecall.artifacts import read_meta, read_table, write_table
from memrecall.benchmarks import of_artifact
from memrecall.data.prepare import run_download
from memrecall.judge.stage import run_judge
from memrecall.report.aggregate import run_aggregate

FIX = Path(__file__).parent / "fixtures" / "beam" / "chats"
# hypotheses by hand, for chat 100K/1 and 100K/2 (same questions; chat 2's evidence is cut):
#   information_extraction_0 "GPIO17"           rule: 1/1 -> 1.0
#   information_extraction_1 "I2C, SDA to GPIO2" rule: 2/3 items -> 0.667
#   knowledge_update_0 "every 10 minutes"       rule: 0.0 (the old value)
#   event_ordering_0 reversed three items      rule: tau_norm 0.0
#   abstention_0 "never mentioned"             rule: 1.0
#   summarization_0                            rule: cannot judge (no verdict)
HYP = {
    "information_extraction_0": "It is on GPIO17.",
    "information_extraction_1": "Over I2C, with SDA to GPIO2.",
    "knowledge_update_0": "It samples every 10 minutes.",
    "event_ordering_0": "Rain gauge\nSampling database\nSensor wiring",
    "abstention_0": "You never mentioned a cloud provider.",
    "summarization_0": "You built a weather station.",
}


@pytest.fixture
def downloaded(tmp_path):
    a = tmp_path / "artifacts"
    a.mkdir()
    cfg = group("dataset", "local", path=str(FIX / "100K"), question_types=None)
    paths = {k: a / f"{k}.parquet" for k in ("questions", "sessions", "turns")}
    summary = run_download(
        cfg, **paths, card_path=tmp_path / "data_card.md", raw_dir=tmp_path / "raw"
    )
    return a, paths, summary, tmp_path


def test_download_stage_recognises_beam_and_records_it(downloaded):
    _, paths, summary, tmp = downloaded
    assert of_artifact(paths["questions"]).name == "beam"
    assert read_meta(paths["turns"])["benchmark"] == "beam"
    q = read_table(paths["questions"], "questions")
    assert q.height == 40 and summary["n_abstention"] == 4 and summary["sessions_unique"] == 14
    assert set(q["conversation_id"]) == {"128K_1", "128K_2"}
    card = (tmp / "data_card.md").read_text()
    assert "Data card: BEAM" in card and "128K" in card and "evidence" in card.lower()


def answers_frame(questions: pl.DataFrame) -> pl.DataFrame:
    rows = []
    for qid, conv in questions.select("question_id", "conversation_id").iter_rows():
        key = qid.removeprefix(conv + "_")
        rows.append(
            {
                "question_id": qid,
                "hypothesis": HYP.get(key, "I don't know."),
                "model": "m",
                "prompt_id": "p",
                "request_hash": qid,
                "input_tokens": 1,
                "output_tokens": 1,
                "reasoning_tokens": 0,
                "cost_usd": 0.0,
                "latency_s": 0.1,
                "refused": False,
                "error": None,
                "context_session_ids": [],
            }
        )
    return pl.DataFrame(rows)


def judge(cfg: dict, a: Path, paths: dict, name: str = "verdicts") -> pl.DataFrame:
    """The judge stage on the fixtures' questions and answers, into artifacts/NAME.parquet."""
    return run_judge(
        cfg, questions=paths["questions"], answers=a / "answers.parquet", out=a / f"{name}.parquet"
    )


def aggregate(a: Path, paths: dict, tmp: Path) -> dict:
    """The aggregate stage on the judged fixtures, into reports/."""
    return run_aggregate(
        {"bootstrap_samples": 200, "seed": 0},
        questions=paths["questions"],
        turns=paths["turns"],
        candidates={},
        answers=a / "answers.parquet",
        verdicts=a / "verdicts.parquet",
        out_dir=tmp / "reports",
    )


def test_rule_judge_and_aggregate_by_ability(downloaded):
    a, paths, _, tmp = downloaded
    q = read_table(paths["questions"], "questions")
    write_table(answers_frame(q), a / "answers.parquet", table="answers", stage="read")
    v = judge(group("judge", "rule"), a, paths)
    score = dict(zip(v["question_id"], v["score"]))
    assert score["128K_1_information_extraction_0"] == 1.0
    assert score["128K_1_information_extraction_1"] == pytest.approx(2 / 3)
    assert score["128K_1_knowledge_update_0"] == 0.0
    assert score["128K_1_event_ordering_0"] == 0.0
    assert score["128K_1_abstention_0"] == 1.0
    assert score["128K_1_summarization_0"] is None  # the rules cannot judge it
    m = aggregate(a, paths, tmp)
    beam = m["beam"]
    # information extraction: chat 1 (1 + 2/3) / 2, chat 2 the same (same answers) -> 5/6
    assert beam["by_ability"]["information_extraction"] == pytest.approx(5 / 6)
    assert beam["by_ability"]["knowledge_update"] == 0.0
    assert "summarization" not in beam["by_ability"]  # nothing judged
    assert beam["judged_by_ability"]["summarization"] == 0
    assert beam["by_tier"]["128K"]["by_ability"] == beam["by_ability"]
    assert m["qa"]["by_type"]["information_extraction"] == pytest.approx(5 / 6)
    md = (tmp / "reports" / "by_type.md").read_text()
    assert "# BEAM by ability and tier" in md and "| 128K |" in md and "SUM 4" in md
    assert m["judge"]["comparable_to_published"] is False


def test_retrieval_metrics_use_beams_evidence(downloaded):
    from memrecall.benchmarks.beam import BENCHMARK
    from memrecall.eval.retrieval_metrics import retrieval_metrics

    _, paths, _, _ = downloaded
    q = read_table(paths["questions"], "questions")
    t = read_table(paths["turns"], "turns")
    one = q.filter(pl.col("question_id") == "128K_1_knowledge_update_0")
    gold = one["answer_session_ids"][0].to_list()
    assert gold == ["128K_1_b0002_t0001", "128K_1_b0002_t0003"]
    ranked = gold[::-1] + [s for s in one["haystack_session_ids"][0] if s not in gold]
    cands = pl.DataFrame(
        {
            "question_id": "128K_1_knowledge_update_0",
            "rank": list(range(1, len(ranked) + 1)),
            "session_id": ranked,
            "score": [1.0 - i / 100 for i in range(len(ranked))],
        },
        schema={
            "question_id": pl.String,
            "rank": pl.Int32,
            "session_id": pl.String,
            "score": pl.Float64,
        },
    )
    m = retrieval_metrics(one, t, cands, golds=BENCHMARK.gold(one, t))
    assert m["n"] == 1 and m["session"]["recall_all@5"] == 1.0


def test_reader_sees_the_standing_instructions_rule():
    from memrecall.benchmarks.beam import BENCHMARK

    p = BENCHMARK.reader_prompts()["default"]
    text = p.render(question="Q?", question_type="instruction_following", today="T", history="H")
    assert "standing instruction" in text and "one item per line" in text
    # the prompt never learns the ability: the same text for every question
    assert text == p.render(question="Q?", question_type="abstention", today="T", history="H")


def test_released_judge_through_the_stage_against_a_local_server(downloaded, fake_key):
    """judge=beam_official: the rubric prompts of the checkout go one per item to gpt-4.1-mini
    at temperature 0 without max_tokens; the files' sha256 land in the verdicts' metadata; the
    method is the official one, but a local server answered, so the run is not comparable and
    metrics.json says why (provenance)."""
    from fake_openai_server import FakeOpenAIServer
    from test_beam_judges import checkout

    a, paths, _, tmp = downloaded
    q = read_table(paths["questions"], "questions").filter(
        pl.col("question_type").is_in(["knowledge_update", "event_ordering"])
        & (pl.col("conversation_id") == "128K_1")
    )
    write_table(
        q, paths["questions"], table="questions", stage="download", extra_meta={"benchmark": "beam"}
    )
    write_table(answers_frame(q), a / "answers.parquet", table="answers", stage="read")
    script = checkout(tmp)

    def answer(messages):
        if messages[0]["role"] == "system":  # equivalence: "A: <rubric item>\nB: <line>"
            first, second = messages[1]["content"].split("\n")
            return "YES" if first[3:].lower() in second.lower() else "NO"
        return '{"score": 1.0, "reason": "fine"}'

    with FakeOpenAIServer(answer=answer) as srv:
        cfg = group(
            "judge",
            "beam_official",
            official_script=str(script),
            **srv.runtime(),
        )
        v = judge(cfg, a, paths)
        bodies = list(srv.bodies)
    assert {b["model"] for b in bodies} == {"gpt-4.1-mini"}
    assert {b.get("temperature") for b in bodies} == {0.0}
    assert all(b.get("max_tokens") is None for b in bodies)
    rubric_prompts = [b for b in bodies if b["messages"][0]["role"] == "user"]
    assert len(rubric_prompts) == sum(len(r) for r in q["rubric"])
    assert all(
        b["messages"][0]["content"].startswith("Q: <question>\nItem: ") for b in rubric_prompts
    )
    score = dict(zip(v["question_id"], v["score"]))
    assert score["128K_1_knowledge_update_0"] == 1.0
    assert score["128K_1_event_ordering_0"] == 0.0  # reversed: tau_norm 0
    meta = read_meta(a / "verdicts.parquet")
    assert len(meta["official_files"]["src/prompts.py"]) == 64
    m = aggregate(a, paths, tmp)
    assert m["judge"]["comparable_to_published"] is False
    assert any("127.0.0.1" in r for r in m["judge"]["not_comparable_because"])
    eo = m["beam"]["event_ordering"]  # two event-ordering questions of chat 1
    # one answer names all three items (reversed), the other ("I don't know.") none
    assert eo["n"] == 2 and eo["rubric_judge"] == 1.0 and eo["recall"] == pytest.approx(0.5)
    assert m["beam"]["tau_undefined"] == 0


def test_paper_export_adds_the_beam_table(downloaded):
    from memrecall.experiments import parse_per_question
    from memrecall.report.paper import build_tables

    a, paths, _, tmp = downloaded
    q = read_table(paths["questions"], "questions")
    write_table(answers_frame(q), a / "answers.parquet", table="answers", stage="read")
    judge(group("judge", "rule"), a, paths)
    m = aggregate(a, paths, tmp)
    pq = parse_per_question((tmp / "reports" / "per_question.csv").read_text())
    run = {
        "name": "beam-rule",
        "group": "baseline",
        "benchmark": "beam",
        "params": {"reader.name": "file"},
        "metrics": m,
        "per_question": pq,
    }
    tables = {t.name: t for t in build_tables([run], n_resamples=100, seed=0)}
    row = tables["table_beam"].rows[0]
    assert row["information_extraction"] == pytest.approx(5 / 6)
    assert row["overall"] == m["beam"]["overall"] and row["summarization"] is None
    md = tables["table_beam"].to_markdown()
    assert "| IE |" in md or " IE " in md
    assert "EO: Kendall tau-b" in md


def test_a_routed_judge_sends_what_the_rules_cannot_judge_to_the_llm_judge(downloaded, fake_key):
    """judge=routed on BEAM: the rules' scores stay where they judged; the answers they cannot
    judge (summarization, ...) go to the LLM judge, and only those are sent; the report says
    who judged what, and the abilities the rules could not score are scored."""
    import re

    from fake_openai_server import FakeOpenAIServer

    a, paths, _, tmp = downloaded
    q = read_table(paths["questions"], "questions").filter(pl.col("conversation_id") == "128K_1")
    write_table(
        q, paths["questions"], table="questions", stage="download", extra_meta={"benchmark": "beam"}
    )
    write_table(answers_frame(q), a / "answers.parquet", table="answers", stage="read")
    ruled = judge(group("judge", "rule"), a, paths, "rule")
    cannot = sorted(ruled.filter(pl.col("score").is_null())["question_id"])
    assert "128K_1_summarization_0" in cannot

    def every_item_met(messages):  # the own judge's rubric reply: one 1 per item
        n = int(re.search(r"JSON list of (\d+) numbers", messages[-1]["content"]).group(1))
        return json.dumps([1] * n)

    with FakeOpenAIServer(answer=every_item_met) as srv:
        cfg = group("judge", "routed")
        cfg["runtime"]["per_member"] = {"gpt4o": srv.runtime()}
        v = judge(cfg, a, paths)
        assert srv.total_requests == len(cannot)  # nothing the rules judged was sent
    referred = v.filter(pl.col("referred").is_not_null())
    assert sorted(referred["question_id"]) == cannot
    assert set(referred["referred"]) == {"the rules cannot judge it"}
    assert referred["score"].to_list() == [1.0] * len(cannot)  # the LLM judge's
    kept = v.filter(pl.col("referred").is_null()).select("question_id", "score")
    assert kept.equals(ruled.filter(pl.col("score").is_not_null()).select("question_id", "score"))
    m = aggregate(a, paths, tmp)
    assert m["judge"]["routed"]["referred"] == len(cannot)
    assert not m["judge"]["comparable_to_published"]
    summaries = sum("_summarization_" in qid for qid in cannot)
    assert m["beam"]["judged_by_ability"]["summarization"] == summaries > 0
    md = (tmp / "reports" / "by_type.md").read_text()
    assert f"`gpt4o` the {len(cannot)} they referred (the rules cannot judge it: " in md
