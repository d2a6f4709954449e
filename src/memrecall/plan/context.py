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

    def dataset_file(self) -> Path | None:
        """The file the download stage would read, when it is already at hand (a bundled or
        local file, or a hub file already downloaded)."""
        from ..data.subset import resolve_path

        cfg = self.group("dataset")
        path = cfg.get("path")
        if cfg.get("source") == "hub":
            from ..data import hub

            cand = self.root / hub.RAW_DIR / str(cfg.get("repo_id")) / str(cfg.get("filename"))
            path = str(cand) if cand.exists() else None
        if not path or path == "???" or not resolve_path(path).exists():
            return None
        return resolve_path(path)

    def benchmark(self):
        """The benchmark this config runs: the download stage's record when its tables are this
        config's, else dataset.format or the file's recognised format (None: not known yet)."""
        from .. import benchmarks, paths

        if self.current(paths.QUESTIONS):
            return benchmarks.of_artifact(self.path(paths.QUESTIONS))
        cfg = self.group("dataset")
        if cfg.get("format"):
            return benchmarks.get(cfg["format"])
        file = self.dataset_file()
        return benchmarks.recognise(file) if file is not None else None

    def question_count(self) -> tuple[int | None, str]:
        """(questions the dataset config selects, how we know) before the download stage has
        run: a bundled or local file is scanned (its benchmark's question_records: one parse);
        a hub file is counted only if it is already downloaded."""
        from ..data.subset import select

        cfg = self.group("dataset")
        file = self.dataset_file()
        bench = self.benchmark()
        if file is None or bench is None:
            return None, "dataset file not available before the download stage"
        chosen, _ = select(bench.question_records(file), cfg, str(file), types=bench.categories)
        shown = cfg.get("path") or file
        return len(chosen), f"{len(chosen)} questions selected from {shown} (scanned)"
