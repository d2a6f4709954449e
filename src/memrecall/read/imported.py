"""reader=file: answers from a hypothesis file in the official format (memrecall.interchange),
so any memory system's outputs go through judge, aggregate, paper tables and MLflow.

- every id in the file must be a question of the dataset (after its subset options), once;
- every hypothesis must be a string (an empty string is an answer, and a refusal);
- a dataset question the file does not answer is *missing*: its row has no hypothesis and
  `error` "missing: ...", so it is not judged and is left out of every accuracy (counted with
  the reader errors), never scored as wrong.
The file's content hash is in the answers' metadata (and the file is a DVC dep of the read stage).
"""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl

from ..artifacts import atomic_write_text, read_table, write_table
from ..data.subset import resolve_path
from ..errors import InputError, MemrecallError
from ..hashing import sha256_file, sha256_text
from ..interchange import MISSING, read_hypotheses
from ..schema import polars_schema

# The answers table without the reader's raw reply and context (an imported file has neither;
# without context_session_ids the error matrix says the context is unknown).
_SCHEMA = {
    k: v for k, v in polars_schema("answers").items() if k not in ("raw", "context_session_ids")
}


def hypotheses_path(reader_cfg: dict) -> Path:
    path = reader_cfg["path"]
    if not path:
        raise MemrecallError(
            "reader=file needs reader.path: a hypothesis file, JSON lines or a "
            "JSON list of {question_id, hypothesis} (the official format)"
        )
    return resolve_path(str(path))


def answers_from_file(questions: pl.DataFrame, reader_cfg: dict) -> pl.DataFrame:
    from ..llm.refusal import is_refusal

    path = hypotheses_path(reader_cfg)
    entries = read_hypotheses(path)
    known = set(questions["question_id"].to_list())
    for e in entries:
        if e["question_id"] not in known:
            raise InputError(
                f"question_id not in the dataset ({len(known)} questions after its subset options)",
                file=str(path),
                line=e["line"],
                question_id=e["question_id"],
                field="question_id",
            )
    by_id = {e["question_id"]: e["hypothesis"] for e in entries}
    model = str(reader_cfg["model"] or f"file:{path.name}")
    rows = []
    for qid in sorted(known):
        hyp = by_id.get(qid)
        rows.append(
            {
                "question_id": qid,
                "hypothesis": hyp,
                "model": model,
                "prompt_id": "file",
                "request_hash": None if hyp is None else sha256_text(hyp),
                "input_tokens": 0,
                "output_tokens": 0,
                "reasoning_tokens": 0,
                "cost_usd": 0.0,
                "latency_s": 0.0,
                "refused": hyp is not None and bool(is_refusal(hyp)),
                "error": f"{MISSING} {path.name}" if hyp is None else None,
            }
        )
    return pl.DataFrame(rows, schema=_SCHEMA)


def run_read_file(
    reader_cfg: dict,
    *,
    questions: str | Path,
    out: str | Path,
    prompts_out: str | Path | None = None,
) -> pl.DataFrame:
    path = hypotheses_path(reader_cfg)
    df = answers_from_file(read_table(questions, "questions"), reader_cfg)
    write_table(
        df,
        out,
        table="answers",
        stage="read",
        params=reader_cfg,
        input_files=[questions, path],
        extra_meta={"hypotheses_sha256": sha256_file(path)},
    )
    if prompts_out is not None:  # the read stage's record of its prompts: none were sent
        atomic_write_text(prompts_out, "{}\n")
    missing = int(df["error"].is_not_null().sum())
    print(
        f"read (file {path}): {df.height - missing} answers imported, {missing} questions "
        "missing (not judged, not counted as wrong)",
        file=sys.stderr,
    )
    return df
