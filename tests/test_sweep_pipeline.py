"""A reader sweep over the real pipeline (2 questions of the bundled sample) in a clone of the
seeded project: two DVC experiments that differ only in the reader prompt and share a change
upstream (session-level units instead of the seeded sentences, in a 64-token window) compute
embed, retrieve, rerank and rewrite once, not once per experiment.

Counted three ways: DVC's own stage log of each experiment, the embed stage's encoder counter
(on an empty vector cache), and the requests the reader's (fake, local) OpenAI-compatible
server received."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from fake_openai_server import KEY, KEY_ENV, FakeOpenAIServer
from repo_copy import pipeline_env
from test_sweep import table_rows

pytestmark = [pytest.mark.slow, pytest.mark.queue]


def test_reader_sweep_computes_upstream_stages_once(project, tmp_path):
    repo = project.repo
    cache = tmp_path / "empty_cache"  # not the seeded vectors: embed encodes every text
    env = pipeline_env(cache, **{KEY_ENV: KEY})
    with FakeOpenAIServer() as srv:
        proc = subprocess.run(
            [
                sys.executable,
                "stages/sweep.py",
                "-m",
                "reader.prompt=default,con",
                "reader=gpt4o",
                f"reader.runtime.api_base={srv.url}",
                "reader.model=openai/fake-reader",
                f"reader.runtime.api_key_env={KEY_ENV}",
                "reader.runtime.concurrency=2",
                "dataset.limit=2",
                "embedder.granularity=session",
                "embedder.max_length=64",  # a 64-token window: a quarter of the encoding
                "--jobs",
                "2",
                "++sweep.track=false",
                "++sweep.poll_s=0.5",
            ],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
        requests = srv.total_requests
    rows = table_rows(proc.stdout)
    assert [r["state"] for r in rows.values()] == ["Success", "Success"]
    assert [r["reader.prompt"] for r in rows.values()] == ["default", "con"]

    (sweep_dir,) = repo.glob("multirun/*/*")
    logs = {p.stem: p.read_text() for p in (sweep_dir / "logs").glob("*.log")}
    assert len(logs) == 2
    ran = {
        stage: sum(f"Running stage '{stage}'" in log for log in logs.values())
        for stage in ("download", "embed", "retrieve", "rerank", "rewrite", "read", "judge")
    }
    # download: the seeded project's questions
    assert ran == {
        "download": 0,
        "embed": 1,
        "retrieve": 1,
        "rerank": 1,
        "rewrite": 1,
        "read": 2,
        "judge": 2,
    }
    # the one embed run encoded every unique key text once; nothing else encoded anything
    embedded = [
        re.search(r"embed: \d+ units, (\d+) unique texts, (\d+) embedded", log)
        for log in logs.values()
    ]
    (stats,) = [m for m in embedded if m]
    assert int(stats.group(2)) == int(stats.group(1)) > 0
    # the reader: 2 questions per experiment, each request paid exactly once
    assert requests == 4
    calls = [json.loads(ln) for ln in (cache / "llm" / "calls.jsonl").read_text().splitlines()]
    assert [c["stage"] for c in calls] == ["read"] * 4
