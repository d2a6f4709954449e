"""QA metrics on hand-made verdicts with accuracies worked out by hand."""

from __future__ import annotations

from fractions import Fraction as F

import polars as pl
import pytest

from memrecall.errors import InputError
from memrecall.eval.qa_metrics import qa_metrics

SSU, SSA, SSP = "single-session-user", "single-session-assistant", "single-session-preference"
MS, KU, TR = "multi-session", "knowledge-update", "temporal-reasoning"

# (question_id, type, label, reader_failed)
ROWS = [
    ("q01", SSU, True, False), ("q02", SSU, False, False), ("q03_abs", SSU, True, False),
    ("q04", SSA, True, False), ("q05", SSA, None, False),            # judge error
    ("q06", SSP, False, False),
    ("q07", MS, True, False), ("q08", MS, None, True),               # reader error
    ("q09", KU, False, False), ("q10_abs", KU, True, False),
    ("q11", TR, True, False), ("q12", TR, True, False), ("q13", TR, False, False),
]


def make(rows=ROWS):
    q = pl.DataFrame({"question_id": [r[0] for r in rows], "question_type": [r[1] for r in rows],
                      "is_abstention": [r[0].endswith("_abs") for r in rows]})
    v = pl.DataFrame({"question_id": [r[0] for r in rows], "label": [r[2] for r in rows],
                      "reader_failed": [r[3] for r in rows]},
                     schema={"question_id": pl.String, "label": pl.Boolean,
                             "reader_failed": pl.Boolean})
    return q, v


def test_hand_computed_accuracies():
    m = qa_metrics(*make())
    # 13 questions, 1 judge error and 1 reader error left out: 11 judged, 7 correct.
    assert m["n_questions"] == 13 and m["n_judged"] == 11 and m["n_correct"] == 7
    assert m["overall"] == pytest.approx(7 / 11)
    by_type = {SSU: F(2, 3), SSA: F(1, 1), SSP: F(0), MS: F(1), KU: F(1, 2), TR: F(2, 3)}
    assert m["by_type"] == pytest.approx({t: float(x) for t, x in by_type.items()})
    assert list(m["by_type"]) == [SSU, SSA, SSP, MS, KU, TR]  # official order
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


def test_abstention_identified_by_id_suffix_too():
    q, v = make()
    q = q.with_columns(pl.lit(False).alias("is_abstention"))
    assert qa_metrics(q, v)["n_abstention"] == 2


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
