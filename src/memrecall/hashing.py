"""Stable content hashes: of JSON-able values (canonical JSON) and of files."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


def canonical_json(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_json(value) -> str:
    return sha256_text(canonical_json(value))


_FILE_HASHES: dict[tuple, str] = {}


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    # Remembered per (path, size, mtime) within a process: the download stage hashes its input
    # (2.7 GB for LongMemEval-M) for the source check and for each table's metadata.
    st = Path(path).stat()
    key = (str(Path(path).resolve()), st.st_size, st.st_mtime_ns)
    if key in _FILE_HASHES:
        return _FILE_HASHES[key]
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    _FILE_HASHES[key] = h.hexdigest()
    return _FILE_HASHES[key]


def dataset_files(path: str | Path) -> list[Path]:
    """The files a dataset path stands for: itself, or every file under a folder (sorted,
    skipping hidden names such as .git or .cache)."""
    path = Path(path)
    if not path.is_dir():
        return [path]
    return sorted(
        p
        for p in path.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
    )


def sha256_path(path: str | Path) -> str:
    """sha256_file for a file; for a folder (a dataset of several files), the sha256 of its
    files' relative paths and sha256s, so any change to any of them shows."""
    path = Path(path)
    if not path.is_dir():
        return sha256_file(path)
    return sha256_json(
        {p.relative_to(path).as_posix(): sha256_file(p) for p in dataset_files(path)}
    )
