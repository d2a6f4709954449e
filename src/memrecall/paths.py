"""Where things live: the stage artifacts and reports (relative to the project root; dvc.yaml
names the same paths, tests/test_layout.py checks that the two agree), the project root, and the
caches. Caches sit at $DVC_ROOT so that queued DVC experiments (run in temp clones under
.dvc/tmp/exps/) share them with the main workspace."""

from __future__ import annotations

import os
from pathlib import Path

SOURCES = "artifacts/sources.json"
ERRATA = "artifacts/errata.json"  # the sources stage: the overlay dataset.errata names
QUESTIONS = "artifacts/questions.parquet"
SESSIONS = "artifacts/sessions.parquet"
TURNS = "artifacts/turns.parquet"
EMBEDDINGS = "artifacts/embeddings.parquet"
CANDIDATES_RETRIEVE = "artifacts/candidates_retrieve.parquet"
CANDIDATES_RERANK = "artifacts/candidates_rerank.parquet"
CANDIDATES_REWRITE = "artifacts/candidates_rewrite.parquet"
REWRITES = "artifacts/rewrites.parquet"
ANSWERS = "artifacts/answers.parquet"
VERDICTS = "artifacts/verdicts.parquet"
VERDICTS_ERRATA = "artifacts/verdicts_errata.parquet"  # judged again against corrected gold
PROMPTS = "reports/prompts.json"  # the read stage: the prompts it rendered
DATA_CARD = "reports/data_card.md"
REPORTS = "reports"  # the aggregate stage writes its reports under here


def _is_project(p: Path) -> bool:
    return (p / "dvc.yaml").exists() or (p / ".dvc").is_dir()


def project_root(start: Path | None = None) -> Path:
    """$DVC_ROOT when DVC runs us (also inside queued experiments), else the nearest folder
    above `start` (or the cwd) that holds dvc.yaml, else the checkout this code runs from (a
    bench or script started in another folder still finds the project's caches), else the
    cwd."""
    env = os.environ.get("DVC_ROOT")
    if env:
        return Path(env).resolve()
    here = (start or Path.cwd()).resolve()
    for p in (here, *here.parents):
        if _is_project(p):
            return p
    checkout = Path(__file__).resolve().parents[2]  # <checkout>/src/memrecall/paths.py
    return checkout if _is_project(checkout) else here


def cache_dir(*parts: str) -> Path:
    """A folder under the shared cache root, created on demand.
    MEMRECALL_CACHE_DIR overrides the root (tests point it at a temp folder)."""
    root = os.environ.get("MEMRECALL_CACHE_DIR")
    base = Path(root) if root else project_root() / ".memrecall" / "cache"
    path = base.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path
