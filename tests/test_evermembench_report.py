"""EverMemBench's reports: the nine sub-task scores and their unweighted mean (the paper's
Average), the recall sub-tasks apart, the two forms apart, and which judge scored what."""

import polars as pl
import pytest

from memrecall.benchmarks.evermembench import report
from memrecall.benchmarks.evermembench.subtasks import CODES


def frames(
    correct_by_code: dict, form_of=lambda c: "open" if c.startswith("F_") else "multiple_choice"
):
    qs, ans, pq = [], [], []
    for code, values in correct_by_code.items():
        for i, c in enumerate(values):
            qid = f"{code}_Top01_{i:03d}"
            mc = form_of(code) == "multiple_choice"
            qs.append(
                {
                    "question_id": qid,
                    "topic": "01",
                    "form": form_of(code),
                    "answer": "B" if mc else "x",
                }
            )
            ans.append(
                {
                    "question_id": qid,
                    "hypothesis": ("B" if c else "no idea") if mc else "y",
                    "error": None if c is not None else "timeout",
                }
            )
            pq.append(
                {
                    "question_id": qid,
                    "question_type": code,
                    "is_abstention": False,
                    "correct": c,
                    "judge_error": False,
                    "reader_error": c is None,
                }
            )
    return (
        pl.DataFrame(qs),
        pl.DataFrame(
            ans, schema={"question_id": pl.String, "hypothesis": pl.String, "error": pl.String}
        ),
        pl.DataFrame(pq, schema_overrides={"correct": pl.Boolean}),
    )


def test_average_is_the_unweighted_mean_of_nine():
    # Table 4's GPT-4.1-mini full-context row as sub-task accuracies over 100 questions each
    # would give 37.44; here: sizes differ, so pooled and unweighted means differ.
    data = {c: [True] * (i + 1) + [False] * (9 - i) for i, c in enumerate(CODES)}
    data["F_SH"] = [True] * 30 + [False] * 70 + [None]  # a reader failure: left out
    q, a, pq = frames(data)
    m, cols = report.extra_metrics(q, a, pq, n_boot=200)
    e = m["evermembench"]
    accs = [0.3] + [(i + 1) / 10 for i in range(1, 9)]
    assert e["n_subtasks"] == 9 and e["average"] == pytest.approx(sum(accs) / 9)
    assert e["average_ci"]["low"] <= e["average"] <= e["average_ci"]["high"]
    assert e["recall"]["mean"] == pytest.approx((0.3 + 0.2 + 0.3) / 3)
    assert e["recall"]["pooled"] == pytest.approx((30 + 2 + 3) / 120)
    assert e["by_form"]["open"]["n"] == 120 and e["by_form"]["multiple_choice"]["n"] == 60
    assert e["scored_by"]["multiple_choice"].startswith("exact-match")
    # MC "no idea" replies read as "A" by the released rule: counted
    assert e["mc_markers_as_letters"] == sum(9 - i for i in range(3, 9))
    assert cols.columns == [
        "question_id",
        "topic",
        "form",
        "scored_by",
        "reply_letter",
        "marker_as_letter",
    ]
    assert set(cols.filter(pl.col("form") == "open")["scored_by"]) == {"judge"}


def test_no_average_without_all_nine_and_recall_alone():
    q, a, pq = frames({"F_SH": [True, False], "F_MH": [False, False], "F_TP": [True]})
    e = report.extra_metrics(q, a, pq, n_boot=200)[0]["evermembench"]
    assert e["average"] is None and e["n_subtasks"] == 3
    assert e["mean_of_present_subtasks"] == pytest.approx((0.5 + 0 + 1) / 3)
    assert e["recall"]["mean"] == pytest.approx(0.5) and e["recall"]["pooled"] == 0.4
    assert e["by_form"]["multiple_choice"]["n"] == 0
    assert e["scored_by"]["multiple_choice"] is None


def test_by_subtask_markdown_says_who_scored_what():
    q, a, pq = frames({c: [True, False] for c in CODES})
    extra = report.extra_metrics(q, a, pq, n_boot=200)[0]
    ci = {"low": 0.1, "high": 0.9}
    metrics = {
        **extra,
        "qa": {
            "ci": {"by_type": {c: ci for c in CODES}, "overall": ci},
            "n_judged": 18,
            "overall": 0.5,
        },
        "judge": {
            "name": "official",
            "kind": "official",
            "model": "gemini/x",
            "comparable_to_published": False,
            "comparability": "not the model",
            "official_script_sha256": "ab" * 32,
        },
        "judge_errors": 0,
        "reader_errors": 0,
        "refusal_rate": 0.0,
        "cost_usd": 0.0,
    }
    md = report.by_subtask_markdown(metrics)
    assert "Multiple choice: scored by the released rule" in md
    assert "Open answers: judge `official` (gemini/x)" in md and "not the model" in md
    assert "| **Average** (unweighted mean of the nine sub-tasks, the paper's) | 18 | 50.0 |" in md
    assert "| memory awareness | MA_P (proactivity) | multiple choice | 2 | 50.0 |" in md
    table = report.paper_table([{"name": "run1", "metrics": metrics, "params": {}}])
    assert table.rows[0]["average"] == pytest.approx(0.5)
