"""Abstention (`_abs` questions): correct when the response says the information is missing.

The phrases are memrecall.abstention's, shared with the refusal classifier (llm/refusal.py), so
the refusal rate and the rule judge classify an answer the same way.
"""

from __future__ import annotations

from ...abstention import says_missing


def abstains(hypothesis: str) -> bool:
    """Does the response say the asked information is missing from the history?"""
    return says_missing(hypothesis)
