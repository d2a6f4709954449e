"""Figures (matplotlib, Agg backend, no display needed): per-type accuracy bars with 95% CI
whiskers, one bar group per question type, one bar per compared run.

PNGs are written without the matplotlib version stamp, so the same numbers give the same bytes
on the same matplotlib build.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # before pyplot: never needs a display
import matplotlib.pyplot as plt  # noqa: E402

from ..artifacts import atomic_write_bytes  # noqa: E402


def _write_png(fig, path: str | Path) -> Path:
    """The figure as PNG (unstamped, see above), written atomically; the figure is closed."""
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    return atomic_write_bytes(path, buf.getvalue())


def by_type_bars(
    runs: list[dict],
    path: str | Path,
    *,
    title: str = "QA accuracy by type",
    short_names: dict | None = None,
) -> Path:
    """`runs`: [{"name", "by_type": {type: acc|None}, "ci": {type: (lo, hi)|None}}, ...].
    Groups are the types of the first run, then "overall" and "task-avg" if present;
    `short_names`: a type's label on the axis (the benchmark's)."""
    short_names = short_names or {}
    groups = list(runs[0]["by_type"]) if runs else []
    n = max(len(runs), 1)
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(groups) + 2), 3.8), dpi=120)
    for i, run in enumerate(runs):
        xs, ys, lo, hi = [], [], [], []
        for j, g in enumerate(groups):
            acc = run["by_type"].get(g)
            if acc is None or (isinstance(acc, float) and math.isnan(acc)):
                continue
            ci = (run.get("ci") or {}).get(g)
            xs.append(j - 0.4 + width * (i + 0.5))
            ys.append(100 * acc)
            lo.append(100 * (acc - ci[0]) if ci else 0.0)
            hi.append(100 * (ci[1] - acc) if ci else 0.0)
        ax.bar(
            xs,
            ys,
            width=width * 0.95,
            label=run["name"],
            yerr=[lo, hi],
            capsize=3,
            error_kw={"elinewidth": 1, "ecolor": "0.25"},
        )
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([short_names.get(g, g) for g in groups], fontsize=8)
    ax.set_ylim(0, 105)
    ax.set_ylabel("accuracy (%)")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    if len(runs) > 1:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _write_png(fig, path)


def refusal_rate_lines(
    series: dict[str, list[tuple[str, float]]],
    path: str | Path,
    *,
    title: str = "Refusal rate by thinking budget",
) -> Path:
    """`series`: {model: [(budget label, refusal rate in [0, 1]), ...]}, budgets in order; one
    line per model over the union of budget labels (first-seen order)."""
    labels: list[str] = []
    for points in series.values():
        for label, _ in points:
            if label not in labels:
                labels.append(label)
    fig, ax = plt.subplots(figsize=(6.0, 3.6), dpi=120)
    for model, points in series.items():
        xs = [labels.index(label) for label, _ in points]
        ax.plot(xs, [100 * r for _, r in points], marker="o", label=model)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_xlabel("thinking budget (tokens)")
    ax.set_ylabel("refusal rate (%)")
    ax.set_ylim(0, 100)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    if series:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _write_png(fig, path)
