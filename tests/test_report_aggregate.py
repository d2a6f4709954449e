"""The aggregate stage on hand-made artifacts: every reported number worked out by hand, the
contract keys of metrics.json, byte-identical reruns, and the rule-judge caveat."""

from __future__ import annotations

import json

import polars as pl
import pytest

from confs import group
from memrecall.artifacts import write_table
from memrecall.errors import ConfigError
from memrecall.judge.stage import run_judge
from memrecall.report.aggregate import print_summary, run_aggregate
from tables import write_downloaded

SSU, SSA, MS, KU, TR = (
    "single-session-user",
    "single-session-assistant",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
)
HAY = ["s1", "s2", "s3", "s4", "s5", "s6"]
# qid, type, question, answer, evidence, hypothesis, reader error, context read, refused, cost
QUESTIONS = [
    (
        "q1",
        SSU,
        "What was my last name before I changed it?",
        "Johnson",
        ["s1"],
        "Your last name was Johnson.",
        None,
        ["s1", "s2"],
        False,
        0.010,
    ),
    (
        "q2",
        MS,
        "How many fish are there in total in both of my aquariums?",
        "17",
        ["s2", "s3"],
        "You have 10 fish.",
        None,
        ["s2", "s4"],
        False,
        0.020,
    ),
    (
        "q3",
        KU,
        "Where is the painting currently hanging?",
        "in my bedroom",
        ["s4"],
        "It hangs in your bedroom now.",
        None,
        ["s1"],
        False,
        0.030,
    ),
    (
        "q4",
        TR,
        "How many days ago did I watch the Super Bowl?",
        "17 days ago. 18 days (including the last day) is also acceptable.",
        ["s5"],
        "18 days ago.",
        None,
        ["s5"],
        False,
        0.040,
    ),
    (
        "q5_abs",
        SSU,
        "How long was I in Korea for?",
        "You did not mention this information.",
        ["s1"],
        "You never mentioned Korea.",
        None,
        ["s1"],
        False,
        0.050,
    ),
    (
        "q6",
        SSA,
        "Which restaurant did you recommend?",
        "Miss Bee Providore",
        ["s6"],
        None,
        "APIError: 500 after 3 attempts",
        [],
        False,
        0.0,
    ),
    (
        "q7",
        MS,
        "How many doctors did I visit?",
        "3",
        ["s3"],
        "I'm not sure.",
        None,
        ["s3"],
        True,
        0.060,
    ),
]
RANKING = {
    "q1": ["s1", "s2", "s3"],
    "q2": ["s2", "s4", "s1", "s3"],
    "q3": ["s1", "s4"],
    "q4": ["s5"],
    "q5_abs": ["s2"],
    "q6": ["s6"],
    "q7": ["s1", "s2"],
}


@pytest.fixture
def arts(tmp_path):
    a = tmp_path / "artifacts"
    q = pl.DataFrame(
        [
            {
                "question_id": r[0],
                "question_type": r[1],
                "is_abstention": r[0].endswith("_abs"),
                "question": r[2],
                "answer": r[3],
                "question_date": "2023/05/30 (Tue) 10:00",
                "haystack_session_ids": HAY,
                "answer_session_ids": r[4],
            }
            for r in QUESTIONS
        ]
    )
    turns = []
    for s in HAY:  # s6's evidence is in the assistant turn: no session-level gold
        turns.append(
            {
                "session_id": s,
                "turn_index": 0,
                "role": "user",
                "content": "u",
                "has_answer": s != "s6",
            }
        )
        turns.append(
            {
                "session_id": s,
                "turn_index": 1,
                "role": "assistant",
                "content": "a",
                "has_answer": s == "s6",
            }
        )
    t = pl.DataFrame(turns)

    def cands(ranking):
        return pl.DataFrame(
            [
                {"question_id": qid, "rank": i + 1, "session_id": s, "score": 1.0 - i / 10}
                for qid, ss in sorted(ranking.items())
                for i, s in enumerate(ss)
            ]
        )

    ans = pl.DataFrame(
        [
            {
                "question_id": r[0],
                "hypothesis": r[5],
                "model": "fake/reader",
                "prompt_id": "default@x",
                "request_hash": f"h{r[0]}",
                "input_tokens": 100 * (i + 1),
                "output_tokens": 10 * (i + 1),
                "reasoning_tokens": 0,
                "cost_usd": r[9],
                "latency_s": 0.5 * (i + 1),
                "refused": r[8],
                "error": r[6],
                "context_session_ids": r[7],
            }
            for i, r in enumerate(QUESTIONS)
        ]
    )
    paths = {k: a / f"{k}.parquet" for k in ("questions", "turns", "answers", "verdicts")}
    write_downloaded(q, paths["questions"], table="questions")
    write_downloaded(t, paths["turns"], table="turns")
    write_table(ans, paths["answers"], table="answers", stage="read")
    cand_paths = {}
    rewrite = {**RANKING, "q7": ["s3", "s1"]}
    for stage, ranking in (("retrieve", RANKING), ("rerank", RANKING), ("rewrite", rewrite)):
        cand_paths[stage] = a / f"candidates_{stage}.parquet"
        write_table(cands(ranking), cand_paths[stage], table="candidates", stage=stage)
    # The rewrite stage's LLM calls cost 0.04 in all (two questions rewritten).
    write_table(
        pl.DataFrame({"question_id": ["q1", "q7"], "cost_usd": [0.01, 0.03]}),
        a / "rewrites.parquet",
        stage="rewrite",
    )
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
        "candidates": cand_paths,
        "rewrites": a / "rewrites.parquet",
        "out_dir": tmp_path / "reports",
    }


def run(arts, **cfg):
    return run_aggregate({"bootstrap_samples": 500, "seed": 0, **cfg}, **arts)


def test_metrics_by_hand(arts):
    m = run(arts)
    # Contract keys (docs/contract.md) are all there.
    assert {"n_questions", "qa", "retrieval", "cost_usd", "refusal_rate", "judge_errors"} <= set(m)
    assert {"overall", "task_averaged", "abstention", "by_type"} <= set(m["qa"])
    assert {"session", "turn"} <= set(m["retrieval"])
    assert m["n_questions"] == 7
    # Judged: q1 T, q2 F, q3 T, q4 T (18 days: the listed alternative), q5_abs T, q7 F;
    # q6 is a reader error, left out.
    qa = m["qa"]
    assert qa["overall"] == pytest.approx(round(4 / 6, 6))
    assert qa["by_type"] == {SSU: 1.0, SSA: None, MS: 0.0, KU: 1.0, TR: 1.0}
    assert qa["task_averaged"] == 0.75 and qa["n_types"] == 4
    assert qa["abstention"] == 1.0
    assert m["judge_errors"] == 0 and m["reader_errors"] == 1
    assert qa["ci"]["by_type"][MS] == {"low": 0.0, "high": 0.0}
    assert qa["ci"]["by_type"][KU] is None  # a single question: no interval
    lo, hi = qa["ci"]["overall"]["low"], qa["ci"]["overall"]["high"]
    assert lo <= 4 / 6 <= hi
    # Retrieval on the retrieve stage; gold: q1 {s1}, q2 {s2,s3}, q3 {s4}, q4 {s5}, q7 {s3};
    # q5_abs is excluded and q6 has no user has_answer turn.
    s = m["retrieval"]["session"]
    assert m["retrieval"]["stage"] == "retrieve" and m["retrieval"]["n"] == 5
    assert s["recall_any@1"] == pytest.approx(3 / 5)
    assert s["recall_all@5"] == pytest.approx(4 / 5)
    assert m["retrieval_by_stage"]["rewrite"]["session"]["recall_any@1"] == pytest.approx(4 / 5)
    # Error matrix over q1, q2, q3, q4, q7 with the context the reader read.
    assert m["error_matrix"] == {
        "retrieved_correct": 2,
        "retrieved_wrong": 1,
        "missed_correct": 1,
        "missed_wrong": 1,
        "n": 5,
    }
    # Cost, refusals, tokens.
    assert m["cost_usd"] == pytest.approx(0.25)  # read 0.21 + rewrite 0.04 + judge 0
    assert m["cost_by_stage"] == pytest.approx({"rewrite": 0.04, "read": 0.21, "judge": 0.0})
    assert m["refusal_rate"] == pytest.approx(round(1 / 6, 6))
    assert m["tokens"]["input"] == sum(100 * i for i in range(1, 8))
    assert m["latency_s"]["sum"] == pytest.approx(0.5 * (1 + 2 + 3 + 4 + 5 + 7))
    assert m["judge"] == {
        "name": "rule",
        "kind": "rule",
        "model": "rule-v1",
        "comparable_to_published": False,
        "comparability": "rule judge: not comparable",
        # the six answers the rules judged (the seventh's reader failed): none turns or
        # corrects itself, so a routed judge would refer none of them
        "in_doubt": {"judged": 6, "referred": 0, "reasons": {}},
    }
    assert m["missing_answers"] == 0


def test_reports_written_and_byte_identical_on_rerun(arts):
    run(arts)
    out = arts["out_dir"]
    names = [
        "metrics.json",
        "by_type.md",
        "retrieval.md",
        "error_matrix.md",
        "cost.md",
        "per_question.csv",
        "plots/by_type.json",
        "plots/retrieval_at_k.json",
        "figures/by_type.png",
    ]
    first = {n: (out / n).read_bytes() for n in names}
    run(arts)
    assert {n: (out / n).read_bytes() for n in names} == first
    text = (out / "metrics.json").read_text()
    assert text == json.dumps(json.loads(text), sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert first["figures/by_type.png"][:8] == b"\x89PNG\r\n\x1a\n"

    by_type = (out / "by_type.md").read_text()
    assert "not comparable with LLM-judged published numbers" in by_type
    assert "| multi-session | 2 | 0.0 | [0.0, 0.0] |" in by_type
    assert "| overall (micro) | 6 | 66.7 |" in by_type
    assert "reader errors (the reader's call failed): 1" in by_type
    em = (out / "error_matrix.md").read_text()
    assert "| evidence retrieved | 2 (40.0%) | 1 (20.0%) | 3 |" in em
    pq = pl.read_csv(out / "per_question.csv")
    assert pq.height == 7
    assert pq.filter(pl.col("question_id") == "q6")["reader_error"].to_list() == [True]
    plot = json.loads((out / "plots" / "by_type.json").read_text())
    assert [r["question_type"] for r in plot] == [SSU, SSA, MS, KU, TR, "overall", "task-averaged"]
    assert {"question_type": "overall", "accuracy": pytest.approx(4 / 6, abs=1e-6)}.items() <= next(
        r for r in plot if r["question_type"] == "overall"
    ).items()
    at_k = json.loads((out / "plots" / "retrieval_at_k.json").read_text())
    assert [r["k"] for r in at_k] == [1, 3, 5, 10, 30, 50]
    assert at_k[0]["retrieve_recall_any"] == pytest.approx(0.6)
    assert at_k[0]["rewrite_recall_any"] == pytest.approx(0.8)


def test_only_the_official_judge_with_the_pinned_model_is_comparable(arts, tmp_path):
    v = pl.read_parquet(arts["verdicts"]).with_columns(
        pl.lit("gpt-4o-2024-08-06").alias("judge_model"), pl.col("label").alias("strict_label")
    )
    official = tmp_path / "v_official.parquet"
    write_table(
        v,
        official,
        table="verdicts",
        stage="judge",
        params={"name": "official", "kind": "official", "model": "gpt-4o-2024-08-06"},
        extra_meta={
            "official_script_sha256": "ab" * 32,
            "provenance": {
                "answers": 6,
                "endpoints": {"api.openai.com": 6},
                "response_models": {"gpt-4o-2024-08-06": 6},
            },
        },
    )
    m = run({**arts, "verdicts": official})
    assert m["judge"]["comparable_to_published"] is True
    assert m["judge"]["official_script_sha256"] == "ab" * 32
    assert m["judge"]["strict_parse_disagreements"] == 0
    assert "not comparable" not in (arts["out_dir"] / "by_type.md").read_text()
    # The official model with our own prompt wording: not comparable, and said so.
    paraphrased = tmp_path / "v_gpt4o.parquet"
    write_table(
        v.drop("strict_label"),
        paraphrased,
        table="verdicts",
        stage="judge",
        params={"name": "gpt4o", "kind": "llm", "model": "openai/gpt-4o-2024-08-06"},
    )
    m = run({**arts, "verdicts": paraphrased})
    assert m["judge"]["comparable_to_published"] is False
    assert m["judge"]["comparability"] == "official model, own wording: not comparable"
    assert (
        "official model, own wording: not comparable"
        in (arts["out_dir"] / "by_type.md").read_text()
    )
    # The official prompts with another model: not comparable either.
    for params in (
        {"name": "official", "kind": "official", "model": "openai/gpt-4o-mini"},
        {"name": "deepseek", "kind": "llm", "model": "deepseek/deepseek-chat"},
    ):
        other = tmp_path / "v_other.parquet"
        write_table(
            v.with_columns(pl.lit(params["model"]).alias("judge_model")),
            other,
            table="verdicts",
            stage="judge",
            params=params,
        )
        assert run({**arts, "verdicts": other})["judge"]["comparable_to_published"] is False


def test_print_summary(arts, capsys):
    run(arts)
    capsys.readouterr()
    print_summary(arts["out_dir"] / "metrics.json", arts["questions"])  # its benchmark's order
    out = capsys.readouterr().out
    assert "multi-session                   2     0.0   [0.0, 0.0]" in out
    assert "overall (micro)                 6    66.7" in out
    assert "task-averaged (4 types)         6    75.0" in out
    assert "reader errors 1" in out and "not comparable" in out
    # metrics.json sorts its keys; the table keeps the official type order.
    firsts = [line.split()[0] for line in out.splitlines()[2:7]]
    assert firsts == [SSU, SSA, MS, KU, TR]


def test_bad_report_config(arts):
    with pytest.raises(ConfigError, match="report.bootstrap_samples"):
        run(arts, bootstrap_samples="many")
    with pytest.raises(ConfigError, match="report.seed"):
        run(arts, seed=1.5)


def test_a_panel_run_reports_every_judge_and_the_band(arts, tmp_path):
    v = pl.read_parquet(arts["verdicts"])
    lenient = pl.when(pl.col("label").is_null()).then(None).otherwise(True)
    v = v.with_columns(pl.col("label").alias("label:rule"), lenient.alias("label:lenient"))
    panel = tmp_path / "v_panel.parquet"
    write_table(
        v,
        panel,
        table="verdicts",
        stage="judge",
        params={"name": "panel", "kind": "panel", "model": None},
    )
    m = run({**arts, "verdicts": panel})
    assert m["qa"]["overall"] == pytest.approx(4 / 6)  # the first member's labels
    p = m["panel"]
    assert p["judges"] == ["rule", "lenient"] and p["n_common"] == 6
    assert p["band"]["low"] == pytest.approx(4 / 6) and p["band"]["high"] == 1.0
    assert p["pairs"][0]["flips_no_to_yes"] == 2
    judge_dir = arts["out_dir"] / "judge"
    assert "**Band: 66.7–100.0%**" in (judge_dir / "panel.md").read_text()
    (judge_dir / "hypotheses.jsonl.eval-results-old-judge").write_text("stale\n")
    run(arts)  # back to a single judge: the folder is replaced whole, nothing stale is left
    assert sorted(f.name for f in judge_dir.iterdir()) == ["hypotheses.jsonl"]
    assert not list(arts["out_dir"].glob(".judge.*"))  # no temporary folder left behind
