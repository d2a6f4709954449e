"""The data model of ../shared/DESIGN.md: one pyarrow schema per table (the contract columns).

Tables may carry extra columns after these; `artifacts.write_table` checks the contract ones.
"""

from __future__ import annotations

import pyarrow as pa

QUESTION_TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
)

QUESTIONS = pa.schema([
    ("question_id", pa.string()),
    ("question_type", pa.string()),
    ("is_abstention", pa.bool_()),
    ("question", pa.string()),
    ("answer", pa.string()),
    ("question_date", pa.string()),
    ("haystack_session_ids", pa.list_(pa.string())),
    ("answer_session_ids", pa.list_(pa.string())),
])

SESSIONS = pa.schema([
    ("session_id", pa.string()),
    ("date", pa.string()),
    ("content_hash", pa.string()),
])

TURNS = pa.schema([
    ("session_id", pa.string()),
    ("turn_index", pa.int32()),
    ("role", pa.string()),
    ("content", pa.string()),
    ("has_answer", pa.bool_()),
])

CANDIDATES = pa.schema([
    ("question_id", pa.string()),
    ("rank", pa.int32()),
    ("session_id", pa.string()),
    ("score", pa.float64()),
])

ANSWERS = pa.schema([
    ("question_id", pa.string()),
    ("hypothesis", pa.string()),
    ("model", pa.string()),
    ("prompt_id", pa.string()),
    ("request_hash", pa.string()),
    ("input_tokens", pa.int64()),
    ("output_tokens", pa.int64()),
    ("reasoning_tokens", pa.int64()),
    ("cost_usd", pa.float64()),
    ("latency_s", pa.float64()),
    ("refused", pa.bool_()),
    ("error", pa.string()),
])

VERDICTS = pa.schema([
    ("question_id", pa.string()),
    ("label", pa.bool_()),
    ("judge_model", pa.string()),
    ("raw", pa.string()),
    ("error", pa.string()),
])

TABLES = {
    "questions": QUESTIONS,
    "sessions": SESSIONS,
    "turns": TURNS,
    "candidates": CANDIDATES,
    "answers": ANSWERS,
    "verdicts": VERDICTS,
}
