"""Both example plug-ins as one DVC experiment in a clone of the seeded project (2 questions of
the bundled sample), then: nothing is left to rerun, an edit of the retriever plug-in reruns
retrieve and what follows it (and asks the reader nothing new), an edit of the reader plug-in
reruns read → judge → aggregate with new requests, and an operational knob changes no stage."""

from __future__ import annotations

import json

import pytest

from fake_openai_server import FakeOpenAIServer, last_user
from memrecall.artifacts import read_meta, read_table
from repo_copy import ALWAYS, changed_stages, dvc, git, set_params, stages_run

pytestmark = pytest.mark.slow
AFTER_RETRIEVE = ["retrieve", "rerank", "rewrite", "read", "judge", "errata", "aggregate"]


def _answer(messages) -> str:
    return "The information is not available." if "number" in last_user(messages) else "Paris"


def test_plugins_as_a_dvc_experiment_and_code_changes_rerun_exactly(project):
    repo = project.repo
    with FakeOpenAIServer(answer=_answer) as srv:
        env = project.env(LOCAL_OPENAI_BASE_URL=srv.url)
        proc = dvc(
            repo,
            env,
            "exp",
            "run",
            "-n",
            "plugins",
            "-S",
            "retrieval=plugin",
            "-S",
            "retrieval.options={fusion: weighted}",
            "-S",
            "reader=plugin",
            "-S",
            "+reader.options.input_cost_per_mtok=1.0",
            "-S",
            "dataset.limit=2",
        )
        # download and embed are the seeded project's: the same questions, the same units
        assert stages_run(proc) == ALWAYS + AFTER_RETRIEVE
        assert srv.total_requests == 2

        cands = read_table(repo / "artifacts/candidates_retrieve.parquet", "candidates")
        qs = read_table(repo / "artifacts/questions.parquet", "questions")
        sizes = {
            q: len(set(h)) for q, h in qs.select("question_id", "haystack_session_ids").iter_rows()
        }  # haystacks under top_k=50: every session ranked
        assert dict(cands.group_by("question_id").len().iter_rows()) == sizes
        ident = read_meta(repo / "artifacts/candidates_retrieve.parquet")["params"]["retrieval"]
        assert ident["plugin"]["options"] == {"fusion": "weighted"}
        metrics = json.loads((repo / "reports/metrics.json").read_text())
        assert metrics["n_questions"] == 2 and metrics["reader_errors"] == 0
        assert metrics["cost_by_stage"]["read"] > 0  # the plug-in's usage, priced by it
        assert "retrieval" in metrics and "session" in metrics["retrieval"]

        shown = json.loads(dvc(repo, env, "exp", "show", "--json").stdout)
        exps = [e for row in shown for e in (row.get("experiments") or [])]
        (run,) = [r for e in exps for r in e["revs"] if r.get("name") == "plugins"]
        params = run["data"]["params"]["params.yaml"]["data"]
        assert params["retrieval"]["callable"] == "examples.memesh_fts5:MeMeshRetriever"
        assert params["reader"]["callable"] == "examples.openai_reader:OpenAIReader"
        assert run["data"]["metrics"]["reports/metrics.json"]["data"]["n_questions"] == 2

        assert changed_stages(repo) == {}  # the experiment's results are the workspace's

        # The retriever's code changes: retrieve and everything after it rerun; the reader is
        # not asked again (same question, same candidates, same reader identity).
        path = repo / "examples/memesh_fts5.py"
        path.write_text(path.read_text() + "\n# tuned\n")
        assert "examples/memesh_fts5.py" in json.dumps(changed_stages(repo)["retrieve"])
        assert stages_run(dvc(repo, env, "repro")) == ALWAYS + AFTER_RETRIEVE
        assert srv.total_requests == 2

        # The reader's code changes: read, judge, aggregate, with new requests.
        path = repo / "examples/openai_reader.py"
        path.write_text(path.read_text() + "\n# tuned\n")
        assert stages_run(dvc(repo, env, "repro")) == ALWAYS + [
            "read",
            "judge",
            "errata",
            "aggregate",
        ]
        assert srv.total_requests == 4

        # An operational knob (under reader.runtime, not a declared param): no stage changes.
        set_params(repo, **{"reader.runtime.concurrency": 1})
        assert changed_stages(repo) == {}
    assert git(repo, "status", "--porcelain", "examples")  # the edits were real
