"""Test-wide settings: offline, quiet, and never writing caches into the repo or ../shared."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# ../shared beside the checkout; a checkout elsewhere (a git worktree) names it explicitly.
SHARED = Path(os.environ.get("MEMRECALL_SHARED_DIR") or REPO.parent / "shared")
SHARED_DATA = SHARED / "data" / "longmemeval"
DEV_FILE = SHARED_DATA / "longmemeval_s_cleaned_dev100.json.gz"
ORACLE_FILE = SHARED_DATA / "longmemeval_oracle.json"
SAMPLE_FILE = REPO / "data" / "sample" / "longmemeval_s_cleaned_sample.json.gz"


def shared_file(path: Path) -> Path:
    """A file of the real data in ../shared, which some tests need. Absent, the test fails with
    a clear message rather than skipping: a green run must mean those checks ran."""
    if not path.is_file():
        pytest.fail(
            f"this test needs the real LongMemEval data at {path} (../shared/data/ beside "
            f"the checkout, read-only); it is absent",
            pytrace=False,
        )
    return path


os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(autouse=True, scope="session")
def _session_cache_dir(tmp_path_factory):
    """One cache root for the whole run (so the bundled models are converted once), outside the
    repo. Tests that count model calls point MEMRECALL_CACHE_DIR at their own tmp_path."""
    if "MEMRECALL_CACHE_DIR" not in os.environ:
        os.environ["MEMRECALL_CACHE_DIR"] = str(tmp_path_factory.mktemp("memrecall_cache"))
    if "MEMRECALL_MODELS_DIR" not in os.environ:
        os.environ["MEMRECALL_MODELS_DIR"] = str(Path(os.environ["MEMRECALL_CACHE_DIR"]) / "models")
    yield


@pytest.fixture(scope="session")
def seeded_project(tmp_path_factory):
    """The whole DAG, computed once per test session on SEED_OVERRIDES in a committed copy of
    the repo (repo_copy.seed_project). Read it; change only a clone (`project`)."""
    from repo_copy import seed_project

    return seed_project(tmp_path_factory.mktemp("seeded_project"))


@pytest.fixture
def project(seeded_project, tmp_path):
    """This test's own clone of the seeded project: dvc.lock up to date, caches filled."""
    from repo_copy import clone_project

    return clone_project(seeded_project, tmp_path)


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty cache root for this test only."""
    root = tmp_path / "cache"
    monkeypatch.setenv("MEMRECALL_CACHE_DIR", str(root))
    return root
