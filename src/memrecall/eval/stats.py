"""Uncertainty for QA accuracy, with scipy: bootstrap confidence intervals (fixed seed, so the
same data give the same interval on every run) and paired tests between two runs on the same
questions.

- `bootstrap_ci`: percentile bootstrap of a mean (scipy.stats.bootstrap). The percentile method
  is used rather than BCa because accuracies of small samples are often 0 or 1, where BCa is
  undefined.
- `qa_intervals`: CIs for overall (questions resampled), per type and abstention (that group's
  questions resampled) and task-averaged (a stratified bootstrap: each type resampled on its
  own, as the benchmark fixes how many questions each type has).
- `mcnemar_exact`: the exact McNemar test: among the questions where exactly one run is right,
  is "A right, B wrong" as likely as the reverse? scipy.stats.binomtest, two-sided.
- `paired_bootstrap_delta`: Δ accuracy (B − A) with a paired percentile bootstrap CI.
- `compare_runs`: both, on the questions both runs judged, plus per-type Δ.

A group with fewer than two judged questions gets no interval (None).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import polars as pl
from scipy import stats

from .qa_metrics import type_order

CONFIDENCE = 0.95


def _percentile_ci(
    samples: tuple, statistic, *, n_resamples: int, seed: int, confidence: float, paired=False
) -> tuple[float, float]:
    """scipy's percentile bootstrap of `statistic` over `samples`, seeded (same data, same
    interval on every run)."""
    res = stats.bootstrap(
        samples,
        statistic,
        paired=paired,
        n_resamples=n_resamples,
        confidence_level=confidence,
        method="percentile",
        vectorized=True,
        rng=np.random.default_rng(seed),
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def bootstrap_ci(
    values, *, n_resamples: int = 2000, seed: int = 0, confidence: float = CONFIDENCE
) -> tuple[float, float] | None:
    """Percentile bootstrap CI of the mean of `values` (e.g. 0/1 correctness)."""
    x = np.asarray([v for v in values if v is not None], dtype=float)
    if x.size < 2:
        return None
    return _percentile_ci((x,), np.mean, n_resamples=n_resamples, seed=seed, confidence=confidence)


def _mean_of_means(*samples, axis=-1):
    return np.mean([s.mean(axis=axis) for s in samples], axis=0)


def stratified_mean_ci(
    groups: list, *, n_resamples: int = 2000, seed: int = 0, confidence: float = CONFIDENCE
) -> tuple[float, float] | None:
    """CI of the unweighted mean of group means, each group resampled on its own."""
    samples = [np.asarray([v for v in g if v is not None], dtype=float) for g in groups]
    samples = [s for s in samples if s.size]
    if not samples or any(s.size < 2 for s in samples):
        return None
    return _percentile_ci(
        tuple(samples), _mean_of_means, n_resamples=n_resamples, seed=seed, confidence=confidence
    )


def qa_intervals(
    per_question: pl.DataFrame,
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    confidence: float = CONFIDENCE,
    known: Sequence[str] = (),
) -> dict:
    """{"overall", "task_averaged", "abstention": (low, high) | None, "by_type": {type: ...}}
    from a qa_metrics.per_question() table (judge and reader errors are left out); types are
    resampled in type_order(types, known)."""
    judged = per_question.filter(pl.col("correct").is_not_null())
    kw = {"n_resamples": n_resamples, "seed": seed, "confidence": confidence}
    types = type_order(judged["question_type"].to_list(), known)
    groups = {t: judged.filter(pl.col("question_type") == t)["correct"].to_list() for t in types}
    return {
        "overall": bootstrap_ci(judged["correct"].to_list(), **kw),
        "task_averaged": stratified_mean_ci(list(groups.values()), **kw),
        "abstention": bootstrap_ci(
            judged.filter(pl.col("is_abstention"))["correct"].to_list(), **kw
        ),
        "by_type": {t: bootstrap_ci(v, **kw) for t, v in groups.items()},
    }


def mcnemar_exact(a, b) -> dict:
    """Exact McNemar test on paired booleans (run A's and run B's correctness per question)."""
    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    if a.shape != b.shape:
        raise ValueError("mcnemar_exact needs paired arrays of equal length")
    a_only = int(np.sum(a & ~b))
    b_only = int(np.sum(~a & b))
    n = a_only + b_only
    p = float(stats.binomtest(a_only, n, 0.5).pvalue) if n else 1.0
    return {"n": int(a.size), "a_only": a_only, "b_only": b_only, "p_value": p}


def _delta(x, y, axis=-1):
    return y.mean(axis=axis) - x.mean(axis=axis)


def paired_bootstrap_delta(
    a, b, *, n_resamples: int = 2000, seed: int = 0, confidence: float = CONFIDENCE
) -> dict:
    """Δ = mean(b) − mean(a) with a paired percentile bootstrap CI (questions resampled)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError("paired_bootstrap_delta needs paired arrays of equal length")
    delta = float(b.mean() - a.mean()) if a.size else None
    if a.size < 2:
        return {"delta": delta, "ci_low": None, "ci_high": None}
    low, high = _percentile_ci(
        (a, b), _delta, n_resamples=n_resamples, seed=seed, confidence=confidence, paired=True
    )
    return {"delta": delta, "ci_low": low, "ci_high": high}


def compare_runs(
    base: pl.DataFrame,
    other: pl.DataFrame,
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    known: Sequence[str] = (),
) -> dict:
    """Run `other` against `base` (two per_question() tables) on the questions both judged:
    {"n", "base", "other", "delta", "ci_low", "ci_high", "p_value", "a_only", "b_only",
     "by_type_delta": {type: Δ}, "task_averaged_delta"}."""
    j = (
        base.select("question_id", "question_type", pl.col("correct").alias("a"))
        .join(other.select("question_id", pl.col("correct").alias("b")), on="question_id")
        .filter(pl.col("a").is_not_null() & pl.col("b").is_not_null())
        .sort("question_id")
    )
    a = j["a"].to_numpy().astype(bool)
    b = j["b"].to_numpy().astype(bool)
    test = mcnemar_exact(a, b)
    boot = paired_bootstrap_delta(a, b, n_resamples=n_resamples, seed=seed)
    by_type = {}
    for t in type_order(j["question_type"].to_list(), known):
        sub = j.filter(pl.col("question_type") == t)
        by_type[t] = float(sub["b"].mean() - sub["a"].mean())
    return {
        "n": int(j.height),
        "base": float(a.mean()) if a.size else None,
        "other": float(b.mean()) if b.size else None,
        **boot,
        "p_value": test["p_value"],
        "a_only": test["a_only"],
        "b_only": test["b_only"],
        "by_type_delta": by_type,
        "task_averaged_delta": (sum(by_type.values()) / len(by_type)) if by_type else None,
    }


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval for a proportion k/n (None when n = 0). Unlike the normal
    approximation it stays inside [0, 1] and is not degenerate at 0 or n successes, which is
    where an audit of rare false accepts lives."""
    if n <= 0:
        return None
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
