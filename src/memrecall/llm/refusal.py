"""Refusal classifier: did the model decline the task instead of answering it?

`is_refusal(text)` is True when
1. the answer is empty (None, "" or only whitespace; also a thinking model that spent its whole
   token budget on reasoning and returned no content), or
2. it declines: "I can't help with that", "I'm unable to assist", "As an AI language model, ...",
   "I must decline", "against my guidelines", "I don't have access to your previous
   conversations" (a model claiming it has no memory instead of reading the history it was given).

It is NOT a refusal when the model *abstains* because the information is missing: "The
information is not available in our conversations", "You never mentioned your dog's name",
"There is no record of that in the chat history", "I can't answer that based on our previous
chats". In LongMemEval that is the correct answer to the `_abs` questions (the judge scores it),
so abstention phrasing takes precedence over declining phrasing. The distinction: a refusal
declines on grounds of policy or capability; an abstention reports that the provided history does
not contain the answer.

The classifier is a small set of regular expressions: deterministic, cheap, and easy to audit.
It is a flag for the refusal rate in reports, not a judge of correctness.
"""

from __future__ import annotations

import re

_NEG = (r"(?:can(?:no|['’])t|cannot|won['’]t|will not|(?:am|['’]m) unable to|"
        r"(?:am|['’]m) not (?:able|allowed) to)")

_REFUSAL = [
    rf"\bI {_NEG} (?:help|assist|comply|fulfil?l|complete|engage|support|do that|do this|"
    r"provide (?:that|this|personal|private|any|such)|share (?:that|this|personal|private)|"
    r"answer (?:that|this) (?:request|question for you))",
    r"\bas an (?:ai|artificial intelligence)\b",
    r"\bas a (?:large )?language model\b",
    r"\bI(?:['’]m| am) (?:just )?an? (?:ai|artificial intelligence|language model)\b",
    r"\bI (?:must|have to|need to|will have to) (?:respectfully )?decline\b",
    r"\bagainst (?:my|our|the) (?:guidelines|policy|policies|programming|usage policies)\b",
    r"\b(?:not|isn['’]t) (?:something I(?:['’]m| am) (?:able|allowed|comfortable))",
    r"\bI (?:don['’]t|do not) have (?:access to|the ability to (?:access|remember|recall|see)|"
    r"(?:any )?memory of) (?:your |our |any )?(?:personal|previous|past|prior|private|earlier)",
    r"\bI (?:don['’]t|do not) (?:have the ability to|retain|store) "
    r"(?:remember|recall|memory|information between|personal)",
]

# Abstention: the answer says the history lacks the information. Wins over declining phrasing.
_ABSTENTION = [
    r"\bnot (?:been )?(?:mentioned|specified|stated|provided|available|included|discussed|"
    r"given|found|recorded|shared|indicated)\b",
    r"\bno (?:mention|information|record|details?|indication|evidence|data|reference)\b",
    r"\b(?:did not|didn['’]t|have not|haven['’]t|has not|hasn['’]t|never) "
    r"(?:mention|say|tell|discuss|talk|specif|share|state|provide)",
    r"\b(?:does not|doesn['’]t|do not|don['’]t) (?:mention|specify|say|include|contain|state|"
    r"indicate|provide)\b",
    r"\bcannot be (?:determined|answered|found|inferred|identified|known)\b",
    r"\b(?:insufficient|not enough|no relevant) (?:information|details|context|data)\b",
    r"\bin (?:our|the|your|these|those) (?:previous |past |prior |earlier |provided |given )?"
    r"(?:conversations?|chats?|chat history|history|sessions|messages|context|discussions?)\b",
    r"\bbased on (?:our|the|your|these|those) (?:previous |past |prior |earlier |provided |given )?"
    r"(?:conversations?|chats?|chat history|history|sessions|messages|context|discussions?)\b",
]

_REFUSAL_RE = re.compile("|".join(f"(?:{p})" for p in _REFUSAL), re.IGNORECASE)
_ABSTENTION_RE = re.compile("|".join(f"(?:{p})" for p in _ABSTENTION), re.IGNORECASE)


def is_abstention(text: str | None) -> bool:
    """The answer says the information is missing from the history (a legitimate answer)."""
    return bool(text) and bool(_ABSTENTION_RE.search(text))


def is_refusal(text: str | None) -> bool:
    """Empty, or declining the task (not an abstention); see the module docstring."""
    if text is None or not text.strip():
        return True
    if _ABSTENTION_RE.search(text):
        return False
    return bool(_REFUSAL_RE.search(text))
