"""Rewrite prompts and the parsing of untrusted model output: variant lists and time ranges."""

from __future__ import annotations

from datetime import date

import pytest

from memrecall.errors import ConfigError
from memrecall.rewrite.prompts import (
    MULTIANGLE_EXAMPLE,
    TIME_EXAMPLES,
    TimeRange,
    get_variant_prompt,
    parse_time_range,
    parse_variants,
    time_range_messages,
)

Q = "What type of cocktail recipe did I try last weekend?"


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "1. my new cocktail recipe\n2. I tried mixing a drink\n3. weekend mixology",
            ["my new cocktail recipe", "I tried mixing a drink", "weekend mixology"],
        ),
        (
            '```json\n["gin sour recipe", "I made a cocktail", "drinks I mixed"]\n```',
            ["gin sour recipe", "I made a cocktail", "drinks I mixed"],
        ),
        (
            'Sure! Here are 3 rewrites:\n- "gin sour recipe"\n* I made a cocktail\n'
            "Query 3: drinks I mixed",
            ["gin sour recipe", "I made a cocktail", "drinks I mixed"],
        ),
        # Duplicates, the question itself and blank lines are dropped; extras beyond n are cut.
        (
            f"{Q}\nI made a cocktail\n\ni MADE a cocktail!\n2) gin sour\n3) lime\n4) rum",
            ["I made a cocktail", "gin sour", "lime"],
        ),
        # Fewer than asked is fine: what is usable is used.
        ("1) Cocktail I tried recently", ["Cocktail I tried recently"]),
    ],
)
def test_parse_variants(text, expected):
    assert parse_variants(text, Q, 3) == (expected, None)


@pytest.mark.parametrize(
    "text",
    [
        None,
        "",
        "   ",
        "1.\n2.\n-",
        Q,
        f"1. {Q}\n2. {Q.upper()}",
        "Here are the rewrites:",
        "x" * 400,
    ],
)
def test_garbage_variants_give_error_and_no_variant(text):
    variants, err = parse_variants(text, Q, 3)
    assert variants == [] and err


def test_variant_prompt_messages():
    msgs = get_variant_prompt("multiangle").messages(Q, 2)
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user"]
    assert "Write 2 different search queries" in msgs[0]["content"]
    assert "Output exactly 2 lines" in msgs[0]["content"]
    assert msgs[1]["content"] == f"Question: {MULTIANGLE_EXAMPLE[0]}"
    assert msgs[2]["content"].count("\n") == 1  # the example shows n=2 lines
    assert msgs[-1] == {"role": "user", "content": f"Question: {Q}"}
    with pytest.raises(ConfigError, match=r"rewrite\.prompt.*multiangle"):
        get_variant_prompt("hyde")


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"start": "2023/06/01", "end": "2023/06/30"}', "2023/06/01..2023/06/30"),
        ('```json\n{"start": "2023-04-03", "end": "2023-04-09"}\n```', "2023/04/03..2023/04/09"),
        (
            'Range: {"start": "2023/05/10", "end": "2023/05/02"}',
            "2023/05/02..2023/05/10",
        ),  # swapped
        ("from 2023/01/25 to 2023/02/05", "2023/01/25..2023/02/05"),
    ],
)
def test_parse_time_range(text, expected):
    rng, err = parse_time_range(text)
    assert err is None and str(rng) == expected


def test_time_range_na_and_garbage():
    assert parse_time_range("N/A") == (None, None)
    assert parse_time_range(" n/a (no time reference)") == (None, None)
    for bad in (None, "", "last week probably", '{"start": "2023/13/40", "end": "x"}'):
        rng, err = parse_time_range(bad)
        assert rng is None and err


def test_time_range_widening():
    rng = TimeRange(date(2023, 6, 1), date(2023, 6, 30)).widened(2)
    assert (rng.start, rng.end) == (date(2023, 5, 30), date(2023, 7, 2))
    assert rng.contains(date(2023, 5, 30)) and not rng.contains(date(2023, 5, 29))


def test_time_range_messages_few_shot():
    msgs = time_range_messages("Where did I go last week?", "2023/04/10 (Mon) 08:05")
    assert msgs[0]["role"] == "system" and "N/A" in msgs[0]["content"]
    assert len(msgs) == 1 + 2 * len(TIME_EXAMPLES) + 1
    assert msgs[-1]["content"] == (
        "Question date: 2023/04/10 (Mon) 08:05\nQuestion: Where did I go last week?"
    )
    # Every worked example is itself parseable, so the format we teach is the one we read.
    for m in msgs[2:-1:2]:
        rng, err = parse_time_range(m["content"])
        assert err is None


def test_echoed_worked_example_is_not_a_variant():
    # Seen with SmolLM2-135M: one real variant, then the example's lines copied verbatim.
    prompt = get_variant_prompt("multiangle")
    ex = MULTIANGLE_EXAMPLE[1].split("\n")
    text = f"I was in Korea for 2 years\n{ex[1]}\n{ex[2].upper()}\ntips for training a rescue mix"
    assert prompt.parse(text, "How long was I in Korea?", 3) == (
        ["I was in Korea for 2 years"],
        None,
    )
    # A new line that shares a few words with the example is kept.
    assert prompt.parse("tips for walking my dog", "What dog do I have?", 3)[0] == [
        "tips for walking my dog"
    ]
    variants, err = prompt.parse("\n".join(ex), "What breed is my dog?", 3)
    assert variants == [] and "no usable variant" in err
