"""Sentence granularity: the session key, then the user's first-person sentences, each a unit."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from confs import group
from memrecall.benchmarks.locomo import BENCHMARK as LOCOMO
from memrecall.hashing import sha256_text
from memrecall.retrieval.keys import session_keys
from memrecall.retrieval.retrieve import retrieve
from memrecall.retrieval.sentences import user_sentences
from test_retrieval_passages import _turns
from test_retrieval_ranking import RCFG, FixedEncoder, _embeddings, _questions

SENTENCE = group("embedder", "minilm", granularity="sentence")


def test_user_sentences_keep_first_person_statements_once():
    text = (
        "Can you recommend some car wax? By the way, I did the Turbocharged Tuesdays event "
        "today!  The wax should be cheap.\nMy car is a 2018 Mustang\n\nThanks! "
        "My car is a 2018 Mustang\nWhat do we need?"
    )
    assert user_sentences(text) == [
        "By the way, I did the Turbocharged Tuesdays event today!",
        "My car is a 2018 Mustang",
        "What do we need?",
    ]
    # Whole words only: "Mine" counts, "mineral" and "item" do not; "I'm" is a first person.
    assert user_sentences("Mineral water is an item sold here. Mine is blue.") == ["Mine is blue."]
    assert user_sentences("I'm moving to Lisbon.") == ["I'm moving to Lisbon."]
    assert user_sentences("I agree.") == []  # fewer than three words: nothing to retrieve
    assert user_sentences("") == [] and user_sentences(None) == []


def test_sentence_units_follow_the_session_key_whose_vector_is_shared():
    turns = _turns(
        {
            "s1": [
                "Can you suggest a flash? I own a Sony A7R IV camera.",
                "Great, thanks a lot. My budget is $300.",
            ],
            "s2": ["Write a haiku about autumn leaves."],
        }
    )
    units = session_keys(None, turns, SENTENCE)
    sessions = session_keys(None, turns, {**SENTENCE, "granularity": "session"})
    assert units.rows() == [
        ("s1_s0", "s1", sessions["text"][0]),
        ("s1_s1", "s1", "I own a Sony A7R IV camera."),
        ("s1_s2", "s1", "My budget is $300."),
        ("s2_s0", "s2", "Write a haiku about autumn leaves."),  # no first person: the key only
    ]
    assert sha256_text(units["text"][0]) == sha256_text(sessions["text"][0])  # one cache entry


def test_each_sentence_carries_its_speaker_in_two_person_conversations():
    turns = pl.DataFrame(
        {
            "session_id": ["c1", "c1"],
            "turn_index": [0, 1],
            "role": ["user", "user"],
            "speaker": ["Caroline", "Melanie"],
            "content": [
                "Hi! I went to a support group. It was moving for me.",
                "We painted a lake last week.",
            ],
        }
    )
    # LoCoMo names its speaker column; the keys never look for one themselves.
    units = session_keys(None, turns, SENTENCE, speaker_column=LOCOMO.speaker_column)
    assert units["text"].to_list()[1:] == [
        "Caroline: I went to a support group.",
        "Caroline: It was moving for me.",
        "Melanie: We painted a lake last week.",
    ]
    assert session_keys(None, turns, SENTENCE)["text"].to_list()[1:] == [
        "I went to a support group.",
        "It was moving for me.",
        "We painted a lake last week.",
    ]


def test_a_fact_said_in_passing_ranks_its_session_first():
    ecfg = group("embedder", "minilm", model="x", granularity="sentence")
    # a: a session about car wax (key off the question) whose one sentence answers it;
    # b: a session on the question's topic in general, without the fact.
    emb = _embeddings(
        [
            ("a_s0", "a", [0.3, 1.0], "recommend car wax; by the way I did the event"),
            ("a_s1", "a", [1.0, 0.05], "By the way, I did the Turbocharged Tuesdays event today."),
            ("b_s0", "b", [0.6, 0.8], "what events are there at the race track"),
        ]
    )
    q = _questions([("q1", "When did I do the Turbocharged Tuesdays event?", ["b", "a"], ["a"])])
    enc = FixedEncoder([[1.0, 0.0]])
    assert retrieve(q, emb.filter(pl.col("unit_id") != "a_s1"), RCFG, ecfg, encoder=enc)[
        "session_id"
    ].to_list() == ["b", "a"]  # the key alone: b
    for pool in ("max", "blend"):
        got = retrieve(q, emb, {**RCFG, "unit_pool": pool}, ecfg, encoder=enc)
        assert got["session_id"].to_list() == ["a", "b"], pool
    blend = retrieve(q, emb, {**RCFG, "unit_pool": "blend"}, ecfg, encoder=enc)
    key_cos, fact_cos = 0.3 / np.hypot(0.3, 1.0), 1.0 / np.hypot(1.0, 0.05)
    assert blend["score"][0] == pytest.approx((key_cos + fact_cos) / 2)
    # BM25 reads each session's key (its first unit), not its sentences twice over.
    bm = retrieve(q, emb, {**RCFG, "method": "bm25"}, ecfg)
    assert sorted(bm["session_id"].to_list()) == ["a", "b"] and len(bm) == 2
