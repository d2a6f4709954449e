"""Order questions: the reference's named entities must appear in the response in that order; in
a reference written as a sequence or a numbered list, an item is placed by the first of its
names the response gives, and one of them is enough ("First, a coupon at Walmart. Then an
Amazon gift card from Ibotta.": "the Walmart coupon, then the Ibotta cashback"). A reference
without names that is written as a sequence ("First, I did A, then B, and lastly C") is an
order of its steps, each found in the response by a third of the words no other step shares. A
response that opens by saying the information is missing gives no order: the names it goes on to
list in the question's own order are not an ordering (as for either-or questions)."""

from __future__ import annotations

import re

from ...abstention import plain, says_missing
from .normalise import STOPWORDS, tokens
from .phrases import LIST_NUMBER, TURN
from .response import first_sentence
from .verdict import RuleVerdict

ORDER_QUESTION = re.compile(
    r"\border\b|\bearliest to latest\b|\bfirst,? second\b|"
    r"\bchronolog",
    re.IGNORECASE,
)


# The words that set out a sequence in a reference ("First, ..., then ..., and lastly ...").
SEQUENCE = re.compile(
    r"\b(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|then|next|after that|afterwards?|"
    r"finally|lastly|followed by)\b",
    re.IGNORECASE,
)


def _entity_groups(answer: str) -> list[list[str]]:
    """Runs of capitalised words in the reference ("Big Sur", "Museum of Modern Art")."""
    groups, current, pending = [], [], []
    for w in re.findall(r"[A-Za-z][\w'’-]*|[^\sA-Za-z]+", answer):
        toks = [t for t in tokens(w) if t not in STOPWORDS]
        # "First, I ...": a sentence's opening sequence word is capitalised, and no name
        if w[:1].isupper() and toks and w.lower() not in STOPWORDS and not SEQUENCE.fullmatch(w):
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


# Where a reference's list starts its next item: a sequence word or a list number ("2.").
_NEXT_ITEM = re.compile(rf"{SEQUENCE.pattern}|{LIST_NUMBER}", re.IGNORECASE)


def _named_items(answer: str) -> list[list[list[str]]]:
    """The names of each item of a reference written as a sequence or a numbered list ("First,
    a coupon at Walmart. Then a gift card from Ibotta."), one list of groups per item; empty when
    fewer than two items name something. An item's names may come in any order in a response
    ("your Ibotta cashback for an Amazon gift card"): the order asked for is the items'."""
    items = [g for g in (_entity_groups(p) for p in _NEXT_ITEM.split(answer)) if g]
    return items if len(items) >= 2 else []


def _sequence_steps(answer: str) -> list[list[str]]:
    """The steps of a reference written as a sequence, each as the content words no other step
    shares; empty when the reference is not one (fewer than two steps with such words)."""
    parts = [[t for t in tokens(p) if t not in STOPWORDS] for p in SEQUENCE.split(answer)]
    parts = [p for p in parts if p]
    if len(parts) < 2:
        return []
    steps = []
    for i, p in enumerate(parts):
        others = {t for j, q in enumerate(parts) if j != i for t in q}
        steps.append(list(dict.fromkeys(t for t in p if t not in others)))
    return steps if all(steps) else []


def _step_position(step: list[str], seq: list[str]) -> int | None:
    """Where the response first mentions a step: the first of its words from which at least a
    third of the step's words follow within a short window (a list item, a clause). A response
    names a step in short ("the airport run" for "I drove my aunt to the airport"), as it names
    an item by one of its names."""
    need = (len(step) + 2) // 3
    window = 3 * len(step) + 3
    for i, t in enumerate(seq):
        if t in step and len(set(seq[i : i + window]) & set(step)) >= need:
            return i
    return None


def _name_position(group: list[str], groups: list[list[str]], seq: list[str]) -> int | None:
    """Where the response names a reference's name: where the whole name appears, else where its
    words no other name shares appear. A lone letter ("k" of "5K Run") names nothing."""
    pos = _find_run(group, seq)
    if pos is not None:
        return pos
    others = {t for h in groups if h != group for t in h}
    found = [seq.index(t) for t in group if t not in others and len(t) > 1 and t in seq]
    return min(found) if found else None


def _find_run(run: list[str], seq: list[str]) -> int | None:
    for i in range(len(seq) - len(run) + 1):
        if seq[i : i + len(run)] == run:
            return i
    return None


# A list given latest first: "From last to first: C, B, A", "in reverse order", "most recent
# first". It states the reference's order when the question asked for the other direction.
_LATEST_FIRST = re.compile(
    r"\breversed? (?:chronological )?order\b|\bfrom (?:the )?(?:last|latest|most recent|newest) "
    r"to (?:the )?(?:first|earliest|oldest)\b|\b(?:most recent|latest|newest) first\b"
)


def _in_order(positions: list[int], latest_first: bool) -> bool:
    pairs = list(zip(positions, positions[1:]))
    return all(a > b for a, b in pairs) if latest_first else all(a < b for a, b in pairs)


# Where a response states the order it settles on, after the evidence it weighed ("So the
# chronological order is:", "**Chronological order:**", "Here they are from earliest to
# latest:"): the sessions it listed by date before that are not its answer.
_STATES_ORDER = re.compile(
    r"\b(?:the (?:\w+ )?order (?:is|was|would be)\b|in (?:\w+ )?order\b[^.\n]{0,40}:|"
    r"order[*_]*:|"
    r"from (?:the )?(?:earliest|first|oldest) to (?:the )?(?:latest|last|most recent|newest)"
    r"\b[^.\n]{0,40}:)",
    re.IGNORECASE,
)


def _stated_order(hypothesis: str, placed) -> str:
    """The part of the response after its last statement of the order, when every item is
    placed there (`placed` says so of a text); else the whole response."""
    marks = list(_STATES_ORDER.finditer(hypothesis))
    if marks:
        tail = hypothesis[marks[-1].end() :]
        if placed(tail):
            return tail
    return hypothesis


def order_verdict(question: str, answer: str, hypothesis: str) -> RuleVerdict | None:
    groups = _entity_groups(answer)
    steps = _sequence_steps(answer) if len(groups) < 2 else []
    if len(groups) < 2 and not steps:
        return None
    first = first_sentence(hypothesis)
    if says_missing(TURN.split(plain(first))[-1], instead=False):
        # "I have no record of the order of A, B and C": the question's names, not an order.
        # "I lack the dates, but it was A, then B, then C" goes on to give one; "I'm sorry, but
        # I found no record of A, B or C" does not (what follows its turn says it is missing).
        return RuleVerdict(False, "order: says the information is missing, gives no order")
    latest_first = bool(_LATEST_FIRST.search(plain(hypothesis))) and not _LATEST_FIRST.search(
        plain(question)
    )
    items = _named_items(answer) or [[g] for g in groups]

    def content(text: str) -> list[str]:
        return [t for t in tokens(text) if t not in STOPWORDS]

    def placed(text: str) -> bool:
        said = content(text)
        if steps:
            return all(_step_position(step, said) is not None for step in steps)
        return all(any(_name_position(g, groups, said) is not None for g in i) for i in items)

    hyp_content = content(_stated_order(hypothesis, placed))
    if steps:
        found = [_step_position(step, hyp_content) for step in steps]
        if None in found:
            missing = steps[found.index(None)]
            return RuleVerdict(False, f"order: step '{' '.join(missing)}' missing")
        if _in_order(found, latest_first):
            return RuleVerdict(True, "order: all steps present in the reference order")
        return RuleVerdict(False, "order: steps present but in a different order")
    positions = []
    for item in items:
        # One of an item's names places it: "Zion" for the reference's "I hiked in Zion National
        # Park in Utah" is the same item.
        found = [p for p in (_name_position(g, groups, hyp_content) for g in item) if p is not None]
        if not found:
            return RuleVerdict(False, f"order: '{' '.join(item[0])}' missing")
        positions.append(min(found))
    if _in_order(positions, latest_first):
        return RuleVerdict(True, "order: all items present in the reference order")
    return RuleVerdict(False, "order: items present but in a different order")
