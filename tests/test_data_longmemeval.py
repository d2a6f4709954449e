"""LongMemEval parsing, validation and normalisation: every bad input names file, question id and
field; the real files pass; sessions are stored once; output is byte-identical on rerun."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import polars as pl
import pytest

from confs import group
from conftest import DEV_FILE, ORACLE_FILE, shared_file
from memrecall.artifacts import read_table
from memrecall.benchmarks.longmemeval.data import (
    content_hash,
    load_records,
    normalise,
    summary,
    validate_records,
)
from memrecall.data.prepare import run_download
from memrecall.errors import ConfigError, InputError


def turn(role, content, has_answer=None):
    t = {"role": role, "content": content}
    if has_answer is not None:
        t["has_answer"] = has_answer
    return t


def session(tag, answer=False):
    return [
        turn("user", f"user says {tag}", True if answer else None),
        turn("assistant", f"assistant replies {tag}"),
    ]


def make_record(
    qid="q1",
    qtype="single-session-user",
    sessions=("s1", "s2"),
    evidence=("s1",),
    dates=None,
    answer="blue",
):
    dates = dates or [f"2023/05/{20 + i:02d} (Sat) 10:00" for i in range(len(sessions))]
    return {
        "question_id": qid,
        "question_type": qtype,
        "question": f"what about {qid}?",
        "answer": answer,
        "question_date": "2023/05/30 (Tue) 21:56",
        "haystack_dates": list(dates),
        "haystack_session_ids": list(sessions),
        "haystack_sessions": [session(s, answer=s in evidence) for s in sessions],
        "answer_session_ids": list(evidence),
    }


def write_json(path: Path, data, gz=False) -> Path:
    raw = json.dumps(data).encode()
    path.write_bytes(gzip.compress(raw, mtime=0) if gz else raw)
    return path


def run(tmp_path: Path, cfg: dict, sub="out") -> dict:
    out = tmp_path / sub
    return run_download(
        cfg,
        questions=out / "questions.parquet",
        sessions=out / "sessions.parquet",
        turns=out / "turns.parquet",
        card_path=out / "data_card.md",
        raw_dir=tmp_path / "raw",
    )


def local_cfg(path, **kw) -> dict:
    return group("dataset", "local", path=str(path), **kw)


# ---------- bad input: one clear error each ----------


def _expect(tmp_path, data, *, qid, field, match, gz=False):
    f = write_json(tmp_path / ("bad.json.gz" if gz else "bad.json"), data, gz=gz)
    with pytest.raises(InputError, match=match) as e:
        run(tmp_path, local_cfg(f))
    assert e.value.file == str(f) and e.value.question_id == qid and e.value.field == field
    assert str(f) in str(e.value)
    assert not (tmp_path / "out").exists()  # nothing half-written
    return e.value


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="not found") as e:
        run(tmp_path, local_cfg(tmp_path / "nope.json"))
    assert e.value.file == str(tmp_path / "nope.json") and e.value.field == "dataset.path"


def test_malformed_json(tmp_path):
    f = tmp_path / "bad.json"
    f.write_text('[{"question_id": "q1",\n "question": ]')
    with pytest.raises(InputError, match=r"malformed JSON at line 2") as e:
        run(tmp_path, local_cfg(f))
    assert e.value.file == str(f)


def test_corrupt_gzip(tmp_path):
    f = tmp_path / "bad.json.gz"
    f.write_bytes(gzip.compress(b"[]", mtime=0)[:-6])
    with pytest.raises(InputError, match="corrupt gzip"):
        run(tmp_path, local_cfg(f))


def test_not_a_list(tmp_path):
    f = write_json(tmp_path / "d.json", {"question_id": "q1"})
    with pytest.raises(InputError, match="expected a JSON list"):
        run(tmp_path, local_cfg(f))


@pytest.mark.parametrize(
    "field",
    [
        "question",
        "answer",
        "question_date",
        "haystack_sessions",
        "answer_session_ids",
        "question_type",
    ],
)
def test_missing_field(tmp_path, field):
    rec = make_record(qid="q2")
    del rec[field]
    _expect(tmp_path, [make_record(), rec], qid="q2", field=field, match="missing field")


@pytest.mark.parametrize("short", ["haystack_dates", "haystack_session_ids", "haystack_sessions"])
def test_haystack_lists_differ_in_length(tmp_path, short):
    rec = make_record(sessions=("s1", "s2", "s3"))
    rec[short] = rec[short][:2]
    e = _expect(
        tmp_path,
        [rec],
        qid="q1",
        field="haystack_session_ids/haystack_dates/haystack_sessions",
        match="haystack lists differ in length",
    )
    assert f"{short}=2" in str(e)


def test_unknown_question_type(tmp_path):
    _expect(
        tmp_path,
        [make_record(qtype="single-session-chitchat")],
        qid="q1",
        field="question_type",
        match="unknown question type 'single-session-chitchat'",
    )


@pytest.mark.parametrize(
    "field,value",
    [("question_date", "2023-05-30 21:56"), ("haystack_dates", "2023/13/30 (Tue) 21:56")],
)
def test_unparseable_date(tmp_path, field, value):
    rec = make_record()
    if field == "question_date":
        rec[field] = value
    else:
        rec[field][1] = value
    _expect(
        tmp_path,
        [rec],
        qid="q1",
        field=field if field == "question_date" else "haystack_dates[1]",
        match="unparseable date",
    )


def test_non_string_haystack_date_names_field(tmp_path):
    # A list/dict date is unhashable: the date memo must not turn it into a bare TypeError.
    rec = make_record()
    rec["haystack_dates"][1] = ["2023/05/21 (Sun) 10:00"]
    _expect(tmp_path, [rec], qid="q1", field="haystack_dates[1]", match="date string")


def test_bad_turn_and_types(tmp_path):
    rec = make_record()
    del rec["haystack_sessions"][1][0]["content"]
    _expect(
        tmp_path, [rec], qid="q1", field="haystack_sessions[1][0]", match="turn lacks 'content'"
    )
    rec = make_record()
    rec["haystack_sessions"][0][1]["has_answer"] = "yes"
    _expect(tmp_path, [rec], qid="q1", field="haystack_sessions[0][1]", match="has_answer")
    rec = make_record()
    rec["answer"] = None
    _expect(tmp_path, [rec], qid="q1", field="answer", match="string or number")
    rec = make_record()
    rec["haystack_session_ids"][0] = 7
    _expect(tmp_path, [rec], qid="q1", field="haystack_session_ids[0]", match="session id")


def test_duplicate_question_id(tmp_path):
    _expect(
        tmp_path,
        [make_record(), make_record()],
        qid="q1",
        field="question_id",
        match="duplicate question_id",
    )


def test_same_session_id_with_different_content_names_both_questions(tmp_path):
    a = make_record("qa", sessions=("s1", "shared"))
    b = make_record("qb", sessions=("shared", "s3"), evidence=("s3",))
    b["haystack_sessions"][0][1]["content"] = "a different reply"
    e = _expect(
        tmp_path,
        [a, b],
        qid="qb",
        field="haystack_sessions[0]",
        match="session 'shared' has different content",
    )
    assert "'qa'" in str(e) and "'qb'" in str(e)


# ---------- normalisation ----------


def test_answer_cast_abstention_and_missing_has_answer():
    recs = [
        make_record("q1", answer=3),
        make_record("q2_abs", evidence=("s9",), sessions=("s9", "s8")),
    ]
    recs[1]["haystack_sessions"][0][0].pop("has_answer")
    validate_records(recs, "mem")
    ds = normalise(recs, "mem")
    q = {r["question_id"]: r for r in ds.questions.iter_rows(named=True)}
    assert q["q1"]["answer"] == "3" and q["q1"]["is_abstention"] is False
    assert q["q2_abs"]["is_abstention"] is True
    t = ds.turns.filter(pl.col("session_id") == "s9")
    assert t["has_answer"].to_list() == [False, False]
    assert ds.turns.filter(pl.col("session_id") == "s1")["has_answer"].to_list() == [True, False]


def test_dedup_counts_dates_and_repeats():
    # "shared" sits in three haystacks with three dates; q3 lists s5 twice.
    a = make_record(
        "q1", sessions=("s1", "shared"), dates=["2023/05/02 (Tue) 10:00", "2023/05/03 (Wed) 10:00"]
    )
    b = make_record(
        "q2",
        sessions=("shared", "s2"),
        evidence=("s2",),
        dates=["2023/04/01 (Sat) 09:00", "2023/05/01 (Mon) 10:00"],
    )
    c = make_record(
        "q3",
        sessions=("s5", "shared", "s5"),
        evidence=("s5",),
        dates=["2023/05/01 (Mon) 10:00", "2023/06/01 (Thu) 10:00", "2023/05/09 (Tue) 10:00"],
    )
    c["haystack_sessions"][2] = copy.deepcopy(c["haystack_sessions"][0])
    b["haystack_sessions"][0][0]["has_answer"] = True  # evidence marks differ: merged (OR)
    recs = [c, a, b]
    validate_records(recs, "mem")
    ds = normalise(recs, "mem")
    s = ds.stats
    assert (s["sessions_total"], s["sessions_unique"]) == (7, 4)
    assert (s["turns_total"], s["turns_unique"]) == (14, 8)
    assert s["duplicates_in_haystack"] == 1 and s["sessions_multi_date"] == 2
    assert s["has_answer_merged"] == 1
    assert ds.sessions["session_id"].to_list() == ["s1", "s2", "s5", "shared"]
    dates = dict(ds.sessions.select("session_id", "date").iter_rows())
    assert dates["shared"] == "2023/04/01 (Sat) 09:00"  # the earliest
    assert dates["s5"] == "2023/05/01 (Mon) 10:00"
    q = {r["question_id"]: r for r in ds.questions.iter_rows(named=True)}
    assert ds.questions["question_id"].to_list() == ["q1", "q2", "q3"]
    assert q["q3"]["haystack_session_ids"] == ["s5", "shared"]
    assert q["q3"]["haystack_dates"] == ["2023/05/01 (Mon) 10:00", "2023/06/01 (Thu) 10:00"]
    assert q["q2"]["haystack_dates"][0] == "2023/04/01 (Sat) 09:00"
    shared = ds.turns.filter(pl.col("session_id") == "shared")
    assert shared["turn_index"].to_list() == [0, 1]
    assert shared["has_answer"].to_list() == [True, False]
    assert ds.sessions.filter(pl.col("session_id") == "shared")[
        "content_hash"
    ].item() == content_hash(a["haystack_sessions"][1])


def test_real_files_pass_validation_and_normalise():
    for path, n, n_abs in ((ORACLE_FILE, 500, 30), (DEV_FILE, 100, 7)):
        recs = load_records(shared_file(path))
        validate_records(recs, str(path))
        ds = normalise(recs, str(path))
        summ = summary(ds)
        assert summ["n_questions"] == n and summ["n_abstention"] == n_abs
        assert ds.questions["answer"].dtype == pl.String
        assert ds.sessions["session_id"].is_unique().all()
        assert ds.stats["evidence_missing_from_haystack"] == []
        if path == DEV_FILE:
            assert (ds.stats["sessions_total"], ds.stats["sessions_unique"]) == (4779, 4567)
            assert (ds.stats["turns_total"], ds.stats["turns_unique"]) == (49424, 47261)
            assert ds.stats["duplicates_in_haystack"] == 1  # 001be529 lists one session twice
            assert ds.stats["sessions_multi_date"] == 202
        else:
            # Oracle haystacks are exactly the evidence sessions.
            assert all(
                sorted(h) == sorted(e)
                for h, e in ds.questions.select(
                    "haystack_session_ids", "answer_session_ids"
                ).iter_rows()
            )
            assert (ds.stats["sessions_total"], ds.stats["sessions_unique"]) == (948, 940)


# ---------- the stage's outputs ----------


def test_outputs_byte_identical_on_rerun_and_card(tmp_path):
    recs = [
        make_record("q2", qtype="multi-session", answer=2),
        make_record("q1_abs", sessions=("s1", "s3")),
    ]
    f = write_json(tmp_path / "d.json.gz", recs, gz=True)
    cfg = local_cfg(f, release="cleaned", limit=None)
    s1 = run(tmp_path, cfg, "a")
    run(tmp_path, cfg, "b")
    for name in ("questions.parquet", "sessions.parquet", "turns.parquet", "data_card.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    q = read_table(tmp_path / "a" / "questions.parquet", "questions")
    assert q["question_id"].to_list() == ["q1_abs", "q2"]
    assert q["answer"].to_list() == ["blue", "2"]
    t = read_table(tmp_path / "a" / "turns.parquet", "turns")
    assert t.select("session_id", "turn_index").rows() == sorted(
        t.select("session_id", "turn_index").rows()
    )
    assert s1["sessions_total"] == 4 and s1["sessions_unique"] == 3
    card = (tmp_path / "a" / "data_card.md").read_text()
    assert "**cleaned** release" in card
    assert "| multi-session | 1 | 0 |" in card and "| single-session-user | 1 | 1 |" in card
    assert "| sessions | 4 | 3 |" in card
    from memrecall.hashing import sha256_file

    assert sha256_file(f) in card


def test_source_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="dataset.source"):
        run(tmp_path, {"name": "x", "source": "ftp"})
    with pytest.raises(ConfigError, match="dataset.path"):
        run(tmp_path, {"name": "local", "source": "local", "path": "???"})
    f = write_json(tmp_path / "d.json", [make_record()])
    with pytest.raises(ConfigError, match="dataset.sha256"):
        run(tmp_path, local_cfg(f, sha256="0" * 64))
