"""A throwaway copy of this repository (tracked + untracked-not-ignored files, no tests/reports)
for tests that run DVC end to end, and the seeded project those tests share: one copy per test
session in which `dvc repro` has run the whole DAG on a small slice of the bundled sample
(SEED_OVERRIDES) and committed it. A test clones it (a file copy, DVC cache and run-cache
included) instead of recomputing download, embed, retrieve, rerank and rewrite itself."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from memrecall.config import load_yaml_file

REPO = Path(__file__).resolve().parents[1]


def copy_repo(dst: Path, *, commit: bool = False) -> Path:
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
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
    return subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=True
    ).stdout


def subprocess_env(**extra: str) -> dict:
    """This venv first on PATH; no DVC_ROOT or MLFLOW_TRACKING_URI leaking in from outside."""
    env = {
        **os.environ,
        **extra,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
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


def set_conf_keys(path: Path, values: dict) -> None:
    """Top-level `key: value` lines of a conf file replaced in place (comments and defaults
    kept); each key must be there."""
    text = path.read_text()
    for key, value in values.items():
        text, n = re.subn(rf"(?m)^{re.escape(key)}:.*$", f"{key}: {value}", text)
        assert n == 1, f"{path} has no top-level {key}"
    path.write_text(text)


def dvc(repo: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "dvc", *args], cwd=repo, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


# `sources` is always_changed (it hashes the files params name), so every repro runs it.
ALWAYS = ["sources"]


def stages_run(proc: subprocess.CompletedProcess) -> list[str]:
    return re.findall(r"Running stage '(\w+)'", proc.stdout)


def compose(repo: Path, env: dict, *overrides: str) -> None:
    """`memrecall compose OVERRIDES` in the copy: params.yaml as `dvc exp run -S ...` makes it."""
    proc = subprocess.run(
        [sys.executable, "-m", "memrecall.cli", "compose", *overrides],
        cwd=repo,
        env={**env, "PYTHONPATH": str(repo / "src")},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


# The slice every seeded test runs on: two questions of the bundled sample (the first two in file
# order: a single-session-user and a single-session-assistant question, enough for every
# stage to have rows).
SEED_OVERRIDES = ("dataset.limit=2",)
# The bundled reader prefills its whole prompt on the CPU (about 2 ms a token on one core): in the
# seeded project it reads 400 characters of each session and answers in at most 16 tokens, a
# third of the default's work a call, for every test that reruns read. Written into the copy's
# conf/, so every `dvc exp run -S ...` in a clone composes it too.
SEED_READER_CONF = {"max_tokens": 16, "max_chars_per_session": 400}
ALL_STAGES = [
    "sources",
    "download",
    "embed",
    "retrieve",
    "rerank",
    "rewrite",
    "read",
    "judge",
    "errata",
    "aggregate",
]


@dataclass(frozen=True)
class Project:
    """A DVC project on disk with the memrecall cache (LLM calls, vectors) its stages used."""

    repo: Path
    cache: Path

    def env(self, **extra: str) -> dict:
        return pipeline_env(self.cache, **extra)

    def llm_calls(self) -> list[dict]:
        import json

        log = self.cache / "llm" / "calls.jsonl"
        return [json.loads(ln) for ln in log.read_text().splitlines()] if log.exists() else []


@dataclass(frozen=True)
class SeededProject(Project):
    seeding: subprocess.CompletedProcess  # the `dvc repro` that computed the whole DAG


def module_log(repo: Path) -> Path:
    """Where the seeding `dvc repro` logs the memrecall modules each stage loaded (beside the
    repo, so clones do not copy it)."""
    return repo.parent / "modules.jsonl"


def seed_project(root: Path) -> SeededProject:
    """copy_repo, params.yaml composed with SEED_OVERRIDES (as `dvc exp run -S` composes it),
    `dvc repro` of the whole DAG, and a commit of the result (dvc.lock, params.yaml, reports)."""
    repo = copy_repo(root / "repo")
    cache = root / "cache"
    env = pipeline_env(cache)
    set_conf_keys(repo / "conf/reader/local.yaml", SEED_READER_CONF)
    compose(repo, env, *SEED_OVERRIDES)
    proc = dvc(repo, {**env, "MEMRECALL_MODULE_LOG": str(module_log(repo))}, "repro")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "seeded")
    return SeededProject(repo, cache, proc)


def shared_seed(root: Path) -> SeededProject:
    """seed_project(root), once per test run however many pytest-xdist workers ask: the first
    seeds under a file lock and records the seeding's output, the others wait and read it."""
    import json

    from filelock import FileLock

    done = root / "seeding.json"
    root.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(root) + ".lock"):
        if not done.exists():
            shutil.rmtree(root, ignore_errors=True)  # a worker that failed half-way
            root.mkdir()
            proc = seed_project(root).seeding
            done.write_text(json.dumps([proc.args, proc.returncode, proc.stdout, proc.stderr]))
    args, returncode, stdout, stderr = json.loads(done.read_text())
    seeding = subprocess.CompletedProcess(args, returncode, stdout, stderr)
    return SeededProject(root / "repo", root / "cache", seeding)


def clone_project(seed: Project, dst: Path) -> Project:
    """A private copy of `seed` (workspace, git history, DVC cache and run-cache) and of its
    memrecall cache, so a test's reruns, model calls and edits stay its own. DVC's state under
    .dvc/tmp is left behind (it is keyed by the project's path and rebuilt)."""
    dst.mkdir(parents=True, exist_ok=True)
    repo, cache = dst / "repo", dst / "cache"
    shutil.copytree(
        seed.repo,
        repo,
        symlinks=True,
        ignore=lambda d, names: ["tmp"] if Path(d).name == ".dvc" else [],
    )
    shutil.copytree(seed.cache, cache, symlinks=True)
    return Project(repo, cache)


def dvc_status(repo: Path) -> dict:
    """`dvc status` in this process (no DVC start-up per call): {stage: [changes]}, the stages
    a repro would run and why. `sources` is always there (always_changed)."""
    from dvc.repo import Repo

    with Repo(str(repo)) as r:
        status = r.status()
    # run from another folder, DVC names a stage by its dvc.yaml's relative path: "../dvc.yaml:read"
    return {stage.split(":")[-1]: changes for stage, changes in status.items()}


def changed_stages(repo: Path) -> dict[str, list]:
    """dvc_status without `sources`, which is always changed: {} means a repro runs nothing
    else."""
    status = dvc_status(repo)
    return {stage: changes for stage, changes in status.items() if stage not in ALWAYS}
