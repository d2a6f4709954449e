"""The LLM call cache: one sqlite file under paths.cache_dir("llm"), shared by every LLM stage.

Keyed by request_hash = sha256 of (model, messages, generation params). Each finished call is
committed on its own as soon as it returns (WAL journal), so a stage killed with kill -9 loses at
most the calls still in flight; a rerun pays only for those. Only successful calls are stored: a
call that failed after all retries is asked again on the next run.

The cache keeps what a call cost when it was first paid (tokens, cost, latency) so a cached
result reproduces the same artifact row byte for byte.

Next to it, calls.jsonl gets one line per real (paid) model call:
{"request_hash", "model", "stage", "ok", "attempts"}; tests count model calls there.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from pathlib import Path

from .. import paths
from ..hashing import sha256_json

DB_NAME = "calls.sqlite"
JOURNAL_NAME = "calls.jsonl"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    request_hash TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    cost_usd REAL NOT NULL,
    latency_s REAL NOT NULL,
    stage TEXT,
    created_unix REAL,
    endpoint_host TEXT,
    response_model TEXT
);
-- The messages of each cached call, so a run can show the prompt it sent (MLflow traces)
-- without re-rendering it with today's code. Kept apart: older caches gain the table as is.
CREATE TABLE IF NOT EXISTS requests (
    request_hash TEXT PRIMARY KEY,
    messages TEXT NOT NULL
);
"""
_COLS = (
    "model",
    "text",
    "input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "cost_usd",
    "latency_s",
    "endpoint_host",
    "response_model",
)
# Where each answer came from (provenance.py); null in rows cached before it was kept.
_PROVENANCE_COLS = ("endpoint_host", "response_model")


def request_hash(model: str, messages: list[dict], params: dict | None = None) -> str:
    """sha256 of what determines an answer: model, messages and generation params."""
    return sha256_json({"model": model, "messages": messages, "params": params or {}})


class CallCache:
    """sqlite store of finished calls. Safe to share between threads and between processes
    (queued DVC experiments): WAL mode plus a busy timeout; one commit per call."""

    def __init__(self, root: str | Path | None = None):
        self.root = Path(root) if root is not None else paths.cache_dir("llm")
        self.root.mkdir(parents=True, exist_ok=True)
        self.db_path = self.root / DB_NAME
        self.journal_path = self.root / JOURNAL_NAME
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(
            self.db_path, timeout=60, check_same_thread=False, isolation_level=None
        )
        # WAL + synchronous=NORMAL: a commit survives a killed process (not a power cut), and
        # costs far less than FULL.
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA busy_timeout=60000")
        self._conn.executescript(_SCHEMA)
        have = {r[1] for r in self._conn.execute("PRAGMA table_info(calls)")}
        for col in _PROVENANCE_COLS:
            if col not in have:  # a cache from before provenance: its rows stay unrecorded
                try:
                    self._conn.execute(f"ALTER TABLE calls ADD COLUMN {col} TEXT")
                except sqlite3.OperationalError as err:  # another process added it first
                    if "duplicate column" not in str(err):
                        raise

    def get_many(self, hashes) -> dict[str, dict]:
        hashes = list(dict.fromkeys(hashes))
        out: dict[str, dict] = {}
        with self._lock:
            for i in range(0, len(hashes), 500):  # stay under sqlite's host-parameter limit
                chunk = hashes[i : i + 500]
                q = (
                    f"SELECT request_hash, {', '.join(_COLS)} FROM calls "
                    f"WHERE request_hash IN ({','.join('?' * len(chunk))})"
                )
                for row in self._conn.execute(q, chunk):
                    out[row[0]] = dict(zip(_COLS, row[1:]))
        return out

    def get(self, h: str) -> dict | None:
        return self.get_many([h]).get(h)

    def put(self, h: str, row: dict, stage: str, messages: list[dict] | None = None) -> None:
        """Persist one finished call now (one transaction). The first answer paid for wins."""
        vals = [row.get(c) if c in _PROVENANCE_COLS else row[c] for c in _COLS]
        with self._lock, self._conn:  # one transaction: rolled back if either insert fails
            self._conn.execute("BEGIN")
            self._conn.execute(
                f"INSERT OR IGNORE INTO calls (request_hash, {', '.join(_COLS)}, stage, "
                f"created_unix) VALUES (?, {', '.join('?' * len(_COLS))}, ?, ?)",
                [h, *vals, stage, time.time()],
            )
            if messages is not None:
                self._conn.execute(
                    "INSERT OR IGNORE INTO requests VALUES (?, ?)",
                    [h, json.dumps(messages, ensure_ascii=False)],
                )

    def records(self, hashes) -> dict[str, dict]:
        """Everything kept about these calls: the cached reply and usage, the stage that paid,
        when (created_unix) and the messages sent (None for calls cached before they were
        kept). For read-only views such as the MLflow traces; pays nothing."""
        hashes = list(dict.fromkeys(h for h in hashes if h))
        cols = (*_COLS, "stage", "created_unix")
        out: dict[str, dict] = {}
        with self._lock:
            for i in range(0, len(hashes), 500):
                chunk = hashes[i : i + 500]
                q = (
                    f"SELECT c.request_hash, {', '.join('c.' + c for c in cols)}, r.messages "
                    f"FROM calls c LEFT JOIN requests r ON r.request_hash = c.request_hash "
                    f"WHERE c.request_hash IN ({','.join('?' * len(chunk))})"
                )
                for row in self._conn.execute(q, chunk):
                    rec = dict(zip(cols, row[1:-1]))
                    rec["messages"] = json.loads(row[-1]) if row[-1] else None
                    out[row[0]] = rec
        return out

    def log_call(self, h: str, model: str, stage: str, ok: bool, attempts: int) -> None:
        """One line per real model call. A single O_APPEND write keeps lines whole even when
        several processes append at once."""
        line = (
            json.dumps(
                {"request_hash": h, "model": model, "stage": stage, "ok": ok, "attempts": attempts},
                sort_keys=True,
            )
            + "\n"
        )
        fd = os.open(self.journal_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)

    def seen(self, model: str, stage: str) -> dict:
        """What finished calls of this model and stage looked like: {calls, output_tokens
        (mean), latency_s (mean), cost_usd (mean)}; calls 0 when none is cached."""
        with self._lock:
            n, out, lat, cost = self._conn.execute(
                "SELECT COUNT(*), AVG(output_tokens), AVG(latency_s), AVG(cost_usd) FROM calls "
                "WHERE model = ? AND stage = ?",
                (model, stage),
            ).fetchone()
        return {"calls": n, "output_tokens": out, "latency_s": lat, "cost_usd": cost}

    def flush(self) -> None:
        """Copy the WAL into the database file now (each call is committed already; this makes
        the file whole for readers that copy it, e.g. before a run is stopped on purpose)."""
        with self._lock:
            self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM calls").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def read_journal(root: str | Path | None = None) -> list[dict]:
    """The calls.jsonl lines (an empty list when nothing was ever paid)."""
    path = (Path(root) if root is not None else paths.cache_dir("llm")) / JOURNAL_NAME
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
