"""Where things live. Caches sit at $DVC_ROOT so that queued DVC experiments (run in temp clones
under .dvc/tmp/exps/) share them with the main workspace."""

from __future__ import annotations

import os
from pathlib import Path


def project_root(start: Path | None = None) -> Path:
    """$DVC_ROOT when DVC runs us (also inside queued experiments), else the nearest folder
    above `start` (or the cwd) that holds dvc.yaml, else the cwd."""
    env = os.environ.get("DVC_ROOT")
    if env:
        return Path(env).resolve()
    here = (start or Path.cwd()).resolve()
    for p in (here, *here.parents):
        if (p / "dvc.yaml").exists() or (p / ".dvc").is_dir():
            return p
    return here


def cache_dir(*parts: str) -> Path:
    """A folder under the shared cache root, created on demand.
    MEMRECALL_CACHE_DIR overrides the root (tests point it at a temp folder)."""
    root = os.environ.get("MEMRECALL_CACHE_DIR")
    base = Path(root) if root else project_root() / ".memrecall" / "cache"
    path = base.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def models_dir(*parts: str) -> Path:
    """Converted/bundled model folders (large, slow to rebuild): MEMRECALL_MODELS_DIR, else
    the cache root's models/ folder. Kept apart so tests can empty the call caches cheaply."""
    root = os.environ.get("MEMRECALL_MODELS_DIR")
    path = Path(root).joinpath(*parts) if root else cache_dir("models", *parts)
    path.mkdir(parents=True, exist_ok=True)
    return path
