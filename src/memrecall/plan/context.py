"""What a stage's planner is given: the planned params, the project's artifacts (and whether
each is this config's, from what DVC would run), the LLM cache, and the stages planned so far.

A planner is `plan_<stage>(ctx, sp)`: it fills the StagePlan `sp` of a stage that would run
(llm, texts, notes, not_counted, output) and reads upstream stages' plans from `ctx.stages`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from ..artifacts import read_table
from .status import RunStatus
from .work import StagePlan


@dataclass
class PlanContext:
    root: Path
    params: dict
    status: RunStatus
    cache: object = None  # an llm.CallCache (None: the project's)
    stages: dict[str, StagePlan] = field(default_factory=dict)  # planned so far, upstream first

    def group(self, name: str) -> dict:
        return self.params.get(name) or {}

    def path(self, rel: str) -> Path:
        return self.root / rel

    def exists(self, *rels: str) -> bool:
        return all(self.path(r).exists() for r in rels)

    def current(self, *rels: str) -> bool:
        """These artifacts exist and are this config's: no stage that would run writes them."""
        return self.exists(*rels) and not any(self.status.rewrites(r) for r in rels)

    def table(self, rel: str, table: str | None = None) -> pl.DataFrame:
        return read_table(self.path(rel), table)

    def question_count(self) -> tuple[int | None, str]:
        """(questions the dataset config selects, how we know) before the download stage has
        run: a bundled or local file is scanned (stream.scan: one parse, nothing kept); a hub
        file is counted only if it is already downloaded."""
        from ..data.stream import scan
        from ..data.subset import resolve_path, select

        cfg = self.group("dataset")
        path = cfg.get("path")
        if cfg.get("source") == "hub":
            from ..data import hub

            cand = self.root / hub.RAW_DIR / str(cfg.get("repo_id")) / str(cfg.get("filename"))
            path = str(cand) if cand.exists() else None
        if not path or path == "???" or not resolve_path(path).exists():
            return None, "dataset file not available before the download stage"
        sc = scan(resolve_path(path))
        chosen, _ = select(sc.light, cfg, str(path))
        return len(chosen), f"{len(chosen)} questions selected from {path} (scanned)"
