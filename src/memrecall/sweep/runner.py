"""Running a planned sweep: validate every experiment, queue it in compute-once waves for
`--jobs N` DVC queue workers (or run it here with `dvc exp run --temp`), wait, then the
comparison table and the MLflow sync.

DVC's queue workers are temporary: each exits once the queue has been empty for a few seconds.
A wave is therefore queued only when no worker of an earlier wave is left (a worker on its way
out would otherwise be counted as running by `dvc queue start` and leave the new entries
waiting); `dvc queue start` then starts fresh ones. Nothing is restarted on a timer.
"""

from __future__ import annotations

import csv
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import tracking
from ..errors import MemrecallError
from ..experiments import head_rev
from .comparison import comparison, format_table
from .planning import ExpSpec, SweepOptions, check_unique
from .project import DvcProject
from .scheduling import schedule_waves


@dataclass
class SweepResult:
    specs: list[ExpSpec]
    states: dict[str, str]  # name -> Success | Failed | Kept | Queued | Running | Not run
    rows: list[dict] = field(default_factory=list)
    table: str = ""
    synced: dict[str, str] = field(default_factory=dict)

    @property
    def failed(self) -> list[str]:
        return [
            s.name
            for s in self.specs
            if self.states.get(s.name) not in ("Success", "Kept", "Planned")
        ]


def _progress(total: int, desc: str):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="exp", file=sys.stderr)


def plan_waves(project: DvcProject, specs: list[ExpSpec], opts: SweepOptions) -> list[list]:
    if not opts.waves:
        return [specs]
    stages, computed = project.stage_graph()
    sigs = {s.name: project.signatures(stages, s) for s in specs}
    return schedule_waves(specs, sigs, computed)


def run_queued(
    project: DvcProject, specs: list[ExpSpec], opts: SweepOptions, out_dir: Path, baseline: str
) -> dict[str, str]:
    """Queue the experiments (in waves) and run them with `opts.jobs` workers; wait."""
    log = out_dir / "dvc.log"
    project.compose_all(specs)  # every config error before anything is queued
    to_run, kept = project.resolve_existing(specs, opts.on_exists, baseline, log=log)
    states = {s.name: "Kept" for s in kept}
    if not to_run:
        return states
    waves = plan_waves(project, to_run, opts)
    print(
        f"sweep: {len(to_run)} experiment(s) in {len(waves)} wave(s) of "
        f"{[len(w) for w in waves]}, {opts.jobs} worker(s); DVC output in {log}",
        file=sys.stderr,
    )
    start = time.monotonic()
    with _progress(len(to_run), "sweep") as bar:
        for wave in waves:
            if not _workers_gone(project, opts, start, bar):
                break
            revs = project.queue(wave, log=log)
            project.start_workers(min(opts.jobs, len(wave)), log=log)
            states.update(_wait(project, revs, opts, bar, start, out_dir))
            if any(states[s.name] not in ("Success", "Failed") for s in wave):
                break  # timed out: later waves are not queued
    for spec in to_run:
        states.setdefault(spec.name, "Not run")
    return states


def _timed_out(opts: SweepOptions, start: float) -> bool:
    return bool(opts.timeout_s) and time.monotonic() - start > opts.timeout_s


def _workers_gone(project: DvcProject, opts: SweepOptions, start: float, bar) -> bool:
    """Wait until no queue worker answers. The last wave's workers are idle once its entries
    are done and would exit after DVC's idle timeout (10 s); when nothing is queued or running
    they are told to exit now, as `dvc queue stop` does. False when the sweep's timeout ran
    out first."""
    alive = project.workers_alive()  # each ask waits up to a second for the workers' replies
    if alive and project.queue_idle():
        project.stop_workers()
    while alive:
        if _timed_out(opts, start):
            bar.write(
                f"sweep: timed out after {opts.timeout_s:.0f}s waiting for the queue "
                f"workers of the last wave to exit (`dvc queue status`)"
            )
            return False
        time.sleep(opts.poll_s)
        alive = project.workers_alive()
    return True


def _wait(
    project: DvcProject,
    revs: dict[str, ExpSpec],
    opts: SweepOptions,
    bar,
    start: float,
    out_dir: Path,
) -> dict[str, str]:
    pending = dict(revs)
    states: dict[str, str] = {}
    while pending:
        time.sleep(opts.poll_s)
        now = project.queue_states()
        for rev, spec in list(pending.items()):
            st = now.get(rev, "Unknown")
            if st in ("Success", "Failed"):
                states[spec.name] = st
                del pending[rev]
                bar.update(1)
                # keep every experiment's output with the sweep (stage logs, counters)
                project.queue_logs(rev, out_dir / "logs" / f"{spec.name}.log")
                if st == "Failed":
                    bar.write(
                        f"sweep: experiment '{spec.name}' failed; log in "
                        f"{out_dir / 'logs' / (spec.name + '.log')}"
                    )
        if pending and _timed_out(opts, start):
            for rev, spec in pending.items():
                states[spec.name] = now.get(rev, "Unknown")
            bar.write(
                f"sweep: timed out after {opts.timeout_s:.0f}s; still pending: "
                f"{sorted(s.name for s in pending.values())} (`dvc queue status`)"
            )
            break
    return states


def run_inline(
    project: DvcProject, specs: list[ExpSpec], opts: SweepOptions, out_dir: Path, baseline: str
) -> dict[str, str]:
    """Run the experiments here, one after another (`dvc exp run --temp`)."""
    project.compose_all(specs)
    to_run, kept = project.resolve_existing(
        specs, opts.on_exists, baseline, log=out_dir / "dvc.log"
    )
    states = {s.name: "Kept" for s in kept}
    with _progress(len(to_run), "sweep (inline)") as bar:
        for spec in to_run:
            ok = project.run_temp(spec, out_dir / "logs" / f"{spec.name}.log")
            states[spec.name] = "Success" if ok else "Failed"
            bar.update(1)
    return states


def finish(
    root: Path,
    specs: list[ExpSpec],
    states: dict[str, str],
    opts: SweepOptions,
    out_dir: Path,
    baseline: str,
) -> SweepResult:
    """Table (printed, and written to out_dir as comparison.md/.csv), then the MLflow sync."""
    header, rows = comparison(root, specs, states, opts, baseline)
    table = format_table(header, rows)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "comparison.md").write_text(table + "\n", encoding="utf-8")
    with open(out_dir / "comparison.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=header)
        w.writeheader()
        w.writerows(rows)
    print(table)
    result = SweepResult(specs, states, rows, table)
    ok = [s.name for s in specs if states.get(s.name) in ("Success", "Kept")]
    if opts.track and ok:
        result.synced = tracking.sync_experiments(root, names=ok, baseline=baseline)
    print(
        f"sweep: {len(ok)} of {len(specs)} experiment(s) succeeded; table in "
        f"{out_dir / 'comparison.md'}; compare with `dvc exp show --only-changed`",
        file=sys.stderr,
    )
    return result


def run_sweep(
    root: Path, specs: list[ExpSpec], opts: SweepOptions, out_dir: Path, mode: str = "queue"
) -> SweepResult:
    """The whole sweep in this process: queue (or run inline), wait, table, MLflow."""
    check_unique(specs)
    project = DvcProject(root)
    baseline = head_rev(project.root)
    if opts.track:
        tracking.ensure_experiment(project.root)  # before any parallel writer
    from ..plan.sweep import sweep_gate

    if not sweep_gate(project, specs, opts):
        return SweepResult(specs, {s.name: "Planned" for s in specs})
    runner = run_inline if mode == "inline" else run_queued
    states = runner(project, specs, opts, out_dir, baseline)
    return finish(project.root, specs, states, opts, out_dir, baseline)


def raise_if_failed(result: SweepResult) -> None:
    if result.failed:
        raise MemrecallError(
            f"{len(result.failed)} of {len(result.specs)} experiment(s) did not "
            f"succeed: {', '.join(result.failed)}"
        )
