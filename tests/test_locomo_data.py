"""LoCoMo files into the questions / sessions / turns tables: the real dev slice (read-only),
hand-made conversations for validation errors, format detection and subsets."""

from __future__ import annotations

import json

import polars as pl
import pytest

from confs import group
from conftest import SAMPLE_FILE, SHARED
from memrecall.benchmarks.locomo import data as locomo
from memrecall.benchmarks.longmemeval.data import load_records
from memrecall.data.prepare import benchmark_of, run_download
from memrecall.data.subset import select
from memrecall.errors import ConfigError, InputError, MemrecallError

LOCOMO_FILE = SHARED / "data" / "locomo" / "locomo_dev2.json"
needs_dev = pytest.mark.skipif(not LOCOMO_FILE.exists(), reason="no LoCoMo dev slice")


def conversation(sample_id="conv-x") -> dict:
    """A small conversation shaped like the released file."""
    return {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a dog yesterday."},
                {
                    "speaker": "Bo",
                    "dia_id": "D1:2",
                    "text": "Look at mine!",
                    "img_url": ["http://x"],
                    "blip_caption": "a photo of a cat on a sofa",
                },
            ],
            "session_2_date_time": "10:05 am on 1 June, 2023",
            "session_2": [
                {"speaker": "Bo", "dia_id": "D2:1", "text": "I moved to Paris."},
                {"speaker": "Ann", "dia_id": "D2:2", "text": "I started painting."},
            ],
            "session_3_date_time": "9:00 am on 2 June, 2023",  # a date without a session
        },
        "qa": [
            {
                "question": "When did Ann adopt a dog?",
                "answer": "7 May 2023",
                "evidence": ["D1:1"],
                "category": 2,
            },
            {
                "question": "Where does Bo live, and what pet?",
                "answer": "Paris, cat",
                "evidence": ["D2:1; D1:2"],
                "category": 1,
            },
            {
                "question": "What did Bo paint?",
                "adversarial_answer": "painting",
                "evidence": ["D2:2"],
                "category": 5,
            },
            {"question": "How old is Ann?", "answer": 41, "evidence": ["D9:9"], "category": 4},
        ],
    }


def normalised(records):
    flat, _ = select(
        locomo.flatten(records),
        group("dataset", "local"),
        "f.json",
        types=tuple(locomo.CATEGORIES.values()),
    )
    return locomo.normalise(records, flat)


def test_normalise_small_conversation():
    ds = normalised([conversation()])
    q = {r["question_id"]: r for r in ds.questions.to_dicts()}
    assert list(q) == ["conv-x_q000", "conv-x_q001", "conv-x_q002", "conv-x_q003"]
    assert q["conv-x_q000"]["question_type"] == "temporal"
    assert q["conv-x_q000"]["answer_session_ids"] == ["conv-x_D1"]
    assert q["conv-x_q000"]["haystack_session_ids"] == ["conv-x_D1", "conv-x_D2"]
    assert q["conv-x_q000"]["haystack_dates"] == [
        "2023/05/08 (Mon) 13:56",
        "2023/06/01 (Thu) 10:05",
    ]
    assert q["conv-x_q000"]["question_date"] == "2023/06/01 (Thu) 10:05"  # the last session
    # "D2:1; D1:2" names two turns, in two sessions
    assert q["conv-x_q001"]["answer_turn_ids"] == ["D2:1", "D1:2"]
    assert q["conv-x_q001"]["answer_session_ids"] == ["conv-x_D2", "conv-x_D1"]
    adv = q["conv-x_q002"]
    assert adv["is_abstention"] and adv["category"] == 5
    assert adv["answer"] == locomo.UNANSWERABLE_REPLY and adv["adversarial_answer"] == "painting"
    assert q["conv-x_q003"]["answer"] == "41"  # numbers become strings
    assert q["conv-x_q003"]["answer_turn_ids"] == []  # D9:9 names no turn
    assert ds.stats["evidence_unresolved"] == 1 and ds.stats["no_evidence"] == 1
    t = ds.turns.to_dicts()
    assert [x["turn_id"] for x in t] == ["D1:1", "D1:2", "D2:1", "D2:2"]
    assert {x["role"] for x in t} == {"user"} and [x["speaker"] for x in t][:2] == ["Ann", "Bo"]
    assert t[1]["content"] == "Look at mine! and shared a photo of a cat on a sofa."
    # every evidence turn of a selected question is marked
    assert [x["has_answer"] for x in t] == [True, True, True, True]
    assert ds.sessions["session_id"].to_list() == ["conv-x_D1", "conv-x_D2"]


def test_only_selected_questions_mark_evidence_and_keep_conversations():
    recs = [conversation("conv-a"), conversation("conv-b")]
    flat = [r for r in locomo.flatten(recs) if r["question_id"] == "conv-b_q000"]
    ds = locomo.normalise(recs, flat)
    assert ds.questions["question_id"].to_list() == ["conv-b_q000"]
    assert set(ds.sessions["conversation_id"]) == {"conv-b"}
    assert ds.turns.filter(pl.col("has_answer"))["turn_id"].to_list() == ["D1:1"]


@pytest.mark.parametrize(
    "mutate, field, where",
    [
        (lambda c: c["qa"][1].pop("answer"), "qa[1].answer", "question #1"),
        (lambda c: c["qa"][2].pop("adversarial_answer"), "qa[2].adversarial_answer", "question #2"),
        (lambda c: c["qa"][3].update(category=7), "qa[3].category", "question #3"),
        (lambda c: c["qa"][0].update(evidence="D1:1"), "qa[0].evidence", "question #0"),
        (lambda c: c["qa"][0].update(question=""), "qa[0].question", "question #0"),
        (
            lambda c: c["conversation"].update(session_2_date_time="June 1st"),
            "conversation.session_2_date_time",
            None,
        ),
        (
            lambda c: c["conversation"]["session_1"][0].pop("dia_id"),
            "conversation.session_1[0].dia_id",
            None,
        ),
        (lambda c: c["conversation"].pop("speaker_b"), "conversation.speaker_b", None),
    ],
)
def test_validation_names_conversation_question_and_field(mutate, field, where):
    conv = conversation()
    mutate(conv)
    with pytest.raises(InputError) as e:
        locomo.validate([conversation("conv-ok"), conv], "f.json")
    msg = str(e.value)
    assert "conversation 'conv-x'" in msg and f"field '{field}'" in msg and "f.json" in msg
    if where:
        assert where in msg and f"conv-x_q00{where[-1]}" in msg


def test_duplicate_conversation_is_an_error():
    with pytest.raises(InputError, match="duplicate sample_id"):
        locomo.validate([conversation(), conversation()], "f.json")


def test_dates():
    assert locomo.parse_date("1:56 pm on 8 May, 2023").isoformat() == "2023-05-08T13:56:00"
    assert locomo.parse_date("12:09 am on 13 September, 2023").isoformat() == "2023-09-13T00:09:00"
    assert locomo.parse_date("12:30 pm on 1 Jan, 2024").isoformat() == "2024-01-01T12:30:00"
    assert locomo.parse_date("8 May 2023") is None


def test_format_detection(tmp_path):
    conv = tmp_path / "conv.json"
    conv.write_text(json.dumps([conversation()]))
    auto = group("dataset", "local", format=None)
    assert benchmark_of(auto, str(conv)).name == "locomo"
    assert benchmark_of(auto, str(SAMPLE_FILE)).name == "longmemeval"  # gzipped, first item only
    named = group("dataset", "local", format="locomo")
    assert benchmark_of(named, "never-read.json").name == "locomo"
    with pytest.raises(ConfigError, match="dataset.format.*longmemeval, locomo"):
        benchmark_of(group("dataset", "local", format="csv"), "never-read.json")
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{"id": 1}]))
    with pytest.raises(MemrecallError, match="no registered benchmark recognises"):
        benchmark_of(auto, str(other))


def test_subset_by_category_name():
    flat = locomo.flatten([conversation()])
    kept, _ = select(
        flat,
        group("dataset", "local", question_types=["adversarial"]),
        "f",
        types=tuple(locomo.CATEGORIES.values()),
    )
    assert [r["question_id"] for r in kept] == ["conv-x_q002"]
    with pytest.raises(ConfigError, match="multi-hop"):
        select(
            flat,
            group("dataset", "local", question_types=["multi-session"]),
            "f",
            types=tuple(locomo.CATEGORIES.values()),
        )


@needs_dev
def test_real_dev_slice():
    records = load_records(LOCOMO_FILE)
    locomo.validate(records, str(LOCOMO_FILE))
    ds = normalised(records)
    s = locomo.summary(ds)
    assert s["n_questions"] == 304 and s["n_abstention"] == 71
    assert s["by_category"] == {1: 43, 2: 63, 3: 13, 4: 114, 5: 71}
    assert ds.sessions.height == 38 and ds.turns.height == 788
    assert ds.turns["turn_id"].n_unique() < ds.turns.height  # dia_ids repeat across conversations
    assert ds.turns.select("session_id", "turn_id").is_unique().all()
    # the file's "D8:6; D9:17" evidence entry names two turns
    assert s["evidence_malformed"] == 1 and s["evidence_unresolved"] == 0
    # every evidence turn is a turn of the question's own conversation
    turn_ids = {(r["session_id"], r["turn_id"]) for r in ds.turns.to_dicts()}
    for r in ds.questions.to_dicts():
        conv = r["conversation_id"]
        for tid in r["answer_turn_ids"]:
            assert (f"{conv}_D{tid.split(':')[0][1:]}", tid) in turn_ids


@needs_dev
def test_download_stage_on_the_dev_slice(tmp_path):
    out = {k: tmp_path / f"{k}.parquet" for k in ("questions", "sessions", "turns")}
    cfg = group("dataset", "local", path=str(LOCOMO_FILE), limit=5)
    summ = run_download(cfg, **out, card_path=tmp_path / "card.md", raw_dir=tmp_path / "raw")
    assert summ["n_questions"] == 5
    q = pl.read_parquet(out["questions"])
    assert q["question_id"].to_list() == [f"conv-26_q{i:03d}" for i in range(5)]
    assert pl.read_parquet(out["sessions"]).height == 19  # conv-26 only
    card = (tmp_path / "card.md").read_text()
    assert "LoCoMo" in card and "| 5 | adversarial" in card and "limit: first 5" in card


def test_bad_file_shape_names_the_file(tmp_path):
    f = tmp_path / "bad.json"
    conv = conversation()
    del conv["qa"][0]["category"]
    f.write_text(json.dumps([conv]))
    out = {k: tmp_path / f"{k}.parquet" for k in ("questions", "sessions", "turns")}
    with pytest.raises(MemrecallError, match=r"qa\[0\]\.category"):
        run_download(
            group("dataset", "local", path=str(f)),
            **out,
            card_path=tmp_path / "card.md",
            raw_dir=tmp_path / "raw",
        )
    assert not any(p.exists() for p in out.values())


@needs_dev
@pytest.mark.parametrize(
    "renumber,culprit",
    [
        ({1: 2, 2: 1}, "category 1 holds most 'When did ...?' questions"),  # 1 <-> 2
        ({1: 4, 2: 1, 3: 2, 4: 3}, "category 1 holds most 'When did ...?' questions"),
        ({2: 3, 3: 2}, "category 3 holds most 'When did ...?' questions"),
    ],
)
def test_a_renumbered_file_is_refused_with_the_official_mapping(renumber, culprit):
    """Copies renumbered after the paper's list order would put every per-category number
    under the wrong name (snap-research/locomo#29)."""
    records = load_records(LOCOMO_FILE)
    for conv in records:
        for q in conv["qa"]:
            q["category"] = renumber.get(q["category"], q["category"])
    with pytest.raises(InputError) as e:
        locomo.validate(records, "renumbered.json")
    msg = str(e.value)
    assert culprit in msg and "snap-research/locomo/issues/29" in msg, msg
    assert "1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial" in msg
    assert e.value.file == "renumbered.json" and e.value.field.endswith("].category")
    assert e.value.question_id.startswith("conv-")


def test_small_files_are_not_judged_by_their_category_shapes():
    conv = conversation()
    conv["qa"] = [
        {"question": "When did Ann fly?", "answer": "May", "evidence": [], "category": 1}
    ] * 3
    locomo.validate([conv], "tiny.json")  # too few questions to tell: no error


def test_with_category_5_variants_are_labelled():
    from memrecall.benchmarks.locomo.report import with_category_5

    pq = pl.DataFrame(
        {
            "question_id": ["a", "b", "c", "d"],
            "correct": [True, False, True, None],
            "is_abstention": [False, False, True, True],
        }
    )
    f1 = pl.DataFrame({"question_id": ["a", "b", "c", "d"], "f1": [1.0, 0.0, 1.0, None]})
    w = with_category_5(pq, f1)
    assert w["overall"] == pytest.approx(2 / 3) and w["n_judged"] == 3
    assert w["f1_overall"] == pytest.approx(2 / 3) and "vendors" in w["label"]
