"""LongMemEval's question types and its abstention rule (the official code's)."""

from __future__ import annotations

QUESTION_TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
)
SHORT_NAMES = {
    "single-session-user": "SS-User",
    "single-session-assistant": "SS-Asst",
    "single-session-preference": "SS-Pref",
    "multi-session": "Multi",
    "knowledge-update": "KU",
    "temporal-reasoning": "Temporal",
}
ABSTENTION_MARK = "_abs"  # an abstention question's id contains it (evaluate_qa.py's test)


def is_abstention_id(question_id: str) -> bool:
    return ABSTENTION_MARK in question_id
