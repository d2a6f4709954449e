"""Content-hashed Parquet artifacts, written atomically and byte-reproducibly, and the one
atomic-write helper every other output (reports, figures, the bundled sample, converted models,
params.yaml) goes through.

Each Parquet file carries key-value metadata: the stage that wrote it, the sha256 of its inputs
(input files' content + the params it depends on) and those params. Same inputs and same rows
give a byte-identical file, so DVC skips everything downstream.

Atomic writes: the content goes to a private temporary name in the target's folder, which is
then renamed over the target, so a crash never leaves a half-written file in place of a good
one. The published file gets the mode a plain open() would give (0666 minus the umask), not
mkstemp's 0600.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from .config import identity
from .errors import MemrecallError
from .hashing import canonical_json, sha256_json, sha256_path
from .schema import TABLES

META_PREFIX = "memrecall."


def inputs_hash(params, input_files=()) -> str:
    """sha256 over the params a stage depends on and the content of its input files."""
    params = identity(params)  # runtime knobs never count, whoever forgot to strip them
    files = {str(Path(p).name): sha256_path(p) for p in input_files}
    return sha256_json({"params": params, "files": files})


def _to_arrow(df: pl.DataFrame | pa.Table, table: str | None) -> pa.Table:
    tbl = df.to_arrow() if isinstance(df, pl.DataFrame) else df
    if table is None:
        return tbl
    schema = TABLES[table]
    missing = [f.name for f in schema if f.name not in tbl.column_names]
    if missing:
        raise MemrecallError(f"internal: table '{table}' lacks contract columns {missing}")
    # Contract columns first, in contract order and types; extra columns follow unchanged.
    cols = [tbl.column(f.name).cast(f.type) for f in schema]
    extra = [c for c in tbl.column_names if c not in schema.names]
    return pa.Table.from_arrays(
        cols + [tbl.column(c) for c in extra],
        schema=pa.schema(list(schema) + [tbl.schema.field(c) for c in extra]),
    )


def write_table(
    df: pl.DataFrame | pa.Table,
    path: str | Path,
    *,
    table: str | None = None,
    stage: str,
    params=None,
    input_files=(),
    extra_meta: dict | None = None,
) -> Path:
    """Write `df` to `path` atomically (temp file in the same folder, then rename).

    `table` names a contract schema from schema.py (checked and cast); rows are written in the
    order given, so callers sort them deterministically.
    """
    path = Path(path)
    tbl = _to_arrow(df, table)
    # Replace (not merge) schema metadata: pandas/polars metadata could embed run-dependent bits.
    tbl = tbl.replace_schema_metadata(_meta(stage, params, input_files, extra_meta))
    with atomic_path(path) as tmp:
        pq.write_table(tbl, str(tmp), **_PARQUET_OPTIONS)
    return path


_PARQUET_OPTIONS = dict(compression="zstd", write_statistics=True, store_schema=True)
# pq.write_table's default row-group length: write_table_parts cuts row groups at the same rows,
# so both writers give the same bytes for the same rows.
ROW_GROUP_ROWS = 1024 * 1024


def _meta(stage, params, input_files, extra_meta) -> dict[bytes, bytes]:
    params = identity(params)
    meta = {
        META_PREFIX + "stage": stage,
        META_PREFIX + "inputs_sha256": inputs_hash(params, input_files),
        META_PREFIX + "params": canonical_json(params),
    }
    for k, v in (extra_meta or {}).items():
        meta[META_PREFIX + k] = v if isinstance(v, str) else canonical_json(v)
    return {k.encode(): v.encode() for k, v in meta.items()}


def write_table_parts(
    parts,
    path: str | Path,
    *,
    table: str,
    stage: str,
    params=None,
    input_files=(),
    extra_meta: dict | None = None,
    extra_columns: pa.Schema | None = None,
) -> Path:
    """write_table for a table that arrives in pieces (an iterable of pa.Table, in row order)
    and need not fit in memory at once: the same file, byte for byte, as write_table of all
    the pieces concatenated. At most one row group (ROW_GROUP_ROWS rows) is held.
    `extra_columns`: the columns every piece carries after the contract ones (a benchmark's)."""
    path = Path(path)
    columns = pa.schema(list(TABLES[table]) + list(extra_columns or []))
    schema = columns.with_metadata(_meta(stage, params, input_files, extra_meta))
    with atomic_path(path) as tmp, pq.ParquetWriter(str(tmp), schema, **_PARQUET_OPTIONS) as writer:
        pending: list[pa.Table] = []
        n, wrote = 0, False
        for part in parts:
            part = _to_arrow(part, table).replace_schema_metadata(schema.metadata)
            pending.append(part)
            n += part.num_rows
            while n >= ROW_GROUP_ROWS:
                joined = pa.concat_tables(pending)
                writer.write_table(joined.slice(0, ROW_GROUP_ROWS).combine_chunks())
                wrote = True
                rest = joined.slice(ROW_GROUP_ROWS)
                pending, n = ([rest] if rest.num_rows else []), rest.num_rows
        if n or not wrote:
            writer.write_table(
                pa.concat_tables(pending).combine_chunks() if pending else schema.empty_table()
            )
    return path


def read_table(
    path: str | Path, table: str | None = None, columns: list[str] | None = None
) -> pl.DataFrame:
    """The artifact as a DataFrame (only `columns`, when given: a big table's other columns
    are never read)."""
    path = Path(path)
    if not path.exists():
        raise MemrecallError(f"missing artifact {path}: run the upstream stage first (dvc repro)")
    if columns is not None:
        have = set(pq.read_schema(path).names)
        columns = [c for c in columns if c in have]  # missing ones: the caller's check names them
    # ParquetFile, not pq.read_table: the latter goes through pyarrow.dataset, whose import pulls
    # in pandas (0.3 s of every stage process that reads an artifact)
    df = pl.from_arrow(pq.ParquetFile(path).read(columns=columns))
    if table is not None and columns is None:
        missing = [n for n in TABLES[table].names if n not in df.columns]
        if missing:
            raise MemrecallError(f"artifact {path} lacks columns {missing} of table '{table}'")
    return df


def read_vectors(path: str | Path, column: str = "vector", batch_rows: int = 65_536) -> np.ndarray:
    """A list<float32> column as one (rows, dim) float32 matrix, decoded batch by batch. Reading
    it whole (read_table) holds the Parquet list decoding of a million-row group at once: at
    LongMemEval-M's size with sentence units (1.1M vectors, 1.7 GB) that peaked at 6.5 GB, and
    batches peak at ~3.7 GB (bench/retrieve_m.py)."""
    path = Path(path)
    if not path.exists():
        raise MemrecallError(f"missing artifact {path}: run the upstream stage first (dvc repro)")
    pf = pq.ParquetFile(path)
    out, at = None, 0
    for batch in pf.iter_batches(batch_size=batch_rows, columns=[column]):
        part = list_matrix(batch.column(0))
        if out is None:
            out = np.empty((pf.metadata.num_rows, part.shape[1]), dtype=np.float32)
        out[at : at + len(part)] = part
        at += len(part)
    return out if out is not None else np.zeros((0, 0), np.float32)


def list_matrix(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A list<float> Arrow column (equal-length rows) → (rows, dim) float32."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    values = arr.flatten()
    if values.type == pa.float32() and not values.null_count:
        # the values buffer as it is: to_numpy would import pandas (0.3 s of a stage's start-up)
        flat = np.frombuffer(values.buffers()[1], np.float32)[values.offset :][: len(values)]
    else:
        flat = values.to_numpy(zero_copy_only=False).astype(np.float32, copy=False)
    return flat.reshape(len(arr), -1) if len(arr) else np.zeros((0, 0), np.float32)


def read_meta(path: str | Path) -> dict:
    raw = pq.read_schema(path).metadata or {}
    out = {}
    for k, v in raw.items():
        key = k.decode()
        if key.startswith(META_PREFIX):
            val = v.decode()
            try:
                out[key[len(META_PREFIX) :]] = json.loads(val)
            except json.JSONDecodeError:
                out[key[len(META_PREFIX) :]] = val
    return out


# ---- atomic writes ----------------------------------------------------------------------------


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A fresh temporary file next to `path` for the caller to write; on success it gets the
    umask-based mode and replaces `path`, on any failure it is removed and `path` is untouched."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600 files
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def atomic_write_text(path: str | Path, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


@contextmanager
def atomic_dir(path: str | Path, complete: Callable[[Path], bool]) -> Iterator[Path]:
    """A fresh temporary folder next to `path` to fill; on success it replaces `path`. Safe
    against concurrent writers: when `path` is already there and `complete` (another process
    finished first), that one is kept and ours is dropped; an incomplete leftover is replaced."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        yield tmp
        os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes 0700 folders
        try:
            os.replace(tmp, path)
        except OSError:  # `path` exists and is not empty
            if not complete(path):
                shutil.rmtree(path, ignore_errors=True)
                os.replace(tmp, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
