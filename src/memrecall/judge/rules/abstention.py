"""Abstention (`_abs` questions): correct when the response says the information is missing."""

from __future__ import annotations

import re

from .normalise import normalize

_ABSTAIN = re.compile("|".join(f"(?:{p})" for p in [
    r"\b(?:did not|didn't|have not|haven't|has not|hasn't|never|do not|don't|does not|doesn't)"
    r" (?:\w+ )?(?:mention|say|said|tell|told|specif|share|state|provide|discuss|talk|bring)",
    r"\bnot (?:been |be )?(?:mentioned|specified|stated|provided|available|included|discussed|"
    r"given|found|recorded|shared|known|indicated|covered)\b",
    r"\bno (?:mention|information|info|record|records|details?|indication|evidence|data|"
    r"reference|way to (?:know|tell|determine))\b",
    r"\b(?:i|we) (?:don't|do not) (?:have|know|see)\b",
    r"\b(?:can't|cannot|can not|unable to|not able to|impossible to) (?:\w+ )?(?:answer|"
    r"determine|tell|say|find|know|confirm|calculate|compute|identify|infer|work out)",
    r"\bcannot be (?:determined|answered|found|inferred|calculated)\b",
    r"\b(?:not enough|insufficient|incomplete|missing|lack of) (?:\w+ )?(?:information|info|"
    r"details|data|context)\b",
    r"\b(?:is|are|was|were) (?:not enough|insufficient|incomplete|missing)\b",
    r"\bonly (?:mentioned|talked about|told me about|said)\b",
    r"\bbut not\b",
]))


def abstains(hypothesis: str) -> bool:
    """Does the response say the asked information is missing from the history?"""
    return bool(_ABSTAIN.search(normalize(hypothesis)))
