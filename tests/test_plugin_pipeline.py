"""Both example plug-ins as one DVC experiment in a copy of the repo (1 question of the bundled
sample), then: a no-op repro runs nothing, an edit of the retriever plug-in reruns retrieve and
what follows it (and asks the reader nothing new), an edit of the reader plug-in reruns read →
judge → aggregate with new requests, and an operational knob reruns read alone."""

from __future__ import annotations

import json

import pytest

from memrecall.artifacts import read_meta, read_table

from fake_openai_server import FakeOpenAIServer, last_user
from repo_copy import ALWAYS, copy_repo, dvc, git, pipeline_env, set_params, stages_run

# Five DVC runs: minutes on a loaded 2-core machine, past the suite's default timeout.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
AFTER_RETRIEVE = ["retrieve", "rerank", "rewrite", "read", "judge", "aggregate"]


def _answer(messages) -> str:
    return "The information is not available." if "number" in last_user(messages) else "Paris"


def test_plugins_as_a_dvc_experiment_and_code_changes_rerun_exactly(tmp_path):
    repo = copy_repo(tmp_path / "repo", commit=True)
    with FakeOpenAIServer(answer=_answer) as srv:
        env = pipeline_env(tmp_path / "cache", LOCAL_OPENAI_BASE_URL=srv.url)
        proc = dvc(repo, env, "exp", "run", "-n", "plugins",
                   "-S", "retrieval=plugin", "-S", "retrieval.options.fusion=weighted",
                   "-S", "reader=plugin", "-S", "+reader.options.input_cost_per_mtok=1.0",
                   "-S", "dataset.limit=1")
        assert stages_run(proc) == ALWAYS + ["download", "embed", *AFTER_RETRIEVE]
        assert srv.total_requests == 1

        cands = read_table(repo / "artifacts/candidates_retrieve.parquet", "candidates")
        qs = read_table(repo / "artifacts/questions.parquet", "questions")
        sizes = {q: len(set(h)) for q, h in qs.select("question_id", "haystack_session_ids")
                 .iter_rows()}  # haystacks under top_k=50: every session ranked
        assert dict(cands.group_by("question_id").len().iter_rows()) == sizes
        ident = read_meta(repo / "artifacts/candidates_retrieve.parquet")["params"]["retrieval"]
        assert ident["plugin"]["options"] == {"fusion": "weighted"}
        metrics = json.loads((repo / "reports/metrics.json").read_text())
        assert metrics["n_questions"] == 1 and metrics["reader_errors"] == 0
        assert metrics["cost_by_stage"]["read"] > 0  # the plug-in's usage, priced by it
        assert "retrieval" in metrics and "session" in metrics["retrieval"]

        shown = json.loads(dvc(repo, env, "exp", "show", "--json").stdout)
        exps = [e for row in shown for e in (row.get("experiments") or [])]
        (run,) = [r for e in exps for r in e["revs"] if r.get("name") == "plugins"]
        params = run["data"]["params"]["params.yaml"]["data"]
        assert params["retrieval"]["callable"] == "examples.memesh_fts5:MeMeshRetriever"
        assert params["reader"]["callable"] == "examples.openai_reader:OpenAIReader"
        assert run["data"]["metrics"]["reports/metrics.json"]["data"]["n_questions"] == 1

        assert stages_run(dvc(repo, env, "repro")) == ALWAYS  # no-op

        # The retriever's code changes: retrieve and everything after it rerun; the reader is
        # not asked again (same question, same candidates, same reader identity).
        path = repo / "examples/memesh_fts5.py"
        path.write_text(path.read_text() + "\n# tuned\n")
        assert "examples/memesh_fts5.py" in dvc(repo, env, "status", "retrieve").stdout
        assert stages_run(dvc(repo, env, "repro")) == ALWAYS + AFTER_RETRIEVE
        assert srv.total_requests == 1

        # The reader's code changes: read, judge, aggregate, with new requests.
        path = repo / "examples/openai_reader.py"
        path.write_text(path.read_text() + "\n# tuned\n")
        assert stages_run(dvc(repo, env, "repro")) == ALWAYS + ["read", "judge", "aggregate"]
        assert srv.total_requests == 2
        answers = (repo / "artifacts/answers.parquet").read_bytes()

        # An operational knob (under reader.runtime, not a declared param): nothing reruns.
        set_params(repo, **{"reader.runtime.concurrency": 1})
        assert stages_run(dvc(repo, env, "repro")) == ALWAYS
        assert srv.total_requests == 2
        assert (repo / "artifacts/answers.parquet").read_bytes() == answers
    assert git(repo, "status", "--porcelain", "examples")  # the edits were real
