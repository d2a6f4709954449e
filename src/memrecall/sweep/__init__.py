"""Sweeps as DVC experiments.

`python stages/sweep.py -m reader=deepseek,kimi,glm` lets Hydra expand the overrides; every
combination becomes one DVC experiment named from its overrides (`reader-deepseek`), queued with
`dvc exp run --queue -S ...` (DVC composes params.yaml from conf/), run by `--jobs N` parallel
queue workers, and compared in a table at the end. A named sweep from conf/sweep/
(`+sweep=ablation`) expands into a list of variants the same way, and each of its runs records
`meta.sweep` / `meta.variant` / `meta.ladder` in its params for the reports.

One module per concern:
- planning: overrides → experiment specs (names, named sweeps, the meta.* record);
- scheduling: the stage graph (memrecall.pipeline: DVC's index) → compute-once waves;
- project: the DVC project (composing params in a child process, `dvc` subprocesses);
- runner: validate, queue in waves (or run inline), wait, then table and MLflow;
- comparison: the end-of-sweep table;
- hydra_glue: the Hydra app's task function and end-of-multirun callback.
"""

from ..pipeline import Stage, load_stages
from .comparison import comparison, format_table
from .hydra_glue import CALLBACK, SweepCallback, hydra_argv, hydra_job
from .planning import (
    DRIVER_KEY,
    ExpSpec,
    SweepOptions,
    check_unique,
    expand_named_sweep,
    experiment_name,
    is_driver_override,
    merge_overrides,
    override_key,
    plan_experiments,
    slug,
    slug_text,
)
from .project import DvcProject
from .runner import SweepResult, run_inline, run_queued, run_sweep
from .scheduling import schedule_waves, stage_signatures

__all__ = [
    "CALLBACK",
    "DRIVER_KEY",
    "DvcProject",
    "ExpSpec",
    "Stage",
    "SweepCallback",
    "SweepOptions",
    "SweepResult",
    "check_unique",
    "comparison",
    "expand_named_sweep",
    "experiment_name",
    "format_table",
    "hydra_argv",
    "hydra_job",
    "is_driver_override",
    "load_stages",
    "merge_overrides",
    "override_key",
    "plan_experiments",
    "run_inline",
    "run_queued",
    "run_sweep",
    "schedule_waves",
    "slug",
    "slug_text",
    "stage_signatures",
]
