"""EverMemBench through the download stage (dataset=local on the fixtures of both released
layouts): the tables, the gold from evidence R, the subsets, the data card, recognition."""

from pathlib import Path

import polars as pl
import pytest

from confs import group
from memrecall import benchmarks
from memrecall.artifacts import read_meta, read_table
from memrecall.benchmarks.evermembench import BENCHMARK
from memrecall.data.prepare import run_download
from memrecall.errors import InputError

FIX = Path(__file__).parent / "fixtures" / "evermembench"


def run(tmp_path: Path, cfg: dict, sub="out") -> Path:
    out = tmp_path / sub
    run_download(
        cfg,
        questions=out / "questions.parquet",
        sessions=out / "sessions.parquet",
        turns=out / "turns.parquet",
        card_path=out / "data_card.md",
        raw_dir=tmp_path / "raw",
    )
    return out


def local(path, **kw) -> dict:
    return group("dataset", "local", path=str(path), **kw)


def tables(out: Path):
    return (
        read_table(out / "questions.parquet", "questions"),
        read_table(out / "sessions.parquet", "sessions"),
        read_table(out / "turns.parquet", "turns"),
    )


def test_registered_and_recognised_by_shape():
    assert benchmarks.get("evermembench") is BENCHMARK
    for path in (FIX / "topics", FIX / "topics" / "02", FIX / "batch", FIX / "batch" / "004"):
        assert benchmarks.recognise(path) is BENCHMARK
    assert not BENCHMARK.recognises(FIX / "topics" / "01" / "qa_01.json")


def test_topic_layout_tables(tmp_path):
    out = run(tmp_path, local(FIX / "topics"))
    q, s, t = tables(out)
    assert read_meta(out / "questions.parquet")[benchmarks.META_KEY] == "evermembench"
    assert q.height == 9 and s.height == 8 and t.height == 14
    row = q.filter(pl.col("question_id") == "F_MH_Top01_001").row(0, named=True)
    assert row["question_type"] == "F_MH" and row["form"] == "open" and row["topic"] == "01"
    assert row["answer_session_ids"] == ["01/2025-03-03/Group 1", "01/2025-03-06/Group 1"]
    assert row["answer_turn_ids"] == [
        "01/2025-03-03/Group 1#1",
        "01/2025-03-03/Group 1#2",
        "01/2025-03-06/Group 1#1",
    ]
    assert row["haystack_session_ids"] == [
        "01/2025-03-03/Group 1",
        "01/2025-03-03/Group 3",
        "01/2025-03-04/Group 1",
        "01/2025-03-04/Group 2",
        "01/2025-03-06/Group 1",
        "01/2025-03-06/Group 3",
    ]
    assert row["haystack_dates"][0] == "2025/03/03 (Mon) 09:05"
    assert row["question_date"] == "2025/03/06 (Thu) 16:45"
    mc = q.filter(pl.col("question_id") == "MA_C_Top01_001").row(0, named=True)
    assert mc["form"] == "multiple_choice" and mc["answer"] == "C"
    assert mc["options"] == [
        "A. Nothing, ship it",
        "B. A load test",
        "C. A security review sign-off",
        "D. A Figma review",
    ]
    assert q.filter(pl.col("question_id") == "P_Title_Top01_001")["question_type"][0] == "P_Role"
    no_r = q.filter(pl.col("question_id") == "F_SH_Top01_002").row(0, named=True)
    assert no_r["answer_session_ids"] == [] and not no_r["has_evidence"]
    # topic 02's questions see only topic 02's sessions
    t2 = q.filter(pl.col("topic") == "02")["haystack_session_ids"].to_list()
    assert all(all(x.startswith("02/") for x in h) for h in t2)
    turn = t.filter(pl.col("turn_id") == "01/2025-03-04/Group 1#2").row(0, named=True)
    assert turn["speaker"] == "Mingzhi Li" and turn["role"] == "user" and turn["has_answer"]
    assert turn["message_index"] == 2 and turn["time"] == "2025-03-04 10:12:30"
    assert s.filter(pl.col("session_id") == "01/2025-03-04/Group 2")["group"][0] == "Group 2"


def test_gold_from_evidence_and_none_without(tmp_path):
    q, _, t = tables(run(tmp_path, local(FIX / "topics")))
    gold = BENCHMARK.gold(q, t)
    assert gold["F_SH_Top01_002"].sessions == ()  # no R: out of retrieval metrics
    g = gold["F_TP_Top01_001"]
    assert set(g.sessions) == {"01/2025-03-03/Group 3", "01/2025-03-06/Group 3"}
    assert len(g.turns) == 2


def test_batch_layout_has_no_gold(tmp_path):
    q, s, t = tables(run(tmp_path, local(FIX / "batch")))
    assert q.height == 4 and s["session_id"].to_list() == [
        "004/2025-01-09/Group 1",
        "004/2025-01-10/Group 1",
        "004/2025-01-10/Group 2",
    ]
    assert not q["has_evidence"].any()
    assert all(v.sessions == () for v in BENCHMARK.gold(q, t).values())
    assert (
        q.filter(pl.col("question_id") == "P_Skill_Top004_001")["options"][0][0]
        == "A. Standards research"
    )


@pytest.mark.parametrize("parts, n", [(["02"], 2), (2, 2), ("01", 7)])
def test_parts_pick_topics(tmp_path, parts, n):
    out = run(tmp_path, local(FIX / "topics", parts=parts))
    q, s, _ = tables(out)
    assert q.height == n and s["topic"].unique().len() == 1
    assert "parts (topics)" in (out / "data_card.md").read_text()


def test_subtask_subset_and_unknown_part(tmp_path):
    q, _, _ = tables(run(tmp_path, local(FIX / "topics", question_types=["F_SH", "P_Role"])))
    assert sorted(q["question_type"].unique()) == ["F_SH", "P_Role"] and q.height == 4
    with pytest.raises(InputError, match="not in the dataset") as e:
        run(tmp_path, local(FIX / "topics", parts=["07"]), "bad")
    assert e.value.field == "dataset.parts"
    assert not (tmp_path / "bad").exists()


def test_data_card(tmp_path):
    card = (run(tmp_path, local(FIX / "topics")) / "data_card.md").read_text()
    assert "| F_SH (single-hop) (recall) | 3 |" in card and "| P_Role (role) | 1 |" in card
    assert "Multiple choice: 4; open answers: 5" in card
    assert "Questions without evidence (left out of retrieval metrics): 1" in card
    assert card == (run(tmp_path, local(FIX / "topics"), "again") / "data_card.md").read_text()
