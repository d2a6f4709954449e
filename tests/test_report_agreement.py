"""Judge agreement and Cohen's kappa on a textbook example, by type, and the written report."""

from __future__ import annotations

import polars as pl
import pytest

from memrecall.artifacts import write_table
from memrecall.eval.agreement import cohen_kappa, judge_agreement
from memrecall.report.agreement import main


def textbook():
    """50 items: both yes 20, A yes/B no 5, A no/B yes 10, both no 15.
    p_o = 35/50 = 0.7; p_e = 0.5*0.6 + 0.5*0.4 = 0.5; kappa = (0.7-0.5)/(1-0.5) = 0.4."""
    a = [True] * 20 + [True] * 5 + [False] * 10 + [False] * 15
    b = [True] * 20 + [False] * 5 + [True] * 10 + [False] * 15
    return a, b


def test_kappa_textbook_example():
    a, b = textbook()
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa(a, a) == pytest.approx(1.0)
    assert cohen_kappa([True, False], [False, True]) == pytest.approx(-1.0)
    assert cohen_kappa([True, True], [True, True]) is None  # p_e = 1: undefined
    assert cohen_kappa([], []) is None


def test_kappa_agrees_with_sklearn():
    sk = pytest.importorskip("sklearn.metrics")
    a, b = textbook()
    a2, b2 = a[:17] + b[17:31], b[:23] + a[23:40]
    for x, y in ((a, b), (a2[:31], b2[:31]), (a[5:40], b[10:45])):
        assert cohen_kappa(x, y) == pytest.approx(sk.cohen_kappa_score(x, y))


def verdicts(labels, types, model):
    n = len(labels)
    return pl.DataFrame(
        {
            "question_id": [f"q{i:03d}" for i in range(n)],
            "label": labels,
            "judge_model": [model] * n,
            "raw": [None] * n,
            "error": [None] * n,
            "question_type": types,
        },
        schema={
            "question_id": pl.String,
            "label": pl.Boolean,
            "judge_model": pl.String,
            "raw": pl.String,
            "error": pl.String,
            "question_type": pl.String,
        },
    )


def test_agreement_by_type_and_skips():
    a, b = textbook()
    types = ["multi-session"] * 25 + ["temporal-reasoning"] * 25
    va = verdicts(a + [None], types + ["multi-session"], "rule-v1")
    vb = verdicts(b + [True], types + ["multi-session"], "gpt-4o-2024-08-06")
    r = judge_agreement(va, vb)
    assert r["skipped"] == 1
    assert r["overall"]["n"] == 50 and r["overall"]["kappa"] == pytest.approx(0.4)
    assert r["overall"]["agreement"] == pytest.approx(0.7)
    ms = r["by_type"]["multi-session"]  # items 0-24: 20 yes/yes, 5 yes/no
    assert ms["n"] == 25 and ms["agreement"] == pytest.approx(0.8)
    assert ms["kappa"] == pytest.approx(0.0)  # B says yes to all 25 → p_e = p_a
    tr = r["by_type"]["temporal-reasoning"]  # items 25-49: 10 no/yes, 15 no/no
    assert tr["agreement"] == pytest.approx(0.6) and tr["kappa"] == pytest.approx(0.0)
    assert (r["overall"]["a_only_yes"], r["overall"]["b_only_yes"]) == (5, 10)


def test_agreement_by_response_length():
    a, b = textbook()
    va = verdicts(a, ["multi-session"] * 50, "rule-v1")
    vb = verdicts(b, ["multi-session"] * 50, "gpt-4o-2024-08-06")
    # items 0-24 answered in 10 words, 25-48 in 300; item 49's length is not known
    words = pl.DataFrame({"question_id": [f"q{i:03d}" for i in range(49)]}).with_columns(
        pl.Series("words", [10] * 25 + [300] * 24)
    )
    r = judge_agreement(va, vb, words=words)
    assert list(r["by_length"]) == ["<=40", ">250"]  # shortest first, empty bands left out
    short, long = r["by_length"]["<=40"], r["by_length"][">250"]
    assert short["n"] == 25 and short["agreement"] == pytest.approx(0.8)  # 20 yes/yes, 5 yes/no
    assert long["n"] == 24 and (long["b_only_yes"], long["both_no"]) == (10, 14)
    assert r["overall"]["n"] == 50  # the length only bands; every answer still counts
    assert "by_length" not in judge_agreement(va, vb)


def test_report_file(tmp_path, capsys):
    a, b = textbook()
    types = ["multi-session"] * 50
    pa, pb = tmp_path / "a.parquet", tmp_path / "b.parquet"
    for df, p in (
        (verdicts(a, types, "rule-v1"), pa),
        (verdicts(b, types, "gpt-4o-2024-08-06"), pb),
    ):
        write_table(df, p, table="verdicts", stage="judge", params={})
    out = tmp_path / "judge_agreement.md"
    main([str(pa), str(pb), "--out", str(out)])
    text = out.read_text()
    assert text.startswith("# Judge agreement: rule-v1 vs gpt-4o-2024-08-06")
    assert "| **all** | 50 | 0.700 | 0.400 | 0.500 | 0.600 | 5 | 10 |" in text
    assert "kappa 0.400 over 50 questions" in capsys.readouterr().out
