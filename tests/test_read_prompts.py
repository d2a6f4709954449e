"""Reader prompts: selection by name, exact assembly, per-type guidance, hashes that follow the
template text, and answer extraction for the Chain-of-Note prompt."""

from __future__ import annotations

import dataclasses
import re

import pytest

from confs import group
from memrecall.benchmarks.longmemeval import BENCHMARK as LME
from memrecall.benchmarks.longmemeval import prompts as P
from memrecall.errors import ConfigError
from memrecall.read.prompts import NOTES_HASH
from memrecall.read.reader import reader_settings

HIST = "### Session 1:\nSession Date: 2023/01/01 (Sun) 10:00\nSession Content:\nuser: hi"


def render(name, qtype="single-session-user", question="Where do I work?"):
    return P.PROMPTS[name].render(
        question=question, question_type=qtype, today="2023/05/30 (Tue) 23:51", history=HIST
    )


def test_prompt_names_and_unknown_name_error():
    assert set(P.PROMPTS) == {
        "default",
        "type_aware",
        "multi_session",
        "recency",
        "con",
        "preference",
    }
    with pytest.raises(ConfigError) as e:
        reader_settings(_cfg(prompt="cot"), LME)
    msg = str(e.value)
    assert "reader.prompt" in msg and "'cot'" in msg
    for name in P.PROMPTS:
        assert name in msg


def test_default_prompt_exact_assembly():
    assert render("default") == (
        "I will give you several past chat sessions between you (the assistant) and a user, "
        "each with its date, in date order. Answer the user's question based on the relevant "
        "chat history. If the chat history does not contain the information needed to answer, "
        "say that the information is not available instead of guessing.\n\n"
        "History Chats:\n" + HIST + "\n\n"
        "Current Date: 2023/05/30 (Tue) 23:51\nQuestion: Where do I work?\nAnswer:"
    )


def test_every_prompt_invites_abstention_and_gives_today():
    for name in P.PROMPTS:
        for qtype in ("multi-session", "single-session-preference", "temporal-reasoning"):
            text = render(name, qtype)
            assert "the information is not available" in text
            assert "Current Date: 2023/05/30 (Tue) 23:51\nQuestion: Where do I work?" in text


def test_type_aware_guidance_by_type():
    base = render("default", "multi-session")
    ms = render("type_aware", "multi-session")
    ku = render("type_aware", "knowledge-update")
    assert ms == base.replace(
        "instead of guessing.\n", "instead of guessing.\n" + P.MULTI_SESSION + "\n", 1
    )
    assert "session by session" in ms and "remove duplicates" in ms and "count" in ms
    assert "most recent session by date" in ku
    # Preference (and every other type) is left at the default prompt: identical request text,
    # so switching default -> type_aware re-sends only the multi-session/knowledge-update ones.
    for qtype in (
        "single-session-preference",
        "single-session-user",
        "temporal-reasoning",
        "single-session-assistant",
    ):
        assert render("type_aware", qtype) == render("default", qtype)
    assert P.PREFERENCE not in render("type_aware", "single-session-preference")
    assert P.PREFERENCE in render("preference", "single-session-preference")
    assert render("preference", "multi-session") == ms


def test_con_prompt_structure_and_answer_extraction():
    text = render("con", "multi-session")
    step1, step2 = text.index("Step 1 - Notes"), text.index("Step 2 - Answer")
    assert step1 < step2 < text.index("History Chats:") < text.index("Question:")
    assert text.endswith("Question: Where do I work?\nNotes:")
    con = P.PROMPTS["con"]
    out = "Session 1 (2023/01/01): works at Acme\nSession 2: nothing relevant\nAnswer: At Acme."
    assert con.extract_answer(out) == "At Acme."
    assert con.extract_answer("Notes... final answer:  Paris ") == "Paris"
    assert con.extract_answer("no marker at all") == "no marker at all"
    assert con.extract_answer("Answer:") == "Answer:"  # nothing after the marker: keep it all
    # Direct prompts keep the whole output.
    assert P.PROMPTS["default"].extract_answer(" Answer: x ") == "Answer: x"


def test_prompt_id_is_name_plus_template_hash():
    ids = {name: p.prompt_id for name, p in P.PROMPTS.items()}
    for name, pid in ids.items():
        assert re.fullmatch(rf"{name}:[0-9a-f]{{8}}", pid)
    assert len({pid.split(":")[1] for pid in ids.values()}) == len(ids)  # all distinct
    default = P.PROMPTS["default"]
    assert dataclasses.replace(default).template_hash == default.template_hash
    edited = dataclasses.replace(default, template=default.template.replace("Answer:", "A:"))
    assert edited.template_hash != default.template_hash
    ta = P.PROMPTS["type_aware"]
    reworded = dataclasses.replace(ta, guidance={**ta.guidance, "knowledge-update": "newest"})
    assert reworded.template_hash != ta.template_hash


def test_braces_in_history_or_question_are_kept_verbatim():
    text = P.PROMPTS["default"].render(
        question="What is {x}?",
        question_type="multi-session",
        today="t",
        history='[{"role": "user"}]',
    )
    assert '[{"role": "user"}]' in text and "Question: What is {x}?" in text


def _cfg(**over):
    return group("reader", "local", **over)


def test_reader_settings_checks_every_knob():
    s = reader_settings(_cfg(prompt="con", reading="con"), LME)
    assert s.prompt.name == "con" and s.top_k_context == 3
    assert s.prompt_id == f"{P.PROMPTS['con'].prompt_id}+notes:{NOTES_HASH}"
    assert reader_settings(_cfg(), LME).prompt_id == P.PROMPTS["default"].prompt_id
    bad = [
        ({"prompt": "nope"}, "reader.prompt"),
        ({"history_format": "xml"}, "reader.history_format"),
        ({"reading": "cot"}, "reader.reading"),
        ({"top_k_context": 0}, "reader.top_k_context"),
        ({"max_chars_per_session": "big"}, "reader.max_chars_per_session"),
    ]
    for over, key in bad:
        with pytest.raises(ConfigError, match=re.escape(key)):
            reader_settings(_cfg(**over), LME)
