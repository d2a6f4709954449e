"""Order questions: the reference's named entities must appear in the response in that order. A
response that opens by saying the information is missing gives no order: the names it goes on to
list in the question's own order are not an ordering (as for either-or questions)."""

from __future__ import annotations

import re

from ...abstention import plain, says_missing
from .normalise import STOPWORDS, tokens
from .verdict import RuleVerdict

ORDER_QUESTION = re.compile(
    r"\border\b|\bearliest to latest\b|\bfirst,? second\b|"
    r"\bchronolog",
    re.IGNORECASE,
)


_TURN = re.compile(r"\b(?:but|however|though|although)\b")


def _entity_groups(answer: str) -> list[list[str]]:
    """Runs of capitalised words in the reference ("Big Sur", "Museum of Modern Art")."""
    groups, current, pending = [], [], []
    for w in re.findall(r"[A-Za-z][\w'’-]*|[^\sA-Za-z]+", answer):
        toks = [t for t in tokens(w) if t not in STOPWORDS]
        if w[:1].isupper() and toks and w.lower() not in STOPWORDS:
            current.extend(toks)
            pending = []
        elif current and w in ("of", "de", "the") and not pending:
            pending = [w]  # "Museum of Art": a connector inside a name
        else:
            if current:
                groups.append(current)
            current, pending = [], []
    if current:
        groups.append(current)
    return groups


def _find_run(run: list[str], seq: list[str]) -> int | None:
    for i in range(len(seq) - len(run) + 1):
        if seq[i : i + len(run)] == run:
            return i
    return None


def order_verdict(answer: str, hypothesis: str) -> RuleVerdict | None:
    groups = _entity_groups(answer)
    if len(groups) < 2:
        return None
    first = re.split(r"(?<=[.!?])\s+|\n+", hypothesis.strip(), maxsplit=1)[0]
    if says_missing(first) and not _TURN.search(plain(first)):
        # "I have no record of the order of A, B and C": the question's names, not an order.
        # "I lack the dates, but it was A, then B, then C" goes on to give one.
        return RuleVerdict(False, "order: says the information is missing, gives no order")
    hyp = tokens(hypothesis)
    hyp_content = [t for t in hyp if t not in STOPWORDS]
    positions = []
    for i, g in enumerate(groups):
        # Where the whole name appears; else where its words no other item shares appear.
        pos = _find_run(g, hyp_content)
        if pos is None:
            others = {t for j, h in enumerate(groups) if j != i for t in h}
            own = [t for t in g if t not in others]
            found = [hyp_content.index(t) for t in own if t in hyp_content]
            pos = min(found) if found else None
        if pos is None:
            return RuleVerdict(False, f"order: '{' '.join(g)}' missing")
        positions.append(pos)
    if all(a < b for a, b in zip(positions, positions[1:])):
        return RuleVerdict(True, "order: all items present in the reference order")
    return RuleVerdict(False, "order: items present but in a different order")
