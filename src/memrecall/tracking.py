"""MLflow tracking as an idempotent sync from DVC experiments.

Stages never log to MLflow: DVC restores cached stages without running them, so a side effect in
a stage would silently go missing. Instead each DVC experiment (a git commit under refs/exps/)
is read back - params.yaml, reports/metrics.json, everything under reports/, the prompts - and
becomes exactly one MLflow run named after the experiment. Runs carry the experiment's commit in
the tag `memrecall.exp_rev`: a second sync finds them and adds nothing; an experiment that was
re-run under the same name (new commit) replaces its old run.

Store: `sqlite:///$DVC_ROOT/mlflow.db` (absolute) unless MLFLOW_TRACKING_URI is set. The DB and
the MLflow experiment (with an explicit absolute artifact location) are created once, before any
parallel run: creating the sqlite DB from several processes at once can corrupt it.
"""

from __future__ import annotations

import importlib.util
import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from . import config
from .errors import MemrecallError
from .paths import project_root

EXPERIMENT_ENV = "MEMRECALL_MLFLOW_EXPERIMENT"
DEFAULT_EXPERIMENT = "memrecall"
TAG_NAME = "memrecall.exp_name"
TAG_REV = "memrecall.exp_rev"
TAG_BASELINE = "memrecall.baseline_rev"
TAG_DATASET = "memrecall.dataset_sha256"
TAG_COMPLETE = "memrecall.sync_complete"
PARAM_VALUE_MAX = 6000  # MLflow's cap on a param value
PARAMS_FILE = "params.yaml"
METRICS_FILE = "reports/metrics.json"
# rewrite_prompts.py: where the rewrite prompts lived before rewrite/ became a package (older
# experiments' commits).
PROMPT_SOURCES = ("src/memrecall/read/prompts.py", "src/memrecall/rewrite/prompts.py",
                  "src/memrecall/rewrite_prompts.py")
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


def ensure_experiment(root: Path | None = None, uri: str | None = None,
                      name: str | None = None) -> str:
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
        raise MemrecallError(f"MLflow store {uri}: cannot create or open experiment '{name}': {e}")\
            from None


# ---------------------------------------------------------------- DVC experiments

@dataclass(frozen=True)
class ExpRef:
    name: str
    rev: str            # the experiment's commit
    baseline_rev: str   # the commit it was run from
    git_ref: str = ""   # refs/exps/..., what `dvc exp remove` takes unambiguously


@dataclass
class ExpRecord:
    ref: ExpRef
    params: dict
    metrics: dict
    commit_time_ms: int
    files: dict = field(default_factory=dict)  # artifact path -> bytes (filled by read_artifacts)


def list_experiments(root: Path | None = None, *, names: Iterable[str] | None = None,
                     baseline: str | None = None) -> list[ExpRef]:
    """Every DVC experiment of the repo (optionally only `names`, or one baseline commit),
    sorted by baseline then name."""
    from dvc.repo import Repo
    from dvc.repo.experiments.utils import exp_refs

    wanted = set(names) if names is not None else None
    with Repo(str(root or project_root())) as repo:
        refs = []
        for ref in exp_refs(repo.scm):
            if wanted is not None and ref.name not in wanted:
                continue
            if baseline is not None and ref.baseline_sha != baseline:
                continue
            refs.append(ExpRef(ref.name, repo.scm.get_ref(str(ref)), ref.baseline_sha, str(ref)))
    return sorted(refs, key=lambda r: (r.baseline_rev, r.name))


def head_rev(root: Path | None = None) -> str:
    from dvc.repo import Repo

    with Repo(str(root or project_root())) as repo:
        return repo.scm.get_rev()


def load_yaml(text: str, where: str) -> dict:
    data = config.load_yaml(text, where) or {}
    return data if isinstance(data, dict) else {}


class _RevReader:
    """Files of one git revision, git-tracked or DVC-tracked, through DVC's filesystem."""

    def __init__(self, root: Path, rev: str):
        from dvc.fs import DVCFileSystem

        self.rev = rev
        self.fs = DVCFileSystem(repo=str(root), rev=rev)

    def exists(self, path: str) -> bool:
        return self.fs.exists(path)

    def read_bytes(self, path: str) -> bytes:
        with self.fs.open(path, "rb") as f:
            return f.read()

    def find(self, folder: str) -> list[str]:
        if not self.fs.isdir(folder):
            return []
        return sorted(p.lstrip("/") for p in self.fs.find(folder, detail=False))

    def close(self) -> None:
        self.fs.close()


def read_experiment(root: Path, ref: ExpRef, reader: _RevReader | None = None) -> ExpRecord:
    """Params and metrics of one experiment, read from its commit."""
    own = reader is None
    reader = reader or _RevReader(root, ref.rev)
    try:
        where = f"{PARAMS_FILE} of experiment '{ref.name}' ({ref.rev[:7]})"
        params = (load_yaml(reader.read_bytes(PARAMS_FILE).decode("utf-8"), where)
                  if reader.exists(PARAMS_FILE) else {})
        metrics = {}
        if reader.exists(METRICS_FILE):
            try:
                metrics = json.loads(reader.read_bytes(METRICS_FILE))
            except json.JSONDecodeError as e:
                raise MemrecallError(f"malformed JSON in {METRICS_FILE} of experiment "
                                     f"'{ref.name}' ({ref.rev[:7]}): {e}") from None
    finally:
        if own:
            reader.close()
    return ExpRecord(ref, params, metrics if isinstance(metrics, dict) else {},
                     _commit_time_ms(root, ref.rev))


def _commit_time_ms(root: Path, rev: str) -> int:
    out = subprocess.run(["git", "show", "-s", "--format=%ct", rev], cwd=root,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise MemrecallError(f"git cannot read commit {rev} in {root}: {out.stderr.strip()}")
    return int(out.stdout.strip()) * 1000


# ---------------------------------------------------------------- flattening

def flatten(value, prefix: str = "") -> dict:
    """{'a': {'b': 1}} -> {'a.b': 1}; lists stay values."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: value}


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

def _dataset_sha256(reader: _RevReader, params: dict) -> str | None:
    """The sha256 of the dataset file the experiment read: questions.parquet metadata (the
    download stage records it), else the data card, else the configured dataset.sha256."""
    try:
        import pyarrow.parquet as pq

        meta = pq.read_schema(io.BytesIO(reader.read_bytes("artifacts/questions.parquet"))).metadata
        sha = (meta or {}).get(b"memrecall.source_sha256")
        if sha:
            return sha.decode().strip('"')
    except Exception:  # not run yet, not in the local cache, or an older artifact layout
        pass
    try:
        card = reader.read_bytes("reports/data_card.md").decode("utf-8")
        m = re.search(r"sha256\s*\|\s*`([0-9a-f]{64})`", card)
        if m:
            return m.group(1)
    except Exception:
        pass
    sha = (params.get("dataset") or {}).get("sha256") if isinstance(params, dict) else None
    return sha or None


def _module_at(source: str, rev: str, package: str, label: str):
    """Execute a prompts module as it was at `rev` (relative imports resolve in `package`)."""
    spec = importlib.util.spec_from_loader(f"{package}._at_{rev[:12]}_{label}", loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = package
    sys.modules[spec.name] = module  # dataclasses look their module up while it executes
    try:
        exec(compile(source, f"{rev[:7]}:{label}", "exec"), module.__dict__)  # noqa: S102
    finally:
        sys.modules.pop(spec.name, None)
    return module


def _render_reader_prompt(source: str, rev: str, reader_cfg: dict) -> str | None:
    name = reader_cfg.get("prompt")
    mod = _module_at(source, rev, "memrecall.read", "prompts")
    prompt = getattr(mod, "PROMPTS", {}).get(name)
    if prompt is None:
        return None
    lines = [f"# reader prompt `{getattr(prompt, 'prompt_id', name)}`", "",
             "## template", "", getattr(prompt, "template", ""), ""]
    guidance = getattr(prompt, "guidance", {}) or {}
    if guidance:
        lines += ["## guidance added for these question types", ""]
        lines += [f"- **{t}**: {g}" for t, g in sorted(guidance.items())]
        lines.append("")
    if reader_cfg.get("reading") == "con" and hasattr(mod, "NOTES_TEMPLATE"):
        lines += ["## reading-notes prompt (reading=con)", "", mod.NOTES_TEMPLATE, ""]
    return "\n".join(lines)


def read_artifacts(root: Path, record: ExpRecord, reader: _RevReader) -> dict[str, bytes]:
    """reports/** of the experiment, the prompt sources at its commit and the rendered reader
    prompt it used."""
    files = {p: reader.read_bytes(p) for p in reader.find("reports")}
    for path in PROMPT_SOURCES:
        if reader.exists(path):
            src = reader.read_bytes(path)
            # read/prompts.py and rewrite/prompts.py share a file name: keep the folder
            files[f"prompts/source/{path.removeprefix('src/memrecall/')}"] = src
            if path.endswith("read/prompts.py") and isinstance(record.params.get("reader"), dict):
                try:
                    text = _render_reader_prompt(src.decode("utf-8"), record.ref.rev,
                                                 record.params["reader"])
                except Exception as e:  # an old or broken prompts module: keep the source only
                    text = f"could not render the reader prompt at {record.ref.rev[:7]}: {e}\n"
                if text:
                    files[f"prompts/reader_{record.params['reader'].get('prompt')}.md"] = \
                        text.encode("utf-8")
    return files


# ---------------------------------------------------------------- sync

def _existing_runs(client, experiment_id: str) -> dict[tuple[str, str], list]:
    """Active runs made by this sync, keyed by (experiment name, baseline rev)."""
    from mlflow.entities import ViewType

    out: dict[tuple[str, str], list] = {}
    token = None
    while True:
        page = client.search_runs([experiment_id], filter_string=f"tags.`{TAG_REV}` != ''",
                                  run_view_type=ViewType.ACTIVE_ONLY, max_results=1000,
                                  page_token=token)
        for run in page:
            tags = run.data.tags
            out.setdefault((tags.get(TAG_NAME, ""), tags.get(TAG_BASELINE, "")), []).append(run)
        token = page.token
        if not token:
            return out


def _chunks(items: list, n: int):
    for i in range(0, len(items), n):
        yield items[i:i + n]


def _log_run(client, experiment_id: str, root: Path, ref: ExpRef) -> str:
    from mlflow.entities import Metric, Param, RunTag

    reader = _RevReader(root, ref.rev)
    try:
        record = read_experiment(root, ref, reader)
        files = read_artifacts(root, record, reader)
        dataset_sha = _dataset_sha256(reader, record.params)
    finally:
        reader.close()
    tags = {TAG_NAME: ref.name, TAG_REV: ref.rev, TAG_BASELINE: ref.baseline_rev,
            "mlflow.source.git.commit": ref.rev, "mlflow.source.type": "PROJECT",
            "mlflow.source.name": "dvc exp run", TAG_DATASET: dataset_sha or "unknown"}
    run = client.create_run(experiment_id, start_time=record.commit_time_ms, run_name=ref.name,
                            tags=tags)
    run_id = run.info.run_id
    try:
        params = [Param(k, v) for k, v in sorted(param_values(record.params).items())]
        for chunk in _chunks(params, 100):
            client.log_batch(run_id, params=chunk)
        metrics = [Metric(k, v, record.commit_time_ms, 0)
                   for k, v in sorted(metric_values(record.metrics).items())]
        for chunk in _chunks(metrics, 1000):
            client.log_batch(run_id, metrics=chunk)
        if files:
            with tempfile.TemporaryDirectory(prefix="memrecall-mlflow-") as tmp:
                for rel, data in files.items():
                    dest = Path(tmp, rel)
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(data)
                client.log_artifacts(run_id, tmp)
        client.log_batch(run_id, tags=[RunTag(TAG_COMPLETE, "true")])
        client.set_terminated(run_id, "FINISHED", end_time=record.commit_time_ms)
    except BaseException:
        # A half-logged run must not count as synced: delete it, the next sync redoes it.
        client.delete_run(run_id)
        raise
    return run_id


def sync_experiments(root: Path | None = None, *, names: Iterable[str] | None = None,
                     baseline: str | None = None, uri: str | None = None,
                     experiment: str | None = None, progress: bool = True) -> dict[str, str]:
    """Make MLflow hold exactly one finished run per DVC experiment; returns
    {experiment name: 'created' | 'unchanged' | 'replaced'}. Safe to run any number of times."""
    from mlflow.tracking import MlflowClient
    from tqdm import tqdm

    root = (root or project_root()).resolve()
    uri = uri or tracking_uri(root)
    exp_id = ensure_experiment(root, uri, experiment)
    client = MlflowClient(tracking_uri=uri)
    refs = list_experiments(root, names=names, baseline=baseline)
    existing = _existing_runs(client, exp_id)
    result = {}
    for ref in tqdm(refs, desc="mlflow sync", unit="exp", disable=not progress, file=sys.stderr):
        runs = existing.get((ref.name, ref.baseline_rev), [])
        keep = next((r for r in runs if r.data.tags.get(TAG_REV) == ref.rev
                     and r.data.tags.get(TAG_COMPLETE) == "true"), None)
        for r in runs:
            if r is not keep:  # stale (experiment re-run under this name) or half-logged
                client.delete_run(r.info.run_id)
        if keep is not None:
            result[ref.name] = "unchanged"
            continue
        _log_run(client, exp_id, root, ref)
        result[ref.name] = "replaced" if runs else "created"
    if progress:
        counts = {s: sum(v == s for v in result.values()) for s in ("created", "replaced",
                                                                   "unchanged")}
        print(f"mlflow: {uri} experiment '{experiment or experiment_name()}': "
              + ", ".join(f"{n} {s}" for s, n in counts.items()), file=sys.stderr)
    return result
