"""Bootstrap CIs and paired tests: determinism with a seed, and numbers checked independently
(exact binomial sums by hand, the normal approximation for a large sample)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from memrecall.eval.stats import (
    bootstrap_ci,
    compare_runs,
    mcnemar_exact,
    paired_bootstrap_delta,
    qa_intervals,
    stratified_mean_ci,
)


def test_bootstrap_ci_is_deterministic_with_a_seed():
    x = [1, 0, 1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1]
    a = bootstrap_ci(x, n_resamples=2000, seed=7)
    assert a == bootstrap_ci(x, n_resamples=2000, seed=7)
    lo, hi = a
    assert lo <= np.mean(x) <= hi and 0 <= lo < hi <= 1
    cont = np.random.default_rng(1).normal(size=50).tolist()  # continuous: endpoints move
    assert bootstrap_ci(cont, seed=0) != bootstrap_ci(cont, seed=1)


def test_bootstrap_ci_matches_the_normal_approximation_for_a_large_sample():
    x = [1, 0] * 200  # p = 0.5, n = 400: 0.5 ± 1.96 * sqrt(0.25 / 400) = [0.451, 0.549]
    lo, hi = bootstrap_ci(x, n_resamples=4000, seed=0)
    half = 1.96 * math.sqrt(0.25 / 400)
    assert lo == pytest.approx(0.5 - half, abs=0.01)
    assert hi == pytest.approx(0.5 + half, abs=0.01)
    lo_small, hi_small = bootstrap_ci([1, 0] * 20, seed=0)
    assert hi_small - lo_small > 2 * (hi - lo)  # 10x fewer questions: ~3x wider


def test_bootstrap_degenerate_cases():
    assert bootstrap_ci([1, 1, 1, 1]) == (1.0, 1.0)
    assert bootstrap_ci([True]) is None and bootstrap_ci([]) is None
    assert bootstrap_ci([None, 1, None]) is None


def test_stratified_ci_of_the_task_average():
    assert stratified_mean_ci([[1, 1, 1], [0, 0, 0, 0]]) == (0.5, 0.5)
    groups = [[1, 0, 1, 1], [0, 0, 1], [1, 1, 1, 0, 1]]
    mean_of_means = np.mean([np.mean(g) for g in groups])
    lo, hi = stratified_mean_ci(groups, seed=3)
    assert lo < mean_of_means < hi
    assert (lo, hi) == stratified_mean_ci(groups, seed=3)
    assert stratified_mean_ci([[1, 0], [1]]) is None  # a group too small to resample


def test_qa_intervals_shape():
    pq = pl.DataFrame(
        {
            "question_id": [f"q{i}" for i in range(7)],
            "question_type": ["multi-session"] * 4
            + ["knowledge-update"] * 2
            + ["temporal-reasoning"],
            "is_abstention": [False, False, False, True, False, True, False],
            "correct": [True, False, True, None, True, True, False],
        }
    )
    ci = qa_intervals(pq, n_resamples=500, seed=0)
    assert set(ci) == {"overall", "task_averaged", "abstention", "by_type"}
    assert ci["by_type"]["temporal-reasoning"] is None  # one question
    assert ci["by_type"]["knowledge-update"] == (1.0, 1.0)
    assert ci["abstention"] is None  # one judged _abs question
    assert ci["task_averaged"] is None  # a type with one question
    lo, hi = ci["overall"]
    assert lo <= 4 / 6 <= hi


def test_mcnemar_exact_against_hand_computed_binomial():
    # 10 discordant questions: A alone right on 1, B alone right on 9 (+ 5 concordant).
    a = [True] + [False] * 9 + [True] * 3 + [False] * 2
    b = [False] + [True] * 9 + [True] * 3 + [False] * 2
    r = mcnemar_exact(a, b)
    # two-sided exact: 2 * P(X <= 1), X ~ Bin(10, 1/2) = 2 * (1 + 10) / 1024
    assert r == {"n": 15, "a_only": 1, "b_only": 9, "p_value": pytest.approx(22 / 1024)}
    assert mcnemar_exact(b, a)["p_value"] == pytest.approx(22 / 1024)
    assert mcnemar_exact([True, False], [False, True])["p_value"] == 1.0
    assert mcnemar_exact([True, True], [True, True]) == {
        "n": 2,
        "a_only": 0,
        "b_only": 0,
        "p_value": 1.0,
    }
    # 0 vs 6 discordant: 2 * (1/2)^6 = 0.03125
    assert mcnemar_exact([False] * 6, [True] * 6)["p_value"] == pytest.approx(2 / 64)
    with pytest.raises(ValueError):
        mcnemar_exact([True], [True, False])


def test_paired_bootstrap_delta():
    a = [1, 0, 1, 0, 1, 0, 1, 0, 1, 0]
    b = [1, 1, 1, 1, 1, 0, 1, 0, 1, 0]  # +2 of 10
    r = paired_bootstrap_delta(a, b, seed=0)
    assert r["delta"] == pytest.approx(0.2)
    assert r["ci_low"] <= 0.2 <= r["ci_high"]
    assert r["ci_low"] >= 0.0  # B is never worse on any question: no resample can go below 0
    assert r == paired_bootstrap_delta(a, b, seed=0)
    same = paired_bootstrap_delta(a, a)
    assert same == {"delta": 0.0, "ci_low": 0.0, "ci_high": 0.0}


def test_compare_runs_on_common_judged_questions():
    base = pl.DataFrame(
        {
            "question_id": ["a", "b", "c", "d", "e", "f"],
            "question_type": ["multi-session"] * 3 + ["knowledge-update"] * 3,
            "correct": [True, False, False, True, True, None],
        }
    )
    other = pl.DataFrame(
        {
            "question_id": ["a", "b", "c", "d", "e", "f"],
            "question_type": ["multi-session"] * 3 + ["knowledge-update"] * 3,
            "correct": [True, True, True, False, None, True],
        }
    )
    r = compare_runs(base, other, n_resamples=500, seed=0)
    # common judged: a, b, c, d. base 2/4, other 3/4.
    assert r["n"] == 4 and r["base"] == 0.5 and r["other"] == 0.75
    assert r["delta"] == pytest.approx(0.25)
    assert (r["a_only"], r["b_only"]) == (1, 2)
    assert r["p_value"] == pytest.approx(1.0)  # 1 vs 2 discordant: 2 * P(X<=1 | n=3) = 1
    assert r["by_type_delta"] == pytest.approx({"multi-session": 2 / 3, "knowledge-update": -1.0})
    assert r["task_averaged_delta"] == pytest.approx((2 / 3 - 1.0) / 2)
