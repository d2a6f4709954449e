"""Sweeps as DVC experiments.

`python stages/sweep.py -m reader=deepseek,kimi,glm` lets Hydra expand the overrides; every
combination becomes one DVC experiment named from its overrides (`reader-deepseek`), queued with
`dvc exp run --queue -S ...` (DVC composes params.yaml from conf/), run by `--jobs N` parallel
queue workers, and compared in a table at the end. A named sweep from conf/sweep/
(`+sweep=ablation`) expands into a list of variants the same way.

Compute once: experiments that share upstream params (a reader sweep shares download, embed,
retrieve, rerank, rewrite) would compute those stages once per parallel worker if they all
started together. So the experiments run in waves: a wave never holds two experiments that
would compute the same not-yet-computed stage, and later waves restore those stages from DVC's
run-cache. A stage's identity is its command, its params values and its upstream stages' identities
(from dvc.yaml); stages the workspace's dvc.lock already holds count as computed.

Execution: with Hydra's default launcher the experiments go through DVC's queue (above). With
another launcher (submitit_local, submitit_slurm) each Hydra job runs its own experiments with
`dvc exp run --temp`, so the launcher spreads them over processes or cluster nodes; every job but
the first waits for the first to finish, so the shared upstream is computed once there too.

DVC is driven through `dvc` subprocesses: DVC composes params.yaml with Hydra's global state,
which is already taken inside @hydra.main ("GlobalHydra is already initialized").
"""

from __future__ import annotations

import csv
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable

from . import tracking
from .config import get as get_dotted
from .errors import ConfigError, MemrecallError
from .hashing import sha256_json, sha256_text
from .paths import project_root

DRIVER_KEY = "sweep"  # the driver's own config node: never passed on to DVC
SPEC_KEYS = ("name", "description", "overrides", "variants", "grid")
DEFAULT_METRICS = ("qa.overall", "qa.task_averaged", "qa.abstention",
                   "retrieval.session.recall_any@5", "retrieval.session.ndcg_any@10",
                   "cost_usd", "refusal_rate", "judge_errors")
EXECUTE = ("auto", "queue", "inline")
ON_EXISTS = ("replace", "skip", "error")
RECORDS = ".memrecall_sweep"  # folder in the Hydra sweep dir: one record per Hydra job
MAX_NAME = 96
CALLBACK = "memrecall.sweep.SweepCallback"
WORKER_RESTART_S = 60.0  # queued entries but nothing running for this long: start workers again


# ---------------------------------------------------------------- options

@dataclass
class SweepOptions:
    """The driver's knobs, set in a named sweep file or as `++sweep.KEY=VALUE` (`--jobs N`)."""
    jobs: int = 2                 # parallel DVC queue workers
    execute: str = "auto"         # queue | inline (dvc exp run --temp in each Hydra job) | auto
    on_exists: str = "replace"    # an experiment of that name exists at HEAD: replace|skip|error
    waves: bool = True            # schedule so shared upstream stages are computed once
    track: bool = True            # sync the finished experiments into MLflow
    metrics: tuple = DEFAULT_METRICS  # metrics.json keys shown in the table
    prefix: str = ""              # prepended to every experiment name
    poll_s: float = 3.0
    timeout_s: float | None = None

    @classmethod
    def from_cfg(cls, cfg: dict | None) -> "SweepOptions":
        cfg = dict(cfg or {})
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(cfg) - known - set(SPEC_KEYS))
        if unknown:
            raise ConfigError(f"{DRIVER_KEY}.{unknown[0]}", "override",
                              sorted(known | set(SPEC_KEYS)))
        opts = cls(**{k: v for k, v in cfg.items() if k in known})
        if not isinstance(opts.jobs, int) or isinstance(opts.jobs, bool) or opts.jobs < 1:
            raise ConfigError(f"{DRIVER_KEY}.jobs", opts.jobs, hint="a positive integer")
        if opts.execute not in EXECUTE:
            raise ConfigError(f"{DRIVER_KEY}.execute", opts.execute, EXECUTE)
        if opts.on_exists not in ON_EXISTS:
            raise ConfigError(f"{DRIVER_KEY}.on_exists", opts.on_exists, ON_EXISTS)
        if isinstance(opts.metrics, str):
            opts.metrics = (opts.metrics,)
        opts.metrics = tuple(opts.metrics)
        opts.prefix = slug_text(opts.prefix) if opts.prefix else ""
        return opts


@dataclass(frozen=True)
class ExpSpec:
    name: str
    overrides: tuple[str, ...]


# ---------------------------------------------------------------- overrides and names

def override_key(override: str) -> str:
    """The key an override sets: '+reader.top_k=3' -> 'reader.top_k', '~rewrite' -> 'rewrite'."""
    key = override.split("=", 1)[0].strip()
    return key.lstrip("~+")


def is_driver_override(override: str) -> bool:
    key = override_key(override)
    return key == DRIVER_KEY or key.startswith(DRIVER_KEY + ".")


def merge_overrides(*groups: Iterable[str]) -> tuple[str, ...]:
    """Concatenate override lists; a later override of the same key replaces the earlier one."""
    out: dict[str, str] = {}
    for group in groups:
        for ov in group:
            key = override_key(ov)
            out.pop(key, None)
            out[key] = ov
    return tuple(out.values())


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def slug_text(text: str) -> str:
    """A git-ref-safe piece of a name (DVC experiment names are git refs)."""
    s = _UNSAFE.sub("-", text)
    s = re.sub(r"[-.]*-[-.]*", "-", s)  # a run of separators with a dash in it: one dash
    s = re.sub(r"\.{2,}", ".", s)
    return s.strip("-._")


def slug(overrides: Iterable[str]) -> str:
    """reader=deepseek reader.top_k_context=15 -> 'reader-deepseek_reader.top_k_context-15'."""
    parts = []
    for ov in overrides:
        key = override_key(ov)
        value = ov.split("=", 1)[1] if "=" in ov else ""
        piece = f"{key}-{value}" if value != "" else key
        parts.append(("no-" if ov.lstrip().startswith("~") else "") + slug_text(piece))
    return "_".join(p for p in parts if p)


def experiment_name(*parts: str) -> str:
    name = "_".join(p for p in (slug_text(p) for p in parts) if p) or "default"
    if name.endswith(".lock"):
        name = name[: -len(".lock")] + "-lock"
    if len(name) > MAX_NAME:  # keep it readable and unique
        name = f"{name[:MAX_NAME - 9].rstrip('-._')}-{sha256_text(name)[:8]}"
    return name


# ---------------------------------------------------------------- named sweeps

def _as_override_list(value, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise ConfigError(where, value, hint="expected a list of overrides like [reader=deepseek]")
    bad = [v for v in value if not isinstance(v, str) or ("=" not in v and not v.startswith("~"))]
    if bad:
        raise ConfigError(where, bad[0], hint="each override reads KEY=VALUE (or ~KEY)")
    return list(value)


def _hydra_value(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def expand_named_sweep(spec: dict) -> list[tuple[str, tuple[str, ...]]]:
    """A conf/sweep/<name>.yaml node -> [(variant name, overrides)], in file order.

    `overrides` apply to every variant; `variants` maps a name to its extra overrides; `grid`
    maps a config key to a list of values (cartesian product, like Hydra's `a=1,2 b=x,y`).
    With both, every variant is crossed with every grid point.
    """
    name = spec.get("name") or "sweep"
    where = f"conf/sweep/{name}.yaml"
    unknown = sorted(set(spec) - set(SPEC_KEYS) - set(SweepOptions.__dataclass_fields__))
    if unknown:
        raise ConfigError(f"{DRIVER_KEY}.{unknown[0]}", "override", SPEC_KEYS,
                          hint=f"in {where}")
    common = _as_override_list(spec.get("overrides"), f"{DRIVER_KEY}.overrides ({where})")
    variants = spec.get("variants")
    grid = spec.get("grid")
    if not variants and not grid:
        raise ConfigError(f"{DRIVER_KEY}.variants", variants,
                          hint=f"{where} needs `variants` (name -> overrides) or `grid`")
    if variants is not None and not isinstance(variants, dict):
        raise ConfigError(f"{DRIVER_KEY}.variants", variants,
                          hint=f"{where}: a mapping of variant name to a list of overrides")
    var_list = [(str(v), _as_override_list(o, f"{DRIVER_KEY}.variants.{v} ({where})"))
                for v, o in (variants or {"": []}).items()]
    grid_list: list[tuple[str, list[str]]] = [("", [])]
    if grid:
        if not isinstance(grid, dict) or not all(isinstance(v, (list, tuple)) and v
                                                 for v in grid.values()):
            raise ConfigError(f"{DRIVER_KEY}.grid", grid,
                              hint=f"{where}: a mapping of config key to a non-empty list")
        axes = [[f"{k}={_hydra_value(v)}" for v in values] for k, values in grid.items()]
        single = len(grid) == 1
        grid_list = [(slug_text(combo[0].split("=", 1)[1]) if single else slug(combo), list(combo))
                     for combo in itertools.product(*axes)]
    out = []
    for (vname, vovs), (gname, govs) in itertools.product(var_list, grid_list):
        out.append(("_".join(p for p in (slug_text(vname), gname) if p),
                    merge_overrides(common, vovs, govs)))
    names = [n for n, _ in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ConfigError(f"{DRIVER_KEY}.variants", dupes[0], hint=f"{where}: names must be unique")
    return out


def plan_experiments(task_overrides: Iterable[str], sweep_cfg: dict | None = None,
                     prefix: str = "") -> list[ExpSpec]:
    """The experiments one Hydra job stands for: its own overrides, crossed with the variants of
    a named sweep when `+sweep=NAME` was given. Driver overrides (`sweep.*`) never reach DVC."""
    job = [o for o in task_overrides if not is_driver_override(o)]
    sweep_cfg = sweep_cfg or {}
    if not (sweep_cfg.get("variants") or sweep_cfg.get("grid")):
        return [ExpSpec(experiment_name(prefix, slug(job)), merge_overrides(job))]
    sweep_name = sweep_cfg.get("name") or "sweep"
    specs = []
    for vname, vovs in expand_named_sweep(sweep_cfg):
        # name only the command-line overrides the variant does not replace
        own = [o for o in job if override_key(o) not in {override_key(v) for v in vovs}]
        specs.append(ExpSpec(experiment_name(prefix, sweep_name, vname, slug(own)),
                             merge_overrides(job, vovs)))
    return specs


def check_unique(specs: list[ExpSpec]) -> None:
    seen: dict[str, ExpSpec] = {}
    for s in specs:
        if s.name in seen and seen[s.name].overrides != s.overrides:
            raise MemrecallError(f"two experiments of this sweep would share the name "
                                 f"'{s.name}': {list(seen[s.name].overrides)} and "
                                 f"{list(s.overrides)}; set {DRIVER_KEY}.prefix or rename a "
                                 f"variant")
        seen[s.name] = s


# ---------------------------------------------------------------- the DVC project

@contextmanager
def _isolated_hydra():
    """Let DVC's composer initialise Hydra inside a running Hydra app, then put the app's
    global state back."""
    from hydra.core.global_hydra import GlobalHydra
    from hydra.core.singleton import Singleton

    saved = Singleton._instances.pop(GlobalHydra, None)
    try:
        yield
    finally:
        Singleton._instances.pop(GlobalHydra, None)
        if saved is not None:
            Singleton._instances[GlobalHydra] = saved


@dataclass
class StageDef:
    name: str
    cmd: str
    deps: list[str]
    params: list[str]   # keys of params.yaml; other params files are constant within a sweep
    outs: list[str]


def _paths(entries) -> list[str]:
    out = []
    for e in entries or []:
        out.extend(e.keys() if isinstance(e, dict) else [e])
    return [str(p).rstrip("/") for p in out]


def load_stages(root: Path) -> dict[str, StageDef]:
    """Stages of dvc.yaml, as far as scheduling needs them (foreach/matrix stages are left out:
    they only lose the compute-once scheduling, never correctness)."""
    path = root / "dvc.yaml"
    if not path.exists():
        raise MemrecallError(f"missing {path}: a sweep runs the DVC pipeline of its project")
    data = tracking.load_yaml(path.read_text(encoding="utf-8"), str(path))
    stages = {}
    for name, st in (data.get("stages") or {}).items():
        if not isinstance(st, dict) or "cmd" not in st or {"foreach", "matrix"} & set(st):
            continue
        params: list[str] = []
        for p in st.get("params") or []:
            if isinstance(p, dict):
                for file, keys in p.items():
                    if file == "params.yaml":
                        params.extend(keys or [])
            else:
                params.append(str(p))
        cmd = st["cmd"] if isinstance(st["cmd"], str) else " && ".join(st["cmd"])
        stages[name] = StageDef(name, cmd, _paths(st.get("deps")), params,
                                _paths(st.get("outs")) + _paths(st.get("metrics"))
                                + _paths(st.get("plots")))
    return stages


def stage_signatures(stages: dict[str, StageDef], params_of) -> dict[str, str]:
    """{stage: identity}: the command, the values of its params (`params_of(stage, key)`) and
    the identities of the stages whose outputs it reads."""
    producers = [(o, s.name) for s in stages.values() for o in s.outs]
    memo: dict[str, str] = {}

    def upstream(stage: StageDef) -> set[str]:
        ups = set()
        for dep in stage.deps:
            for out, prod in producers:
                if prod != stage.name and (dep == out or dep.startswith(out + "/")
                                           or out.startswith(dep + "/")):
                    ups.add(prod)
        return ups

    def sig(name: str, visiting=()) -> str:
        if name not in memo:
            if name in visiting:
                raise MemrecallError(f"dvc.yaml: stage '{name}' depends on itself")
            st = stages[name]
            memo[name] = sha256_json({
                "stage": name, "cmd": st.cmd,
                "params": {k: params_of(name, k) for k in st.params},
                "upstream": sorted(sig(u, (*visiting, name)) for u in upstream(st)),
            })[:16]
        return memo[name]

    return {name: sig(name) for name in stages}


def _dvc_env() -> dict:
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
            raise MemrecallError(f"{self.root} is not a DVC project (no .dvc/): run the sweep "
                                 f"from the project folder")
        from dvc.repo import Repo

        with Repo(str(self.root)) as repo:
            hydra = dict(repo.config.get("hydra", {}))
        if not hydra.get("enabled"):
            raise ConfigError("hydra.enabled (DVC config)", hydra.get("enabled"),
                              hint="sweeps let DVC compose params.yaml from conf/: run "
                                   "`dvc config hydra.enabled true`")
        if hydra.get("config_module"):
            raise ConfigError("hydra.config_module (DVC config)", hydra["config_module"],
                              hint="sweeps need a config folder (hydra.config_dir)")
        self.conf_dir = self.root / hydra.get("config_dir", "conf")
        self.config_name = hydra.get("config_name", "config")
        self.plugins_path = self.root / hydra.get("plugins_path", "")
        self._composed: dict[tuple, dict] = {}

    # -- config
    def compose(self, spec: ExpSpec) -> dict:
        """params.yaml as DVC will compose it for this experiment (DVC's own composer)."""
        key = spec.overrides
        if key not in self._composed:
            from dvc.utils.hydra import compose_and_dump
            from hydra.errors import HydraException
            from omegaconf.errors import OmegaConfBaseException

            with tempfile.TemporaryDirectory(prefix="memrecall-sweep-") as tmp, _isolated_hydra():
                out = Path(tmp, "params.yaml")
                try:
                    compose_and_dump(str(out), str(self.conf_dir), None, self.config_name,
                                     str(self.plugins_path), list(spec.overrides))
                except (HydraException, OmegaConfBaseException) as e:
                    raise ConfigError(" ".join(spec.overrides) or "(no overrides)", "override",
                                      hint=f"experiment '{spec.name}': cannot compose "
                                           f"{self.conf_dir}: {e}") from None
                self._composed[key] = tracking.load_yaml(out.read_text(encoding="utf-8"),
                                                          str(out))
        return self._composed[key]

    # -- subprocesses
    def dvc(self, *args: str, log: Path | None = None, check: bool = True):
        cmd = [sys.executable, "-m", "dvc", *args]
        if log is not None:
            log.parent.mkdir(parents=True, exist_ok=True)
            with open(log, "a", encoding="utf-8") as f:
                f.write(f"[{time.strftime('%H:%M:%S')}] $ dvc {' '.join(args)}\n")
                f.flush()
                proc = subprocess.run(cmd, cwd=self.root, env=_dvc_env(), stdout=f,
                                      stderr=subprocess.STDOUT, text=True)
        else:
            proc = subprocess.run(cmd, cwd=self.root, env=_dvc_env(), capture_output=True,
                                  text=True)
        if check and proc.returncode != 0:
            detail = (proc.stderr or proc.stdout or "").strip() if log is None else f"see {log}"
            raise MemrecallError(f"`dvc {' '.join(args)}` failed in {self.root} "
                                 f"(exit {proc.returncode}): {detail}")
        return proc

    @staticmethod
    def _set_args(spec: ExpSpec) -> list[str]:
        args = ["-n", spec.name]
        for ov in spec.overrides:
            args += ["-S", ov]
        return args

    # -- existing experiments
    def resolve_existing(self, specs: list[ExpSpec], on_exists: str, baseline: str,
                         log: Path | None = None) -> tuple[list[ExpSpec], list[ExpSpec]]:
        """(to run, kept): handle experiments whose name exists at this baseline already."""
        existing = {r.name: r for r in tracking.list_experiments(
            self.root, names=[s.name for s in specs], baseline=baseline)}
        clash = [s for s in specs if s.name in existing]
        if not clash:
            return specs, []
        if on_exists == "error":
            raise MemrecallError(f"experiment '{clash[0].name}' exists at baseline "
                                 f"{baseline[:7]} and {DRIVER_KEY}.on_exists=error; use "
                                 f"++{DRIVER_KEY}.on_exists=replace (or skip), or "
                                 f"++{DRIVER_KEY}.prefix=NEW")
        if on_exists == "skip":
            return [s for s in specs if s.name not in existing], clash
        # replace: the run-cache makes re-running unchanged stages cheap
        self.dvc("--wait-for-lock", "exp", "remove", *[existing[s.name].git_ref for s in clash],
                 log=log)
        return specs, []

    # -- the queue
    def _queue(self):
        from dvc.repo import Repo

        return Repo(str(self.root))

    def queue(self, specs: list[ExpSpec], log: Path | None = None) -> dict[str, ExpSpec]:
        """Queue each experiment; returns {stash rev: spec}. (An idle worker may take an entry
        at once, so new entries are found among all entries, not only the queued ones.)"""
        before = set(self.queue_states())
        for spec in specs:
            self.dvc("--wait-for-lock", "exp", "run", "--queue", *self._set_args(spec), log=log)
        with self._queue() as repo:
            q = repo.experiments.celery_queue
            entries = [*q.iter_queued(), *q.iter_active(), *(e for e, _ in q.iter_done())]
        by_name = {s.name: s for s in specs}
        revs = {e.stash_rev: by_name[e.name] for e in entries
                if e.stash_rev not in before and e.name in by_name}
        missing = set(by_name) - {s.name for s in revs.values()}
        if missing:
            raise MemrecallError(f"DVC did not queue experiment(s) {sorted(missing)}; see {log}")
        return revs

    def start_workers(self, jobs: int, log: Path | None = None) -> None:
        self.dvc("queue", "start", "-j", str(jobs), log=log)

    def queue_states(self) -> dict[str, str]:
        """{stash rev: Queued | Running | Success | Failed} for every entry DVC knows."""
        with self._queue() as repo:
            return {e["rev"]: e["status"] for e in repo.experiments.celery_queue.status()}

    def queue_logs(self, rev: str, path: Path) -> None:
        proc = self.dvc("queue", "logs", rev, check=False)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text((proc.stdout or "") + (proc.stderr or ""), encoding="utf-8")

    def run_temp(self, spec: ExpSpec, log: Path) -> bool:
        """Run one experiment now, in a temp clone (`dvc exp run --temp`)."""
        proc = self.dvc("--wait-for-lock", "exp", "run", "--temp", *self._set_args(spec),
                        log=log, check=False)
        return proc.returncode == 0

    # -- scheduling
    def baseline_signatures(self, stages: dict[str, StageDef]) -> set[str]:
        """Identities of the stages that the workspace's dvc.lock holds up to date: experiments
        check their outputs out instead of computing them."""
        lock_path = self.root / "dvc.lock"
        if not lock_path.exists():
            return set()
        try:
            from dvc.repo import Repo

            lock = tracking.load_yaml(lock_path.read_text(encoding="utf-8"), str(lock_path))
            locked = lock.get("stages") or {}
            with Repo(str(self.root)) as repo:
                status = repo.status()
        except Exception:  # noqa: BLE001 - only an optimisation: assume nothing is computed
            return set()

        def clean(name: str) -> bool:
            if name not in locked:
                return False
            for item in status.get(name, []):
                if not isinstance(item, dict) or set(item) != {"changed deps"}:
                    return False
                # params changes are compared by value below; file changes are not allowed
                if any(not isinstance(v, dict) for v in item["changed deps"].values()):
                    return False
            return True

        def params_of(stage: str, key: str):
            return ((locked.get(stage) or {}).get("params") or {}).get("params.yaml", {}).get(key)

        sigs = stage_signatures(stages, params_of)
        producers = {o: s.name for s in stages.values() for o in s.outs}
        done: dict[str, bool] = {}

        def computed(name: str) -> bool:
            if name not in done:
                done[name] = False  # cycle guard
                ups = {producers[d] for d in stages[name].deps if d in producers}
                done[name] = clean(name) and all(computed(u) for u in ups if u != name)
            return done[name]

        return {sigs[n] for n in stages if computed(n)}

    def signatures(self, stages: dict[str, StageDef], spec: ExpSpec) -> dict[str, str]:
        params = self.compose(spec)
        return stage_signatures(stages, lambda _stage, key: get_dotted(params, key))


def schedule_waves(specs: list[ExpSpec], sigs: dict[str, dict[str, str]],
                   computed: set[str] = frozenset()) -> list[list[ExpSpec]]:
    """Split `specs` into waves (run one after the other, each in parallel) so that no stage
    identity that is not yet computed is computed by two experiments of one wave."""
    todo = list(specs)
    done = set(computed)
    waves = []
    while todo:
        wave, claimed, rest = [], set(), []
        for spec in todo:
            new = set(sigs[spec.name].values()) - done
            if new & claimed:
                rest.append(spec)
            else:
                wave.append(spec)
                claimed |= new
        waves.append(wave)
        done |= claimed
        todo = rest
    return waves


# ---------------------------------------------------------------- running

@dataclass
class SweepResult:
    specs: list[ExpSpec]
    states: dict[str, str]  # name -> Success | Failed | Kept | Queued | Running | Not run
    rows: list[dict] = field(default_factory=list)
    table: str = ""
    synced: dict[str, str] = field(default_factory=dict)

    @property
    def failed(self) -> list[str]:
        return [s.name for s in self.specs if self.states.get(s.name) not in ("Success", "Kept")]


def _progress(total: int, desc: str):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="exp", file=sys.stderr)


def run_queued(project: DvcProject, specs: list[ExpSpec], opts: SweepOptions, out_dir: Path,
               baseline: str) -> dict[str, str]:
    """Queue the experiments (in waves) and run them with `opts.jobs` workers; wait."""
    log = out_dir / "dvc.log"
    for spec in specs:
        project.compose(spec)  # every config error before anything is queued
    to_run, kept = project.resolve_existing(specs, opts.on_exists, baseline, log=log)
    states = {s.name: "Kept" for s in kept}
    if not to_run:
        return states
    if opts.waves:
        stages = load_stages(project.root)
        sigs = {s.name: project.signatures(stages, s) for s in to_run}
        waves = schedule_waves(to_run, sigs, project.baseline_signatures(stages))
    else:
        waves = [to_run]
    print(f"sweep: {len(to_run)} experiment(s) in {len(waves)} wave(s) of "
          f"{[len(w) for w in waves]}, {opts.jobs} worker(s); DVC output in {log}",
          file=sys.stderr)
    start = time.monotonic()
    with _progress(len(to_run), "sweep") as bar:
        for wave in waves:
            revs = project.queue(wave, log=log)
            project.start_workers(min(opts.jobs, len(wave)), log=log)
            states.update(_wait(project, revs, opts, bar, start, out_dir, log))
            if any(states[s.name] not in ("Success", "Failed") for s in wave):
                break  # timed out: later waves are not queued
    for spec in to_run:
        states.setdefault(spec.name, "Not run")
    return states


def _wait(project: DvcProject, revs: dict[str, ExpSpec], opts: SweepOptions, bar, start: float,
          out_dir: Path, log: Path) -> dict[str, str]:
    pending = dict(revs)
    states: dict[str, str] = {}
    idle_since = time.monotonic()
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
                    bar.write(f"sweep: experiment '{spec.name}' failed; log in "
                              f"{out_dir / 'logs' / (spec.name + '.log')}")
        # Temporary workers exit when the queue runs dry; one may have been on its way out as
        # this wave was queued. Nothing running for a while: start workers again.
        if any(now.get(r) == "Running" for r in pending) or not pending:
            idle_since = time.monotonic()
        elif time.monotonic() - idle_since > WORKER_RESTART_S:
            project.start_workers(min(opts.jobs, len(pending)), log=log)
            idle_since = time.monotonic()
        if opts.timeout_s and time.monotonic() - start > opts.timeout_s and pending:
            for rev, spec in pending.items():
                states[spec.name] = now.get(rev, "Unknown")
            bar.write(f"sweep: timed out after {opts.timeout_s:.0f}s; still pending: "
                      f"{sorted(s.name for s in pending.values())} (`dvc queue status`)")
            break
    return states


def run_inline(project: DvcProject, specs: list[ExpSpec], opts: SweepOptions, out_dir: Path,
               baseline: str) -> dict[str, str]:
    """Run the experiments here, one after another (`dvc exp run --temp`)."""
    for spec in specs:
        project.compose(spec)
    to_run, kept = project.resolve_existing(specs, opts.on_exists, baseline,
                                            log=out_dir / "dvc.log")
    states = {s.name: "Kept" for s in kept}
    with _progress(len(to_run), "sweep (inline)") as bar:
        for spec in to_run:
            ok = project.run_temp(spec, out_dir / "logs" / f"{spec.name}.log")
            states[spec.name] = "Success" if ok else "Failed"
            bar.update(1)
    return states


# ---------------------------------------------------------------- comparison table

def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def comparison(root: Path, specs: list[ExpSpec], states: dict[str, str], opts: SweepOptions,
               baseline: str) -> tuple[list[str], list[dict]]:
    """Header and rows: experiment, state, the overrides that differ, the chosen metrics."""
    refs = {r.name: r for r in tracking.list_experiments(root, names=[s.name for s in specs],
                                                         baseline=baseline)}
    metrics = {}
    for s in specs:
        if s.name in refs and states.get(s.name) in ("Success", "Kept"):
            metrics[s.name] = tracking.read_experiment(root, refs[s.name]).metrics
    keys: list[str] = []
    for s in specs:
        for ov in s.overrides:
            k = override_key(ov)
            if k not in keys:
                keys.append(k)
    values = {s.name: {override_key(o): (o.split("=", 1)[1] if "=" in o else "(deleted)")
                       for o in s.overrides} for s in specs}
    varying = [k for k in keys if len({values[s.name].get(k, "") for s in specs}) > 1]
    shown = [m for m in opts.metrics if any(get_dotted(metrics.get(s.name, {}), m)
                                            is not None for s in specs)]
    if not shown:  # not the memrecall metrics.json: show the first numeric ones found
        seen: list[str] = []
        for m in metrics.values():
            for k, v in tracking.flatten(m).items():
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

    return "\n".join([line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|",
                      *(line(c) for c in cells)])


def finish(root: Path, specs: list[ExpSpec], states: dict[str, str], opts: SweepOptions,
           out_dir: Path, baseline: str) -> SweepResult:
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
    print(f"sweep: {len(ok)} of {len(specs)} experiment(s) succeeded; table in "
          f"{out_dir / 'comparison.md'}; compare with `dvc exp show --only-changed`",
          file=sys.stderr)
    return result


def run_sweep(root: Path, specs: list[ExpSpec], opts: SweepOptions, out_dir: Path,
              mode: str = "queue") -> SweepResult:
    """The whole sweep in this process: queue (or run inline), wait, table, MLflow."""
    check_unique(specs)
    project = DvcProject(root)
    baseline = tracking.head_rev(project.root)
    if opts.track:
        tracking.ensure_experiment(project.root)  # before any parallel writer
    runner = run_inline if mode == "inline" else run_queued
    states = runner(project, specs, opts, out_dir, baseline)
    return finish(project.root, specs, states, opts, out_dir, baseline)


# ---------------------------------------------------------------- Hydra glue

def hydra_argv(argv: list[str]) -> list[str]:
    """`--jobs N` / `-j N` -> `++sweep.jobs=N`, and register the end-of-multirun callback."""
    out, it = [argv[0]], iter(argv[1:])
    for arg in it:
        if arg in ("--jobs", "-j"):
            value = next(it, None)
            if value is None:
                raise ConfigError(f"{DRIVER_KEY}.jobs", None, hint="--jobs needs a number")
            out.append(f"++{DRIVER_KEY}.jobs={value}")
        elif arg.startswith("--jobs="):
            out.append(f"++{DRIVER_KEY}.jobs={arg.split('=', 1)[1]}")
        else:
            out.append(arg)
    if not any(a.startswith(("+hydra.callbacks.memrecall_sweep", "hydra.callbacks.memrecall_sweep"))
               for a in out):
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
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".job-{num}.json.tmp"
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    tmp.replace(folder / f"job-{num}.json")


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
            print(f"sweep: job {num} not finished after {opts.timeout_s:.0f}s; going ahead",
                  file=sys.stderr)
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
        result = run_sweep(root, specs, opts, _abs(hc.runtime.output_dir, hc.runtime.cwd), mode)
        if result.failed:
            raise MemrecallError(f"{len(result.failed)} of {len(specs)} experiment(s) did not "
                                 f"succeed: {', '.join(result.failed)}")
        return
    project = DvcProject(root)
    for spec in specs:
        project.compose(spec)  # a bad override stops the sweep before anything runs
    folder = _records_dir(hc)
    record = {"job": hc.job.num, "mode": mode, "options": asdict(opts),
              "specs": [[s.name, list(s.overrides)] for s in specs], "states": None,
              "finished": mode == "queue"}
    if mode == "queue":  # the callback queues and runs everything once all jobs are planned
        _write_record(folder, hc.job.num, record)
        return
    _write_record(folder, hc.job.num, record)
    if hc.job.num > 0 and opts.waves:
        _wait_for_job(folder, 0, opts)  # job 0 computes the shared upstream
    out_dir = _abs(hc.runtime.output_dir, hc.runtime.cwd)
    try:
        states = run_inline(project, specs, opts, out_dir, tracking.head_rev(project.root))
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
        specs = [ExpSpec(n, tuple(o)) for r in records for n, o in r["specs"]]
        check_unique(specs)
        root = project_root(Path(config.hydra.runtime.cwd))
        out_dir = folder.parent
        baseline = tracking.head_rev(root)
        states: dict[str, str] = {}
        queued = [ExpSpec(n, tuple(o)) for r in records if r["mode"] == "queue"
                  for n, o in r["specs"]]
        for r in records:
            if r["mode"] != "queue":
                states.update(r.get("states") or {n: "Failed" for n, _ in r["specs"]})
        if queued:
            states.update(run_queued(DvcProject(root), queued, opts, out_dir, baseline))
        result = finish(root, specs, states, opts, out_dir, baseline)
        if result.failed:
            raise MemrecallError(f"{len(result.failed)} of {len(specs)} experiment(s) did not "
                                 f"succeed: {', '.join(result.failed)}")
