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
so abstention phrasing takes precedence over declining phrasing. The abstention phrases are
`memrecall.abstention`, the list the rule judge uses too. The one exception: a model that says it
is only an AI or has no memory of past conversations (2. above) is refusing to read the history
it was given, even where that also says the information is missing. The distinction: a refusal
declines on grounds of policy or capability; an abstention reports that the provided history does
not contain the answer.

The classifier is a small set of regular expressions: deterministic, cheap, and easy to audit.
It is a flag for the refusal rate in reports, not a judge of correctness.
"""

from __future__ import annotations

import re

from ..abstention import says_missing

_NEG = (
    r"(?:can(?:no|['’])t|cannot|won['’]t|will not|(?:am|['’]m) unable to|"
    r"(?:am|['’]m) not (?:able|allowed) to)"
)

_DECLINE = [
    rf"\bI {_NEG} (?:help|assist|comply|fulfil?l|complete|engage|support|do that|do this|"
    r"provide (?:that|this|personal|private|any|such)|share (?:that|this|personal|private)|"
    r"answer (?:that|this) (?:request|question for you))",
    r"\bI (?:must|have to|need to|will have to) (?:respectfully )?decline\b",
    r"\bagainst (?:my|our|the) (?:guidelines|policy|policies|programming|usage policies)\b",
    r"\b(?:not|isn['’]t) (?:something I(?:['’]m| am) (?:able|allowed|comfortable))",
]
# A model that says it is only an AI, or has no memory, instead of reading the history it was
# given declines the task, even where that also says the information is missing.
_NO_MEMORY = [
    r"\bas an (?:ai|artificial intelligence)\b",
    r"\bas a (?:large )?language model\b",
    r"\bI(?:['’]m| am) (?:just )?an? (?:ai|artificial intelligence|language model)\b",
    r"\bI (?:don['’]t|do not) have (?:access to|the ability to (?:access|remember|recall|see)|"
    r"(?:any )?memory of) (?:your |our |any )?(?:personal|previous|past|prior|private|earlier)",
    r"\bI (?:don['’]t|do not) (?:have the ability to|retain|store) "
    r"(?:remember|recall|memory|information between|personal)",
]

# Answers about the history the model was given ("based on our previous conversations, ...")
# are answers, not declines: they win over declining phrasing.
_ABOUT_HISTORY = [
    r"\b(?:in|based on) (?:our|the|your|these|those) (?:previous |past |prior |earlier |provided |"
    r"given )?(?:conversations?|chats?|chat history|history|sessions|messages|context|"
    r"discussions?)\b",
]

_DECLINE_RE = re.compile("|".join(f"(?:{p})" for p in _DECLINE), re.IGNORECASE)
_NO_MEMORY_RE = re.compile("|".join(f"(?:{p})" for p in _NO_MEMORY), re.IGNORECASE)
_ABOUT_HISTORY_RE = re.compile("|".join(f"(?:{p})" for p in _ABOUT_HISTORY), re.IGNORECASE)


def is_abstention(text: str | None) -> bool:
    """The answer says the information is missing from the history (memrecall.abstention, the
    same phrases the rule judge uses)."""
    return says_missing(text)


def is_refusal(text: str | None) -> bool:
    """Empty, or declining the task (not an abstention); see the module docstring."""
    if text is None or not text.strip():
        return True
    if _NO_MEMORY_RE.search(text):
        return True
    if says_missing(text) or _ABOUT_HISTORY_RE.search(text):
        return False
    return bool(_DECLINE_RE.search(text))
