"""Comparison: the table a sweep prints at the end - one row per experiment, its state, the
overrides that differ between the experiments, and the chosen metrics."""

from __future__ import annotations

from pathlib import Path

from ..config import flatten
from ..config import get as get_dotted
from ..experiments import list_experiments, read_experiment
from .planning import ExpSpec, SweepOptions, override_key


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def comparison(
    root: Path, specs: list[ExpSpec], states: dict[str, str], opts: SweepOptions, baseline: str
) -> tuple[list[str], list[dict]]:
    """Header and rows: experiment, state, the overrides that differ, the chosen metrics."""
    refs = {
        r.name: r for r in list_experiments(root, names=[s.name for s in specs], baseline=baseline)
    }
    metrics = {}
    for s in specs:
        if s.name in refs and states.get(s.name) in ("Success", "Kept"):
            metrics[s.name] = read_experiment(root, refs[s.name]).metrics
    keys: list[str] = []
    for s in specs:
        for ov in s.overrides:
            k = override_key(ov)
            if k not in keys:
                keys.append(k)
    values = {
        s.name: {
            override_key(o): (o.split("=", 1)[1] if "=" in o else "(deleted)") for o in s.overrides
        }
        for s in specs
    }
    varying = [k for k in keys if len({values[s.name].get(k, "") for s in specs}) > 1]
    shown = [
        m
        for m in opts.metrics
        if any(get_dotted(metrics.get(s.name, {}), m) is not None for s in specs)
    ]
    if not shown:  # not the memrecall metrics.json: show the first numeric ones found
        seen: list[str] = []
        for m in metrics.values():
            for k, v in flatten(m).items():
                if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in seen:
                    seen.append(k)
        shown = seen[:8]
    header = ["experiment", "state", *varying, *shown]
    rows = []
    for s in specs:
        row = {"experiment": s.name, "state": states.get(s.name, "Unknown")}
        row.update({k: values[s.name].get(k, "") for k in varying})
        row.update({m: get_dotted(metrics.get(s.name, {}), m) for m in shown})
        rows.append(row)
    return header, rows


def format_table(header: list[str], rows: list[dict]) -> str:
    cells = [[_fmt(r.get(h)) for h in header] for r in rows]
    widths = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(header)]

    def line(vals):
        return "| " + " | ".join(v.ljust(w) for v, w in zip(vals, widths)) + " |"

    return "\n".join(
        [
            line(header),
            "|" + "|".join("-" * (w + 2) for w in widths) + "|",
            *(line(c) for c in cells),
        ]
    )
