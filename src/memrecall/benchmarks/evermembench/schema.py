"""EverMemBench's own table columns, after the contract and schema.EXTRA ones.

questions: the topic (unit folder), the form (multiple_choice | open), the options as shown to
the reader ("A. text", in letter order; empty for open questions), the released `task_id`, and
the evidence turns (`R`) as turn ids; a question the release gives no evidence has an empty list
and `has_evidence` false.
sessions: one per (topic, day, group): the topic, the day and the group.
turns: one per message: the speaker, the message's 1-based index in its day's group (what `R`
names), its time as released, and a turn id `<session_id>#<index>`.
"""

from __future__ import annotations

import pyarrow as pa

from ...schema import polars_dtypes, polars_schema

MULTIPLE_CHOICE, OPEN = "multiple_choice", "open"

EXTRA_COLUMNS = {
    "questions": pa.schema(
        [
            ("topic", pa.string()),
            ("form", pa.string()),
            ("options", pa.list_(pa.string())),
            ("task_id", pa.string()),
            ("has_evidence", pa.bool_()),
            ("answer_turn_ids", pa.list_(pa.string())),
        ]
    ),
    "sessions": pa.schema([("topic", pa.string()), ("day", pa.string()), ("group", pa.string())]),
    "turns": pa.schema(
        [
            ("speaker", pa.string()),
            ("message_index", pa.int32()),
            ("time", pa.string()),
            ("turn_id", pa.string()),
        ]
    ),
}


def table_schema(table: str) -> dict:
    """The table's written schema plus EverMemBench's own columns, as polars dtypes."""
    own = polars_dtypes(EXTRA_COLUMNS[table])
    return {**polars_schema(table), **own}
