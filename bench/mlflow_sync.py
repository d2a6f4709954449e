"""`memrecall sync` at scale: two real 500-question runs, synced into a fresh MLflow store, timed.

    python bench/mlflow_sync.py [--keep DIR] [--hyp A.gz [B.gz]]

In a throwaway committed copy of this project it runs two DVC experiments on LongMemEval's
oracle file (all 500 questions, evidence sessions only), `retrieval=oracle`, each replaying a
published system's 500 answers (`reader=file`, ../shared/data/judge/, AuditCrux F1 and C0 by
default) judged by the `rule` judge: real runs through `dvc exp run`, no model call. Embeddings
go to MEMRECALL_CACHE_DIR (use the shared one: `export MEMRECALL_CACHE_DIR=$HOME/.cache/memrecall`).

Then it times `memrecall sync` (the CLI, in its own process, default sqlite store at the copy's
root) three times: the first run alone, the second run (the first is then unchanged), and a
re-sync of both. After each it counts, through MLflow's client API, the runs, traces,
assessments (expectations and feedback) and linked prompts; the re-sync must add nothing (the
same run, trace and assessment ids). Given one hypothesis file, it runs one experiment and
times its first sync and a re-sync.
With --keep the copy (and its mlflow.db) is kept, e.g. for bench/mlflow_screenshots.py.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _env import REPO

DATA = REPO.parent / "shared" / "data"
ORACLE = DATA / "longmemeval" / "longmemeval_oracle.json"
HYPOTHESES = (
    DATA / "judge" / "auditcrux_F1_s.jsonl.eval-results-gpt-4o.gz",
    DATA / "judge" / "auditcrux_C0_s.jsonl.eval-results-gpt-4o.gz",
)


def run_experiment(repo: Path, env: dict, name: str, hypotheses: Path, data: Path) -> float:
    from repo_copy import dvc

    t0 = time.perf_counter()
    dvc(
        repo,
        env,
        "exp",
        "run",
        "-n",
        name,
        "-S",
        "dataset=local",
        "-S",
        f"dataset.path={data}",
        "-S",
        "retrieval=oracle",
        "-S",
        "reader=file",
        "-S",
        f"reader.path={hypotheses}",
        "-S",
        "judge=rule",
    )
    return time.perf_counter() - t0


def sync(repo: Path, env: dict, *names: str) -> float:
    """`memrecall sync` as a user runs it (a fresh process: imports included)."""
    t0 = time.perf_counter()
    args = [sys.executable, "-m", "memrecall.cli", "sync", *names]
    proc = subprocess.run(args, cwd=repo, env=env, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"sync failed:\n{proc.stdout}\n{proc.stderr[-4000:]}")
    return time.perf_counter() - t0


def counts(repo: Path) -> dict:
    from mlflow import MlflowClient

    from memrecall import tracking

    uri = tracking.tracking_uri(repo)
    client = MlflowClient(uri)
    exp = client.get_experiment_by_name(tracking.experiment_name())
    runs = client.search_runs([exp.experiment_id])
    out = {
        "runs": len(runs),
        "traces": 0,
        "expectations": 0,
        "feedback": 0,
        "feedback_errors": 0,
        "linked_prompts": 0,
    }
    ids = {r.info.run_id for r in runs}
    for run in runs:
        token = None
        while True:
            page = client.search_traces(
                locations=[exp.experiment_id],
                run_id=run.info.run_id,
                max_results=500,
                page_token=token,
                include_spans=False,
            )
            for t in page:
                out["traces"] += 1
                ids.add(t.info.trace_id)
                for a in t.info.assessments:
                    ids.add(a.assessment_id)
                    if a.expectation is not None:
                        out["expectations"] += 1
                    elif a.error is not None:
                        out["feedback_errors"] += 1
                    else:
                        out["feedback"] += 1
            token = page.token
            if not token:
                break
        out["linked_prompts"] += len(
            json.loads(client.get_run(run.info.run_id).data.tags.get("mlflow.linkedPrompts", "[]"))
        )
    return out, ids


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keep", default=None, help="keep the project copy (and mlflow.db) here")
    ap.add_argument(
        "--hyp",
        nargs="+",
        type=Path,
        default=HYPOTHESES,
        help="one or two hypothesis files (official format), one per run; with one, the "
        "second run's step is left out (the smoke test's mode)",
    )
    ap.add_argument(
        "--data",
        type=Path,
        default=ORACLE,
        help="the questions the hypotheses answer (LongMemEval format)",
    )
    a = ap.parse_args()
    if len(a.hyp) > 2:
        ap.error("--hyp takes one or two files")

    from repo_copy import copy_repo, pipeline_env

    cache = Path(os.environ.get("MEMRECALL_CACHE_DIR") or REPO / ".memrecall" / "cache")
    tmp = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="memrecall_sync_bench_"))
    tmp.mkdir(parents=True, exist_ok=True)
    repo = copy_repo(tmp / "project", commit=True)
    env = pipeline_env(cache, MEMRECALL_PROGRESS="0", PYTHONPATH=str(repo / "src"))
    names = []
    for i, hyp in enumerate(a.hyp):
        name = f"replay-{hyp.name.split('.')[0]}"
        print(
            f"dvc exp run {name} ({a.data.name}, reader=file {hyp.name}, judge=rule): "
            f"{run_experiment(repo, env, name, hyp, a.data):.0f} s",
            flush=True,
        )
        names.append(name)

    print(f"\nmemrecall sync, sqlite store {repo / 'mlflow.db'}:")
    rows = []
    steps = [(f"first sync, {names[0]}", names[:1])]
    if len(names) > 1:
        steps.append((f"first sync, {names[1]} (the other unchanged)", []))
    steps.append((f"re-sync of {'both' if len(names) > 1 else names[0]}", []))
    for label, args in steps:
        secs = sync(repo, env, *args)
        c, ids = counts(repo)
        rows.append((label, secs, c, ids))
        print(f"  {label:<55} {secs:6.1f} s  {c}", flush=True)
    if rows[-1][3] != rows[-2][3]:  # the same runs, traces and assessments (ids)
        raise SystemExit("re-sync changed the store: it must add nothing")
    print("re-sync added nothing: OK")
    if not a.keep:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
