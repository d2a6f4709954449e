"""Hydra glue: stages/sweep.py is a Hydra app whose jobs are sweep plans.

With Hydra's default launcher each job only plans (and validates) its experiments and writes a
record; the end-of-multirun callback queues all of them at once, in compute-once waves, for
`--jobs N` DVC queue workers. With another launcher (submitit_local, submitit_slurm) each Hydra
job runs its own experiments with `dvc exp run --temp`, so the launcher spreads them over
processes or cluster nodes; every job but the first waits for the first to finish, so the shared
upstream is computed once there too.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

from .. import tracking
from ..artifacts import atomic_write_text
from ..errors import ConfigError, MemrecallError
from ..experiments import head_rev
from ..paths import project_root
from .planning import DRIVER_KEY, ExpSpec, SweepOptions, check_unique, plan_experiments
from .project import DvcProject
from .runner import finish, raise_if_failed, run_inline, run_queued, run_sweep

RECORDS = ".memrecall_sweep"  # folder in the Hydra sweep dir: one record per Hydra job
CALLBACK = "memrecall.sweep.SweepCallback"


def hydra_argv(argv: list[str]) -> list[str]:
    """`--jobs N` / `-j N` -> `++sweep.jobs=N`, and register the end-of-multirun callback."""
    out, it = [argv[0]], iter(argv[1:])
    for arg in it:
        if arg in ("--jobs", "-j"):
            value = next(it, None)
            if value is None:
                raise ConfigError(f"{DRIVER_KEY}.jobs", None, hint="--jobs needs a number")
            out.append(f"++{DRIVER_KEY}.jobs={value}")
        elif arg == "--plan":
            out.append(f"++{DRIVER_KEY}.plan=true")
        elif arg.startswith("--jobs="):
            out.append(f"++{DRIVER_KEY}.jobs={arg.split('=', 1)[1]}")
        else:
            out.append(arg)
    if not any(
        a.startswith(("+hydra.callbacks.memrecall_sweep", "hydra.callbacks.memrecall_sweep"))
        for a in out
    ):
        out.append(f"+hydra.callbacks.memrecall_sweep._target_={CALLBACK}")
    return out


def _container(node) -> dict:
    from omegaconf import OmegaConf

    if node is None:
        return {}
    return OmegaConf.to_container(node, resolve=True) if OmegaConf.is_config(node) else dict(node)


def _mode(opts: SweepOptions, launcher_target: str | None) -> str:
    if opts.execute != "auto":
        return opts.execute
    basic = not launcher_target or launcher_target.endswith("BasicLauncher")
    return "queue" if basic else "inline"


def _abs(path: str, cwd: str) -> Path:
    p = Path(path)
    return p if p.is_absolute() else Path(cwd) / p


def _records_dir(hydra_cfg) -> Path:
    return _abs(str(hydra_cfg.sweep.dir), str(hydra_cfg.runtime.cwd)) / RECORDS


def _write_record(folder: Path, num: int, data: dict) -> None:
    atomic_write_text(folder / f"job-{num}.json", json.dumps(data, indent=1))


def _specs(record: dict) -> list[ExpSpec]:
    return [ExpSpec(n, tuple(o), tuple(tuple(m) for m in meta)) for n, o, meta in record["specs"]]


def _read_records(folder: Path) -> list[dict]:
    recs = [json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("job-*.json")]
    return sorted(recs, key=lambda r: r["job"])


def _wait_for_job(folder: Path, num: int, opts: SweepOptions) -> None:
    start = time.monotonic()
    path = folder / f"job-{num}.json"
    while True:
        if path.exists() and json.loads(path.read_text(encoding="utf-8")).get("finished"):
            return
        if opts.timeout_s and time.monotonic() - start > opts.timeout_s:
            print(
                f"sweep: job {num} not finished after {opts.timeout_s:.0f}s; going ahead",
                file=sys.stderr,
            )
            return
        time.sleep(opts.poll_s)


def _user_errors(fn):
    """MemrecallError -> `error: ...` and exit 1 (Hydra would print a traceback)."""

    def wrapped(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except MemrecallError as e:
            print(f"error: {e}", file=sys.stderr)
            raise SystemExit(1) from None

    wrapped.__name__, wrapped.__doc__ = fn.__name__, fn.__doc__
    return wrapped


@_user_errors
def hydra_job(cfg) -> None:
    """The body of stages/sweep.py's @hydra.main task function, for one Hydra job."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    hc = HydraConfig.get()
    sweep_cfg = _container(cfg.get(DRIVER_KEY))
    opts = SweepOptions.from_cfg(sweep_cfg)
    specs = plan_experiments(list(hc.overrides.task), sweep_cfg, prefix=opts.prefix)
    check_unique(specs)
    mode = _mode(opts, hc.launcher.get("_target_"))
    root = project_root(Path(hc.runtime.cwd))
    if hc.mode != RunMode.MULTIRUN:
        raise_if_failed(
            run_sweep(root, specs, opts, _abs(hc.runtime.output_dir, hc.runtime.cwd), mode)
        )
        return
    project = DvcProject(root)
    folder = _records_dir(hc)
    record = {
        "job": hc.job.num,
        "mode": mode,
        "options": asdict(opts),
        "specs": [[s.name, list(s.overrides), [list(m) for m in s.meta]] for s in specs],
        "states": None,
        "finished": mode == "queue",
    }
    _write_record(folder, hc.job.num, record)
    if mode == "queue":  # the callback checks every job's overrides, then queues them all
        return
    if hc.job.num > 0 and opts.waves:
        _wait_for_job(folder, 0, opts)  # job 0 computes the shared upstream
    out_dir = _abs(hc.runtime.output_dir, hc.runtime.cwd)
    from ..plan.sweep import sweep_gate

    if not sweep_gate(project, specs, opts):  # per job: each launcher job plans its own share
        _write_record(
            folder,
            hc.job.num,
            {**record, "finished": True, "states": {s.name: "Planned" for s in specs}},
        )
        return
    try:
        states = run_inline(project, specs, opts, out_dir, head_rev(project.root))
    finally:
        record["finished"] = True
        _write_record(folder, hc.job.num, record)
    record["states"] = states
    _write_record(folder, hc.job.num, record)


try:
    from hydra.experimental.callback import Callback as _Callback
except ImportError:  # pragma: no cover - hydra is a pinned dependency
    _Callback = object


class SweepCallback(_Callback):
    """Registered by stages/sweep.py: prepares MLflow before the jobs start; after the last job
    runs the queue (default launcher), prints the comparison table and syncs MLflow."""

    @_user_errors
    def on_multirun_start(self, config, **kwargs) -> None:
        folder = _records_dir(config.hydra)
        for p in folder.glob("job-*.json"):
            p.unlink()  # a reused sweep dir: only this invocation's jobs count
        opts = SweepOptions.from_cfg(_container(config.get(DRIVER_KEY)))
        if opts.track:
            tracking.ensure_experiment(project_root(Path(config.hydra.runtime.cwd)))

    @_user_errors
    def on_multirun_end(self, config, **kwargs) -> None:
        folder = _records_dir(config.hydra)
        records = _read_records(folder)
        if not records:
            return
        opts = SweepOptions.from_cfg(records[0]["options"])
        specs = [s for r in records for s in _specs(r)]
        check_unique(specs)
        root = project_root(Path(config.hydra.runtime.cwd))
        out_dir = folder.parent
        baseline = head_rev(root)
        states: dict[str, str] = {}
        queued = [s for r in records if r["mode"] == "queue" for s in _specs(r)]
        for r in records:
            if r["mode"] != "queue":
                states.update(r.get("states") or {s.name: "Failed" for s in _specs(r)})
        if not queued and states and set(states.values()) == {"Planned"}:
            return  # --plan with a launcher: every job printed its plan
        if queued:
            from ..plan.sweep import sweep_gate

            project = DvcProject(root)
            if not sweep_gate(project, queued, opts):
                return
            states.update(run_queued(project, queued, opts, out_dir, baseline))
        raise_if_failed(finish(root, specs, states, opts, out_dir, baseline))
