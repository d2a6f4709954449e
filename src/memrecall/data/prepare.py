"""The download stage's work: find the configured file, hand it to its benchmark (named by
dataset.format, or the registered benchmark that recognises it), which validates it, takes the
subset and normalises it into questions / sessions / turns; write those tables, with the
benchmark's name in their metadata, and the data card."""

from __future__ import annotations

from pathlib import Path

from .. import benchmarks
from ..artifacts import atomic_write_text, write_table
from ..benchmarks.base import Benchmark
from ..config import choice
from ..errors import ConfigError
from ..hashing import sha256_path
from . import hub, url
from .subset import resolve_path


def benchmark_of(cfg: dict, file: str | Path) -> Benchmark:
    """dataset.format when set (a registered benchmark's name), else the one registered
    benchmark that recognises the file by its shape."""
    fmt = cfg["format"]
    if fmt is None:
        return benchmarks.recognise(file)
    return benchmarks.get(fmt)


def _from_hub(kind: str, cfg: dict, raw_dir: Path) -> dict:
    # a dataset of several files (a list): each fetched the same way, into its folder
    got = (hub.fetch_files if isinstance(cfg["filename"], list) else hub.fetch)(cfg, raw_dir)
    return {
        "kind": kind,
        "file": got.path,
        "shown": str(got.path),
        "sha256": got.sha256,
        "verified_by": {
            "config": "dataset.sha256",
            "hub": "the hub's ETag (LFS sha256)",
            "pin": "the pin recorded at first download",
            "first-download": "nothing yet (first download; now pinned)",
        }[got.verified_by],
        "repo_id": cfg["repo_id"],
        "filename": cfg["filename"],
        "revision": got.revision,
        "commit": got.commit,
    }


def _from_url(kind: str, cfg: dict, raw_dir: Path) -> dict:
    got = url.fetch(cfg, raw_dir)
    return {
        "kind": kind,
        "file": got.path,
        "shown": str(got.path),
        "sha256": got.sha256,
        "verified_by": "dataset.sha256",
        "url": got.url,
    }


def _from_path(kind: str, cfg: dict, raw_dir: Path) -> dict:
    path = cfg["path"]
    if not isinstance(path, str) or not path or path == "???":
        raise ConfigError(
            "dataset.path",
            path,
            hint=f"dataset source '{kind}' needs a file: dataset.path=FILE (.json or .json.gz)",
        )
    file = resolve_path(path)
    want = cfg["sha256"]
    sha = sha256_path(file) if file.exists() else None  # a folder: the digest of its files
    if want and sha and sha != want.lower():
        raise ConfigError("dataset.sha256", want, hint=f"{file} has sha256 {sha}")
    # The card shows the path as configured: the resolved one differs in queued experiments.
    return {
        "kind": kind,
        "file": file,
        "shown": path,
        "sha256": sha,
        "verified_by": "dataset.sha256" if want else "not checked (no dataset.sha256)",
    }


def _from_release(kind: str, cfg: dict, raw_dir: Path) -> dict:
    """The benchmark's own pinned release (dataset.format names it): Benchmark.fetch."""
    return benchmarks.get(cfg["format"]).fetch(cfg, raw_dir)


# dataset.source -> where the file comes from: {'kind', 'file', 'sha256', 'verified_by', ...}
SOURCES = {
    "bundled": _from_path,
    "local": _from_path,
    "hub": _from_hub,
    "url": _from_url,
    "release": _from_release,
}


def resolve_source(cfg: dict, raw_dir: str | Path = hub.RAW_DIR) -> dict:
    """Where the data comes from: {'kind', 'file', 'sha256', 'verified_by', hub fields...}."""
    kind = choice(cfg, "source", SOURCES, group="dataset")
    return SOURCES[kind](kind, cfg, Path(raw_dir))


def recorded_params(dataset_cfg: dict) -> dict:
    """The dataset params the download tables record: all but `errata`, which is applied after
    judging (the errata stage), so naming an overlay leaves the tables byte-identical."""
    return {k: v for k, v in dataset_cfg.items() if k != "errata"}


def run_download(
    cfg: dict,
    *,
    questions: str | Path,
    sessions: str | Path,
    turns: str | Path,
    card_path: str | Path,
    raw_dir: str | Path = hub.RAW_DIR,
) -> dict:
    # data/raw/ always exists, also for bundled/local data: dvc.yaml may track it as a
    # (persisted) output of this stage, and DVC requires declared outputs to exist.
    Path(raw_dir).mkdir(parents=True, exist_ok=True)
    src = resolve_source(cfg, raw_dir)
    file = Path(src["file"])
    bench = benchmark_of(cfg, file)
    if cfg["parts"] is not None and bench.parts is None:
        raise ConfigError(
            "dataset.parts",
            cfg["parts"],
            hint=f"{bench.title} data has no parts to pick: leave it null",
        )
    meta = {
        "source_sha256": src["sha256"],
        "source_commit": src.get("commit"),
        "release": cfg["release"],
        benchmarks.META_KEY: bench.name,
    }
    kw = dict(
        stage="download",
        params=recorded_params(cfg),
        input_files=bench.input_files(file),
        extra_meta=meta,
    )
    prepared = bench.prepare(cfg, src, file, turns_out=Path(turns), write_kw=kw)
    write_table(prepared.questions, questions, table="questions", **kw)
    write_table(prepared.sessions, sessions, table="sessions", **kw)
    atomic_write_text(card_path, prepared.card)
    summ, n_in_file = prepared.summary, prepared.n_in_file

    print(
        f"download: {cfg['name']}: {summ['n_questions']:,} questions "
        f"({summ['n_abstention']:,} abstention) of {n_in_file:,} in {file}"
    )
    print(
        f"download: sessions {summ['sessions_total']:,} in haystacks, "
        f"{summ['sessions_unique']:,} unique; turns {summ['turns_total']:,} in haystacks, "
        f"{summ['turns_unique']:,} unique"
    )
    return summ
