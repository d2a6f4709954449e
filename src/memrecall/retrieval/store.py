"""Content-addressed sqlite caches shared by the encoder (vectors) and the reranker (scores).

One file per model "space" (the dict of everything that determines a value: model id, max
length, ...), keyed by the sha256 of the input text. WAL mode and INSERT OR IGNORE let queued
experiments read and write the same file at once; the first value stored wins.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from .. import paths
from ..hashing import sha256_json

_SQLITE_MAX_PARAMS = 900  # stay under sqlite's bound-parameter limit


class HashStore:
    """hash → value, with `encode`/`decode` between Python values and the sqlite column."""

    def __init__(
        self,
        folder: str,
        space: dict,
        *,
        column_type: str,
        encode: Callable,
        decode: Callable,
        root: Path | None = None,
    ):
        self.space = space
        self.encode, self.decode = encode, decode
        root = root or paths.cache_dir(folder)
        self.path = root / f"{sha256_json(space)[:24]}.sqlite"
        self.con = sqlite3.connect(self.path, timeout=60)
        self.con.execute("PRAGMA journal_mode=WAL")
        self.con.execute("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT)")
        self.con.execute(
            f"CREATE TABLE IF NOT EXISTS kv (h TEXT PRIMARY KEY, v {column_type} NOT NULL)"
        )
        self.con.execute("INSERT OR IGNORE INTO meta VALUES ('space', ?)", (json.dumps(space),))
        self.con.commit()

    def get_many(self, hashes: list[str]) -> dict:
        out = {}
        for i in range(0, len(hashes), _SQLITE_MAX_PARAMS):
            part = hashes[i : i + _SQLITE_MAX_PARAMS]
            q = f"SELECT h, v FROM kv WHERE h IN ({','.join('?' * len(part))})"
            for h, v in self.con.execute(q, part):
                out[h] = self.decode(v)
        return out

    def lookup(self, hashes: list[str]) -> tuple[dict, list[str]]:
        """(values found, unique hashes still to compute, in first-seen order)."""
        uniq = list(dict.fromkeys(hashes))
        found = self.get_many(uniq)
        return found, [h for h in uniq if h not in found]

    def put_many(self, items: Iterable[tuple[str, object]]) -> None:
        with self.con:
            self.con.executemany(
                "INSERT OR IGNORE INTO kv VALUES (?, ?)", [(h, self.encode(v)) for h, v in items]
            )

    def __len__(self) -> int:
        return self.con.execute("SELECT COUNT(*) FROM kv").fetchone()[0]


def vector_store(space: dict, root: Path | None = None) -> HashStore:
    """text sha256 → float32 vector (stored as raw bytes)."""
    return HashStore(
        "embeddings",
        space,
        column_type="BLOB",
        root=root,
        encode=lambda v: np.asarray(v, dtype=np.float32).tobytes(),
        decode=lambda b: np.frombuffer(b, dtype=np.float32),
    )


def score_store(space: dict, root: Path | None = None) -> HashStore:
    """(query, passage) sha256 → reranker score."""
    return HashStore("rerank", space, column_type="REAL", root=root, encode=float, decode=float)
