"""MLflow sync of DVC experiments: one run per experiment, flattened params, metric names without
'@', reports (with the prompts the run recorded) as artifacts, git rev + dataset sha256 tags;
idempotent. Checked against a local sqlite store and against a real `mlflow server` read back
over its REST API."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from memrecall import experiments, tracking
from memrecall.errors import MemrecallError
from test_sweep import DATASET_SHA, _env, make_tiny_project


def _exp_run(project: Path, name: str, *overrides: str) -> None:
    args = [sys.executable, "-m", "dvc", "exp", "run", "--temp", "-n", name]
    for ov in overrides:
        args += ["-S", ov]
    proc = subprocess.run(args, cwd=project, env=_env(), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def mlflow_server(tmp_path_factory):
    """A real `mlflow server` (sqlite backend, served artifacts) on a free 127.0.0.1 port.
    Started first: it takes a while to come up, while the experiments are being made."""
    folder = tmp_path_factory.mktemp("mlflow_server")
    port = _free_port()
    log = open(folder / "server.log", "w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mlflow",
            "server",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "1",
            "--backend-store-uri",
            f"sqlite:///{folder / 'mlflow.db'}",
            "--artifacts-destination",
            str(folder / "artifacts"),
        ],
        cwd=folder,
        stdout=log,
        stderr=subprocess.STDOUT,
        # MLflow 3's server also starts a job runner (huey consumers) for its UI's jobs: about
        # 30 CPU seconds of the suite on 2 cores, for nothing `memrecall sync` uses.
        env={**_env(), "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"},
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    yield {"url": url, "proc": proc, "log": folder / "server.log"}
    os.killpg(proc.pid, signal.SIGTERM)  # the server and the workers it started
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
    log.close()


def _wait_up(server: dict, timeout: float = 180) -> str:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if server["proc"].poll() is not None:
            pytest.fail(f"mlflow server exited: {server['log'].read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(server["url"] + "/health", timeout=2) as r:
                if r.status == 200:
                    return server["url"]
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"mlflow server not up after {timeout}s: {server['log'].read_text()[-3000:]}")


@pytest.fixture(scope="module")
def project(tmp_path_factory, mlflow_server):
    """A tiny DVC project with two real experiments (reader x and reader y)."""
    path = make_tiny_project(tmp_path_factory.mktemp("tracking") / "tiny")
    _exp_run(path, "exp-x", "reader=x")
    _exp_run(path, "exp-y", "reader=y", "prep=b")
    return path


def _rest(url: str, endpoint: str, body: dict | None = None, **query) -> dict:
    full = f"{url}/api/2.0/mlflow/{endpoint}"
    if query:
        full += "?" + urllib.parse.urlencode(query)
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        full,
        data=data,
        headers={"Content-Type": "application/json"},
        method="POST" if body is not None else "GET",
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def _search(url: str, exp_id: str) -> list[dict]:
    return _rest(
        url,
        "runs/search",
        {"experiment_ids": [exp_id], "max_results": 100, "run_view_type": "ACTIVE_ONLY"},
    ).get("runs", [])


def _kv(items: list[dict]) -> dict:
    return {i["key"]: i["value"] for i in items or []}


# ---------------------------------------------------------------- pure helpers


def test_flatten_and_mlflow_safe_names():
    metrics = {
        "n_questions": 12,
        "qa": {"overall": 0.5, "by_type": {"single-session-user": 1}},
        "retrieval": {"session": {"recall_any@5": 0.9}},
        "ok": True,
        "note": "text",
        "missing": None,
        "nan": float("nan"),
    }
    assert tracking.metric_values(metrics) == {
        "n_questions": 12.0,
        "qa.overall": 0.5,
        "qa.by_type.single-session-user": 1.0,
        "retrieval.session.recall_any_at_5": 0.9,
        "ok": 1.0,
    }
    params = tracking.param_values(
        {
            "reader": {"model": "deepseek/x", "top_k": 15, "thinking_budget": None},
            "dataset": {"question_types": ["a", "b"], "prompt": "p" * 7000},
        }
    )
    assert params == {
        "reader.model": "deepseek/x",
        "reader.top_k": "15",
        "reader.thinking_budget": "null",
        "dataset.question_types": '["a", "b"]',
        "dataset.prompt": "p" * 6000,
    }


def test_tracking_uri_defaults_to_an_absolute_db_at_the_project_root(tmp_path, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    assert tracking.tracking_uri(tmp_path) == f"sqlite:///{tmp_path.resolve()}/mlflow.db"
    monkeypatch.setenv("DVC_ROOT", str(tmp_path))  # inside a queued experiment's temp clone
    monkeypatch.chdir(tmp_path.parent)
    assert tracking.tracking_uri() == f"sqlite:///{tmp_path.resolve()}/mlflow.db"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:1")
    assert tracking.tracking_uri(tmp_path) == "http://127.0.0.1:1"


# ---------------------------------------------------------------- local sqlite store


@pytest.mark.slow
def test_sync_to_sqlite_is_idempotent_and_replaces_rerun_experiments(
    project, tmp_path, monkeypatch
):
    from mlflow.tracking import MlflowClient

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.chdir(tmp_path)  # the store and artifacts must not follow the cwd
    root = tmp_path / "root"
    root.mkdir()
    uri = f"sqlite:///{root / 'mlflow.db'}"
    exp_id = tracking.ensure_experiment(root, uri)
    client = MlflowClient(uri)
    assert client.get_experiment(exp_id).artifact_location == (root / "mlruns").as_uri()

    assert tracking.sync_experiments(project, uri=uri, progress=False) == {
        "exp-x": "created",
        "exp-y": "created",
    }
    assert tracking.sync_experiments(project, uri=uri, progress=False) == {
        "exp-x": "unchanged",
        "exp-y": "unchanged",
    }
    runs = {r.info.run_name: r for r in client.search_runs([exp_id])}
    assert sorted(runs) == ["exp-x", "exp-y"]
    y = runs["exp-y"]
    assert y.data.metrics["qa.overall"] == pytest.approx(0.4)
    assert y.data.params["prep.name"] == "b" and y.data.params["reader.prompt"] == "type_aware"
    assert y.data.tags["memrecall.dataset_sha256"] == DATASET_SHA
    assert not list(Path(tmp_path).glob("mlruns"))  # nothing landed in the cwd
    # the prompts the run rendered, as its read stage recorded them (no old code re-run)
    arts = {a.path for a in client.list_artifacts(y.info.run_id, "reports")}
    assert "reports/prompts.json" in arts
    assert y.data.tags[tracking.TAG_PROMPTS] == "type_aware:0000"
    local = client.download_artifacts(y.info.run_id, "reports/prompts.json", str(tmp_path))
    assert (
        json.loads(Path(local).read_text())["type_aware:0000"]["template"]
        == "template of type_aware"
    )

    # A half-logged run (crashed sync) is not trusted: it is replaced.
    rev_x = runs["exp-x"].data.tags[tracking.TAG_REV]
    client.set_tag(runs["exp-x"].info.run_id, tracking.TAG_COMPLETE, "false")
    assert tracking.sync_experiments(project, uri=uri, names=["exp-x"], progress=False) == {
        "exp-x": "replaced"
    }
    # Re-running an experiment under the same name (new commit) replaces its run.
    subprocess.run(
        [sys.executable, "-m", "dvc", "exp", "remove", "exp-x"],
        cwd=project,
        env=_env(),
        check=True,
        capture_output=True,
    )
    _exp_run(project, "exp-x", "reader=z")
    assert tracking.sync_experiments(project, uri=uri, progress=False) == {
        "exp-x": "replaced",
        "exp-y": "unchanged",
    }
    runs = {r.info.run_name: r for r in client.search_runs([exp_id])}
    assert sorted(runs) == ["exp-x", "exp-y"]
    assert runs["exp-x"].data.tags[tracking.TAG_REV] != rev_x
    assert runs["exp-x"].data.metrics["qa.overall"] == pytest.approx(0.3)


def test_unusable_store_is_a_clear_error(tmp_path):
    (tmp_path / "a_file").write_text("not a folder")
    uri = f"sqlite:///{tmp_path / 'a_file' / 'mlflow.db'}"
    with pytest.raises(MemrecallError, match=f"MLflow store {uri}: cannot create or open"):
        tracking.ensure_experiment(tmp_path, uri)


# ---------------------------------------------------------------- a real mlflow server


@pytest.mark.slow
def test_sync_to_a_real_mlflow_server_read_back_over_rest(project, mlflow_server, monkeypatch):
    url = _wait_up(mlflow_server)
    monkeypatch.setenv("MLFLOW_TRACKING_URI", url)
    monkeypatch.setenv(tracking.EXPERIMENT_ENV, "memrecall-rest")
    refs = {r.name: r for r in experiments.list_experiments(project)}

    first = tracking.sync_experiments(project, progress=False)
    assert set(first.values()) == {"created"} and set(first) == set(refs)
    exp = _rest(url, "experiments/get-by-name", experiment_name="memrecall-rest")["experiment"]
    runs = {r["info"]["run_name"]: r for r in _search(url, exp["experiment_id"])}
    assert set(runs) == set(refs)
    for name, run in runs.items():
        tags, metrics = _kv(run["data"]["tags"]), _kv(run["data"]["metrics"])
        params = _kv(run["data"].get("params"))
        assert run["info"]["status"] == "FINISHED"
        assert tags["memrecall.exp_rev"] == tags["mlflow.source.git.commit"] == refs[name].rev
        assert tags["memrecall.baseline_rev"] == refs[name].baseline_rev
        assert tags["memrecall.dataset_sha256"] == DATASET_SHA
        assert "retrieval.session.recall_any_at_5" in metrics
        assert not any("@" in k for k in metrics)
        assert params["dataset.sha256"] == DATASET_SHA
        reports = _rest(url, "artifacts/list", run_id=run["info"]["run_id"], path="reports")
        assert {f["path"] for f in reports["files"]} == {
            "reports/metrics.json",
            "reports/summary.md",
            "reports/per_question.csv",
            "reports/prompts.json",
        }
    y = runs["exp-y"]
    assert _kv(y["data"]["metrics"])["qa.overall"] == pytest.approx(0.4)
    assert _kv(y["data"]["params"])["reader.name"] == "y"

    # Sync again: nothing new, not even a second metric point.
    assert set(tracking.sync_experiments(project, progress=False).values()) == {"unchanged"}
    again = _search(url, exp["experiment_id"])
    assert sorted(r["info"]["run_id"] for r in again) == sorted(
        r["info"]["run_id"] for r in runs.values()
    )
    history = _rest(url, "metrics/get-history", run_id=y["info"]["run_id"], metric_key="qa.overall")
    assert len(history["metrics"]) == 1
    _check_genai_views(url, exp["experiment_id"], y["info"]["run_id"])


def _check_genai_views(url: str, experiment_id: str, run_id: str) -> None:
    """What a person opening the run in `mlflow ui` sees: a trace per question with the
    verdict as feedback and the gold answer as expectation, an evaluation run, the prompt in
    the registry, the dataset as an input, a real duration. Read back through the client."""
    from mlflow import MlflowClient

    client = MlflowClient(url)
    found = client.search_traces(locations=[experiment_id], run_id=run_id)
    assert len(found) == 4  # one per question, linked to this run
    by_q = {t.info.tags["memrecall.question_id"]: t for t in found}
    assert set(by_q) == {"q0", "q1", "q2", "q3"}

    def verdict(t):
        return next(a for a in t.info.assessments if a.name == "correct")

    # reader factor 2 (exp-y): q0, q1 judged correct, q2 wrong, q3's reader call failed
    assert [verdict(by_q[q]).value for q in ("q0", "q1", "q2")] == [True, True, False]
    failed = by_q["q3"]
    assert failed.info.state == "ERROR" and verdict(failed).value is None
    assert verdict(failed).error.error_code == "NOT_JUDGED"
    gold = next(a for a in by_q["q0"].info.assessments if a.name == "expected_response")
    assert gold.value == "gold 0"
    assert [s.name for s in by_q["q0"].data.spans] == ["question", "retrieve", "read", "judge"]

    run = client.get_run(run_id)
    assert run.data.tags["mlflow.runType"] == "genai_evaluate"  # listed under evaluation runs
    assert run.data.tags["memrecall.traces"] == "4 questions"
    datasets = {d.dataset.name: d.dataset for d in run.inputs.dataset_inputs}
    assert json.loads(datasets["tiny"].source)["sha256"] == DATASET_SHA
    assert json.loads(datasets["tiny"].profile)["num_questions"] == 4
    assert run.data.tags["memrecall.duration_source"] == "stage timings"
    assert run.info.end_time > run.info.start_time
    # Every prompt the run sent, from the stage that sent it: the reader's (reports/prompts.json),
    # the LLM judge's and the rewrite's (their tables' metadata); versions linked to the run.
    from memrecall.benchmarks.longmemeval.judge import TEMPLATES
    from memrecall.rewrite.prompts import get_variant_prompt

    linked = json.loads(run.data.tags["mlflow.linkedPrompts"])
    assert sorted(linked, key=lambda p: p["name"]) == [
        {"name": "memrecall-judge-default", "version": "1"},
        {"name": "memrecall-read-type_aware", "version": "1"},
        {"name": "memrecall-rewrite-multiangle", "version": "1"},
    ]
    assert (
        client.get_prompt_version("memrecall-read-type_aware", 1).template
        == "template of type_aware"
    )
    judge = client.get_prompt_version("memrecall-judge-default", 1)
    assert judge.template == TEMPLATES["default"]
    assert judge.tags["memrecall.stage"] == "judge"
    rewrite = client.get_prompt_version("memrecall-rewrite-multiangle", 1)
    assert rewrite.template == get_variant_prompt("multiangle").messages("{question}", 3)
    spans = {s.name: s for s in by_q["q0"].data.spans}
    assert spans["judge"].attributes["judge_model"] == "openai/judge"
    assert verdict(by_q["q0"]).source.source_type == "LLM_JUDGE"
