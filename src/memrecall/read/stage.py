"""The read stage: one answer per question, by reader kind (READERS), each checked once at
the stage's start: llm (reader.py: our client and the benchmark's prompts), file (imported.py:
answers imported from an official hypothesis file), plugin (plugin.py: a callable that answers),
router (router.py: question types routed to other reader options)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..config import choice
from ..errors import ConfigError

READER_KINDS = ("llm", "file", "plugin", "router")  # conf/base/reader.yaml's `kind`


def reader_kind(cfg: dict) -> str:
    """The reader group's `kind`, checked once at the stage's start: llm (our client and the
    benchmark's prompts), file (answers imported from `path`), plugin (a `callable` that
    answers); an unknown kind lists the valid ones, and only a plug-in takes a callable."""
    kind = choice(cfg, "kind", READER_KINDS, group="reader")
    if kind == "plugin" and cfg["callable"] is None:
        raise ConfigError(
            "reader.callable",
            None,
            hint="reader.kind plugin needs a callable 'package.module:name' (docs: plug-ins)",
        )
    if kind != "plugin" and cfg["callable"] is not None:
        raise ConfigError(
            "reader.callable",
            cfg["callable"],
            hint=f"a callable makes a plug-in reader: set reader.kind=plugin (or "
            f"use reader=plugin), not {kind}",
        )
    return kind


def run_read(
    reader_cfg: dict,
    *,
    questions: str | Path,
    sessions: str | Path,
    turns: str | Path,
    candidates: str | Path,
    out: str | Path,
    prompts_out: str | Path | None = None,
) -> pl.DataFrame:
    """The read stage, by reader kind (READERS)."""
    run = READERS[reader_kind(reader_cfg)]
    return run(
        reader_cfg,
        questions=questions,
        sessions=sessions,
        turns=turns,
        candidates=candidates,
        out=out,
        prompts_out=prompts_out,
    )


def _read_plugin(reader_cfg, **kw) -> pl.DataFrame:
    from .plugin import run_plugin_read

    return run_plugin_read(reader_cfg, **kw)


def _read_llm(reader_cfg, **kw) -> pl.DataFrame:
    from .reader import run_llm_read

    return run_llm_read(reader_cfg, **kw)


def _read_router(reader_cfg, **kw) -> pl.DataFrame:
    from .router import run_router_read  # question types routed to reader options

    return run_router_read(reader_cfg, **kw)


def _read_file(reader_cfg, *, questions, out, prompts_out, **_) -> pl.DataFrame:
    from .imported import run_read_file

    return run_read_file(reader_cfg, questions=questions, out=out, prompts_out=prompts_out)


# reader.kind -> how the stage runs it (each validates the rest of its config at its start)
READERS = {"llm": _read_llm, "file": _read_file, "plugin": _read_plugin, "router": _read_router}
