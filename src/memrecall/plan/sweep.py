"""A sweep's plans: one per experiment (params as DVC composes them for it), their total (a
request shared by experiments is paid once, so counted once), and the gate a sweep passes
before it starts (`sweep.plan`, `sweep.max_cost_usd`)."""

from __future__ import annotations

from ..errors import MemrecallError
from ..pipeline import read_pipeline
from .build import plan_params
from .report import format_sweep
from .status import stage_status
from .work import Plan


def sweep_total(plans: list[Plan]) -> dict:
    """Totals over a sweep's experiments; a request shared by experiments (same hash) is paid
    once, so it is counted once. Estimated calls have no hash and are summed."""
    seen: dict[str, float] = {}
    unknown_cost = False
    est_calls, est_cost = 0, 0.0
    for p in plans:
        for w in p.works():
            out_each, _ = w.output_per_call()
            for h, tok in w.new.items():
                c = w.prices.cost(tok, out_each)
                unknown_cost |= c is None
                seen.setdefault(h, c or 0.0)
            if w.estimated_calls:
                est_calls += w.estimated_calls
                c = w.prices.cost(w.estimated_input_tokens, w.estimated_calls * out_each)
                unknown_cost |= c is None
                est_cost += c or 0.0
    unknown = [f"{p.title}: {u}" for p in plans for u in p.unknown]
    return {
        "experiments": len(plans),
        "new_calls": len(seen) + est_calls,
        "unknown": unknown,
        "not_counted": [f"{p.title}: {n}" for p in plans for n in p.not_counted],
        "shared_calls_counted_once": sum(w.new_calls for p in plans for w in p.works())
        - len(seen)
        - est_calls,
        "estimated_calls": est_calls,
        "cost_usd": None if unknown_cost else sum(seen.values()) + est_cost,
    }


def plan_sweep(project, specs) -> tuple[list[Plan], dict]:
    """A plan per experiment (params as DVC composes them for it) and the sweep's total."""
    plans = []
    pipeline = read_pipeline(project.root)  # once: file changes are the same for every one
    for spec, params in zip(specs, project.compose_all(specs)):  # one composer process
        plans.append(
            plan_params(
                params,
                project.root,
                title=f"experiment {spec.name} ({' '.join(spec.overrides) or 'no overrides'})",
                status=stage_status(project.root, params, pipeline),
            )
        )
    return plans, sweep_total(plans)


def sweep_gate(project, specs, opts) -> bool:
    """Before a sweep starts: with `sweep.plan` print the plan and say not to run (False); with
    `sweep.max_cost_usd` refuse a sweep whose plan is over (or cannot be priced), and hand the
    limit to every process of the sweep (budget.py's shared ledger) through the environment.
    The limit is on our LLM client's calls, the only ones the ledger sees: calls outside it (a
    reader plug-in's own model) are named in the plan, not priced, and do not stop the sweep."""
    import os
    import uuid

    from ..llm.budget import SWEEP_ID_ENV, SWEEP_LIMIT_ENV

    limit = getattr(opts, "max_cost_usd", None)
    if not (getattr(opts, "plan", False) or limit is not None):
        return True
    plans, total = plan_sweep(project, specs)
    print(format_sweep(plans, total))
    if getattr(opts, "plan", False):
        return False
    cost = total["cost_usd"]
    if total["unknown"]:
        raise MemrecallError(
            f"sweep.max_cost_usd={limit:g}: the calls of "
            f"{total['unknown'][0]} cannot be counted before upstream stages "
            f"run (e.g. `dvc repro download`); not started"
        )
    if cost is None:
        raise MemrecallError(
            f"sweep.max_cost_usd={limit:g}: the sweep's cost cannot be "
            f"estimated (a model has no known price; set its "
            f"input_cost_per_mtok / output_cost_per_mtok); not started"
        )
    if cost > limit:
        raise MemrecallError(
            f"sweep.max_cost_usd={limit:g}: the plan costs ${cost:.4f} "
            f"({total['new_calls']:,} new calls); the sweep was not started. "
            f"Raise the limit or narrow the sweep."
        )
    os.environ[SWEEP_LIMIT_ENV] = repr(float(limit))
    os.environ[SWEEP_ID_ENV] = uuid.uuid4().hex
    return True
