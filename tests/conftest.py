"""Test-wide settings: offline, quiet, and never writing caches into the repo or ../shared (but
for the converted bundled model, which `make demo` keeps in the checkout's .memrecall/ too)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from fake_openai_server import KEY, KEY_ENV

REPO = Path(__file__).resolve().parents[1]
# ../shared beside the checkout; a checkout elsewhere (a git worktree) names it explicitly.
SHARED = Path(os.environ.get("MEMRECALL_SHARED_DIR") or REPO.parent / "shared")
SHARED_DATA = SHARED / "data" / "longmemeval"
DEV_FILE = SHARED_DATA / "longmemeval_s_cleaned_dev100.json.gz"
ORACLE_FILE = SHARED_DATA / "longmemeval_oracle.json"
SAMPLE_FILE = REPO / "data" / "sample" / "longmemeval_s_cleaned_sample.json.gz"
JUDGE_CASES_FILE = REPO / "tests" / "fixtures" / "judge_cases.yaml"


def judge_cases() -> dict:
    """The rule judge's hand-written cases (JUDGE_CASES_FILE), read whole: its "cases" and the
    documented limits beside them."""
    return yaml.safe_load(JUDGE_CASES_FILE.read_text(encoding="utf-8"))


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
# No usage report after each `dvc` command: each one starts a daemon that costs a third of a
# second of CPU, about 95 of them a run (33 s of a CPU-bound suite), to reach a network the
# tests never have.
os.environ.setdefault("DVC_NO_ANALYTICS", "1")
# One torch thread per process: `make test` runs one pytest worker per core (pytest-xdist), and
# each stage a test starts is a process of its own. Two spinning torch threads per process on a
# shared 2-core machine made the bundled reader 6x slower (17 s vs 103 s for one read stage).
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "MEMRECALL_LOCAL_THREADS"):
    os.environ.setdefault(_var, "1")


def pytest_collection_modifyitems(items):
    """Tests marked `queue` first: they mostly wait on DVC's queue workers, and at the start of
    a run those waits overlap the seeding of the shared project (CPU) instead of idling a core
    at the end. Within each part, tests that need the seeded project last: a worker that reached
    one would wait for the seeding (about a minute) with other tests still to run. Within those,
    `slow` tests first, so that a run ends on short tests that fill both workers.
    pytest-xdist hands each worker a contiguous part of this order (and a worker that runs out
    takes from the other's)."""
    items.sort(
        key=lambda item: (
            item.get_closest_marker("queue") is None,
            bool({"seeded_project", "project"} & set(item.fixturenames)),
            item.get_closest_marker("slow") is None,
        )
    )


def _shared_root(tmp_path_factory) -> Path:
    """A folder every pytest-xdist worker of this run sees (the run's base temp folder), or this
    process's base temp folder when there are no workers."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(autouse=True, scope="session")
def _session_cache_dir(tmp_path_factory):
    """One cache root for the whole run (so the bundled models are converted once), outside the
    repo. Tests that count model calls point MEMRECALL_CACHE_DIR at their own tmp_path."""
    if "MEMRECALL_CACHE_DIR" not in os.environ:
        os.environ["MEMRECALL_CACHE_DIR"] = str(tmp_path_factory.mktemp("memrecall_cache"))
    if "MEMRECALL_MODELS_DIR" not in os.environ:
        # The checkout's own model folder (where `make demo` converts the bundled reader): the
        # conversion (about 20 s) happens once per checkout, not once per run, and once for all
        # workers (llm.local converts under a lock file).
        os.environ["MEMRECALL_MODELS_DIR"] = str(REPO / ".memrecall" / "cache" / "models")
    yield


@pytest.fixture(scope="session", autouse=True)
def _seeding(request, tmp_path_factory, _session_cache_dir):
    """Starts seeding the shared project in the background as the session starts, when any
    collected test needs it: the worker that seeds goes on with other tests meanwhile, and the
    others find it done or wait on its lock only when a test of theirs needs it."""
    from concurrent.futures import ThreadPoolExecutor

    from repo_copy import shared_seed

    if not any("seeded_project" in item.fixturenames for item in request.session.items):
        yield None
        return
    with ThreadPoolExecutor(1, thread_name_prefix="seeding") as pool:
        yield pool.submit(shared_seed, _seed_root(tmp_path_factory))


def _seed_root(tmp_path_factory) -> Path:
    return _shared_root(tmp_path_factory) / "seeded_project"


@pytest.fixture(scope="session")
def seeded_project(_seeding, tmp_path_factory):
    """The whole DAG, computed once per test run on SEED_OVERRIDES in a committed copy of the
    repo (repo_copy.seed_project, repo_copy.shared_seed), shared by every pytest-xdist worker.
    Read it; change only a clone (`project`)."""
    if _seeding is None:  # asked for by getfixturevalue only (not known up front): seed now
        from repo_copy import shared_seed

        return shared_seed(_seed_root(tmp_path_factory))
    return _seeding.result()


@pytest.fixture
def project(seeded_project, tmp_path):
    """This test's own clone of the seeded project: dvc.lock up to date, caches filled."""
    from repo_copy import clone_project

    return clone_project(seeded_project, tmp_path)


@pytest.fixture
def fake_key(monkeypatch):
    """The fake API key in the variable the tests' LLM groups read it from (KEY_ENV)."""
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty cache root for this test only."""
    root = tmp_path / "cache"
    monkeypatch.setenv("MEMRECALL_CACHE_DIR", str(root))
    return root
