"""A throwaway copy of this repository (tracked + untracked-not-ignored files, no tests/reports)
for tests that run DVC end to end."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path


from memrecall.config import load_yaml_file

REPO = Path(__file__).resolve().parents[1]


def copy_repo(dst: Path, *, commit: bool = False) -> Path:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout.split()
    for rel in files:
        src = REPO / rel
        if src.is_file() and not rel.startswith(("reports/", "tests/")):
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / rel)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=dst, check=True)
    if commit:
        git(dst, "add", "-A")
        git(dst, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    return dst


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout


def subprocess_env(**extra: str) -> dict:
    """This venv first on PATH; no DVC_ROOT or MLFLOW_TRACKING_URI leaking in from outside."""
    env = {**os.environ, **extra,
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for key in ("DVC_ROOT", "MLFLOW_TRACKING_URI"):
        env.pop(key, None)
    return env


def pipeline_env(cache: Path, **extra: str) -> dict:
    return subprocess_env(MEMRECALL_CACHE_DIR=str(cache), **extra)


def set_params(repo: Path, **changes) -> None:
    from ruamel.yaml import YAML

    path = repo / "params.yaml"
    params = load_yaml_file(path)  # YAML 1.2, like the stages: `name: off` stays "off"
    for dotted, value in changes.items():
        *parents, key = dotted.split(".")
        node = params
        for part in parents:
            node = node[part]
        assert key in node, f"params.yaml has no {dotted}"
        node[key] = value
    out = YAML(typ="safe", pure=True)
    out.default_flow_style = False
    with path.open("w") as f:
        out.dump(params, f)


def dvc(repo: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "dvc", *args], cwd=repo, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


# `sources` is always_changed (it hashes the files params name), so every repro runs it.
ALWAYS = ["sources"]


def stages_run(proc: subprocess.CompletedProcess) -> list[str]:
    return re.findall(r"Running stage '(\w+)'", proc.stdout)


def compose(repo: Path, env: dict, *overrides: str) -> None:
    """`memrecall compose OVERRIDES` in the copy: params.yaml as `dvc exp run -S ...` makes it."""
    proc = subprocess.run([sys.executable, "-m", "memrecall.cli", "compose", *overrides],
                          cwd=repo, env={**env, "PYTHONPATH": str(repo / "src")},
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
