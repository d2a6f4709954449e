"""The DVC project a sweep runs in: composing params as DVC will, and driving `dvc` (queue,
workers, temp runs) in subprocesses.

Why subprocesses: DVC composes params.yaml with Hydra's global state, which the running Hydra
app (stages/sweep.py is one) already holds. Composing in a child process (memrecall.sweep.
composer) keeps both apart with no reach into Hydra's private singletons.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from ..errors import ConfigError, MemrecallError
from ..experiments import list_experiments
from ..pipeline import Stage, load_stages
from .planning import DRIVER_KEY, ExpSpec
from .scheduling import computed_signatures, experiment_values, stage_signatures

# How often a question to DVC's queue is asked when its reply arrives half-written (_ask_queue).
QUEUE_ASKS = 3


def dvc_env() -> dict:
    """Env for dvc subprocesses: this interpreter's bin first, so stage commands (`python ...`)
    and queue workers use the same environment as the sweep."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("DVC_ROOT", None)  # a sweep started from inside a DVC stage still targets its repo
    return env


class DvcProject:
    """The DVC repository a sweep runs in."""

    def __init__(self, root: Path):
        self.root = Path(root).resolve()
        if not (self.root / ".dvc").is_dir():
            raise MemrecallError(
                f"{self.root} is not a DVC project (no .dvc/): run the sweep "
                f"from the project folder"
            )
        from dvc.repo import Repo

        with Repo(str(self.root)) as repo:
            hydra = dict(repo.config.get("hydra", {}))
        if not hydra.get("enabled"):
            raise ConfigError(
                "hydra.enabled (DVC config)",
                hydra.get("enabled"),
                hint="sweeps let DVC compose params.yaml from conf/: run "
                "`dvc config hydra.enabled true`",
            )
        if hydra.get("config_module"):
            raise ConfigError(
                "hydra.config_module (DVC config)",
                hydra["config_module"],
                hint="sweeps need a config folder (hydra.config_dir)",
            )
        self.conf_dir = self.root / hydra.get("config_dir", "conf")
        self.config_name = hydra.get("config_name", "config")
        self.plugins_path = self.root / hydra.get("plugins_path", "")
        self._composed: dict[tuple, dict] = {}

    # -- config
    def compose_all(self, specs: list[ExpSpec]) -> list[dict]:
        """params.yaml as DVC will compose it for each experiment (DVC's own composer, in one
        child process for all of them). The first bad override stops with a ConfigError."""
        todo = list(
            dict.fromkeys(s.dvc_overrides for s in specs if s.dvc_overrides not in self._composed)
        )
        if todo:
            request = {
                "conf_dir": str(self.conf_dir),
                "config_name": self.config_name,
                "plugins_path": str(self.plugins_path),
                "overrides": [list(o) for o in todo],
            }
            env = dvc_env()  # the child imports this very copy of memrecall
            src = str(Path(__file__).resolve().parents[2])
            env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
            proc = subprocess.run(
                [sys.executable, "-m", "memrecall.sweep.composer"],
                input=json.dumps(request),
                capture_output=True,
                text=True,
                cwd=self.root,
                env=env,
            )
            try:
                results = json.loads(proc.stdout)
            except json.JSONDecodeError:
                raise MemrecallError(
                    f"composing {self.conf_dir} failed (exit {proc.returncode}):"
                    f" {(proc.stderr or proc.stdout).strip()[-2000:]}"
                ) from None
            for overrides, res in zip(todo, results):
                if "error" in res:
                    spec = next(s for s in specs if s.dvc_overrides == overrides)
                    raise ConfigError(
                        " ".join(spec.overrides) or "(no overrides)",
                        "override",
                        hint=f"experiment '{spec.name}': cannot compose "
                        f"{self.conf_dir}: {res['error']}",
                    )
                self._composed[overrides] = res["params"]
        return [self._composed[s.dvc_overrides] for s in specs]

    def compose(self, spec: ExpSpec) -> dict:
        return self.compose_all([spec])[0]

    # -- the stage graph
    def stage_graph(self) -> tuple[dict[str, Stage], set[str]]:
        """(stages, signatures the workspace already holds), from DVC's index and status."""
        stages, up_to_date = load_stages(self.root)
        return stages, computed_signatures(stages, up_to_date)

    def signatures(self, stages: dict[str, Stage], spec: ExpSpec) -> dict[str, str]:
        return stage_signatures(stages, experiment_values(self.compose(spec)))

    # -- subprocesses
    def dvc(self, *args: str, log: Path | None = None, check: bool = True):
        cmd = [sys.executable, "-m", "dvc", *args]
        if log is not None:
            log.parent.mkdir(parents=True, exist_ok=True)
            with open(log, "a", encoding="utf-8") as f:
                f.write(f"[{time.strftime('%H:%M:%S')}] $ dvc {' '.join(args)}\n")
                f.flush()
                proc = subprocess.run(
                    cmd, cwd=self.root, env=dvc_env(), stdout=f, stderr=subprocess.STDOUT, text=True
                )
        else:
            proc = subprocess.run(cmd, cwd=self.root, env=dvc_env(), capture_output=True, text=True)
        if check and proc.returncode != 0:
            detail = (proc.stderr or proc.stdout or "").strip() if log is None else f"see {log}"
            raise MemrecallError(
                f"`dvc {' '.join(args)}` failed in {self.root} (exit {proc.returncode}): {detail}"
            )
        return proc

    @staticmethod
    def _set_args(spec: ExpSpec) -> list[str]:
        args = ["-n", spec.name]
        for ov in spec.dvc_overrides:
            args += ["-S", ov]
        return args

    # -- existing experiments
    def resolve_existing(
        self, specs: list[ExpSpec], on_exists: str, baseline: str, log: Path | None = None
    ) -> tuple[list[ExpSpec], list[ExpSpec]]:
        """(to run, kept): handle experiments whose name exists at this baseline already."""
        existing = {
            r.name: r
            for r in list_experiments(self.root, names=[s.name for s in specs], baseline=baseline)
        }
        clash = [s for s in specs if s.name in existing]
        if not clash:
            return specs, []
        if on_exists == "error":
            raise MemrecallError(
                f"experiment '{clash[0].name}' exists at baseline "
                f"{baseline[:7]} and {DRIVER_KEY}.on_exists=error; use "
                f"++{DRIVER_KEY}.on_exists=replace (or skip), or "
                f"++{DRIVER_KEY}.prefix=NEW"
            )
        if on_exists == "skip":
            return [s for s in specs if s.name not in existing], clash
        # replace: the run-cache makes re-running unchanged stages cheap
        self.dvc(
            "--wait-for-lock", "exp", "remove", *[existing[s.name].git_ref for s in clash], log=log
        )
        return specs, []

    # -- the queue
    def _queue(self):
        from dvc.repo import Repo

        return Repo(str(self.root))

    def _ask_queue(self, question):
        """question(DVC's celery queue), asked again when a message arrived half-written.
        DVC's broker is kombu's filesystem transport, which creates a message file and then
        writes it: a reader that takes the file in between reads nothing (a JSONDecodeError,
        and that reply is gone). Every question here only reads, so asking again is safe."""
        for attempt in range(QUEUE_ASKS):
            with self._queue() as repo:
                try:
                    return question(repo.experiments.celery_queue)
                except json.JSONDecodeError:
                    if attempt == QUEUE_ASKS - 1:
                        raise

    def queue(self, specs: list[ExpSpec], log: Path | None = None) -> dict[str, ExpSpec]:
        """Queue each experiment; returns {stash rev: spec}. (An idle worker may take an entry
        at once, so new entries are found among all entries, not only the queued ones.)"""
        before = set(self.queue_states())
        for spec in specs:
            self.dvc("--wait-for-lock", "exp", "run", "--queue", *self._set_args(spec), log=log)
        entries = self._ask_queue(
            lambda q: [*q.iter_queued(), *q.iter_active(), *(e for e, _ in q.iter_done())]
        )
        by_name = {s.name: s for s in specs}
        revs = {
            e.stash_rev: by_name[e.name]
            for e in entries
            if e.stash_rev not in before and e.name in by_name
        }
        missing = set(by_name) - {s.name for s in revs.values()}
        if missing:
            raise MemrecallError(f"DVC did not queue experiment(s) {sorted(missing)}; see {log}")
        return revs

    def start_workers(self, jobs: int, log: Path | None = None) -> None:
        self.dvc("queue", "start", "-j", str(jobs), log=log)

    def workers_alive(self) -> int:
        """How many queue workers answer (`dvc queue status`'s worker count)."""
        return len(self._ask_queue(lambda q: q.worker_status()))

    def queue_idle(self) -> bool:
        """No entry is queued or running (every worker is idle)."""
        return not {"Queued", "Running"} & set(self.queue_states().values())

    def stop_workers(self) -> None:
        """Ask every queue worker to exit after its current task (`dvc queue stop`)."""
        with self._queue() as repo:
            repo.experiments.celery_queue.shutdown()

    def queue_states(self) -> dict[str, str]:
        """{stash rev: Queued | Running | Success | Failed} for every entry DVC knows."""
        return {e["rev"]: e["status"] for e in self._ask_queue(lambda q: q.status())}

    def queue_logs(self, rev: str, path: Path) -> None:
        proc = self.dvc("queue", "logs", rev, check=False)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text((proc.stdout or "") + (proc.stderr or ""), encoding="utf-8")

    def run_temp(self, spec: ExpSpec, log: Path) -> bool:
        """Run one experiment now, in a temp clone (`dvc exp run --temp`)."""
        proc = self.dvc(
            "--wait-for-lock", "exp", "run", "--temp", *self._set_args(spec), log=log, check=False
        )
        return proc.returncode == 0
