"""The official judges' code, read from the user's own checkout at run time (each benchmark's
official.py says which file and what it takes from it; nothing of it is copied here)."""

from __future__ import annotations

from pathlib import Path

from ..data.subset import resolve_path
from ..errors import MemrecallError


def official_file(path, where: str) -> Path:
    """The file `judge.official_script` names in the user's checkout of the official code,
    resolved. Unset or missing is an error that ends with `where`: how to get the file."""
    if path is None or str(path).strip() in ("", "None", "null"):
        raise MemrecallError(f"judge=official needs judge.official_script. {where}")
    p = resolve_path(str(path))
    if not p.is_file():
        raise MemrecallError(f"judge.official_script: {p} not found. {where}")
    return p
