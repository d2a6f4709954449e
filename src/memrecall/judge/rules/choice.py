"""Yes/no references ("Yes."): the response's first yes/no word must agree. Either-or questions
("A or B?"): the response names the reference's option, and names it first if it names both."""

from __future__ import annotations

import re

from .normalise import content_tokens, normalize, tokens
from .verdict import RuleVerdict

def polarity(text: str) -> str | None:
    for t in re.findall(r"[a-z]+", normalize(text)):
        if t in ("yes", "no"):
            return t
    return None


def yes_no_gold(answer: str) -> str | None:
    words = re.findall(r"[a-z]+", normalize(answer))
    if words and words[0] in ("yes", "no") and (len(words) <= 4 or re.match(
            r"\s*(?:yes|no)\s*[,.;:!]", answer.lower())):
        return words[0]
    return None



def _either_or_options(question: str) -> tuple[list[str], list[str]] | None:
    q = question.strip().rstrip("?").strip()
    idx = q.lower().rfind(" or ")
    if idx < 0:
        return None
    left, right = q[:idx], q[idx + 4:]
    if "," in left:
        left = left.rsplit(",", 1)[1]
    else:  # "increase or decrease the limit": one word each side
        left = left.split()[-1] if left.split() else ""
        right = right.split()[0] if right.split() else ""
    a, b = content_tokens(left), content_tokens(right)
    common = set(a) & set(b)
    a, b = [t for t in a if t not in common], [t for t in b if t not in common]
    return (a, b) if a and b else None


def _mentions(option: list[str], hyp: list[str]) -> int | None:
    """First position of the option in the response, when at least half its words appear."""
    found = [hyp.index(t) for t in option if t in hyp]
    return min(found) if len(found) * 2 >= len(option) and found else None


def either_or_verdict(question: str, answer: str, hypothesis: str) -> RuleVerdict | None:
    options = _either_or_options(question)
    if options is None:
        return None
    gold = set(content_tokens(answer))
    share = [sum(t in gold for t in opt) / len(opt) for opt in options]
    if max(share) < 0.5 or share[0] == share[1]:
        return None
    right, wrong = (options[0], options[1]) if share[0] > share[1] else (options[1], options[0])
    hyp = tokens(_conclusion(hypothesis, right, wrong))
    pos_right, pos_wrong = _mentions(right, hyp), _mentions(wrong, hyp)
    if pos_right is None:
        return RuleVerdict(False, f"either-or: '{' '.join(right)}' not chosen")
    if pos_wrong is not None and pos_wrong < pos_right:
        return RuleVerdict(False, f"either-or: names '{' '.join(wrong)}' first")
    return RuleVerdict(True, f"either-or: chose '{' '.join(right)}'")


# Words that mark the sentence giving the answer to an either-or question.
_DECISION = re.compile(r"\b(?:first|earlier|earliest|before|after|later|latest|last|recent|"
                       r"recently|so|therefore|thus|conclude|answer|came|happened)\b")


def _conclusion(hypothesis: str, a: list[str], b: list[str]) -> str:
    """The part of the response that answers: a short response is its own answer; a response
    that reasons over both options answers in its last sentence naming one of them with a
    decision word ("so the train was more recent"), else its last sentence naming one."""
    sentences = [x for x in re.split(r"(?<=[.!?])\s+|\n+", hypothesis.strip()) if x.strip()]
    naming = [x for x in sentences
              if _mentions(a, tokens(x)) is not None or _mentions(b, tokens(x)) is not None]
    if len(naming) <= 1:
        return hypothesis
    decisive = [x for x in naming if _DECISION.search(normalize(x))]
    last = (decisive or naming)[-1]
    # "X was discussed first, but the dates show Y came first": the clause after the turn.
    clauses = [c for c in re.split(r"\b(?:but|however|actually)\b", last, flags=re.IGNORECASE)
               if _mentions(a, tokens(c)) is not None or _mentions(b, tokens(c)) is not None]
    return clauses[-1] if clauses else last
