"""The data model, defined once: one pyarrow schema per table of docs/contract.md (the contract
columns, which `artifacts.write_table` checks and casts), the extra columns our stages write
after them, and the rewrite stage's own table. Stages build their frames with
`polars_schema(table)`, so a column and its type are written down in this module only; a
benchmark's own columns are in its folder (Benchmark.extra_columns).
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa

# What a row's model calls cost: answers and verdicts both carry these (llm.client.usage sums
# them over a row's calls).
USAGE_COLUMNS = (
    ("input_tokens", pa.int64()),
    ("output_tokens", pa.int64()),
    ("reasoning_tokens", pa.int64()),
    ("cost_usd", pa.float64()),
    ("latency_s", pa.float64()),
)
USAGE = tuple(name for name, _ in USAGE_COLUMNS)

QUESTIONS = pa.schema(
    [
        ("question_id", pa.string()),
        ("question_type", pa.string()),
        ("is_abstention", pa.bool_()),
        ("question", pa.string()),
        ("answer", pa.string()),
        ("question_date", pa.string()),
        ("haystack_session_ids", pa.list_(pa.string())),
        ("answer_session_ids", pa.list_(pa.string())),
    ]
)

SESSIONS = pa.schema(
    [
        ("session_id", pa.string()),
        ("date", pa.string()),
        ("content_hash", pa.string()),
    ]
)

TURNS = pa.schema(
    [
        ("session_id", pa.string()),
        ("turn_index", pa.int32()),
        ("role", pa.string()),
        ("content", pa.string()),
        ("has_answer", pa.bool_()),
    ]
)

CANDIDATES = pa.schema(
    [
        ("question_id", pa.string()),
        ("rank", pa.int32()),
        ("session_id", pa.string()),
        ("score", pa.float64()),
    ]
)

ANSWERS = pa.schema(
    [
        ("question_id", pa.string()),
        ("hypothesis", pa.string()),
        ("model", pa.string()),
        ("prompt_id", pa.string()),
        ("request_hash", pa.string()),
        *USAGE_COLUMNS,
        ("refused", pa.bool_()),
        ("error", pa.string()),
    ]
)

VERDICTS = pa.schema(
    [
        ("question_id", pa.string()),
        ("label", pa.bool_()),
        ("judge_model", pa.string()),
        ("raw", pa.string()),
        ("error", pa.string()),
    ]
)

TABLES = {
    "questions": QUESTIONS,
    "sessions": SESSIONS,
    "turns": TURNS,
    "candidates": CANDIDATES,
    "answers": ANSWERS,
    "verdicts": VERDICTS,
}

# judge=panel: each member's label of the verdicts is kept as a column "label:<member>".
PANEL_LABEL_PREFIX = "label:"

# Round-granularity candidates also carry each session's user turns, best round first.
TURN_INDICES = pa.field("turn_indices", pa.list_(pa.int32()))

# Columns our stages write after the contract ones, in this order.
EXTRA = {
    "questions": pa.schema(
        [
            ("haystack_dates", pa.list_(pa.string())),  # aligned with haystack_session_ids
        ]
    ),
    "answers": pa.schema(
        [
            ("raw", pa.string()),  # the reader's whole reply
            ("context_session_ids", pa.list_(pa.string())),  # the sessions it was shown
        ]
    ),
    "verdicts": pa.schema(
        [
            ("question_type", pa.string()),
            ("is_abstention", pa.bool_()),
            ("reader_failed", pa.bool_()),
            ("prompt_hash", pa.string()),
            ("request_hash", pa.string()),
            *USAGE_COLUMNS,
        ]
    ),
}

# The rewrite stage's record of what it asked and got (artifacts/rewrites.parquet).
REWRITES = pa.schema(
    [
        ("question_id", pa.string()),
        ("question_type", pa.string()),
        ("variants", pa.list_(pa.string())),
        ("time_range", pa.string()),
        ("error", pa.string()),
        ("raw_variants", pa.string()),
        ("raw_time_range", pa.string()),
        ("cost_usd", pa.float64()),
    ]
)


def written_schema(table: str) -> pa.Schema:
    """The columns a stage writes for `table`: the contract ones, then its extra ones."""
    if table == "rewrites":
        return REWRITES
    extra = EXTRA.get(table)
    return pa.schema(list(TABLES[table]) + list(extra)) if extra else TABLES[table]


def polars_dtypes(schema: pa.Schema) -> dict:
    """An Arrow schema as {column: polars dtype}. Through an empty table of no batches:
    `Schema.empty_table()` would import pandas (a third of a second of a stage's start-up)."""
    return dict(pl.from_arrow(pa.Table.from_batches([], schema=schema)).schema)


def polars_schema(table: str) -> dict:
    """written_schema(table) as polars dtypes, for building a stage's frame."""
    return polars_dtypes(written_schema(table))
