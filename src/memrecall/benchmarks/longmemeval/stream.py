"""The download stage's normaliser for files of any size (LongMemEval-M: 2.7 GB): the same
questions / sessions / turns tables as longmemeval.normalise, byte for byte, without holding
the file in memory.

Two streaming passes over the JSON (ijson, one question at a time; .gz decompressed on the fly):
1. validate every question (longmemeval.validate_record) and keep only what choosing the subset
   needs (ids, types) and each question's session ids;
2. normalise the chosen questions: a session is stored the first time it arrives (its turns go
   to one of K spill files on disk, by its rank in session-id order), later copies are checked
   against its content hash and merged (has_answer, dates) in memory.
Then each spill file in turn (≈ SPILL_BYTES of text) is sorted and appended to turns.parquet
(artifacts.write_table_parts, which cuts row groups where pq.write_table does). Memory: the
questions, one session-id index and per-session flags, one spill file and one row group.
Time: two parses and one spill write/read, each linear in the file size.

Ties keep the in-memory normaliser's order: a session's date is its earliest haystack date, and
among equal times that of the question with the smallest id (normalise walks questions sorted).
"""

from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import polars as pl
import pyarrow as pa
import pyarrow.ipc as ipc

from ...data.jsonfile import iter_records
from ...schema import polars_schema
from .categories import is_abstention_id
from .data import HaystackMerger, summarise, validated

SPILL_BYTES = 256e6  # text per spill file (memory while it is sorted)
FLUSH_ROWS = 20_000  # turns buffered before a write to a spill file


@dataclass
class Scan:
    """Pass 1: every question validated; what subsets and pass 2 need."""

    light: list = field(default_factory=list)  # {question_id, question_type, is_abstention}
    sessions_of: dict = field(default_factory=dict)  # question_id -> haystack session ids
    json_bytes: int = 0


def scan(path: str | Path) -> Scan:
    out = Scan()
    sizes: dict = {}
    for rec in validated(iter_records(path, sizes), str(path)):
        qid = rec["question_id"]
        out.light.append(
            {
                "question_id": qid,
                "question_type": rec["question_type"],
                "is_abstention": is_abstention_id(qid),
            }
        )
        out.sessions_of[qid] = rec["haystack_session_ids"]
    out.json_bytes = sizes.get("json_bytes", 0)
    return out


class _Spill:
    """K Arrow IPC files; a session's turns go to the file of its rank range."""

    def __init__(self, folder: Path, k: int, n_sessions: int):
        self.k, self.n = k, max(1, n_sessions)
        self.paths = [folder / f"spill-{i:04d}.arrow" for i in range(k)]
        self.writers: list = [None] * k
        self.buf = [{"rank": [], "turn_index": [], "role": [], "content": []} for _ in range(k)]
        self.schema = pa.schema(
            [
                ("rank", pa.int32()),
                ("turn_index", pa.int32()),
                ("role", pa.string()),
                ("content", pa.string()),
            ]
        )

    def bucket(self, rank: int) -> int:
        return rank * self.k // self.n

    def add(self, rank: int, turns: list[dict]) -> None:
        b = self.bucket(rank)
        buf = self.buf[b]
        for j, t in enumerate(turns):
            buf["rank"].append(rank)
            buf["turn_index"].append(j)
            buf["role"].append(t["role"])
            buf["content"].append(t["content"])
        if len(buf["rank"]) >= FLUSH_ROWS:
            self.flush(b)

    def flush(self, b: int) -> None:
        buf = self.buf[b]
        if not buf["rank"]:
            return
        if self.writers[b] is None:
            self.writers[b] = ipc.new_stream(str(self.paths[b]), self.schema)
        # from_pydict: pa.record_batch(dict) would import pandas to ask if it is a DataFrame
        self.writers[b].write_batch(pa.RecordBatch.from_pydict(buf, schema=self.schema))
        self.buf[b] = {k: [] for k in buf}

    def close(self) -> None:
        for b in range(self.k):
            self.flush(b)
            if self.writers[b] is not None:
                self.writers[b].close()

    def read(self, b: int) -> pa.Table:
        if not self.paths[b].exists():
            return self.schema.empty_table()
        with pa.OSFile(str(self.paths[b])) as src:
            tbl = ipc.open_stream(src).read_all()
        return tbl.sort_by([("rank", "ascending"), ("turn_index", "ascending")])


@dataclass
class Streamed:
    """The streaming normaliser's result: small tables in memory, turns already on disk."""

    questions: pl.DataFrame
    sessions: pl.DataFrame
    stats: dict
    marked: pl.DataFrame  # the user turns marked has_answer (all the data card needs of turns)

    def summary(self) -> dict:
        return summarise(self.questions, self.marked, self.stats)


def normalise_file(
    path: str | Path,
    keep: set[str] | None,
    sc: Scan,
    *,
    turns_out: str | Path,
    write_kw: dict,
    tmp_dir: str | None = None,
) -> Streamed:
    """Pass 2 (see module docstring): normalise the questions in `keep` (None: all), write
    turns.parquet to `turns_out` (artifacts.write_table_parts with `write_kw`), return the
    questions and sessions tables and the stats normalise() gives."""
    from ...artifacts import write_table_parts

    kept = [q["question_id"] for q in sc.light if keep is None or q["question_id"] in keep]
    sids = sorted({s for q in kept for s in sc.sessions_of[q]})
    rank = {s: i for i, s in enumerate(sids)}
    k = max(1, math.ceil(sc.json_bytes * (len(kept) / max(1, len(sc.light))) / SPILL_BYTES))
    q_rows: dict[str, dict] = {}
    keep_set = set(kept)
    with tempfile.TemporaryDirectory(prefix="memrecall-stream-", dir=tmp_dir) as tmp:
        spill = _Spill(Path(tmp), k, len(sids))
        merger = HaystackMerger(str(path), lambda sid, turns: spill.add(rank[sid], turns))
        for rec in iter_records(path):
            if rec["question_id"] in keep_set:
                q_rows[rec["question_id"]] = merger.add(rec)
        spill.close()
        sessions = merger.sessions

        def parts():
            for b in range(spill.k):
                tbl = spill.read(b)
                spill.paths[b].unlink(missing_ok=True)
                if not tbl.num_rows:
                    continue
                ranks = tbl.column("rank").to_numpy()
                flags = []
                for r, n in _runs(ranks):
                    flags.extend(sessions[sids[r]].has_answer)
                sid_col = pa.array([sids[r] for r in ranks.tolist()], pa.string())
                yield pa.table(
                    {
                        "session_id": sid_col,
                        "turn_index": tbl.column("turn_index"),
                        "role": tbl.column("role"),
                        "content": tbl.column("content"),
                        "has_answer": pa.array(flags, pa.bool_()),
                    }
                )
                del tbl

        write_table_parts(parts(), turns_out, table="turns", **write_kw)

    stats = merger.stats()
    questions = pl.DataFrame([q_rows[q] for q in sorted(q_rows)], schema=polars_schema("questions"))
    sessions_df = merger.sessions_table(sids)
    marked = [
        (s, i)
        for s in sids
        for i, (f, r) in enumerate(zip(sessions[s].has_answer, sessions[s].roles))
        if f and r == "user"
    ]
    marked_df = pl.DataFrame(
        {
            "session_id": [m[0] for m in marked],
            "turn_index": [m[1] for m in marked],
            "role": ["user"] * len(marked),
            "has_answer": [True] * len(marked),
        },
        schema={
            "session_id": pl.String,
            "turn_index": pl.Int32,
            "role": pl.String,
            "has_answer": pl.Boolean,
        },
    )
    return Streamed(questions, sessions_df, stats, marked_df)


def _runs(values) -> Iterator[tuple[int, int]]:
    """(value, run length) of consecutive equal values."""
    start = 0
    vals = values.tolist() if hasattr(values, "tolist") else list(values)
    for i in range(1, len(vals) + 1):
        if i == len(vals) or vals[i] != vals[start]:
            yield vals[start], i - start
            start = i
