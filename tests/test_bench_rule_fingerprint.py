"""bench/rule_fingerprint.py: the rule judge's verdicts on every answer of some logs, hashed, and
the answers whose verdict moved since lines written before (exit 1 when any did)."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import REPO, SAMPLE_FILE
from memrecall.benchmarks.longmemeval.data import load_records
from memrecall.interchange import eval_results_path, write_eval_results, write_hypotheses
from repo_copy import subprocess_env

SCRIPT = REPO / "bench" / "rule_fingerprint.py"


def _run(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)],
        capture_output=True,
        text=True,
        env=subprocess_env(MEMRECALL_PROGRESS="0"),
        timeout=120,
    )


def test_fingerprint_is_stable_and_names_the_answers_whose_verdict_moved(tmp_path):
    records = load_records(SAMPLE_FILE)[:3]
    (tmp_path / "oracle.json").write_text(json.dumps(records))
    rows = [
        {"question_id": r["question_id"], "hypothesis": h, "label": True, "model": "gpt-4o"}
        for r, h in zip(records, [str(records[0]["answer"]), "I don't know.", "Maybe."])
    ]
    hyp = tmp_path / "run.jsonl"
    write_hypotheses(hyp, rows)
    log = write_eval_results(eval_results_path(hyp, "gpt-4o"), rows)
    oracle = tmp_path / "oracle.json"

    first = _run("--oracle", oracle, "--logs", log, "--out", tmp_path / "before.jsonl")
    assert first.returncode == 0, first.stderr
    lines = (tmp_path / "before.jsonl").read_text().splitlines()
    assert [json.loads(x)[:3] for x in lines] == [
        [log.name, r["question_id"], i + 1] for i, r in enumerate(records)
    ]
    assert json.loads(lines[0])[3] is True  # the gold itself is accepted
    same = _run("--oracle", oracle, "--logs", log, "--against", tmp_path / "before.jsonl")
    assert same.returncode == 0 and "0 of 3 verdicts moved" in same.stdout
    assert same.stdout.splitlines()[0] == first.stdout.splitlines()[0]  # the same sha256

    # a verdict written before that the rules no longer give: named, and the exit status says so
    row = json.loads(lines[0])
    row[3], row[4] = False, "an older rule"
    (tmp_path / "older.jsonl").write_text("\n".join([json.dumps(row), *lines[1:]]) + "\n")
    moved = _run("--oracle", oracle, "--logs", log, "--against", tmp_path / "older.jsonl")
    assert moved.returncode == 1 and "1 of 3 verdicts moved" in moved.stdout
    assert f"moved: {json.dumps(row)} -> {lines[0]}" in moved.stdout
