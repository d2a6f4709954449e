"""LoCoMo's question categories and its own table columns.

Categories by number: papers disagree on the names of 1-4; these follow the released evaluation
code (category 1 is scored as multi-hop) and the data. Category 5 is the unanswerable kind,
reported apart from the headline.

Own columns, after the contract and schema.EXTRA ones: the category number, the conversation,
each question's evidence dia_ids and the misleading answer of category 5; the speaker's name and
the dia_id of each turn.
"""

from __future__ import annotations

import pyarrow as pa

from ...schema import polars_dtypes, polars_schema

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
ADVERSARIAL = 5
HEADLINE_CATEGORIES = (1, 2, 3, 4)

EXTRA_COLUMNS = {
    "questions": pa.schema(
        [
            ("category", pa.int32()),
            ("conversation_id", pa.string()),
            ("answer_turn_ids", pa.list_(pa.string())),
            ("adversarial_answer", pa.string()),
        ]
    ),
    "sessions": pa.schema([("conversation_id", pa.string())]),
    "turns": pa.schema([("speaker", pa.string()), ("turn_id", pa.string())]),
}


def table_schema(table: str) -> dict:
    """The table's written schema (schema.py) plus LoCoMo's own columns, as polars dtypes."""
    return {
        **polars_schema(table),
        **polars_dtypes(EXTRA_COLUMNS[table]),
    }
