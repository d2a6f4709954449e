"""The offline rule judge for BEAM: the rubric items a rule can check, checked by rules, and
combined per question as the released code combines the LLM judge's item scores.

- "LLM response should state/mention/contain/include: X" items of information extraction,
  knowledge update, multi-session reasoning and temporal reasoning: met when the shared
  containment rule finds X in the response (every content word of X the question does not
  already hold, numbers by value; judge/rules/containment.py). Item score 1 or 0; the question's
  score is the items' mean (no 0.5 here).
- abstention: its one rubric item is the refusal sentence: met when the response says the
  information is missing (judge/rules/abstention.py, the refusal phrases LongMemEval's rules use).
- event ordering: each answer line is aligned to the first unused rubric item whose content
  words it all holds (the LLM equivalence test of the released code, by words), then the released
  Kendall tau-b score (tau_norm) is computed on the alignment.

It cannot judge, and says so rather than guess (verdict None): contradiction resolution (items
ask the response to notice a contradiction and restate two statements in other words),
instruction following and preference following (items are behaviours: "code blocks with
syntax highlighting", "suggests lightweight libraries"), summarization (items are sentence-long
paraphrases). Its scores are not comparable with published (LLM-judged) numbers.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...hashing import sha256_text
from ...judge.rules.abstention import abstains
from ...judge.rules.containment import containment_verdict
from ...judge.rules.normalise import content_tokens
from . import scoring

CHECKABLE = (
    "abstention",
    "event_ordering",
    "information_extraction",
    "knowledge_update",
    "multi_session_reasoning",
    "temporal_reasoning",
)
NOT_CHECKABLE = (
    "contradiction_resolution",
    "instruction_following",
    "preference_following",
    "summarization",
)
_ITEM = re.compile(
    r"^\s*LLM response should (?:state|mention|contain|include)\s*:\s*(.*)$",
    re.IGNORECASE | re.DOTALL,
)
RULES_HASH = sha256_text(
    Path(__file__).read_text(encoding="utf-8") + Path(scoring.__file__).read_text(encoding="utf-8")
)[:12]


def item_target(item: str) -> str:
    """What a rubric item asks the response to hold ("LLM response should state: 21 days" ->
    "21 days"; an item without the prefix is its own target)."""
    m = _ITEM.match(item)
    return m.group(1).strip() if m else item.strip()


_RANGE_WORDS = re.compile(r"\b(?:till|until)\b", re.IGNORECASE)


def _holds(question: str, target: str, text: str) -> bool:
    # "from March 29 till April 19": the range's connective is not a fact to find
    return containment_verdict(question, _RANGE_WORDS.sub("to", target), text).label


def _words_in(item: str, line: str) -> bool:
    want = set(content_tokens(item))
    return bool(want) and want <= set(content_tokens(line))


def judge(ability: str, question: str, rubric: list[str], response: str) -> dict | None:
    """{score, items, reason[, ordering]} for one answer, or None when the rules cannot judge
    this ability."""
    if ability in NOT_CHECKABLE:
        return None
    if ability == "abstention":
        met = abstains(response)
        items = [1.0 if met else 0.0] * len(rubric)
        return {
            "score": scoring.rubric_score(items, len(rubric)),
            "items": items,
            "reason": "says the information is missing" if met else "answers instead",
        }
    if ability == "event_ordering":
        aligned = scoring.align(rubric, scoring.answer_lines(response), _words_in)
        scores = scoring.ordering_score(rubric, aligned)
        value, undefined = scoring.ordering_value(scores)
        return {
            "score": value,
            "items": [],
            "ordering": scores,
            "tau_undefined": undefined,
            "reason": f"{scores['recall'] * len(rubric):.0f}/{len(rubric)} items found, "
            f"tau_norm {scores['tau_norm']:.2f}",
        }
    items = [1.0 if _holds(question, item_target(r), response) else 0.0 for r in rubric]
    return {
        "score": scoring.rubric_score(items, len(rubric)),
        "items": items,
        "reason": f"{int(sum(items))}/{len(items)} rubric items found in the response",
    }
