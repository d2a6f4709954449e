"""The embed stage: every session's key texts (keys.py) -> vectors (embedders.CachedEncoder) ->
artifacts/embeddings.parquet, and the conversion of that table's vector column to and from a
float32 matrix, which retrieve and rewrite read back."""

from __future__ import annotations

import sys

import numpy as np
import polars as pl
import pyarrow as pa

from .. import benchmarks
from ..artifacts import list_matrix, read_table, write_table
from ..config import identity
from ..hashing import sha256_text
from .embedders import CachedEncoder, EmbedderSettings, embedder_settings
from .expansion import session_facts
from .keys import session_keys


def vectors_column(vecs: np.ndarray) -> pa.Array:
    """(n, d) float32 → Arrow list<float32> without a Python loop."""
    n, d = vecs.shape if vecs.size else (len(vecs), 0)
    offsets = pa.array(np.arange(n + 1, dtype=np.int32) * d)
    return pa.ListArray.from_arrays(offsets, pa.array(vecs.reshape(-1), type=pa.float32()))


def vectors_matrix(df: pl.DataFrame, column: str = "vector") -> np.ndarray:
    """embeddings.parquet's list<float32> column → (n, d) float32."""
    return list_matrix(df.get_column(column).to_arrow())


def build_embeddings(
    sessions: pl.DataFrame,
    turns: pl.DataFrame,
    embedder: dict | EmbedderSettings,
    encoder: CachedEncoder | None = None,
    *,
    speaker_column: str | None = None,
) -> pl.DataFrame:
    """The embeddings table: unit_id, session_id, key_hash, vector (+ text, for BM25 and
    inspection), sorted by session_id and unit order. `speaker_column`: the benchmark's column
    naming who spoke (keys.session_keys)."""
    settings = embedder_settings(embedder)
    facts = session_facts(sessions, turns, settings)
    keys = session_keys(sessions, turns, settings, facts=facts, speaker_column=speaker_column)
    encoder = encoder or CachedEncoder(settings)
    vecs = encoder.encode(keys.get_column("text").to_list(), desc="embed")
    tbl = pa.table(
        {
            "unit_id": keys.get_column("unit_id").to_arrow(),
            "session_id": keys.get_column("session_id").to_arrow(),
            "key_hash": pa.array(
                [sha256_text(t) for t in keys.get_column("text").to_list()], type=pa.string()
            ),
            "vector": vectors_column(vecs),
            "text": keys.get_column("text").to_arrow(),
        }
    )
    return pl.from_arrow(tbl)


def run_embed(
    embedder_cfg: dict, *, sessions: str, turns: str, out: str, questions: str | None = None
) -> dict:
    """The embeddings artifact. When the model had to be loaded for it, the questions are
    encoded too, into the vector cache only (not the artifact, whose identity is the sessions'):
    dense retrieval then finds its query vectors there and never loads the model itself."""
    settings = embedder_settings(embedder_cfg)  # the whole group, checked before any work
    bench = benchmarks.of_artifact(turns)
    sessions_df = read_table(sessions, table="sessions")
    turns_df = read_table(turns, table="turns")
    encoder = CachedEncoder(settings)
    df = build_embeddings(
        sessions_df, turns_df, settings, encoder, speaker_column=bench.speaker_column
    )
    write_table(
        df, out, stage="embed", params=identity(embedder_cfg), input_files=[sessions, turns]
    )
    s = dict(encoder.stats)
    warmed = ""
    if questions is not None and s["encoded"]:
        # The model is in memory now; loading it again in retrieve costs seconds per run.
        texts = read_table(questions, table="questions").get_column("question").to_list()
        before = encoder.stats["encoded"]
        encoder.encode(texts, desc="queries")
        warmed = f"; {encoder.stats['encoded'] - before} question vectors cached for retrieve"
    print(
        f"embed: {len(df)} units, {df.get_column('key_hash').n_unique()} unique texts, "
        f"{s['encoded']} embedded, {s['cached']} from cache{warmed}",
        file=sys.stderr,
    )
    return s
