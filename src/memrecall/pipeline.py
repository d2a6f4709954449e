"""The pipeline's stage graph and state as DVC reads them: the one place that asks DVC.

dvc.yaml defines the stages; DVC's index resolves them (templating, foreach/matrix stages, params
declared by key such as `params: [reader.model]`) as `dvc repro` does, and `dvc status` says what
changed. The sweep's scheduler (sweep/scheduling.py) and `memrecall plan` (plan/status.py) both
read the graph from here; neither keeps a list of stages of its own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

PARAMS_FILE = "params.yaml"  # the file DVC composes from conf/ for each experiment


@dataclass(frozen=True)
class Stage:
    name: str
    cmd: str
    params: dict[str, tuple[str, ...]]  # params file -> declared keys (() = the whole file)
    upstream: tuple[str, ...]  # stages whose outputs it reads
    locked: dict[str, dict] = field(default_factory=dict)  # file -> {key: value} in dvc.lock
    outs: tuple[str, ...] = ()  # its outputs, relative to the project root
    always_changed: bool = False  # dvc.yaml's always_changed: runs on every repro


@dataclass
class Pipeline:
    """The stages of a project, each after the stages it reads from (dvc.yaml order otherwise),
    and what `dvc status` says of each (`changes`: stage -> its entries, absent when nothing
    changed; None when the status could not be read, `status_error` says why)."""

    stages: dict[str, Stage]
    changes: dict[str, list] | None = None
    status_error: str | None = None

    def clean(self, name: str) -> bool:
        """The workspace holds this stage's outputs for its dvc.lock entry: locked, and nothing
        changed but (at most) params.yaml values, which the lock's values stand for (the
        caller compares those). Upstream stages are not looked at."""
        st = self.stages[name]
        if self.changes is None or (not any(st.locked.values()) and st.params):
            return False  # status unknown, or never run (no lock entry)
        for item in self.changes.get(name, []):
            if not isinstance(item, dict) or set(item) != {"changed deps"}:
                return False
            for path, change in item["changed deps"].items():
                if not isinstance(change, dict) or os.path.normpath(path) != PARAMS_FILE:
                    return False
        return True

    def up_to_date(self) -> set[str]:
        """Stages that are clean and whose upstream stages are all up to date too."""
        done: dict[str, bool] = {}

        def ok(name: str) -> bool:
            if name not in done:
                done[name] = False  # cycle guard
                done[name] = self.clean(name) and all(ok(u) for u in self.stages[name].upstream)
            return done[name]

        return {n for n in self.stages if ok(n)}


def _stage_name(stage, root: Path) -> str:
    """`name` for a stage of the root dvc.yaml, `sub/dvc.yaml:name` for others, the file for a
    .dvc file: as `dvc repro` names them from the project root, whatever the cwd."""
    path = os.path.relpath(stage.path, root)
    name = getattr(stage, "name", None)
    if not name:
        return path
    return name if path == "dvc.yaml" else f"{path}:{name}"


def _upstream_first(stages: dict[str, Stage]) -> dict[str, Stage]:
    order: dict[str, Stage] = {}

    def visit(name: str, seen=()) -> None:
        if name in order or name in seen:
            return
        for u in stages[name].upstream:
            visit(u, (*seen, name))
        order[name] = stages[name]

    for name in stages:
        visit(name)
    return order


def read_pipeline(root: Path, *, status: bool = True) -> Pipeline:
    """The project's stages from DVC's index (a folder with dvc.yaml but no .dvc/ too: the
    graph is read, the status is not), and with `status` what `dvc status` says."""
    from dvc.dependency.param import ParamsDependency
    from dvc.repo import Repo

    root = Path(root).resolve()
    with Repo(str(root), uninitialized=True) as repo:
        index = repo.index
        graph = index.graph
        stages, names = {}, {}
        for st in index.stages:
            params: dict[str, tuple[str, ...]] = {}
            locked: dict[str, dict] = {}
            for dep in st.deps:
                if not isinstance(dep, ParamsDependency):
                    continue
                file = os.path.relpath(dep.fs_path, root)
                params[file] = params.get(file, ()) + tuple(dep.params or ())
                value = dep.hash_info.value if dep.hash_info else None
                locked.setdefault(file, {}).update(value if isinstance(value, dict) else {})
            cmd = getattr(st, "cmd", None) or ""
            name = names[st.addressing] = _stage_name(st, root)
            stages[name] = Stage(
                name,
                cmd if isinstance(cmd, str) else " && ".join(cmd),
                params,
                tuple(sorted(_stage_name(u, root) for u in graph.successors(st))),
                locked,
                tuple(os.path.relpath(o.fs_path, root) for o in st.outs),
                bool(getattr(st, "always_changed", False)),
            )
        pipeline = Pipeline(_upstream_first(stages))
        if not status:
            return pipeline
        if not (root / ".dvc").is_dir():
            pipeline.status_error = "not a DVC project (no .dvc/)"
            return pipeline
        try:  # keyed by DVC's cwd-relative addressing: translate
            pipeline.changes = {names.get(k, k): v for k, v in repo.status().items()}
        except Exception as e:  # noqa: BLE001 - the graph is still known; the state is not
            pipeline.status_error = f"`dvc status` failed ({type(e).__name__}: {e})"
    return pipeline


def load_stages(root: Path) -> tuple[dict[str, Stage], set[str]]:
    """({stage: Stage}, {stages the workspace holds up to date}) from DVC's index of the
    project, and its status."""
    pipeline = read_pipeline(root)
    return pipeline.stages, pipeline.up_to_date()
