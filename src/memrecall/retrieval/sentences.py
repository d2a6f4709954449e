"""Sentences: the user's statements about themselves, each its own retrieval unit.

Memory benchmarks plant their evidence in passing: a session opens with a request on one topic
("recommend some car wax") and the user mentions the fact to remember in one sentence ("by the
way, I did the Turbocharged Tuesdays event today"). A session key's single vector is the mean
of all its tokens, so that sentence is diluted by the request around it, and the more sessions
a haystack holds, the more often an on-topic distractor outranks it. At `granularity: sentence`
each session keeps its session key as its first unit (the same text as at `session`
granularity, so its cached vector is reused and BM25 reads it) and adds one unit per sentence
of the user's turns that speaks in the first person: what the user says about themselves,
which is what a memory question asks about. Sentences without a first-person word (the body of
a pasted text, a bare instruction) are not embedded: they roughly halve the extra texts, and
the session key still covers them.

A sentence ends at `.`, `!` or `?` followed by white space, or at a line break; one with fewer
than MIN_WORDS words ("Thanks!", "Got it.") says nothing to retrieve. The encoder reads at most
`max_length` tokens of a sentence, like any unit.
"""

from __future__ import annotations

import re

SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\s*\n\s*")
FIRST_PERSON = re.compile(r"\b(?:i|me|my|mine|myself|we|us|our|ours|ourselves)\b", re.IGNORECASE)
MIN_WORDS = 3


def user_sentences(text: str) -> list[str]:
    """The first-person sentences of one user turn, in order, each once."""
    out: dict[str, None] = {}
    for part in SENTENCE_END.split(text or ""):
        part = part.strip()
        if len(part.split()) >= MIN_WORDS and FIRST_PERSON.search(part):
            out.setdefault(part)
    return list(out)
