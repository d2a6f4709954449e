"""The verdict every rule family returns."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...hashing import sha256_text

RULES_VERSION = "rule-v1"
_PACKAGE = Path(__file__).parent
# The rules' source: every module of this package and the shared ones they read (the abstention
# phrases, the thinking block), by name, so a change to any of them shows in the verdicts.
_SOURCES = sorted(_PACKAGE.glob("*.py")) + [
    _PACKAGE.parents[1] / "abstention.py",
    _PACKAGE.parents[1] / "thinking.py",
]
RULES_HASH = sha256_text("".join(f"{f.name}\n{f.read_text(encoding='utf-8')}" for f in _SOURCES))[
    :12
]


@dataclass(frozen=True)
class RuleVerdict:
    label: bool | None  # None: the rules cannot judge this question (the reason says why)
    reason: str  # short, human-readable: which rule decided and on what
    score: float | None = None  # a benchmark scoring in [0, 1]; None: the label is the score
