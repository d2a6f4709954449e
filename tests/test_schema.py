"""Table schemas are written down once (schema.py): the stages that write tables build their
frames from it and spell no column type of their own."""

from __future__ import annotations

import re

import polars as pl

from conftest import REPO
from memrecall.benchmarks.longmemeval.data import normalise, validate_records
from memrecall.schema import EXTRA, TABLES, polars_schema, written_schema

WRITERS = [
    "benchmarks/longmemeval/data.py",
    "retrieval/retrieve.py",
    "retrieval/rerank.py",
    "rewrite/rewriter.py",
    "read/reader.py",
    "judge/stage.py",
]
# A column name followed by a polars or pyarrow type: a schema written out by hand.
TYPED_COLUMN = re.compile(
    r'"(\w+)"\s*[:,]\s*(?:pl\.(?:String|Utf8|Int\d+|Float\d+|Boolean|List)'
    r"|pa\.(?:string|int\d+|float\d+|bool_|list_)\()"
)


def test_no_stage_spells_a_table_schema_of_its_own():
    columns = {f.name for t in [*TABLES, "rewrites"] for f in written_schema(t)}
    found = {}
    for rel in WRITERS:
        text = (REPO / "src" / "memrecall" / rel).read_text()
        hits = sorted({m.group(1) for m in TYPED_COLUMN.finditer(text)} & columns)
        if hits:
            found[rel] = hits
    assert not found, f"column types outside schema.py: {found}"


def test_extra_columns_follow_the_contract_ones():
    for table, extra in EXTRA.items():
        names = written_schema(table).names
        assert names[: len(TABLES[table])] == TABLES[table].names
        assert names[len(TABLES[table]) :] == extra.names
        assert not set(extra.names) & set(TABLES[table].names)


def test_ingested_tables_have_the_written_schema():
    rec = {
        "question_id": "q1",
        "question_type": "multi-session",
        "question": "?",
        "answer": 3,
        "question_date": "2023/05/30 (Tue) 21:56",
        "haystack_session_ids": ["s1"],
        "haystack_dates": ["2023/05/01 (Mon) 10:00"],
        "answer_session_ids": ["s1"],
        "haystack_sessions": [[{"role": "user", "content": "hi", "has_answer": True}]],
    }
    validate_records([rec], "mem")
    ds = normalise([rec], "mem")
    for table, df in (("questions", ds.questions), ("sessions", ds.sessions), ("turns", ds.turns)):
        assert dict(df.schema) == polars_schema(table), table
    assert polars_schema("turns")["turn_index"] == pl.Int32
