"""The whole plan: the stages in the order of DVC's graph, each stage that would run planned by
its planner (a module of this package), and the `memrecall plan` command."""

from __future__ import annotations

import json
from pathlib import Path

from ..pipeline import read_pipeline
from .context import PlanContext
from .judge import plan_judge
from .read import plan_read
from .report import format_plan
from .retrieval import plan_embed, plan_rerank, plan_retrieve
from .rewrite import plan_rewrite
from .status import RunStatus, stage_status
from .work import Plan, StagePlan

# dvc.yaml's stage -> its planner (a stage without one has nothing to count: download,
# aggregate, a stage of your own).
PLANNERS = {
    "embed": plan_embed,
    "retrieve": plan_retrieve,
    "rerank": plan_rerank,
    "rewrite": plan_rewrite,
    "read": plan_read,
    "judge": plan_judge,
}


def plan_params(
    params: dict,
    root: Path | None = None,
    *,
    title: str = "",
    status: RunStatus | None = None,
    cache=None,
) -> Plan:
    """The plan for `params` (a composed params.yaml) against the project at `root`.
    `status`: what would run (default: asked of DVC, status.stage_status)."""
    from ..paths import project_root

    root = Path(root or project_root())
    if status is None:
        status = stage_status(root, params, read_pipeline(root))
    ctx = PlanContext(root, params, status, cache)
    for name in status.order:  # upstream first: a planner reads the plans before it
        sp = ctx.stages[name] = StagePlan(
            name, status.runs(name), list(status.why[name]), notes=list(status.notes.get(name, []))
        )
        if sp.runs and name in PLANNERS:
            PLANNERS[name](ctx, sp)
    return Plan(title, list(ctx.stages.values()))


def plan_overrides(overrides: list[str], root: Path | None = None) -> Plan:
    """`memrecall plan`: params.yaml as it is (what `dvc repro` runs) without overrides; with
    overrides, composed from conf/ as `dvc exp run -S ...` composes them."""
    import tempfile

    from ..compose import compose_params
    from ..config import load_params
    from ..paths import project_root

    root = Path(root or project_root())
    if not overrides:
        return plan_params(
            load_params(root / "params.yaml"), root, title="dvc repro (params.yaml as it is)"
        )
    with tempfile.TemporaryDirectory(prefix="memrecall-plan-") as tmp:
        out = compose_params(overrides, root=root, output=str(Path(tmp) / "params.yaml"))
        params = load_params(out)
    return plan_params(params, root, title=f"dvc exp run -S {' -S '.join(overrides)}")


def main(overrides: list[str], as_json: bool = False, root: Path | None = None) -> Plan:
    plan = plan_overrides(overrides, root)
    print(json.dumps(plan.to_dict(), indent=1, default=str) if as_json else format_plan(plan))
    return plan
