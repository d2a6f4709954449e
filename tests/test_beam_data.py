"""BEAM's released formats: recognising chat folders, streaming and validating them, and the
questions / sessions / turns tables with their gold evidence (hand-written fixtures in the
released layout, tests/fixtures/beam)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from memrecall.benchmarks.beam import BENCHMARK, formats
from memrecall.benchmarks.beam.normalise import flat_records, normalise, read_chats
from memrecall.errors import InputError

FIX = Path(__file__).parent / "fixtures" / "beam" / "chats"
TIER = FIX / "100K"


def tables(folders, tier=None):
    chats = read_chats(folders, tier)
    ids = {r["question_id"] for r in flat_records(chats)}
    t, parts = normalise(
        chats, ids, BENCHMARK.polars_schema("questions"), BENCHMARK.polars_schema("sessions")
    )
    turns = pl.concat([pl.from_arrow(p) for p in parts])
    return t, turns


def test_recognises_a_chat_folder_and_a_folder_of_them_only():
    assert BENCHMARK.recognises(TIER / "1") and BENCHMARK.recognises(TIER)
    assert not BENCHMARK.recognises(FIX)  # chats/: its children are tiers, not chats
    assert not BENCHMARK.recognises(TIER / "1" / "chat.json")
    assert [p.name for p in formats.chat_folders(TIER)] == ["1", "2"]


def test_truncated_chat_is_read_when_present_as_the_released_answerer_does():
    assert formats.chat_file(TIER / "2").name == "chat_trunecated.json"
    assert formats.chat_file(TIER / "1").name == "chat.json"
    t, turns = tables([TIER / "2"])
    assert t.sessions.height == 6  # batches 1-2 only
    assert turns["message_id"].max() == 15


def test_tables_sessions_are_exchanges_dated_by_their_batch():
    t, turns = tables([TIER / "1"])
    q, s = t.questions, t.sessions
    assert q.height == 20 and s.height == 8 and turns.height == 20
    assert s["session_id"][0] == "128K_1_b0001_t0001"
    assert (
        s.filter(pl.col("session_id") == "128K_1_b0002_t0001")["date"][0]
        == "2024/02/02 (Fri) 00:00"
    )
    # the first exchange holds the main question, the answer, the user's reply and its answer
    first = turns.filter(pl.col("session_id") == "128K_1_b0001_t0001")
    assert first["role"].to_list() == ["user", "assistant", "user", "assistant"]
    assert first["message_kind"].to_list() == ["main_question", None, "answer_ai_question", None]
    assert q["question_date"].unique().to_list() == ["2024/03/05 (Tue) 00:00"]
    assert all(len(h) == 8 for h in q["haystack_session_ids"])


def test_evidence_from_source_chat_ids_both_shapes_and_no_gold_for_abstention():
    t, turns = tables([TIER / "1"])
    q = {r["question_id"]: r for r in t.questions.iter_rows(named=True)}
    cr = q["128K_1_contradiction_resolution_0"]  # {first_statement: [2], second_statement: [12]}
    assert cr["source_message_ids"] == [2, 12]
    assert cr["answer_session_ids"] == ["128K_1_b0001_t0001", "128K_1_b0002_t0002"]
    assert cr["answer_turn_ids"] == ["128K_1_b0001_t0001_3", "128K_1_b0002_t0002_1"]
    ie = q["128K_1_information_extraction_1"]  # [2, 3]: the answer is the assistant's message
    assert ie["answer_turn_ids"] == ["128K_1_b0001_t0001_3"]  # one round: user 2 + reply 3
    su = q["128K_1_summarization_1"]  # [10, 11, 14, 15]: two rounds
    assert su["answer_turn_ids"] == ["128K_1_b0002_t0001_1", "128K_1_b0002_t0003_1"]
    ab = q["128K_1_abstention_0"]
    assert ab["is_abstention"] and ab["answer_session_ids"] == [] and ab["source_message_ids"] == []
    golds = BENCHMARK.gold(t.questions, turns)
    assert golds["128K_1_abstention_0"] is None
    g = golds["128K_1_information_extraction_1"]
    assert g.sessions == ("128K_1_b0001_t0001",)  # an assistant message is evidence too
    assert g.turns == ("128K_1_b0001_t0001_3",)
    marked = set(turns.filter(pl.col("has_answer"))["message_id"].to_list())
    assert {2, 3, 12} <= marked and 5 not in marked and 19 not in marked


def test_ten_million_plan_shaped_chat_reads_like_the_others():
    t, turns = tables([FIX / "10M" / "1"])
    assert t.questions["tier"].unique().to_list() == ["10M"]
    assert t.sessions.height == 8 and turns.height == 20
    # the plans' batches follow each other: plan-1's first batch is the chat's third
    assert t.sessions["session_id"].to_list()[-1] == "10M_1_b0003_t0002"


def test_several_chats_keep_session_order_across_folder_names(tmp_path):
    for n in ("1", "2", "10"):
        shutil.copytree(TIER / "1", tmp_path / "100K" / n)
    t, turns = tables(formats.chat_folders(tmp_path / "100K"))
    sids = turns["session_id"].to_list()
    assert sids == sorted(sids) and t.sessions["session_id"].is_sorted()
    assert t.questions["question_id"].is_sorted()


def _broken(tmp_path, edit) -> Path:
    folder = tmp_path / "100K" / "1"
    shutil.copytree(TIER / "1", folder)
    qfile = folder / formats.QUESTIONS
    data = json.loads(qfile.read_text())
    edit(data)
    qfile.write_text(json.dumps(data))
    return folder


@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda d: d["knowledge_update"][1].pop("rubric"), "knowledge_update[1].rubric"),
        (
            lambda d: d["temporal_reasoning"][0].update(source_chat_ids={"first_event": ["x"]}),
            "temporal_reasoning[0].source_chat_ids",
        ),
        (lambda d: d["summarization"][0].pop("ideal_summary"), "summarization[0].ideal_summary"),
    ],
)
def test_bad_question_names_file_question_and_field(tmp_path, edit, field):
    folder = _broken(tmp_path, edit)
    with pytest.raises(InputError) as e:
        read_chats([folder])
    assert e.value.field == field and e.value.file.endswith("probing_questions.json")
    assert e.value.question_id.startswith("128K_1_")


def test_bad_message_names_file_and_field(tmp_path):
    folder = tmp_path / "100K" / "1"
    shutil.copytree(TIER / "1", folder)
    chat = json.loads((folder / "chat.json").read_text())
    chat[1]["turns"][0][1]["id"] = 0  # a duplicate id
    (folder / "chat.json").write_text(json.dumps(chat))
    with pytest.raises(InputError, match="duplicate message id 0") as e:
        tables([folder])
    assert e.value.field == "[1].turns[0][1].id"


def test_unknown_ability_is_refused(tmp_path):
    folder = _broken(tmp_path, lambda d: d.update(mind_reading=[]))
    with pytest.raises(InputError, match="unknown abilities"):
        read_chats([folder])


def test_time_anchor_dates():
    assert formats.anchor_date("March-15-2024") == "2024/03/15 (Fri) 00:00"
    assert formats.anchor_date("Sept-3-2024") is None and formats.anchor_date(None) is None


def test_plans_numbering_afresh_make_their_repeated_ids_ambiguous_evidence(tmp_path):
    folder = tmp_path / "10M" / "1"
    shutil.copytree(FIX / "10M" / "1", folder)
    plans = json.loads((folder / "chat.json").read_text())
    second = plans[1]["plan-1"]
    for batch in second:  # plan-1 numbers its messages from 0 again
        for turn in batch["turns"]:
            for m in turn:
                m["id"] -= 16
    (folder / "chat.json").write_text(json.dumps(plans))
    t, turns = tables([folder])
    q = {r["question_id"]: r for r in t.questions.iter_rows(named=True)}
    # information_extraction_0 names message 16 (now absent), _1 names 2 and 3 (now twice)
    assert q["10M_1_information_extraction_1"]["answer_turn_ids"] == []
    assert t.stats["evidence_ambiguous"] > 0
    assert not turns.filter(pl.col("message_id").is_in([2, 3]))["has_answer"].any()


def test_question_records_for_the_planner():
    recs = BENCHMARK.question_records(TIER)
    assert len(recs) == 40 and recs[0] == {
        "question_id": "128K_1_abstention_0",
        "question_type": "abstention",
        "is_abstention": True,
        "conversation_id": "128K_1",
    }
