"""Scheduling: compute once.

Experiments that share upstream params (a reader sweep shares download, embed, retrieve,
rerank, rewrite) would compute those stages once per parallel worker if they all started
together. So the experiments run in waves: a wave never holds two experiments that would
compute the same not-yet-computed stage, and later waves restore those stages from DVC's
run-cache.

A stage's identity is its command, the values of the params it declares and the identities of
the stages it depends on. The stage graph and the declared params come from DVC itself
(`Repo.index`: templating, foreach/matrix stages and params declared by key, e.g.
`params: [reader.model]`, resolved as `dvc repro` resolves them); stages that the workspace's
dvc.lock holds up to date count as computed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..config import get as get_dotted
from ..errors import MemrecallError
from ..hashing import sha256_json
from .planning import ExpSpec

PARAMS_FILE = "params.yaml"  # the file DVC composes from conf/ for each experiment


@dataclass(frozen=True)
class Stage:
    name: str
    cmd: str
    params: dict[str, tuple[str, ...]]    # params file -> declared keys (() = the whole file)
    upstream: tuple[str, ...]             # stages whose outputs it reads
    locked: dict[str, dict] = field(default_factory=dict)  # file -> {key: value} in dvc.lock


# params_of(stage, params file, key or None for the whole file) -> value
ParamsOf = Callable[[Stage, str, "str | None"], object]


def _stage_name(stage, root: Path) -> str:
    """`name` for a stage of the root dvc.yaml, `sub/dvc.yaml:name` for others, the file for a
    .dvc file: as `dvc repro` names them from the project root, whatever the cwd."""
    path = os.path.relpath(stage.path, root)
    name = getattr(stage, "name", None)
    if not name:
        return path
    return name if path == "dvc.yaml" else f"{path}:{name}"


def load_stages(root: Path) -> tuple[dict[str, Stage], set[str]]:
    """({stage: Stage}, {stages the workspace holds up to date}) from DVC's index of the
    project, and its status."""
    from dvc.dependency.param import ParamsDependency
    from dvc.repo import Repo

    root = Path(root).resolve()
    with Repo(str(root)) as repo:
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
                name, cmd if isinstance(cmd, str) else " && ".join(cmd), params,
                tuple(sorted(_stage_name(u, root) for u in graph.successors(st))), locked)
        try:  # keyed by DVC's cwd-relative addressing: translate
            status = {names.get(k, k): v for k, v in repo.status().items()}
        except Exception:  # noqa: BLE001 - only an optimisation: assume nothing is computed
            status = {name: ["unknown"] for name in stages}
    return stages, _up_to_date(stages, status)


def _up_to_date(stages: dict[str, Stage], status: dict) -> set[str]:
    """Stages whose outputs the workspace holds for their dvc.lock entry: locked, nothing
    changed but (at most) params.yaml values, which the lock's values stand for, and every
    upstream stage up to date too."""
    def clean(name: str) -> bool:
        if not any(stages[name].locked.values()) and stages[name].params:
            return False  # never run (no lock entry)
        for item in status.get(name, []):
            if not isinstance(item, dict) or set(item) != {"changed deps"}:
                return False
            for path, change in item["changed deps"].items():
                if not isinstance(change, dict) or os.path.normpath(path) != PARAMS_FILE:
                    return False
        return True

    done: dict[str, bool] = {}

    def ok(name: str) -> bool:
        if name not in done:
            done[name] = False  # cycle guard
            done[name] = clean(name) and all(ok(u) for u in stages[name].upstream)
        return done[name]

    return {n for n in stages if ok(n)}


def stage_signatures(stages: dict[str, Stage], params_of: ParamsOf) -> dict[str, str]:
    """{stage: identity}: the command, the values of its declared params and the identities of
    the stages it depends on."""
    memo: dict[str, str] = {}

    def sig(name: str, visiting=()) -> str:
        if name not in memo:
            if name in visiting:
                raise MemrecallError(f"dvc.yaml: stage '{name}' depends on itself")
            st = stages[name]
            values = {file: ({k: params_of(st, file, k) for k in keys} if keys
                             else params_of(st, file, None))
                      for file, keys in sorted(st.params.items())}
            memo[name] = sha256_json({
                "stage": name, "cmd": st.cmd, "params": values,
                "upstream": sorted(sig(u, (*visiting, name)) for u in st.upstream),
            })[:16]
        return memo[name]

    return {name: sig(name) for name in stages}


def locked_values(stage: Stage, file: str, key: str | None):
    """A param's value as dvc.lock recorded it (what the workspace's outputs were made with)."""
    values = stage.locked.get(file, {})
    return values if key is None else values.get(key)


def experiment_values(composed: dict) -> ParamsOf:
    """Param values as an experiment will see them: params.yaml composed for it; other params
    files are the workspace's (the same for every experiment of a sweep)."""
    def params_of(stage: Stage, file: str, key: str | None):
        if file == PARAMS_FILE:
            return composed if key is None else get_dotted(composed, key)
        return locked_values(stage, file, key)
    return params_of


def computed_signatures(stages: dict[str, Stage], up_to_date: set[str]) -> set[str]:
    """Identities of the stages the workspace holds: experiments restore, not compute, them."""
    sigs = stage_signatures(stages, locked_values)
    return {sigs[n] for n in up_to_date}


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
