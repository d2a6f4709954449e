"""MLflow tracking as an idempotent sync from DVC experiments.

Stages never log to MLflow: DVC restores cached stages without running them, so a side effect in
a stage would silently go missing. Instead each DVC experiment (a git commit under refs/exps/)
is read back by memrecall.experiments - params.yaml, reports/metrics.json, everything under
reports/, including the prompts the read stage rendered (reports/prompts.json) - and becomes
exactly one MLflow run named after the experiment. Runs carry the experiment's commit in
the tag `memrecall.exp_rev`: a second sync finds them and adds nothing; an experiment that was
re-run under the same name (new commit) replaces its old run.

Store: `sqlite:///$DVC_ROOT/mlflow.db` (absolute) unless MLFLOW_TRACKING_URI is set. The DB and
the MLflow experiment (with an explicit absolute artifact location) are created once, before any
parallel run: creating the sqlite DB from several processes at once can corrupt it.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Iterable

from . import paths, timings, traces
from .artifacts import META_PREFIX
from .config import flatten, load_yaml
from .errors import MemrecallError
from .experiments import ExpRef, RevReader, list_experiments, read_experiment
from .paths import project_root

EXPERIMENT_ENV = "MEMRECALL_MLFLOW_EXPERIMENT"
DEFAULT_EXPERIMENT = "memrecall"
TAG_NAME = "memrecall.exp_name"
TAG_REV = "memrecall.exp_rev"
TAG_BASELINE = "memrecall.baseline_rev"
TAG_DATASET = "memrecall.dataset_sha256"
TAG_COMPLETE = "memrecall.sync_complete"
TAG_PROMPTS = "memrecall.prompt_ids"
TAG_DURATION = "memrecall.duration_source"
TAG_TRACES = "memrecall.traces"
# The artifacts a question's trace is built from, by table name (traces.question_views).
TRACE_TABLES = {
    "questions": paths.QUESTIONS,
    "candidates_retrieve": paths.CANDIDATES_RETRIEVE,
    "candidates_rerank": paths.CANDIDATES_RERANK,
    "candidates_rewrite": paths.CANDIDATES_REWRITE,
    "rewrites": paths.REWRITES,
    "answers": paths.ANSWERS,
    "verdicts": paths.VERDICTS,
}
PARAM_VALUE_MAX = 6000  # MLflow's cap on a param value
PROMPTS_FILE = "reports/prompts.json"  # the read stage's prompts
# Tables whose metadata holds the prompts their stage sent (judge, rewrite): key "prompts".
PROMPT_TABLES = ("verdicts", "rewrites")
_BAD_KEY_CHARS = re.compile(r"[^A-Za-z0-9_.\- /]")


# ---------------------------------------------------------------- store and experiment


def tracking_uri(root: Path | None = None) -> str:
    """MLFLOW_TRACKING_URI, else an absolute sqlite DB at the project root (not the cwd: queued
    experiments run in temp clones)."""
    env = os.environ.get("MLFLOW_TRACKING_URI")
    if env:
        return env
    return f"sqlite:///{(root or project_root()).resolve() / 'mlflow.db'}"


def _is_local_store(uri: str) -> bool:
    return uri.startswith(("sqlite:", "file:", "/")) or "://" not in uri


def experiment_name() -> str:
    return os.environ.get(EXPERIMENT_ENV, DEFAULT_EXPERIMENT)


def ensure_experiment(
    root: Path | None = None, uri: str | None = None, name: str | None = None
) -> str:
    """Create the store and the MLflow experiment if missing; return the experiment id.

    Call this once before starting parallel work. For a local store the artifact location is
    fixed to <root>/mlruns (absolute): MLflow otherwise resolves it against the cwd of whoever
    creates the experiment first.
    """
    from mlflow.tracking import MlflowClient

    root = (root or project_root()).resolve()
    uri = uri or tracking_uri(root)
    name = name or experiment_name()
    try:
        client = MlflowClient(tracking_uri=uri)
        exp = client.get_experiment_by_name(name)
        if exp is not None:
            if exp.lifecycle_stage == "deleted":
                client.restore_experiment(exp.experiment_id)
            return exp.experiment_id
        location = (root / "mlruns").as_uri() if _is_local_store(uri) else None
        return client.create_experiment(name, artifact_location=location)
    except MemrecallError:
        raise
    except Exception as e:  # mlflow raises its own and requests' errors; name the store
        raise MemrecallError(
            f"MLflow store {uri}: cannot create or open experiment '{name}': {e}"
        ) from None


# ---------------------------------------------------------------- names and values


def metric_key(key: str) -> str:
    """MLflow forbids '@' in names: recall_any@5 -> recall_any_at_5."""
    return _BAD_KEY_CHARS.sub("_", key.replace("@", "_at_"))


def metric_values(metrics: dict) -> dict[str, float]:
    """Every numeric leaf of metrics.json under its MLflow-safe dotted name."""
    out = {}
    for k, v in flatten(metrics).items():
        if isinstance(v, bool):
            v = float(v)
        if isinstance(v, (int, float)) and not (isinstance(v, float) and math.isnan(v)):
            out[metric_key(k)] = float(v)
    return out


def param_values(params: dict) -> dict[str, str]:
    out = {}
    for k, v in flatten(params).items():
        text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
        out[_BAD_KEY_CHARS.sub("_", k)] = text[:PARAM_VALUE_MAX]
    return out


# ---------------------------------------------------------------- artifacts


def prompt_ids(files: dict[str, bytes]) -> list[str]:
    """The prompt ids the read stage recorded in reports/prompts.json (it writes the prompts
    it rendered there; the run logs that file, never re-executes old prompt code)."""
    data = files.get(PROMPTS_FILE)
    if not data:
        return []
    try:
        return sorted(json.loads(data))
    except (json.JSONDecodeError, TypeError):
        return []


# ---------------------------------------------------------------- sync


def _existing_runs(client, experiment_id: str) -> dict[tuple[str, str], list]:
    """Active runs made by this sync, keyed by (experiment name, baseline rev)."""
    from mlflow.entities import ViewType

    out: dict[tuple[str, str], list] = {}
    token = None
    while True:
        page = client.search_runs(
            [experiment_id],
            filter_string=f"tags.`{TAG_REV}` != ''",
            run_view_type=ViewType.ACTIVE_ONLY,
            max_results=1000,
            page_token=token,
        )
        for run in page:
            tags = run.data.tags
            out.setdefault((tags.get(TAG_NAME, ""), tags.get(TAG_BASELINE, "")), []).append(run)
        token = page.token
        if not token:
            return out


def _chunks(items: list, n: int):
    for i in range(0, len(items), n):
        yield items[i : i + n]


def _run_window(reader: RevReader, commit_time_ms: int) -> tuple[int, int, dict, str]:
    """(start ms, end ms, {stage: seconds}, where they come from): the stage timings of the
    experiment's dvc.lock outputs, else its commit time (a zero-length run)."""
    try:
        lock = load_yaml(reader.read_bytes("dvc.lock").decode("utf-8"), "dvc.lock") or {}
        window = timings.run_window(lock, not_after=commit_time_ms / 1000 + 60)
    except Exception:  # noqa: BLE001  no dvc.lock at that commit, or unreadable
        window = None
    if window is None:
        return commit_time_ms, commit_time_ms, {}, "commit time (no stage timings recorded)"
    start, end, stages = window
    return (
        int(start * 1000),
        int(end * 1000),
        {k: round(e - s, 3) for k, (s, e) in stages.items()},
        "stage timings",
    )


def _trace_tables(reader: RevReader) -> tuple[dict, dict]:
    """(the run's artifacts as polars tables, from the DVC cache; the prompts the judge and
    rewrite stages recorded in their tables' metadata). Questions and answers are required,
    the rest optional."""
    import io

    import polars as pl
    import pyarrow.parquet as pq

    out, prompts = {}, {}
    for name, path in TRACE_TABLES.items():
        try:
            data = reader.read_bytes(path)
            out[name] = pl.read_parquet(io.BytesIO(data))
        except Exception:  # noqa: BLE001  not produced by this run, or not in the local cache
            if name in ("questions", "answers"):
                raise MemrecallError(f"{path} of this experiment is not in the local DVC cache")
            continue
        if name in PROMPT_TABLES:
            meta = pq.read_schema(io.BytesIO(data)).metadata or {}
            raw = meta.get(f"{META_PREFIX}prompts".encode())
            if raw:
                prompts.update(json.loads(raw))
    return out, prompts


def _log_genai_views(
    client, experiment_id: str, run_id: str, reader: RevReader, record, start_ms: int, end_ms: int
) -> str:
    """Traces, assessments, prompts and the dataset input of one run (memrecall.traces);
    returns what was logged, for the run's tags."""
    from .llm.cache import CallCache

    files = record.files
    prompts = {}
    if files.get(PROMPTS_FILE):
        try:
            prompts = json.loads(files[PROMPTS_FILE])
        except json.JSONDecodeError:
            prompts = {}
    try:
        tables, stage_prompts = _trace_tables(reader)
    except MemrecallError as e:
        tables, stage_prompts = None, {}
        missing = f"not logged: {e}"
    for version in traces.register_prompts(client, {**prompts, **stage_prompts}):
        client.link_prompt_version_to_run(run_id, version)
    if tables is None:
        return missing
    traces.log_dataset_input(
        client, run_id, record.params, record.dataset_sha256, tables["questions"].height
    )
    hashes = [
        h
        for name in ("answers", "verdicts")
        if name in tables and "request_hash" in tables[name].columns
        for h in tables[name]["request_hash"].to_list()
        if h
    ]
    cache = CallCache()
    try:
        calls = cache.records(hashes)
    finally:
        cache.close()
    from . import benchmarks

    bench = benchmarks.get(record.benchmark) if record.benchmark else None
    views = traces.question_views(tables, calls, bench)
    ids = traces.log_question_traces(
        client, experiment_id, run_id, views, start_s=start_ms / 1000, run_name=record.name
    )
    traces.mark_evaluation_run(client, run_id, views, end_ms)
    return f"{len(ids)} questions"


def _delete_run(client, experiment_id: str, run_id: str) -> None:
    """A run and the traces linked to it."""
    import mlflow

    found = mlflow.search_traces(
        locations=[experiment_id], run_id=run_id, return_type="list", include_spans=False
    )
    ids = [t.info.trace_id for t in found]
    for chunk in _chunks(ids, 100):
        client.delete_traces(experiment_id, trace_ids=chunk)
    client.delete_run(run_id)


def _log_run(client, experiment_id: str, root: Path, ref: ExpRef) -> str:
    from mlflow.entities import Metric, Param, RunTag

    reader = RevReader(root, ref.rev)
    try:
        record = read_experiment(root, ref, reader, files=True)
        start_ms, end_ms, stage_s, duration_source = _run_window(reader, record.commit_time_ms)
        files = record.files
        tags = {
            TAG_NAME: ref.name,
            TAG_REV: ref.rev,
            TAG_BASELINE: ref.baseline_rev,
            "mlflow.source.git.commit": ref.rev,
            "mlflow.source.type": "PROJECT",
            "mlflow.source.name": "dvc exp run",
            TAG_DATASET: record.dataset_sha256 or "unknown",
            TAG_PROMPTS: ", ".join(prompt_ids(files)) or "unknown",
            TAG_DURATION: duration_source,
        }
        run = client.create_run(experiment_id, start_time=start_ms, run_name=ref.name, tags=tags)
        run_id = run.info.run_id
        try:
            params = [Param(k, v) for k, v in sorted(param_values(record.params).items())]
            for chunk in _chunks(params, 100):
                client.log_batch(run_id, params=chunk)
            metrics = [
                Metric(k, v, end_ms, 0) for k, v in sorted(metric_values(record.metrics).items())
            ]
            metrics += [
                Metric(metric_key(f"stage_seconds.{k}"), v, end_ms, 0)
                for k, v in sorted(stage_s.items())
            ]
            for chunk in _chunks(metrics, 1000):
                client.log_batch(run_id, metrics=chunk)
            if files:
                with tempfile.TemporaryDirectory(prefix="memrecall-mlflow-") as tmp:
                    for rel, data in files.items():
                        dest = Path(tmp, rel)
                        dest.parent.mkdir(parents=True, exist_ok=True)
                        dest.write_bytes(data)
                    client.log_artifacts(run_id, tmp)
            logged = _log_genai_views(
                client, experiment_id, run_id, reader, record, start_ms, end_ms
            )
            client.log_batch(
                run_id, tags=[RunTag(TAG_TRACES, logged), RunTag(TAG_COMPLETE, "true")]
            )
            client.set_terminated(run_id, "FINISHED", end_time=end_ms)
        except BaseException:
            # A half-logged run must not count as synced: delete it, the next sync redoes it.
            _delete_run(client, experiment_id, run_id)
            raise
    finally:
        reader.close()
    return run_id


def sync_experiments(
    root: Path | None = None,
    *,
    names: Iterable[str] | None = None,
    baseline: str | None = None,
    uri: str | None = None,
    experiment: str | None = None,
    progress: bool = True,
) -> dict[str, str]:
    """Make MLflow hold exactly one finished run per DVC experiment; returns
    {experiment name: 'created' | 'unchanged' | 'replaced'}. Safe to run any number of times."""
    import mlflow
    from mlflow.tracking import MlflowClient
    from tqdm import tqdm

    root = (root or project_root()).resolve()
    uri = uri or tracking_uri(root)
    exp_id = ensure_experiment(root, uri, experiment)
    client = MlflowClient(tracking_uri=uri)
    traces.quiet_mlflow()
    mlflow.set_tracking_uri(uri)  # the GenAI APIs (evaluate, assessments) use the fluent store
    mlflow.set_experiment(experiment_id=exp_id)
    refs = list_experiments(root, names=names, baseline=baseline)
    existing = _existing_runs(client, exp_id)
    result = {}
    for ref in tqdm(refs, desc="mlflow sync", unit="exp", disable=not progress, file=sys.stderr):
        runs = existing.get((ref.name, ref.baseline_rev), [])
        keep = next(
            (
                r
                for r in runs
                if r.data.tags.get(TAG_REV) == ref.rev and r.data.tags.get(TAG_COMPLETE) == "true"
            ),
            None,
        )
        for r in runs:
            if r is not keep:  # stale (experiment re-run under this name) or half-logged
                _delete_run(client, exp_id, r.info.run_id)
        if keep is not None:
            result[ref.name] = "unchanged"
            continue
        _log_run(client, exp_id, root, ref)
        result[ref.name] = "replaced" if runs else "created"
    if progress:
        counts = {
            s: sum(v == s for v in result.values()) for s in ("created", "replaced", "unchanged")
        }
        print(
            f"mlflow: {uri} experiment '{experiment or experiment_name()}': "
            + ", ".join(f"{n} {s}" for s, n in counts.items()),
            file=sys.stderr,
        )
    return result
