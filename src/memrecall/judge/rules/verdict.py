"""The verdict every rule family returns."""

from __future__ import annotations

from dataclasses import dataclass

RULES_VERSION = "rule-v1"


@dataclass(frozen=True)
class RuleVerdict:
    label: bool
    reason: str  # short, human-readable: which rule decided and on what
