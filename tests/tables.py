"""Writing a test's questions, sessions and turns tables as the download stage does: with the
benchmark's name in their metadata (benchmarks.META_KEY), which every later stage reads back."""

from __future__ import annotations

from memrecall import benchmarks
from memrecall.artifacts import write_table


def write_downloaded(
    df, path, *, table: str, benchmark: str = "longmemeval", stage: str = "download", **kw
):
    """write_table of a download-stage table that records `benchmark` (as the stage does)."""
    meta = {benchmarks.META_KEY: benchmark, **kw.pop("extra_meta", {})}
    return write_table(df, path, table=table, stage=stage, extra_meta=meta, **kw)
