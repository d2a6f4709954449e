"""Abstention (`_abs` questions): correct when the response says the information is missing.

The phrases are memrecall.abstention's, shared with the refusal classifier (llm/refusal.py), so
the refusal rate and the rule judge classify an answer the same way.
"""

from __future__ import annotations

import re

from ...abstention import plain, says_missing


def abstains(hypothesis: str) -> bool:
    """Does the response say the asked information is missing from the history?"""
    return says_missing(hypothesis)


def opens_by_declining(hypothesis: str) -> bool:
    """Does the response open by saying it cannot answer ("I cannot determine which came first.
    The messages mention ...")? For an answerable question that is not an answer, even when the
    facts it goes on to list contain the reference."""
    first = re.split(r"(?<=[.!?])\s+|\n+", hypothesis.strip(), maxsplit=1)[0]
    return bool(_DECLINE.search(plain(first))) and not _BUT.search(plain(first))


# Saying the question cannot be answered, not just that some detail is missing ("I couldn't
# find the exact date, but ..." goes on to answer).
_DECLINE = re.compile(
    r"\b(?:can't|cannot|can not|unable to|not able to) (?:\w+ )?(?:answer|"
    r"determine|tell|say|calculate|compute|work out)\b|\b(?:not enough|"
    r"insufficient|don't have enough|do not have enough) (?:\w+ )?"
    r"(?:information|info|details|data|context)\b"
)
_BUT = re.compile(r"\b(?:but|however|although|though)\b")
