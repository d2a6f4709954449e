"""Where the rule judge should not be trusted alone: the answers `judge=routed` sends to an LLM
judge (judge/routed.py), with the reason.

The rules read a response by the words it uses. Where a response turns from one thing to
another ("..., but ...", "however"), corrects or takes back what it said ("actually", "sorry",
"I misremembered", "scratch that", "never mind") or is a preference rubric read by its words,
the rules pick one reading, and that is where they and an LLM judge part. So do a response that
reasons and then labels its answer, where the rules read the answer and the reasoning
differently (docs/findings/rule-judge/round-46.md). The words people use to correct themselves
are open-ended (docs/findings/rule-judge/round-40.md), so the markers are broad: a marker that
refers an answer the rules had right costs a call, never a verdict.

    item = {"question_type": "multi-session", "question": "How many plants do I have?",
            "answer": "6", "hypothesis": "You have 5 plants. Actually, it's 6."}
    referral(item, True)  # -> "the response turns or corrects itself ('Actually')"
"""

from __future__ import annotations

import re

from .dispatch import as_read, judge_item
from .phrases import TURN
from .response import reasoning_before_answer

# A turn (normalise.TURN) or a correction, a retraction or a second look.
TURNS_OR_CORRECTS = re.compile(
    TURN.pattern + r"|\b(?:actually|wait|hold on|sorry|apolog\w*|correction|corrected|"
    r"correct myself|mistaken?|misspoke|misread|misremember\w*|scratch that|"
    r"on second thought|rather|instead|reconsider\w*|rethink\w*|re-?read\w*|re-?check\w*|"
    r"forget|never ?mind|disregard|ignore|take (?:that|it) back|rely on)\b",
    re.IGNORECASE,
)

CANNOT_JUDGE = "the rules cannot judge it"
RUBRIC = "a preference rubric, which the rules read by its words"
READINGS_DIFFER = "its labelled answer and the reasoning before it read differently"


def turns_or_corrects(hypothesis: str | None) -> str | None:
    """Why a response's reading is in doubt: the first turn or correction it makes, as the
    rules read it (after its model's thinking); None when it makes none."""
    m = TURNS_OR_CORRECTS.search(as_read(hypothesis))
    return f"the response turns or corrects itself ({m.group(0)!r})" if m else None


def any_referral(hypothesis: str | None, label: bool | None) -> str | None:
    """Why a rule verdict of any benchmark goes to an LLM judge (Benchmark.rule_referral's
    default): the rules cannot judge it, or the response turns or corrects itself."""
    return CANNOT_JUDGE if label is None else turns_or_corrects(hypothesis)


def referral(item: dict, label: bool | None) -> str | None:
    """Why a LongMemEval rule verdict goes to an LLM judge, or None to keep it: also every
    preference rubric, and a response whose labelled answer the rules read otherwise than the
    reasoning before it (`readings_differ`). `item`: question_type, question, answer,
    hypothesis, is_abstention."""
    if label is not None and item["question_type"] == "single-session-preference":
        return RUBRIC
    return any_referral(item["hypothesis"], label) or readings_differ(item, label)


def readings_differ(item: dict, label: bool | None) -> str | None:
    """Why a verdict on a response that reasons and then labels its answer is in doubt: the
    rules judge the labelled answer ("Answer: lighter gray") otherwise than the reasoning
    before it ("you repainted them a lighter shade of gray"). An LLM judge reads the whole
    response, the rules its answer; where the two readings part, so may they."""
    if label is None:
        return None
    before = reasoning_before_answer(as_read(item["hypothesis"]))
    if before is None:
        return None
    return (
        READINGS_DIFFER if judge_item({**item, "hypothesis": before}).label is not label else None
    )
