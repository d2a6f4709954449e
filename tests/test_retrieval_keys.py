"""Key texts: session vs round granularity, user vs all, max_chars, fact expansion."""

from __future__ import annotations

import polars as pl
import pytest

from confs import group
from memrecall.errors import ConfigError
from memrecall.retrieval.expansion import parse_facts, session_facts
from memrecall.retrieval.keys import session_keys

TURNS = pl.DataFrame(
    [
        ("s1", 0, "user", "I adopted a cat named Miso.", True),
        ("s1", 1, "assistant", "Congratulations on Miso!", False),
        ("s1", 2, "user", "She likes tuna.", False),
        ("s1", 3, "assistant", "Tuna treats are fine.", False),
        ("s2", 0, "assistant", "Hello, how can I help?", False),
    ],
    schema={
        "session_id": pl.String,
        "turn_index": pl.Int32,
        "role": pl.String,
        "content": pl.String,
        "has_answer": pl.Boolean,
    },
    orient="row",
)
CFG = group("embedder", "minilm", granularity="session")


def test_session_key_is_user_turns_joined():
    keys = session_keys(None, TURNS, CFG)
    assert keys.columns == ["unit_id", "session_id", "text"]
    assert keys.row(0) == ("s1", "s1", "I adopted a cat named Miso.\nShe likes tuna.")
    assert keys.row(1) == ("s2", "s2", "")  # no user turn: still one (empty) unit


def test_key_all_and_max_chars():
    keys = session_keys(None, TURNS, {**CFG, "key": "all", "max_chars": 40})
    assert keys["text"][0] == "user: I adopted a cat named Miso.\nassist"
    assert len(keys["text"][0]) == 40


def test_round_units_use_official_turn_ids():
    keys = session_keys(None, TURNS, {**CFG, "granularity": "round", "key": "all"})
    assert keys["unit_id"].to_list() == ["s1_1", "s1_3", "s2"]
    assert keys["text"][1] == "user: She likes tuna.\nassistant: Tuna treats are fine."
    user_only = session_keys(None, TURNS, {**CFG, "granularity": "round"})
    assert user_only["text"].to_list() == ["I adopted a cat named Miso.", "She likes tuna.", ""]


def test_sessions_table_restricts_units():
    sessions = pl.DataFrame({"session_id": ["s2"]})
    assert session_keys(sessions, TURNS, CFG)["unit_id"].to_list() == ["s2"]


def test_facts_prepended_or_added_as_unit():
    facts = {"s1": "The user has a cat named Miso."}
    keys = session_keys(None, TURNS, CFG, facts=facts)
    assert keys["text"][0].startswith("The user has a cat named Miso.\nI adopted")
    rounds = session_keys(None, TURNS, {**CFG, "granularity": "round"}, facts=facts)
    assert rounds["unit_id"].to_list() == ["s1_1", "s1_3", "s1_facts", "s2"]


def test_fact_only_keys_replace_the_text_where_facts_exist():
    facts = {"s1": "The user has a cat named Miso."}
    only = {**CFG, "expansion": "fact_only"}
    keys = session_keys(None, TURNS, only, facts=facts)
    assert keys.rows() == [("s1", "s1", "The user has a cat named Miso."), ("s2", "s2", "")]
    rounds = session_keys(None, TURNS, {**only, "granularity": "round"}, facts=facts)
    assert rounds["unit_id"].to_list() == ["s1_facts", "s2"]
    # no facts extracted for a session: it keeps its ordinary key
    assert session_keys(None, TURNS, only, facts={})["text"][0].startswith("I adopted a cat")


def test_bad_granularity_names_the_key():
    with pytest.raises(ConfigError, match="embedder.granularity"):
        session_keys(None, TURNS, {**CFG, "granularity": "turn"})


class _Result:
    def __init__(self, text, error=None):
        self.text, self.error = text, error


class FakeClient:
    def __init__(self):
        self.calls = []

    def complete_many(self, messages_list, desc=""):
        self.calls.append(messages_list)
        return [
            _Result("- The user has a cat named Miso.\n- The cat likes tuna.")
            for _ in messages_list
        ]


def test_fact_expansion_calls_llm_once_per_session_with_user_turns():
    client = FakeClient()
    facts = session_facts(None, TURNS, {**CFG, "expansion": "fact"}, client=client)
    assert facts == {"s1": "The user has a cat named Miso.\nThe cat likes tuna."}
    assert len(client.calls) == 1 and len(client.calls[0]) == 1  # s2 has no user turn
    prompt = client.calls[0][0][0]["content"]
    assert "I adopted a cat named Miso." in prompt and "Congratulations" not in prompt
    assert session_facts(None, TURNS, {**CFG, "expansion": "none"}, client=client) == {}


def test_failed_extraction_leaves_session_unexpanded():
    class Failing(FakeClient):
        def complete_many(self, messages_list, desc=""):
            return [_Result(None, error="RateLimitError") for _ in messages_list]

    assert session_facts(None, TURNS, {**CFG, "expansion": "fact"}, client=Failing()) == {}
    assert parse_facts("NONE") == "" and parse_facts("1. a\n2) b\n- a\n") == "a\nb"
