"""Abstention (`_abs` questions): correct when the response says the information is missing.

The phrases are memrecall.abstention's, shared with the refusal classifier (llm/refusal.py), so
the refusal rate and the rule judge classify an answer the same way.
"""

from __future__ import annotations

import re

from ...abstention import UNABLE, plain, says_missing, without_no_later_change
from .phrases import LEAD_IN, TURN
from .response import closing_paragraph, first_sentence


def abstains(hypothesis: str) -> bool:
    """Does the response say the asked information is missing from the history? Asking the user
    for it ("Could you tell me which day you arrived?", "I'd need more details from you") says
    so as well, and so does correcting the question's premise ("You haven't started at Google
    yet", "You may be thinking of Dr. Smith"): each identifies the question as one the history
    cannot answer."""
    said = plain(hypothesis)
    return (
        says_missing(hypothesis)
        or bool(_ASKS_USER.search(said) or _CORRECTS_PREMISE.search(said))
        or opens_by_denying(hypothesis, habit=True)
    )


# A request to the user for the information the answer needs. Kept out of the shared phrase list
# (memrecall.abstention): a decline can end with a request too ("I can't help with that; can you
# tell me what else you need?"), and the refusal classifier must still call that a refusal. A
# closing offer ("please let me know if ...") asks for nothing, so it is not here.
_ASKS_USER = re.compile(
    r"\b(?:please|could you|can you|would you)(?: \w+)? (?:provide|share|tell me|give me|"
    r"remind me|fill me in)\b|\b(?:i|we)(?: will| would|'ll|'d) need (?:\w+ )?"
    r"(?:information|details|more|to know)\b"
)


# A correction of what the question takes for granted: the user is thinking of something else,
# the question mixes things up, or the event it asks about has not happened yet. Kept here for
# the reason _ASKS_USER is: an answerable question's response can say "you haven't ... yet" too.
_CORRECTS_PREMISE = re.compile(
    r"\b(?:you(?:'re| are)?|you (?:may|might) be|perhaps|maybe) (?:\w+ )?thinking of\b|"
    r"\bmix-?up\b|\bmixed up\b|\b(?:some|a bit of|a little) confusion\b|"
    r"\bpremise (?:\w+ ){0,2}(?:off|wrong|mistaken|incorrect|false|flawed|not (?:right|correct))\b|"
    r"\b(?:have|has) not (?:\w+ ){1,6}yet\b"
)


def opens_by_declining(hypothesis: str) -> bool:
    """Does the response open by saying it cannot answer ("I cannot determine which came first.
    The messages mention ...")? For an answerable question that is not an answer, even when the
    facts it goes on to list contain the reference."""
    return _declines(first_sentence(hypothesis))


def opens_by_denying(hypothesis: str, *, habit: bool = False) -> bool:
    """Does the response open by denying what the question asks about ("Based on the
    conversation history, you did not fix a bike this past weekend")? Unless the question asks
    yes or no, that is no answer, whatever it goes on to list; for an unanswerable question it
    is the correction the question needs, and there a denied habit counts too ("You don't play
    table tennis"; an answer to "what time do I wake up" can open "You don't wake up at a fixed
    time" and go on to give the usual one). A denial turned to something else ("You didn't fix
    the mountain bike, but ...", "You didn't go there the most; Cafe Lumen ...") answers."""
    # "You haven't mentioned changing it since" denies a later change, not the event
    said = without_no_later_change(plain(first_sentence(hypothesis)))
    denied = _DENIES_EVENT.match(said)
    return bool(denied) and (habit or not denied.group(1)) and not _TURNS.search(said, denied.end())


def closes_by_declining(hypothesis: str) -> bool:
    """Does the response close by saying it cannot answer ("The messages mention 3 months and a
    workshop last month. ... There is not enough information to say how long.")? Its facts are
    evidence it weighed, and its last word is that they do not answer the question."""
    return _declines(closing_paragraph(hypothesis))


def sets_aside(hypothesis: str) -> bool:
    """Does the response say that what it found refers to something other than what is asked
    ("a limited edition of 500 copies. However, this refers to the poster, not the album", "that
    was a reference to a past trip, not this one")? Then it names the value only to set it
    aside, and gives no answer. Said of a pronoun for the found thing: "weeknights, which refers
    to Monday to Friday, not weekends" defines a word of the question."""
    return bool(_SETS_ASIDE.search(plain(hypothesis)))


_SETS_ASIDE = re.compile(
    r"\b(?:this|that|these|it)\b(?: \w+)? (?:refers?|referred|referring|was a reference|"
    r"is a reference|relates?|related|applies|applied|was about|is about)(?: specifically| only)?"
    r" to\b[^.!?\n]{0,80}?,? (?:and )?not\b"
)


def _declines(text: str) -> bool:
    said = plain(text)
    declined = _DECLINE.search(said)
    # "I cannot say exactly, but it was X" goes on to answer; "I'm not sure, but I cannot say"
    # does not: only a turn after the decline takes it back.
    # "I don't have enough information to give a more detailed answer" limits the answer it
    # gave; it declines nothing.
    return (
        bool(declined)
        and not TURN.search(said, declined.end())
        and not _BEYOND_GIVEN.match(said, declined.end())
    )


# Saying the question cannot be answered, not just that some detail is missing ("I couldn't
# find the exact date, but ..." goes on to answer). "I can't recall the answer" declines too.
_DECLINE = re.compile(
    rf"\b{UNABLE} (?:\w+ )?(?:answer|"
    r"determine|tell|say|calculate|compute|work out|recall|remember|retrieve)\b|"
    r"\b(?:cannot|can not|could not) be (?:answered|determined|calculated|worked out)\b|"
    r"\b(?:not enough|insufficient|(?:do|does|did) not have (?:enough|sufficient)|"
    r"(?:can't|cannot|can not|could not|couldn't|unable to) find (?:enough|sufficient))"
    r" (?:\w+ )?(?:information|info|details|data|context)\b|"
    # "To answer your question properly, I would need messages about ...": what answering needs
    # and the response lacks. "To give you more targeted tips, I'd need ..." offers more.
    r"\bto (?:properly )?(?:answer|give|get|provide|recommend|suggest|help)\b"
    r"(?:(?! (?:more|further|broader|better|fuller|additional)\b)[^.,;:!?]){0,80}, "
    # ("To answer this, I'd need to compare the dates: ..." sets out a method, not a lack)
    r"(?:you(?: would|'d) need\b|(?:i|we)(?: would|'d) need\b(?! to (?!know\b)))"
)
_DENIES_EVENT = re.compile(
    rf"[\W_]*(?:{LEAD_IN}[\W_]*)*(?:it (?:seems|appears|looks like) (?:that )?)?"
    r"you (?:did not|never|have not|(do not))\b"
)
_BEYOND_GIVEN = re.compile(
    r"(?: [\w']+){0,6}? (?:give|provide|offer|share|suggest)(?: you)? (?:a |any )?"
    r"(?:more|broader|fuller|further|additional|wider)\b"
)
# ... and what turns a denial to an answer: "You didn't fix the mountain bike; you fixed ..."
_TURNS = re.compile(rf"{TURN.pattern}|\b(?:instead|rather)\b|[;:—]")
