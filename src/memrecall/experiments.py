"""The one reader of DVC experiments, shared by the paper export and the MLflow sync.

An experiment is a git commit under refs/exps/ (or the HEAD commit, the baseline they were run
from). Everything about it is read back from that commit through DVC's filesystem: params.yaml,
reports/metrics.json, reports/per_question.csv, the dataset it read. Nothing is parsed out of
experiment names: the sweep records what a run belongs to in params (`meta.sweep`,
`meta.variant`, `meta.ladder`), and which questions it answered is in its per-question results.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from .config import flatten, load_yaml
from .errors import MemrecallError
from .hashing import sha256_json
from .paths import project_root

log = logging.getLogger(__name__)
PARAMS_FILE = "params.yaml"
METRICS_FILE = "reports/metrics.json"
PER_QUESTION_FILE = "reports/per_question.csv"
QUESTIONS_FILE = "artifacts/questions.parquet"
DATA_CARD_FILE = "reports/data_card.md"
REPORTS_DIR = "reports"


@dataclass(frozen=True)
class ExpRef:
    name: str
    rev: str  # the experiment's commit
    baseline_rev: str  # the commit it was run from (its own commit for the baseline)
    git_ref: str = ""  # refs/exps/..., what `dvc exp remove` takes unambiguously; "" for HEAD

    @property
    def is_baseline(self) -> bool:
        return not self.git_ref


@dataclass
class Experiment:
    ref: ExpRef
    params: dict  # params.yaml as composed for this run (nested)
    metrics: dict  # reports/metrics.json
    per_question: list[dict] | None  # reports/per_question.csv rows, None when absent
    dataset_sha256: str | None  # sha256 of the dataset file it read, when known
    commit_time_ms: int = 0
    benchmark: str | None = None  # the benchmark it ran (download's metadata), when known
    files: dict = field(default_factory=dict)  # reports/** (path -> bytes), when asked for
    # The export's reference run: the HEAD run, or across a revision range the newest commit's.
    reference: bool | None = None  # None: the HEAD run is (ref.is_baseline)

    @property
    def name(self) -> str:
        return self.ref.name

    def record(self) -> dict:
        """The plain record the paper tables are built from (see report/paper.py)."""
        return {
            "name": self.name,
            "rev": self.ref.rev,
            "baseline": (self.ref.is_baseline if self.reference is None else self.reference),
            "params": flatten(self.params),
            "metrics": self.metrics,
            "per_question": self.per_question,
            "dataset_sha256": self.dataset_sha256,
            "benchmark": self.benchmark,
        }


# ---------------------------------------------------------------- listing


def list_experiments(
    root: Path | None = None, *, names: Iterable[str] | None = None, baseline: str | None = None
) -> list[ExpRef]:
    """Every DVC experiment of the repo (optionally only `names`, or one baseline commit),
    sorted by baseline then name. Only finished runs have a ref: queued, running and failed
    ones are not listed."""
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


def head_ref(root: Path | None = None) -> ExpRef:
    """The HEAD commit as a run: `baseline (<branch or short sha>)`."""
    from dvc.repo import Repo

    with Repo(str(root or project_root())) as repo:
        rev = repo.scm.get_rev()
        try:
            label = repo.scm.active_branch()
        except Exception:  # detached HEAD
            label = rev[:7]
    return ExpRef(f"baseline ({label})", rev, rev)


# ---------------------------------------------------------------- reading one revision


class RevReader:
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

    def text(self, path: str) -> str | None:
        """The file's text, or None when the revision lacks it (or its DVC cache is absent)."""
        try:
            return self.read_bytes(path).decode("utf-8")
        except Exception:  # not committed in that run, or not in the local DVC cache
            return None

    def find(self, folder: str) -> list[str]:
        if not self.fs.isdir(folder):
            return []
        return sorted(p.lstrip("/") for p in self.fs.find(folder, detail=False))

    def close(self) -> None:
        self.fs.close()


def parse_per_question(text: str | None, where: str = PER_QUESTION_FILE) -> list[dict] | None:
    """question_id, question_type, correct (True / False / None = not judged), is_abstention."""
    if not text:
        return None
    rows = []
    for i, r in enumerate(csv.DictReader(io.StringIO(text)), start=2):
        if not r.get("question_id") or "correct" not in r:
            raise MemrecallError(f"{where}: line {i} lacks question_id or correct")
        c = r.get("correct")
        rows.append(
            {
                "question_id": r["question_id"],
                "question_type": r.get("question_type"),
                "correct": None if c in ("", None) else c.lower() == "true",
                "is_abstention": (r.get("is_abstention") or "").lower() == "true",
            }
        )
    return rows


def questions_meta(reader: RevReader) -> dict:
    """The metadata the download stage wrote into the run's questions.parquet ({} when the
    revision's artifact is not at hand)."""
    try:
        import pyarrow.parquet as pq

        meta = pq.read_schema(io.BytesIO(reader.read_bytes(QUESTIONS_FILE))).metadata or {}
    except Exception:  # not run yet, not in the local cache, or an older artifact layout
        return {}
    prefix = b"memrecall."
    return {
        k[len(prefix) :].decode(): v.decode().strip('"')
        for k, v in meta.items()
        if k.startswith(prefix) and v != b"null"
    }


def dataset_sha256(reader: RevReader, params: dict, meta: dict | None = None) -> str | None:
    """The sha256 of the dataset file the run read: questions.parquet metadata (the download
    stage records it), else the data card, else the configured dataset.sha256."""
    meta = questions_meta(reader) if meta is None else meta
    if meta.get("source_sha256"):
        return meta["source_sha256"]
    card = reader.text(DATA_CARD_FILE)
    m = re.search(r"sha256\s*\|\s*`([0-9a-f]{64})`", card or "")
    if m:
        return m.group(1)
    sha = (params.get("dataset") or {}).get("sha256") if isinstance(params, dict) else None
    return sha or None


def read_experiment(
    root: Path, ref: ExpRef, reader: RevReader | None = None, *, files: bool = False
) -> Experiment:
    """One run, read from its commit; `files` also reads everything under reports/."""
    own = reader is None
    reader = reader or RevReader(root, ref.rev)
    label = f"of experiment '{ref.name}' ({ref.rev[:7]})"
    try:
        params_text = reader.text(PARAMS_FILE)
        params = load_yaml(params_text, f"{PARAMS_FILE} {label}") if params_text else {}
        params = params if isinstance(params, dict) else {}
        metrics_text = reader.text(METRICS_FILE)
        try:
            metrics = json.loads(metrics_text) if metrics_text else {}
        except json.JSONDecodeError as e:
            raise MemrecallError(f"malformed JSON in {METRICS_FILE} {label}: {e}") from None
        per_question = parse_per_question(
            reader.text(PER_QUESTION_FILE), f"{PER_QUESTION_FILE} {label}"
        )
        meta = questions_meta(reader)
        exp = Experiment(
            ref,
            params,
            metrics if isinstance(metrics, dict) else {},
            per_question,
            dataset_sha256(reader, params, meta),
            commit_time_ms(root, ref.rev),
            benchmark=meta.get("benchmark"),
        )
        if files:
            exp.files = {}
            for p in reader.find(REPORTS_DIR):
                try:
                    exp.files[p] = reader.read_bytes(p)
                except FileNotFoundError:  # a DVC output this machine's cache doesn't hold
                    log.warning(
                        "%s of experiment '%s' is not in the local DVC cache: not logged",
                        p,
                        ref.name,
                    )
    finally:
        if own:
            reader.close()
    return exp


def commit_time_ms(root: Path, rev: str) -> int:
    out = subprocess.run(
        ["git", "show", "-s", "--format=%ct", rev], cwd=root, capture_output=True, text=True
    )
    if out.returncode != 0:
        raise MemrecallError(f"git cannot read commit {rev} in {root}: {out.stderr.strip()}")
    return int(out.stdout.strip()) * 1000


def collect(
    root: Path | None = None,
    *,
    names: Iterable[str] | None = None,
    sweep: str | None = None,
    revs: str | None = None,
) -> list[Experiment]:
    """The runs that have metrics, by default the HEAD run and its finished experiments (the
    export's input). A selection narrows or moves that:
    - `names`: only these experiments of HEAD (`HEAD` names the HEAD run itself);
    - `sweep`: only the runs a named sweep recorded (`meta.sweep`), whatever their names;
    - `revs`: a git revision range `A..B` instead of HEAD: the run committed at each commit of
      the range and the experiments run from them (the newest commit's run is the baseline).
    A name or range that matches nothing is an error, never an empty table."""
    root = Path(root or project_root()).resolve()
    wanted = list(names or [])
    try:
        if revs:
            commits = _rev_list(root, revs)
            refs = [ExpRef(f"commit {c[:7]}", c, c) for c in commits]
            by_base = {c: [] for c in commits}
            for ref in list_experiments(root):
                if ref.baseline_rev in by_base:
                    by_base[ref.baseline_rev].append(ref)
            refs += [r for c in commits for r in by_base[c]]
        else:
            head = head_ref(root)
            exps = list_experiments(root, baseline=head.rev)
            refs = [head, *exps]
        if wanted:
            known = {r.name for r in refs}
            missing = [n for n in wanted if n not in known and n != "HEAD"]
            if missing:
                raise MemrecallError(
                    f"no finished experiment named {missing[0]!r} from "
                    f"{revs or 'HEAD'}; known: {', '.join(sorted(known))}"
                )
            refs = [r for r in refs if r.name in wanted or (r.is_baseline and "HEAD" in wanted)]
    except MemrecallError:
        raise
    except Exception as e:  # not a DVC repo, no commits, ...
        raise MemrecallError(f"cannot list DVC experiments in {root}: {e}") from None
    out = []
    for ref in refs:
        exp = read_experiment(root, ref)
        if not exp.metrics:  # HEAD without a committed run, or a run without reports
            continue
        if sweep is not None and (exp.params.get("meta") or {}).get("sweep") != sweep:
            continue
        if revs:  # one reference: the newest commit's run
            exp.reference = ref.is_baseline and not any(e.reference for e in out)
        out.append(exp)
    if not out and (wanted or sweep or revs):
        raise MemrecallError(
            f"no finished run with metrics matches the selection (names "
            f"{wanted or 'any'}, sweep {sweep or 'any'}, revisions "
            f"{revs or 'HEAD'})"
        )
    return out


def _rev_list(root: Path, revs: str) -> list[str]:
    """The commits of a revision range (newest first); a single revision is itself."""
    args = (
        ["git", "rev-list", revs]
        if ".." in revs
        else ["git", "rev-parse", "--verify", f"{revs}^{{commit}}"]
    )
    out = subprocess.run(args, cwd=root, capture_output=True, text=True)
    if out.returncode != 0 or not out.stdout.strip():
        raise MemrecallError(
            f"git cannot read the revision range {revs!r} in {root}: "
            f"{out.stderr.strip() or 'no commits in it'}"
        )
    return out.stdout.split()


# ---------------------------------------------------------------- which questions a run answered


def question_set(record: dict) -> tuple[str, str, int]:
    """(key, dataset name, n questions) of a run record: same key = same dataset file (when
    known) and the same question ids, so their results can be compared question by question."""
    ids = sorted(r["question_id"] for r in record.get("per_question") or [])
    params = record.get("params") or {}
    dataset = str(params.get("dataset.name") or "?")
    key = sha256_json({"dataset": record.get("dataset_sha256") or dataset, "ids": ids})[:12]
    return key, dataset, len(ids)
