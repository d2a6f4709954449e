"""When each stage ran, for the MLflow runs' real start and end times.

A stage's outputs are byte-identical whatever run produced them, so a timing can't live in an
artifact. Instead every stage that finishes appends one line to `stage_timings.jsonl` beside the
caches ($DVC_ROOT/.memrecall/cache, shared by queued experiments): its name, start and end (unix
seconds) and the md5 of each file it wrote, which is what dvc.lock records. The MLflow sync reads
an experiment's dvc.lock and looks its stages up by those md5s: a stage that DVC restored from
its run-cache took the time of the run that computed it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

from . import paths
from .config import load_yaml_file

TIMINGS_FILE = "stage_timings.jsonl"
log = logging.getLogger(__name__)


def _md5(path: Path) -> str:
    h = hashlib.md5()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def stage_outs(stage: str, dvc_yaml: str | Path = "dvc.yaml") -> list[str]:
    """The file outputs (metrics and plots included) that dvc.yaml declares for `stage`."""
    spec = ((load_yaml_file(dvc_yaml) or {}).get("stages") or {}).get(stage) or {}
    out = []
    for key in ("outs", "metrics", "plots"):
        for entry in spec.get(key) or []:
            out.append(next(iter(entry)) if isinstance(entry, dict) else str(entry))
    return out


def record_stage(stage: str, started: float, ended: float, cwd: str | Path = ".") -> None:
    """Append this stage's timing, keyed by the md5 of each file output. Never fails the
    stage: a timing is a nicety, the artifacts are the result."""
    try:
        cwd = Path(cwd)
        md5s = {
            rel: _md5(cwd / rel)
            for rel in stage_outs(stage, cwd / "dvc.yaml")
            if (cwd / rel).is_file()
        }
        if not md5s:
            return
        line = (
            json.dumps(
                {
                    "stage": stage,
                    "started": round(started, 3),
                    "ended": round(ended, 3),
                    "md5": md5s,
                },
                sort_keys=True,
            )
            + "\n"
        )
        path = paths.cache_dir() / TIMINGS_FILE
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode("utf-8"))  # one O_APPEND write: whole lines across processes
        finally:
            os.close(fd)
    except Exception as e:  # noqa: BLE001
        log.warning("could not record the timing of stage %s: %s", stage, e)


def load_timings() -> list[dict]:
    path = paths.cache_dir() / TIMINGS_FILE
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:  # a line cut by a crash: skip it
            continue
    return out


def lock_out_md5s(lock: dict) -> dict[str, dict[str, str]]:
    """{stage: {path: md5}} of the file outputs recorded in a dvc.lock."""
    out: dict[str, dict[str, str]] = {}
    for stage, spec in ((lock or {}).get("stages") or {}).items():
        files = {}
        for entry in (spec or {}).get("outs") or []:
            if (
                isinstance(entry, dict)
                and entry.get("md5")
                and not str(entry["md5"]).endswith(".dir")
            ):
                files[entry["path"]] = entry["md5"]
        out[stage] = files
    return out


# Stages of one `dvc repro` / `dvc exp run` follow each other within seconds; a stage whose
# output was computed by an earlier run (restored from the run-cache) ended long before.
CHAIN_GAP_S = 600.0


def run_window(
    lock: dict, timings: list[dict] | None = None, *, not_after: float | None = None
) -> tuple[float, float, dict[str, tuple[float, float]]] | None:
    """(start, end, {stage: (start, end)}) of the run that dvc.lock describes, or None when no
    stage's timing is known (a run made before timings were kept, or on another machine).

    Each stage takes the latest timing whose outputs match the lock's md5s exactly (and that
    ended by `not_after`, the experiment's commit time). The run is the chain of stages that
    ran back to back ending with the last one; stages restored from the run-cache (computed by
    an earlier run) fall outside the chain and don't stretch the run."""
    timings = load_timings() if timings is None else timings
    found: dict[str, tuple[float, float]] = {}
    for stage, md5s in lock_out_md5s(lock).items():
        if not md5s:
            continue
        hits = [
            t
            for t in timings
            if t.get("stage") == stage
            and (not_after is None or t.get("ended", 0) <= not_after)
            and all(t.get("md5", {}).get(p) == m for p, m in md5s.items())
        ]
        if hits:
            best = max(hits, key=lambda t: t["ended"])
            found[stage] = (best["started"], best["ended"])
    if not found:
        return None
    ordered = sorted(found.items(), key=lambda kv: kv[1][1], reverse=True)
    chain = [ordered[0]]
    for stage, (start, end) in ordered[1:]:
        if chain[-1][1][0] - end > CHAIN_GAP_S:
            break
        chain.append((stage, (start, end)))
    stages = dict(chain)
    return (min(s for s, _ in stages.values()), max(e for _, e in stages.values()), stages)
