"""Every script in bench/ runs, in a smoke mode: its own command line with inputs small enough
for seconds of work (two questions of the bundled sample, one LoCoMo conversation, a handful of
fake calls). A bench that breaks fails here, not in the next measuring round. A new bench
script must get a line in SMOKE."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, SAMPLE_FILE
from memrecall.benchmarks.longmemeval.data import load_records
from memrecall.interchange import eval_results_path, write_eval_results, write_hypotheses
from repo_copy import subprocess_env
from test_locomo_data import conversation

pytestmark = pytest.mark.slow
BENCH = REPO / "bench"
HELPERS = {"_env.py"}  # imported by the scripts, not run


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    """Tiny inputs in the real formats, and one cache for the module (models, vectors)."""
    d = tmp_path_factory.mktemp("bench_inputs")
    records = [trimmed(r) for r in load_records(SAMPLE_FILE)[:2]]  # two types, no abstention
    with gzip.open(d / "tiny.json.gz", "wt") as f:  # the form the LongMemEval benches take
        json.dump(records, f)
    (d / "locomo.json").write_text(json.dumps([conversation("conv-a")]))
    logs = []
    for name, label in (("run_a", True), ("run_b", False)):
        hyp = d / f"{name}.jsonl"
        rows = [
            {
                "question_id": r["question_id"],
                "hypothesis": str(r["answer"]),
                "model": "gpt-4o-2024-08-06",
                "label": label,
            }
            for r in records
        ]
        write_hypotheses(hyp, rows)
        logs.append(write_eval_results(eval_results_path(hyp, "gpt-4o-2024-08-06"), rows))
    return {
        "dir": d,
        "tiny": d / "tiny.json.gz",
        "locomo": d / "locomo.json",
        "log_a": logs[0],
        "log_b": logs[1],
        "cache": d / "cache",
    }


HAYSTACK_SESSIONS = 8


def trimmed(record: dict, keep: int = HAYSTACK_SESSIONS) -> dict:
    """The question with a haystack of `keep` sessions, its evidence sessions among them (in
    haystack order): every stage has the same work to do, on a sixth of the text."""
    ids = record["haystack_session_ids"]
    evidence = set(record["answer_session_ids"])
    gold = [i for i, sid in enumerate(ids) if sid in evidence]
    others = [i for i, sid in enumerate(ids) if sid not in evidence]
    chosen = sorted(gold + others[: max(0, keep - len(gold))])
    out = dict(record)
    for key in ("haystack_session_ids", "haystack_dates", "haystack_sessions"):
        out[key] = [record[key][i] for i in chosen]
    return out


def _args(script: str, i: dict, out: Path) -> list[str]:
    tiny, d = str(i["tiny"]), i["dir"]
    return {
        "device_precision.py": ["--data", tiny],  # the cuda rows only where there is one
        "full_run.py": [
            "--data",
            tiny,
            "--limit",
            "1",
            "--warm",
            "1",
            "--latency",
            "0",
            "0",
            "--p429",
            "0",
            "--keep",
            str(out / "full_run"),
        ],
        "fusion_cv.py": [
            "--data",
            tiny,
            "--weights",
            "0.4",
            "0.6",
            "--folds",
            "2",
            "--repeats",
            "1",
            "--embedder-set",
            "granularity=session",
        ],
        "judge_agreement.py": [
            "--logs",
            str(i["log_a"]),
            str(i["log_b"]),
            "--oracle",
            tiny,
            "--json",
            str(out / "agreement.json"),
            "--disagreements",
            str(out / "disagreements.jsonl"),
            "--restyle",
            "--renotate",
        ],
        "rule_yes_precision.py": [
            "--logs",
            str(i["log_a"]),
            str(i["log_b"]),
            "--oracle",
            tiny,
            "--dev",
            "run_a",
            "--json",
            str(out / "yes_precision.json"),
        ],
        "rule_fingerprint.py": [
            "--logs",
            str(i["log_a"]),
            str(i["log_b"]),
            "--oracle",
            tiny,
            "--out",
            str(out / "verdicts.jsonl"),
        ],
        "published_runs.py": [  # pin: fetch needs the network
            "pin",
            "--manifest",
            str(out / "published_runs.csv"),
            "--name",
            "run_a",
            "--repo",
            "someone/memory-system",
            "--commit",
            "a" * 40,
            "--path",
            "runs/a/hypotheses.jsonl.eval-results-gpt-4o",
            str(i["log_a"]),
        ],
        "llm_throughput.py": [
            "--n",
            "4",
            "--seq-n",
            "2",
            "--concurrency",
            "2",
            "--latency",
            "0",
            "0",
            "--p429",
            "0",
            "--prompt-chars",
            "400",
            "--quiet",
        ],
        "locomo_retrieval.py": [
            "--data",
            str(i["locomo"]),
            "--granularities",
            "session",
            "--methods",
            "dense",
            "bm25",
            "--scale",
            "1",
            "--throughput-sample",
            "4",
            "--json",
            str(out / "locomo.json"),
        ],
        # the pages need Debian's chromium and a synced store: here only its imports and options
        "mlflow_screenshots.py": ["--help"],
        # one run: its first sync and a re-sync (the second run's step is the same code path)
        "mlflow_sync.py": [
            "--data",
            tiny,
            "--hyp",
            str(d / "run_a.jsonl"),
            "--keep",
            str(out / "sync"),
        ],
        "normalize.py": [
            "--data",
            tiny,
            "--oracle",
            tiny,
            "--questions",
            "4",
            "--target-mb",
            "0.5",
            "--tmp",
            str(out),
        ],
        "retrieval.py": [
            "--data",
            tiny,
            "--methods",
            "bm25",
            "dense",
            "--no-rerun",
            "--throughput-sample",
            "4",
            "--embedder-set",
            "granularity=session",
            "--json",
            str(out / "retrieval.json"),
        ],
        "retrieval_misses.py": ["--data", tiny, "--methods", "dense", "bm25"],
        # a synthetic BEAM chat of the released shape, ~20k tokens
        "beam_size.py": [
            "--tokens",
            "20000",
            "--stages",
            "download",
            "embed",
            "bm25",
            "--keep",
            str(out / "beam"),
        ],
        "graph_reach.py": ["--data", tiny, "--n", "2"],
        # the seeded project (dvc repro has run there; given for this script only): two stages,
        # each with an empty cache
        "stage_startup.py": [
            "--project",
            str(i.get("project")),
            "--cache",
            str(i.get("project_cache")),
            "--repeats",
            "1",
            "--stages",
            "judge",
            "aggregate",
            "--cold",
        ],
        "graph_rerank.py": [
            "--data",
            tiny,
            "--weights",
            "0.3",
            "--hops",
            "2",
            "--json",
            str(out / "graph.json"),
        ],
        "judge_audit.py": [
            "--longmemeval",
            tiny,
            "--locomo",
            str(i["locomo"]),
            "--out",
            str(out / "audit"),
            "--restyle",
            "--reword",
            "--restate",
            "--renotate",
        ],
        "judge_wordings.py": [
            "--longmemeval",
            tiny,
            "--locomo",
            str(i["locomo"]),
            "--wordings",
            str(BENCH / "wordings" / "r40-held.yaml"),
            "--json",
            str(out / "wordings.json"),
        ],
        "retrieve_m.py": [
            "--questions",
            "4",
            "--haystack",
            "10",
            "--unique",
            "20",
            "--bm25-questions",
            "2",
        ],
    }.get(script)


SCRIPTS = sorted(p.name for p in BENCH.glob("*.py") if p.name not in HELPERS)


def test_every_bench_script_has_a_smoke_line(tmp_path):
    missing = [
        s
        for s in SCRIPTS
        if _args(
            s,
            {k: tmp_path for k in ("tiny", "locomo", "log_a", "log_b")} | {"dir": tmp_path},
            tmp_path,
        )
        is None
    ]
    assert not missing, f"bench scripts without a smoke line in {__file__}: {missing}"


# stage_startup.py needs a project where dvc repro has run: its own test, which asks for the
# seeded project by name (so the run orders it after the seeding; see conftest).
SEEDED = {"stage_startup.py"}


@pytest.mark.parametrize("script", [s for s in SCRIPTS if s not in SEEDED])
def test_bench_script_runs(script, inputs, tmp_path):
    _run_script(script, inputs, tmp_path)


@pytest.mark.parametrize("script", sorted(SEEDED))
def test_bench_script_runs_on_the_seeded_project(script, inputs, tmp_path, seeded_project):
    project = {"project": seeded_project.repo, "project_cache": seeded_project.cache}
    _run_script(script, {**inputs, **project}, tmp_path)


def _run_script(script: str, inputs: dict, tmp_path: Path) -> None:
    env = subprocess_env(MEMRECALL_CACHE_DIR=str(inputs["cache"]), MEMRECALL_PROGRESS="0")
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), *_args(script, inputs, tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, f"{script}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert proc.stdout.strip(), f"{script} printed nothing"
