"""The verdict every rule family returns."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...hashing import sha256_text

RULES_VERSION = "rule-v1"
# The rules' source (every module of this package, by name): a rule change shows in the verdicts.
RULES_HASH = sha256_text(
    "".join(
        f"{f.name}\n{f.read_text(encoding='utf-8')}"
        for f in sorted(Path(__file__).parent.glob("*.py"))
    )
)[:12]


@dataclass(frozen=True)
class RuleVerdict:
    label: bool | None  # None: the rules cannot judge this question (the reason says why)
    reason: str  # short, human-readable: which rule decided and on what
    score: float | None = None  # a benchmark scoring in [0, 1]; None: the label is the score
