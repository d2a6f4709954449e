"""LoCoMo through the stages on a hand-made conversation: retrieval keys with speaker names,
per-question turn gold, reader context and prompts, rule and LLM judging, and the aggregate's
per-category accuracy and F1, every number worked out by hand."""

from __future__ import annotations

import json

import polars as pl
import pytest

from confs import group
from fake_openai_server import FakeOpenAIServer, last_user
from memrecall.artifacts import write_table
from memrecall.benchmarks.locomo import BENCHMARK as LOCOMO
from memrecall.benchmarks.locomo.judge import build_prompt
from memrecall.errors import ConfigError
from memrecall.eval.retrieval_metrics import retrieval_metrics
from memrecall.judge.stage import judge_answers, run_judge
from memrecall.read.reader import answer_messages, build_contexts, reader_settings
from memrecall.report.aggregate import run_aggregate
from memrecall.retrieval.keys import session_keys
from test_locomo_data import conversation, normalised

# question -> hypothesis; by hand (rule judge / LoCoMo F1):
#   q000 cat 2 "7 May 2023"            right / F1 1
#   q001 cat 1 "Paris, cat" <- "Paris" wrong (cat missing) / F1 mean(1, 0) = 0.5
#   q002 cat 5                          right (says so)   / F1 1 (phrase rule)
#   q003 cat 4 "41" <- "Ann is 41 years old"  right / F1: p=1/5 r=1 -> 1/3
HYP = {
    "conv-x_q000": "7 May 2023",
    "conv-x_q001": "Paris",
    "conv-x_q002": "No information available.",
    "conv-x_q003": "Ann is 41 years old",
}
# retrieve: sessions best first, each with its turns best first (round granularity)
RANKING = {
    "conv-x_q000": [("conv-x_D2", [1, 0]), ("conv-x_D1", [1, 0])],
    "conv-x_q001": [("conv-x_D2", [0, 1]), ("conv-x_D1", [1, 0])],
    "conv-x_q002": [("conv-x_D2", [1, 0]), ("conv-x_D1", [0, 1])],
    "conv-x_q003": [("conv-x_D1", [0, 1]), ("conv-x_D2", [0, 1])],
}


@pytest.fixture
def ds():
    return normalised([conversation()])


def candidates() -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "question_id": q,
                "rank": i + 1,
                "session_id": s,
                "score": 1.0 - i / 10,
                "turn_indices": t,
            }
            for q, ranked in sorted(RANKING.items())
            for i, (s, t) in enumerate(ranked)
        ],
        schema={
            "question_id": pl.String,
            "rank": pl.Int32,
            "session_id": pl.String,
            "score": pl.Float64,
            "turn_indices": pl.List(pl.Int32),
        },
    )


def test_keys_carry_speaker_names(ds):
    keys = session_keys(
        ds.sessions,
        ds.turns,
        group("embedder", "minilm", granularity="round"),
        speaker_column=LOCOMO.speaker_column,
    )
    by_unit = dict(zip(keys["unit_id"], keys["text"]))
    # every turn is a round of its own (both speakers are people), ids follow turn order
    assert by_unit == {
        "conv-x_D1_1": "Ann: I adopted a dog yesterday.",
        "conv-x_D1_2": "Bo: Look at mine! and shared a photo of a cat on a sofa.",
        "conv-x_D2_1": "Bo: I moved to Paris.",
        "conv-x_D2_2": "Ann: I started painting.",
    }
    sess = session_keys(
        ds.sessions,
        ds.turns,
        group("embedder", "minilm", granularity="session"),
        speaker_column=LOCOMO.speaker_column,
    )
    assert sess["text"][1] == "Bo: I moved to Paris.\nAnn: I started painting."


def test_turn_gold_is_each_questions_own_evidence(ds):
    m = retrieval_metrics(
        ds.questions,
        ds.turns,
        candidates(),
        ks=(1, 3, 5),
        golds=LOCOMO.gold(ds.questions, ds.turns),
    )
    # q002 is adversarial (excluded like abstention), q003's evidence names no turn (no gold)
    assert m["n"] == 2 and m["n_abstention"] == 1 and m["n_no_gold"] == 1
    # session gold: q000 {D1}, q001 {D2, D1}
    assert m["session"]["recall_any@1"] == 0.5 and m["session"]["recall_all@1"] == 0.0
    assert m["session"]["recall_all@5"] == 1.0
    # turn gold: q000 {D1_1} only (D1:2 is q001's evidence, also marked has_answer) ranked
    # D2_2 D2_1 D1_2 D1_1 -> not in the top 3; q001 {D2_1, D1_2} ranked D2_1 D2_2 D1_2 D1_1
    assert m["turn"]["recall_any@3"] == 0.5
    assert m["turn"]["recall_all@3"] == 0.5 and m["turn"]["recall_any@1"] == 0.5


def test_reader_context_shows_speakers_and_uses_the_two_person_prompt(ds):
    settings = reader_settings(
        group("reader", "local", history_format="nl", top_k_context=2, max_chars_per_session=1000),
        LOCOMO,
    )
    assert settings.prompt.name == "locomo_default"
    ctx = {
        c.question_id: c
        for c in build_contexts(
            settings, ds.questions, ds.sessions, ds.turns, candidates(), speaker_column="speaker"
        )
    }
    text = answer_messages(settings, ctx["conv-x_q000"])[0]["content"]
    assert "two people" in text and "No information available" in text
    assert "you (the assistant)" not in text
    assert "Ann: I adopted a dog yesterday." in text and "Bo: I moved to Paris." in text
    # sessions in date order, with their dates
    assert text.index("2023/05/08 (Mon) 13:56") < text.index("2023/06/01 (Thu) 10:05")
    with pytest.raises(ConfigError, match="the LoCoMo prompts"):
        reader_settings(
            group(
                "reader",
                "local",
                prompt="type_aware",
                history_format="nl",
                top_k_context=2,
                max_chars_per_session=1000,
            ),
            LOCOMO,
        )


def answers_frame(hyp=HYP, errors=None) -> pl.DataFrame:
    errors = errors or {}
    return pl.DataFrame(
        [
            {
                "question_id": q,
                "hypothesis": None if q in errors else h,
                "model": "m",
                "prompt_id": "p",
                "request_hash": q,
                "input_tokens": 1,
                "output_tokens": 1,
                "reasoning_tokens": 0,
                "cost_usd": 0.0,
                "latency_s": 0.1,
                "refused": False,
                "error": errors.get(q),
                "context_session_ids": ["conv-x_D1", "conv-x_D2"],
            }
            for q, h in sorted(hyp.items())
        ]
    )


def test_rule_judge_by_category(ds):
    v = judge_answers(LOCOMO, ds.questions, answers_frame(), group("judge", "rule"))
    assert dict(zip(v["question_id"], v["label"])) == {
        "conv-x_q000": True,
        "conv-x_q001": False,
        "conv-x_q002": True,
        "conv-x_q003": True,
    }
    # an adversarial question answered with the misleading answer is wrong
    v = judge_answers(
        LOCOMO,
        ds.questions,
        answers_frame({**HYP, "conv-x_q002": "Bo painted a cat"}),
        group("judge", "rule"),
    )
    assert v.filter(pl.col("question_id") == "conv-x_q002")["label"][0] is False


def test_llm_judge_prompts(ds, fresh_cache, fake_key):
    seen = []

    def fake(messages):
        seen.append(last_user(messages))
        return "yes"

    with FakeOpenAIServer(answer=fake) as srv:
        cfg = group(
            "judge",
            "gpt4o",
            name="fake",
            model="openai/fake-judge",
            max_tokens=5,
            **srv.runtime(concurrency=2),
        )
        v = judge_answers(LOCOMO, ds.questions, answers_frame(), cfg)
    assert v["label"].to_list() == [True] * 4 and len(seen) == 4
    adv = next(p for p in seen if "What did Bo paint?" in p)
    assert "misleading answer it invites is: painting" in adv
    assert "Not mentioned in the conversation" not in adv
    assert (
        v.filter(pl.col("question_id") == "conv-x_q002")["prompt_hash"][0]
        == build_prompt(5, "q", "a", "h").prompt_hash
    )
    multi = next(p for p in seen if "Where does Bo live" in p)
    assert "Gold answer: Paris, cat" in multi and "Response: Paris" in multi
    # category 3's gold is cut at ';' for the judge too
    p = build_prompt(3, "Would she?", "Likely no; because X", "no").messages[0]["content"]
    assert "Gold answer: Likely no\n" in p and "because X" not in p


def write_run(tmp_path, ds, answers):
    a = tmp_path / "artifacts"
    paths = {k: a / f"{k}.parquet" for k in ("questions", "turns", "answers", "verdicts")}
    meta = {"benchmark": "locomo"}  # what the download stage records
    write_table(
        ds.questions, paths["questions"], table="questions", stage="download", extra_meta=meta
    )
    write_table(ds.turns, paths["turns"], table="turns", stage="download", extra_meta=meta)
    write_table(answers, paths["answers"], table="answers", stage="read")
    cands = a / "candidates_retrieve.parquet"
    write_table(candidates(), cands, table="candidates", stage="retrieve")
    run_judge(
        group("judge", "rule"),
        questions=paths["questions"],
        answers=paths["answers"],
        out=paths["verdicts"],
    )
    return {
        "questions": paths["questions"],
        "turns": paths["turns"],
        "answers": paths["answers"],
        "verdicts": paths["verdicts"],
        "candidates": {"retrieve": cands},
        "out_dir": tmp_path / "reports",
    }


def test_aggregate_reports_categories_and_f1(tmp_path, ds):
    arts = write_run(tmp_path, ds, answers_frame())
    m = run_aggregate({"bootstrap_samples": 200, "seed": 0}, **arts)
    qa, f1 = m["qa"], m["f1"]
    # headline over categories 1-4: q000 right, q001 wrong, q003 right
    assert qa["overall"] == pytest.approx(round(2 / 3, 6)) and qa["n_judged"] == 3
    assert qa["task_averaged"] == pytest.approx(round((0 + 1 + 1) / 3, 6))
    assert qa["abstention"] == 1.0  # category 5, reported apart
    assert qa["by_category"] == {"1": 0.0, "2": 1.0, "3": None, "4": 1.0, "5": 1.0}
    assert qa["n_by_category"] == {"1": 1, "2": 1, "3": 0, "4": 1, "5": 1}
    assert f1["by_category"] == pytest.approx(
        {"1": 0.5, "2": 1.0, "3": None, "4": round(1 / 3, 6), "5": 1.0}
    )
    assert f1["overall"] == pytest.approx(round((1 + 0.5 + 1 / 3) / 3, 6))
    assert f1["adversarial"] == 1.0 and f1["n"] == 3
    assert m["judge"]["comparable_to_published"] is False
    on_disk = json.loads((arts["out_dir"] / "metrics.json").read_text())
    assert on_disk["f1"] == m["f1"] and on_disk["qa"]["by_category"] == qa["by_category"]
    md = (arts["out_dir"] / "by_type.md").read_text()
    assert "| 1 | multi-hop | 1 | 0.0 |" in md and "adversarial (reported apart)" in md
    assert "| 1–4 | **overall (micro)** | 3 | 66.7 |" in md and "61.1 |" in md
    csv = (arts["out_dir"] / "per_question.csv").read_text().splitlines()
    assert csv[0].endswith(",category,f1") and csv[2].endswith(",1,0.5")


def test_reader_errors_are_left_out_of_f1(tmp_path, ds):
    arts = write_run(tmp_path, ds, answers_frame(errors={"conv-x_q001": "APIError: 500"}))
    m = run_aggregate({"bootstrap_samples": 200, "seed": 0}, **arts)
    assert m["f1"]["by_category"]["1"] is None and m["f1"]["reader_errors"] == 1
    assert m["f1"]["overall"] == pytest.approx(round((1 + 1 / 3) / 2, 6))
    assert m["reader_errors"] == 1 and m["qa"]["overall"] == 1.0


def test_paper_export_adds_the_locomo_table(tmp_path, ds):
    from memrecall.experiments import parse_per_question
    from memrecall.report.paper import build_tables

    arts = write_run(tmp_path, ds, answers_frame())
    m = run_aggregate({"bootstrap_samples": 200, "seed": 0}, **arts)
    pq = parse_per_question((arts["out_dir"] / "per_question.csv").read_text())
    loc = {
        "name": "loc",
        "group": "baseline",
        "params": {"reader.name": "local"},
        "metrics": m,
        "per_question": pq,
        "benchmark": "locomo",
    }
    tables = {t.name: t for t in build_tables([loc], n_resamples=100, seed=0)}
    t = tables["table_locomo"]
    assert [r["run"] for r in t.rows] == ["loc"]
    r = t.rows[0]
    assert r["f1_1"] == 0.5 and r["j_1"] == 0.0 and r["j_5"] == 1.0
    assert r["f1_overall"] == m["f1"]["overall"] and r["j_overall"] == m["qa"]["overall"]
    md = t.to_markdown()
    # scored by the rule judge: its accuracy is not an LLM judge's "J"
    assert "F1 multi-hop" in md and "rule adversarial*" in md and "reported apart" in md
    assert "J adversarial" not in md and r["judge"] == "rule (rule-v1)"
    # the model table shows LoCoMo's categories as its types
    assert tables["table1_models"].rows[0]["multi-hop"] == 0.0


def test_the_run_records_the_two_person_prompt(ds):
    # reports/prompts.json (what MLflow logs) names the LoCoMo prompt the run really sent
    from memrecall.read.reader import rendered_prompts

    settings = reader_settings(
        group("reader", "local", history_format="nl", top_k_context=2, max_chars_per_session=1000),
        LOCOMO,
    )
    ctxs = build_contexts(
        settings, ds.questions, ds.sessions, ds.turns, candidates(), speaker_column="speaker"
    )
    pending = [(ctxs[0], [], answer_messages(settings, ctxs[0]))]
    rec = rendered_prompts(settings, ctxs, pending)
    ((pid, entry),) = rec.items()
    assert pid.startswith("locomo_default:") and "two people" in entry["template"]
    assert "Ann: I adopted a dog yesterday." in entry["example"]["messages"][0]["content"]


def test_bm25_reuses_a_conversations_index_with_identical_scores():
    from memrecall.retrieval.bm25 import BM25Scorer

    cfg = group("retrieval", "bm25")
    conv_a = ["Ann adopted a dog", "Bo moved to Paris", "Ann started painting"]
    conv_b = ["the dog barked at night", "a cat sat on the sofa"]
    shared = BM25Scorer(cfg)
    for query, docs in [("dog", conv_a), ("Paris", conv_a), ("dog", conv_b), ("paint", conv_a)]:
        got = shared.scores(query, docs)
        assert got.tolist() == BM25Scorer(cfg).scores(query, docs).tolist()  # a fresh index
        assert shared._last[0] == tuple(docs)


def test_judge_lines_for_locomo_runs():
    from memrecall.benchmarks.locomo import report as report_locomo
    from memrecall.benchmarks.longmemeval import BENCHMARK as LME
    from memrecall.benchmarks.longmemeval import RULE_CAVEAT

    llm = {"name": "gpt4o", "kind": "llm", "model": "gpt-4o", "comparable_to_published": False}
    rule = {"name": "rule", "kind": "rule", "model": "rule-v1", "comparable_to_published": False}
    assert report_locomo.LLM_NOTE in LOCOMO.judge_lines({"judge": llm})
    assert report_locomo.LLM_NOTE not in LME.judge_lines({"judge": llm})
    assert LOCOMO.judge_lines({"judge": rule})[1] == report_locomo.RULE_CAVEAT
    assert LME.judge_lines({"judge": rule})[1] == RULE_CAVEAT
