"""The download stage's work: find the configured file, validate it, take the subset, normalise
it into questions / sessions / turns Parquet and write the data card."""

from __future__ import annotations

from pathlib import Path

from ..artifacts import atomic_write_text, write_table
from ..config import choice
from ..errors import ConfigError
from ..hashing import sha256_file
from . import card, hub, locomo, url
from .longmemeval import load_records
from .stream import iter_records, normalise_file, scan
from .subset import resolve_path, select

SOURCES = ("bundled", "local", "hub", "url")
FORMATS = ("longmemeval", "locomo")


def detect_format(cfg: dict, file: str) -> str:
    """dataset.format when set, else by shape: LoCoMo items are conversations (conversation +
    qa), LongMemEval items are questions. Only the first item is read (M is 2.7 GB)."""
    fmt = cfg["format"]
    if fmt is None:
        first = next(iter_records(file), None)
        return "locomo" if locomo.is_locomo([first] if first is not None else []) \
            else "longmemeval"
    if fmt not in FORMATS:
        raise ConfigError("dataset.format", fmt, FORMATS)
    return fmt


def resolve_source(cfg: dict, raw_dir: str | Path = hub.RAW_DIR) -> dict:
    """Where the data comes from: {'kind', 'file', 'sha256', 'verified_by', hub fields...}."""
    kind = choice(cfg, "source", SOURCES, group="dataset")
    if kind == "hub":
        got = hub.fetch(cfg, raw_dir)
        return {"kind": kind, "file": got.path, "shown": str(got.path), "sha256": got.sha256,
                "verified_by": {"config": "dataset.sha256", "hub": "the hub's ETag (LFS sha256)",
                                "pin": "the pin recorded at first download",
                                "first-download": "nothing yet (first download; now pinned)"}
                [got.verified_by],
                "repo_id": cfg["repo_id"], "filename": cfg["filename"], "revision": got.revision,
                "commit": got.commit}
    if kind == "url":
        got = url.fetch(cfg, raw_dir)
        return {"kind": kind, "file": got.path, "shown": str(got.path), "sha256": got.sha256,
                "verified_by": "dataset.sha256", "url": got.url}
    path = cfg["path"]
    if not isinstance(path, str) or not path or path == "???":
        raise ConfigError("dataset.path", path,
                          hint=f"dataset source '{kind}' needs a file: dataset.path=FILE "
                               f"(.json or .json.gz)")
    file = resolve_path(path)
    want = cfg["sha256"]
    sha = sha256_file(file) if file.is_file() else None
    if want and sha and sha != want.lower():
        raise ConfigError("dataset.sha256", want, hint=f"{file} has sha256 {sha}")
    # The card shows the path as configured: the resolved one differs in queued experiments.
    return {"kind": kind, "file": file, "shown": path, "sha256": sha,
            "verified_by": "dataset.sha256" if want else "not checked (no dataset.sha256)"}


def run_download(cfg: dict, *, questions: str | Path, sessions: str | Path, turns: str | Path,
                 card_path: str | Path, raw_dir: str | Path = hub.RAW_DIR) -> dict:
    # data/raw/ always exists, also for bundled/local data: dvc.yaml may track it as a
    # (persisted) output of this stage, and DVC requires declared outputs to exist.
    Path(raw_dir).mkdir(parents=True, exist_ok=True)
    src = resolve_source(cfg, raw_dir)
    file = str(src["file"])
    meta = {"source_sha256": src["sha256"], "source_commit": src.get("commit"),
            "release": cfg["release"]}
    kw = dict(stage="download", params=cfg, input_files=[file], extra_meta=meta)
    if detect_format(cfg, file) == "locomo":  # ten conversations: small enough to load whole
        records = load_records(file)
        locomo.validate(records, file)
        flat = locomo.flatten(records)
        n_in_file = len(flat)
        flat, steps = select(flat, cfg, file, types=tuple(locomo.CATEGORIES.values()))
        ds = locomo.normalise(records, flat)
        summ = locomo.summary(ds)
        card_text = locomo.render_card(cfg, src, summ, steps, n_in_file)
        del records
        write_table(ds.turns, turns, table="turns", **kw)
    else:
        # Streamed (stream.py): LongMemEval-M (2.7 GB) never sits in memory whole.
        sc = scan(file)  # every question validated, even those the subset drops
        n_in_file = len(sc.light)
        chosen, steps = select(sc.light, cfg, file)
        ds = normalise_file(file, {r["question_id"] for r in chosen}, sc, turns_out=turns,
                            write_kw=kw)
        summ = ds.summary()
        card_text = card.render(cfg, src, summ, steps, n_in_file)
    write_table(ds.questions, questions, table="questions", **kw)
    write_table(ds.sessions, sessions, table="sessions", **kw)
    atomic_write_text(card_path, card_text)

    print(f"download: {cfg['name']}: {summ['n_questions']:,} questions "
          f"({summ['n_abstention']:,} abstention) of {n_in_file:,} in {file}")
    print(f"download: sessions {summ['sessions_total']:,} in haystacks, "
          f"{summ['sessions_unique']:,} unique; turns {summ['turns_total']:,} in haystacks, "
          f"{summ['turns_unique']:,} unique")
    return summ
