"""The bundled sample: 12 real questions, two per type, >= 2 abstention, full haystacks exactly
as in the dev file, MIT notice alongside, and rebuilt byte-identically by its builder."""

from __future__ import annotations

from collections import Counter

from conftest import DEV_FILE, REPO, SAMPLE_FILE, shared_file
from memrecall.benchmarks.longmemeval.categories import QUESTION_TYPES
from memrecall.benchmarks.longmemeval.data import load_records, validate_records
from memrecall.benchmarks.longmemeval.sample import build_sample, choose


def test_bundled_sample_shape_and_licence():
    recs = load_records(SAMPLE_FILE)
    validate_records(recs, str(SAMPLE_FILE))
    assert len(recs) == 12
    assert Counter(r["question_type"] for r in recs) == {t: 2 for t in QUESTION_TYPES}
    assert sum(r["question_id"].endswith("_abs") for r in recs) >= 2
    # Round-robin order: the first six are one of each type (so dataset.limit=6 covers all).
    assert [r["question_type"] for r in recs[:6]] == list(QUESTION_TYPES)
    assert all(len(r["haystack_sessions"]) >= 40 for r in recs)  # full S haystacks
    licence = (REPO / "data/sample/LICENSE").read_text()
    assert "MIT License" in licence and "Di Wu" in licence


def test_sample_is_an_unmodified_slice_and_rebuilds_byte_identically(tmp_path):
    dev = {r["question_id"]: r for r in load_records(shared_file(DEV_FILE))}
    for r in load_records(SAMPLE_FILE):
        assert r == dev[r["question_id"]]  # every field, full haystack, int answers kept
    out = tmp_path / "sample.json.gz"
    build_sample(DEV_FILE, out)
    assert out.read_bytes() == SAMPLE_FILE.read_bytes()


def test_choose_rule_on_handmade_records():
    from test_data_longmemeval import make_record

    recs = []
    for i, t in enumerate(QUESTION_TYPES):
        for j in range(3):  # haystack size grows with j: j=0 is the smallest
            recs.append(
                make_record(
                    f"t{i}q{j}", qtype=t, sessions=tuple(f"s{i}{j}{k}" for k in range(j + 1))
                )
            )
    ms, ku = QUESTION_TYPES.index("multi-session"), QUESTION_TYPES.index("knowledge-update")
    recs.append(make_record("big_abs", qtype="multi-session", sessions=("a", "b", "c", "d")))
    recs.append(make_record("small_abs", qtype="knowledge-update", sessions=("e",)))
    recs.append(make_record("small2_abs", qtype="knowledge-update", sessions=("f", "g")))
    got = choose(recs, per_type=2, abstention=2)
    picked = {r["question_id"] for r in got}
    assert len(got) == 12
    # At most one abstention per type, smallest first: small_abs (k-u), then big_abs (m-s).
    assert {"small_abs", "big_abs"} <= picked and "small2_abs" not in picked
    # Each of those types is filled with its single smallest other question.
    assert {f"t{ms}q0", f"t{ku}q0"} <= picked and not {f"t{ms}q1", f"t{ku}q1"} & picked
    for i in set(range(6)) - {ms, ku}:  # the others: their two smallest
        assert {f"t{i}q0", f"t{i}q1"} <= picked and f"t{i}q2" not in picked
    # Round-robin output; within a type non-abstention first.
    assert [r["question_type"] for r in got] == list(QUESTION_TYPES) * 2
    assert got[6 + ku]["question_id"] == "small_abs"
