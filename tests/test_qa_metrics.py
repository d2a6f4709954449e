"""QA metrics on hand-made verdicts with accuracies worked out by hand."""

from __future__ import annotations

from fractions import Fraction as F

import polars as pl
import pytest

from conftest import SAMPLE_FILE
from memrecall.benchmarks.longmemeval import BENCHMARK as LME
from memrecall.benchmarks.longmemeval.data import load_records, normalise
from memrecall.errors import InputError
from memrecall.eval.qa_metrics import qa_metrics

SSU, SSA, SSP = "single-session-user", "single-session-assistant", "single-session-preference"
MS, KU, TR = "multi-session", "knowledge-update", "temporal-reasoning"

# (question_id, type, label, reader_failed)
ROWS = [
    ("q01", SSU, True, False),
    ("q02", SSU, False, False),
    ("q03_abs", SSU, True, False),
    ("q04", SSA, True, False),
    ("q05", SSA, None, False),  # judge error
    ("q06", SSP, False, False),
    ("q07", MS, True, False),
    ("q08", MS, None, True),  # reader error
    ("q09", KU, False, False),
    ("q10_abs", KU, True, False),
    ("q11", TR, True, False),
    ("q12", TR, True, False),
    ("q13", TR, False, False),
]


def make(rows=ROWS):
    q = pl.DataFrame(
        {
            "question_id": [r[0] for r in rows],
            "question_type": [r[1] for r in rows],
            "is_abstention": [r[0].endswith("_abs") for r in rows],
        }
    )
    v = pl.DataFrame(
        {
            "question_id": [r[0] for r in rows],
            "label": [r[2] for r in rows],
            "reader_failed": [r[3] for r in rows],
        },
        schema={"question_id": pl.String, "label": pl.Boolean, "reader_failed": pl.Boolean},
    )
    return q, v


def test_hand_computed_accuracies():
    m = qa_metrics(*make(), known=LME.report_order)
    # 13 questions, 1 judge error and 1 reader error left out: 11 judged, 7 correct.
    assert m["n_questions"] == 13 and m["n_judged"] == 11 and m["n_correct"] == 7
    assert m["overall"] == pytest.approx(7 / 11)
    by_type = {SSU: F(2, 3), SSA: F(1, 1), SSP: F(0), MS: F(1), KU: F(1, 2), TR: F(2, 3)}
    assert m["by_type"] == pytest.approx({t: float(x) for t, x in by_type.items()})
    assert list(m["by_type"]) == [SSU, SSA, SSP, MS, KU, TR]  # LongMemEval's official order
    # Without a benchmark's order the types come alphabetically, with the same figures.
    plain = qa_metrics(*make())
    assert list(plain["by_type"]) == sorted(by_type) and plain["by_type"] == m["by_type"]
    assert m["task_averaged"] == pytest.approx(float(sum(by_type.values()) / 6))  # 0.63888...
    assert m["task_averaged"] == pytest.approx(0.6388888889)
    assert m["abstention"] == 1.0 and m["n_abstention"] == 2 and m["n_abstention_judged"] == 2
    assert m["judge_errors"] == 1 and m["reader_errors"] == 1
    assert m["n_by_type"] == {SSU: 3, SSA: 1, SSP: 1, MS: 1, KU: 2, TR: 3}
    assert m["n_types"] == 6


def test_errors_are_not_counted_as_wrong():
    """Turning the judge error and the reader error into 'wrong' would give 7/13, not 7/11."""
    m = qa_metrics(*make())
    assert m["overall"] != pytest.approx(7 / 13)
    # A label on a reader-failed row is ignored (there was no answer to judge).
    rows = [r if r[0] != "q08" else ("q08", MS, False, True) for r in ROWS]
    assert qa_metrics(*make(rows))["overall"] == pytest.approx(7 / 11)


def test_abstention_is_the_questions_tables_column():
    """Shared metrics read is_abstention, never the id: LongMemEval's `_abs` rule is applied
    once, by its normaliser (next test)."""
    q, v = make()
    other = q.with_columns(is_abstention=pl.col("question_id").is_in(["q01", "q09"]))
    m = qa_metrics(other, v)  # q01 right, q09 wrong; the `_abs` ids are now plain questions
    assert m["n_abstention"] == 2 and m["abstention"] == 0.5
    m = qa_metrics(q.with_columns(pl.lit(False).alias("is_abstention")), v)
    assert m["n_abstention"] == 0 and m["abstention"] is None


def test_longmemeval_normaliser_marks_abstention_by_the_id_suffix():
    ds = normalise(load_records(SAMPLE_FILE), str(SAMPLE_FILE))
    ids, flags = ds.questions["question_id"].to_list(), ds.questions["is_abstention"].to_list()
    assert flags == [i.endswith("_abs") for i in ids] and any(flags) and not all(flags)
    v = pl.DataFrame({"question_id": ids, "label": [True] * len(ids)})
    assert qa_metrics(ds.questions, v)["n_abstention"] == sum(flags)


def test_fewer_types_and_empty_groups():
    rows = [("a", MS, True, False), ("b", MS, False, False), ("c", KU, None, False)]
    m = qa_metrics(*make(rows))
    assert m["by_type"] == {MS: 0.5, KU: None}
    assert m["task_averaged"] == 0.5 and m["n_types"] == 1
    assert m["abstention"] is None
    m = qa_metrics(*make([("a", MS, None, True)]))
    assert m["overall"] is None and m["task_averaged"] is None and m["reader_errors"] == 1


def test_verdicts_without_reader_failed_column():
    q, v = make()
    m = qa_metrics(q, v.drop("reader_failed"))
    assert m["reader_errors"] == 0 and m["judge_errors"] == 2 and m["n_judged"] == 11


def test_bad_verdict_tables_name_the_question():
    q, v = make()
    with pytest.raises(InputError, match=r"no verdict.*'q07'.*question_id"):
        qa_metrics(q, v.filter(pl.col("question_id") != "q07"), verdicts_file="v.parquet")
    with pytest.raises(InputError, match=r"more than one verdict.*'q02'"):
        qa_metrics(q, pl.concat([v, v.filter(pl.col("question_id") == "q02")]))
    extra = pl.DataFrame({"question_id": ["zz"], "label": [True], "reader_failed": [False]})
    with pytest.raises(InputError, match=r"not in questions.*'zz'"):
        qa_metrics(q, pl.concat([v, extra]))
