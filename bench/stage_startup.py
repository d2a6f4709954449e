"""What a stage process costs when its work is cached: CPU seconds per stage script, and which
heavy libraries it imported to get there. With --cold, what it costs when nothing is cached.

    python bench/stage_startup.py --project DIR [--cache DIR] [--against CHECKOUT] [--repeats N]
                                  [--stages NAME ...] [--cold]

DIR is a project where `dvc repro` has run, e.g. this checkout after `make demo`: then every
stage finds its work in the caches (vectors, LLM calls, scores) and what is left is its start-up.
The bench copies DIR (without .git and DVC's cache) and runs each stage script there as `dvc
repro` runs it (`python stages/NAME.py`), N times, timing the child's CPU (user + system).
--cache is the memrecall cache the project was run with (default: MEMRECALL_CACHE_DIR, else
DIR/.memrecall/cache).

--against CHECKOUT runs the same stages with another checkout's src/ and stages/ (e.g. `git
worktree add /tmp/old <commit>`) in a second copy, interleaved with the first run by run, so both
see the same machine, and prints the ratio. Prints one line per stage: CPU seconds (mean of N),
and the heavy modules the stage imported (pandas, pyarrow.dataset, torch, litellm, ...).

--cold gives each stage run an empty memrecall cache: embed encodes every text, retrieve its
queries, read asks the reader again, and each loads its model. Only the converted bundled reader
is shared (MEMRECALL_MODELS_DIR, default: the --cache's models/ folder), as the test suite shares
it: converting it is a one-time cost of a checkout, not of a stage.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _env import REPO

HEAVY = (
    "pandas",
    "pyarrow.dataset",
    "scipy.stats",
    "matplotlib",
    "torch",
    "litellm",
    "mlflow",
    "peft",
    "datasets",
)
# Runs a stage script as its own __main__ and reports the heavy modules it imported, also when
# the stage ends with sys.exit.
WRAPPER = """
import json, os, runpy, sys
sys.argv = [sys.argv[1]]
sys.path.insert(0, "stages")
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
finally:
    with open(os.environ["STARTUP_BENCH_OUT"], "w") as f:
        json.dump([m for m in json.loads(os.environ["STARTUP_BENCH_HEAVY"]) if m in sys.modules], f)
"""


def _skip(folder: str, names: list[str]) -> list[str]:
    """Git, the venv, memrecall's cache, DVC's cache and state: not the project's files."""
    skip = {".git", ".venv", ".memrecall", "__pycache__"}
    if Path(folder).name == ".dvc":
        skip |= {"cache", "tmp"}
    return [n for n in names if n in skip]


def stage_names(project: Path) -> list[str]:
    from memrecall.config import load_yaml_file

    return list(load_yaml_file(project / "dvc.yaml")["stages"])


def copy_project(project: Path, dst: Path, code: Path) -> Path:
    """project's files (not its git or DVC caches), with src/ and stages/ from checkout `code`."""
    shutil.copytree(project, dst, ignore=_skip, symlinks=True)
    for part in ("src", "stages"):
        shutil.rmtree(dst / part)
        shutil.copytree(code / part, dst / part, ignore=_skip)
    return dst


def run_stage(copy: Path, stage: str, env: dict) -> tuple[float, list[str]]:
    """CPU seconds of one run of stages/<stage>.py in `copy`, and the heavy modules it loaded."""
    out = copy / ".startup_bench.json"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPER, f"stages/{stage}.py"],
        cwd=copy,
        env={**env, "STARTUP_BENCH_OUT": str(out), "STARTUP_BENCH_HEAVY": json.dumps(HEAVY)},
        capture_output=True,
        text=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"stages/{stage}.py failed in {copy}:\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, json.loads(out.read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--project", required=True, type=Path, help="a project dvc repro has run")
    ap.add_argument("--cache", type=Path, default=None, help="its memrecall cache")
    ap.add_argument("--against", type=Path, default=None, help="another checkout to compare")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--stages", nargs="+", default=None, help="default: every stage of dvc.yaml")
    ap.add_argument("--cold", action="store_true", help="an empty memrecall cache for each run")
    a = ap.parse_args()

    project = a.project.resolve()
    if not (project / "dvc.lock").exists():
        sys.exit(f"{project}: no dvc.lock; run `dvc repro` there first")
    cache = a.cache or Path(
        os.environ.get("MEMRECALL_CACHE_DIR") or project / ".memrecall" / "cache"
    )
    stages = a.stages or stage_names(project)
    env = {**os.environ, "MEMRECALL_CACHE_DIR": str(cache.resolve())}
    env.pop("PYTHONPATH", None)  # each copy's stages put its own src/ first
    if a.cold:
        env.setdefault("MEMRECALL_MODELS_DIR", str(cache.resolve() / "models"))

    with tempfile.TemporaryDirectory(prefix="memrecall-startup-") as tmp:
        copies = {"this": copy_project(project, Path(tmp, "this"), REPO)}
        if a.against is not None:
            copies["against"] = copy_project(project, Path(tmp, "against"), a.against.resolve())
        cpu = {name: {s: 0.0 for s in stages} for name in copies}
        heavy = {name: {} for name in copies}
        for _ in range(a.repeats):
            for stage in stages:
                for name, copy in copies.items():  # interleaved: the same machine for both
                    run_env = env
                    if a.cold:
                        empty = tempfile.mkdtemp(prefix="cache-", dir=tmp)
                        run_env = {**env, "MEMRECALL_CACHE_DIR": empty}
                    seconds, loaded = run_stage(copy, stage, run_env)
                    cpu[name][stage] += seconds / a.repeats
                    heavy[name][stage] = loaded

    work = "nothing cached" if a.cold else "cached work"
    print(f"CPU seconds per stage process, {work}, mean of {a.repeats} ({project})")
    for stage in stages:
        line = f"{stage:>10}  this {cpu['this'][stage]:5.2f} s [{', '.join(heavy['this'][stage])}]"
        if "against" in cpu:
            ratio = cpu["this"][stage] / max(cpu["against"][stage], 1e-9)
            line += (
                f"  against {cpu['against'][stage]:5.2f} s "
                f"[{', '.join(heavy['against'][stage])}]  ratio {ratio:.2f}"
            )
        print(line)
    total = {name: sum(per.values()) for name, per in cpu.items()}
    line = f"{'all':>10}  this {total['this']:5.2f} s"
    if "against" in total:
        line += f"  against {total['against']:5.2f} s  ratio {total['this'] / total['against']:.2f}"
    print(line)


if __name__ == "__main__":
    main()
