"""What DVC would run for a config: per stage of the project's graph (memrecall.pipeline, read
once from DVC), the reasons it would run, [] when it is up to date.

- params: compared with dvc.lock by value, so the planned params need not be in params.yaml;
- files: `dvc status` (a stage whose own entry shows more than params.yaml value changes);
- upstream: a stage after one that runs runs too (if that one's outputs change);
- always_changed stages: `dvc repro` runs them every time, and what matters downstream is
  whether their outputs change. Where the plan can compute the outputs without running the
  stage (PREDICTABLE: the `sources` fingerprint) and they equal the workspace's files, the stage
  changes nothing and counts as up to date; otherwise it runs.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from .. import paths
from ..config import get as get_dotted
from ..pipeline import PARAMS_FILE, Pipeline, Stage


def _sources(params: dict) -> str:
    from ..config import section
    from ..data.sources import sources_json

    return sources_json(section(params, "dataset"))


def _errata(params: dict) -> str:
    from ..config import section
    from ..data.sources import errata_json

    return errata_json(section(params, "dataset"))


# Outputs of always_changed stages the plan can compute from the params, as the stage would
# write them (run in the project root, as DVC runs stages): output path -> params -> text.
PREDICTABLE: dict[str, Callable[[dict], str]] = {paths.SOURCES: _sources, paths.ERRATA: _errata}


@dataclass
class RunStatus:
    """The stages (upstream first) and why each would run ([]: up to date)."""

    stages: dict[str, Stage]
    why: dict[str, list[str]]
    notes: dict[str, list[str]] = field(default_factory=dict)

    @property
    def order(self) -> list[str]:
        return list(self.stages)

    def runs(self, stage: str) -> bool:
        return bool(self.why.get(stage))

    def rewrites(self, path: str) -> bool:
        """A stage that would run outputs `path`: the file there is not this config's."""
        path = os.path.normpath(path)
        return any(
            self.runs(name) and any(path == o or path.startswith(o + os.sep) for o in st.outs)
            for name, st in self.stages.items()
        )

    @classmethod
    def assumed(
        cls, stages: dict[str, Stage], running: Iterable[str], why: str = "assumed to run"
    ) -> "RunStatus":
        """A status given, not asked of DVC (benches and tests: 'read and judge run next')."""
        running = set(running)
        unknown = running - set(stages)
        if unknown:
            raise ValueError(f"no such stage in the graph: {sorted(unknown)}")
        return cls(stages, {s: ([why] if s in running else []) for s in stages})


def _diff_keys(new, old, prefix: str) -> list[str]:
    if isinstance(new, dict) and isinstance(old, dict):
        out = []
        for k in sorted(set(new) | set(old), key=str):
            out += _diff_keys(new.get(k), old.get(k), f"{prefix}.{k}")
        return out
    return [] if new == old else [prefix]


def _params_changed(st: Stage, params: dict) -> list[str]:
    locked = st.locked.get(PARAMS_FILE, {})
    if st.params and not any(st.locked.values()):
        return ["never run (not in dvc.lock)"]
    keys = st.params.get(PARAMS_FILE) or tuple(locked)
    changed = [k for key in keys for k in _diff_keys(get_dotted(params, key), locked.get(key), key)]
    if not changed:
        return []
    more = f" (+{len(changed) - 4} more)" if len(changed) > 4 else ""
    return [f"params changed: {', '.join(changed[:4])}{more}"]


def _always_changed(root: Path, st: Stage, params: dict) -> tuple[list[str], list[str]]:
    """(reasons it would change its outputs, notes) for an always_changed stage."""
    if not st.outs or any(o not in PREDICTABLE for o in st.outs):
        return [
            "always changed (dvc.yaml): runs on every repro, its outputs cannot be predicted"
        ], []
    differ = []
    with contextlib.chdir(root):  # file params resolve as the stage sees them
        for out in st.outs:
            file = root / out
            new = PREDICTABLE[out](params)
            if not file.is_file() or file.read_text(encoding="utf-8") != new:
                differ.append(out)
    if differ:
        return [f"always changed: would write a different {', '.join(differ)}"], []
    return [], [
        f"runs on every `dvc repro` (always_changed) and would write the same "
        f"{', '.join(st.outs)}: nothing changes downstream"
    ]


def stage_status(root: Path, params: dict, pipeline: Pipeline) -> RunStatus:
    """What DVC would run for `params` in the project at `root` (module docstring);
    `pipeline`: memrecall.pipeline.read_pipeline(root), read once for a sweep."""
    root = Path(root)
    why: dict[str, list[str]] = {}
    notes: dict[str, list[str]] = {}
    for name, st in pipeline.stages.items():  # upstream first
        if pipeline.changes is None:
            why[name] = [f"status unknown: {pipeline.status_error}"]
            continue
        running = [u for u in st.upstream if why.get(u)]
        if st.always_changed:  # it runs anyway: only whether its outputs change matters
            reasons, notes[name] = _always_changed(root, st, params)
        else:
            reasons = _params_changed(st, params)
            if not pipeline.clean(name) and not running and not reasons:
                reasons.append("dependencies or outputs changed (`dvc status`)")
        if running:
            reasons.append(f"after {', '.join(running)} (if its outputs change)")
        why[name] = reasons
    return RunStatus(dict(pipeline.stages), why, notes)
