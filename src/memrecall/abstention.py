"""Abstention phrases: the one list of ways an answer says the asked information is missing.

Two consumers, one source, so they cannot classify the same answer differently:
- the rule judge (judge/rules/abstention.py): an `_abs` question is answered correctly when the
  response says the information is missing;
- the refusal classifier (llm/refusal.py): an answer that says the information is missing is an
  abstention, not a refusal.

Matching is on lower-cased text with typographic quotes made plain ("didn’t" = "didn't").
"""

from __future__ import annotations

import re
import unicodedata

_PLAIN = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "\u00a0": " "})

# Verbs of telling, discussing or turning up, by stem (any tense): what a history does or does
# not hold.
_TELLING = (
    r"(?:mention(?:s|ed|ing)?|tell(?:s|ing)?|told|say(?:s|ing)?|said|shar(?:e|es|ed|ing)|"
    r"discuss(?:es|ed|ing)?|talk(?:s|ed|ing)?|bring(?:s|ing)?|brought|c[oa]mes? up|coming up|"
    r"surfac(?:e|es|ed|ing)|show(?:s|ed|n|ing)? up|touch(?:es|ed|ing)?|"
    r"go(?:es|ne|ing)? (?:over|into)|went (?:over|into)|gets? into|got(?:ten)? into|"
    r"getting into|fill(?:s|ed|ing)? (?:me )?in|referenc(?:e|es|ed|ing)|hear(?:s|d|ing)?|"
    r"specif(?:y|ies|ied|ying)|spok(?:e|en)|speak(?:s|ing)?|"
    # ("the warranty doesn't cover it" is no history's)
    r"(?:we|you)(?:'ve| have| had)? covered)\b"
)

# Saying one cannot: "I can't", "unable to", "it is impossible to", "it's not possible to".
UNABLE = r"(?:can't|cannot|can not|unable to|not able to|impossible to|not possible to)"

PHRASES = [
    # "you never mentioned", "I don't see it stated", "the history doesn't contain"
    r"\b(?:did not|didn't|have not|haven't|has not|hasn't|never|do not|don't|does not|doesn't)"
    r" (?:\w+ )?(?:mention|say|said|tell|told|specif|share|state|provide|discuss|talk|bring|"
    r"include|contain|indicate)",
    # "I don't think you ever told me that", "... you've mentioned": a hedge on the same statement
    r"\b(?:i|we) (?:don't|do not) (?:think|believe) (?:you|we|i)(?:'ve|'d| have| had)? "
    r"(?:\w+ )?(?:mention|say|said|"
    r"tell|told|share|discuss|talk|br[io]ught)",
    r"\bnot (?:been |be )?(?:mentioned|specified|stated|provided|available|included|discussed|"
    r"given|found|recorded|shared|known|indicated|covered|told)\b",
    r"\bno (?:(?:direct|specific|clear|explicit|such|relevant|further|other|prior) )?(?:mention|"
    r"information|info|record|records|details?|indication|evidence|data|reference|"
    r"way to (?:know|tell|determine))\b",
    # "I couldn't find any record of", "I wasn't able to find"
    r"\b(?:couldn't|could not|can't|cannot|wasn't able to|was not able to|unable to|didn't|"
    r"did not|don't|do not) (?:\w+ ){0,2}(?:find|locate)\b|\bnot (?:finding|locating)\b",
    r"\b(?:doesn't|does not|don't|do not) (?:appear|seem) to (?:have been |be )?(?:mentioned|"
    r"recorded|discussed|covered|included|in)\b",
    # "the Porsche model does not appear in any session"
    r"\b(?:does not|do not|did not|never) (?:appear|show up|come up) (?:anywhere )?in\b",
    r"\bnothing (?:related|about|on|regarding|specific|mentioned|in|that)\b",
    r"\bthere (?:is|are|was|were) (?:no|not)\b",
    # "I don't have that information", also "I don't have access to our past conversations":
    # the official judge accepts both for `_abs` (the refusal classifier still flags the latter)
    r"\b(?:i|we) (?:don't|do not) (?:have|know|see|possess)\b",
    rf"\b{UNABLE} (?:\w+ )?(?:answer|"
    r"determine|tell|say|find|know|confirm|calculate|compute|identify|infer|work out|compare)",
    r"\bcannot be (?:determined|answered|found|inferred|calculated|identified|known)\b",
    r"\b(?:not enough|insufficient|incomplete|missing|lack of|lacks?|lacking) (?:any )?(?:\w+ )?"
    r"(?:information|info|details|data|context)\b",
    r"\b(?:is|are|was|were) (?:not enough|insufficient|incomplete|missing)\b",
    # "that's missing from our history", "absent from the sessions", "I'm drawing a blank", "a
    # blank in my memory"
    r"\b(?:missing|absent) from\b|\b(?:draw|drawing|drew) a blank\b|"
    r"\ba blank in (?:my|our) (?:\w+ )?(?:memory|memories|notes|records?|history)\b",
    # Other ways to say it, from the meaning rather than from the runs at hand (none of these
    # phrasings occurs in them): "no hamster was mentioned", "I don't recall you saying",
    # "it is unclear", "it never came up", "I'm not aware of one"; the thing missing may take a
    # few words ("no museum or gallery visit was recorded"); "no other recipes were
    # discussed" narrows an answer
    r"\bno (?!other\b)(?:\w+ ){1,5}(?:was|were|is|are|has been|have been) (?:ever )?"
    r"(?:mentioned|recorded|discussed|shared|given|provided|specified|stated|found)\b",
    r"\b(?:cannot|can not|do not|did not|unable to|not able to) (?:\w+ )?(?:recall|remember)\b",
    r"\bno (?:memory|recollection|knowledge) of\b",
    r"\b(?:is|are|was|were|remains?|it's|that's) (?:unknown|unclear|uncertain)\b",
    r"\b(?:never|did not|has not|have not) c[oa]me up\b|\b(?:am|'m) not aware of\b",
    # "that's not something you've told me", "the history is silent on it", "the records don't
    # show any"
    r"\bnot something (?:you|we)(?:'ve| have| had)? (?:\w+ )?(?:told|mentioned|brought|shared|"
    r"discussed|said|talked)",
    # ... "that isn't something I have on file", "it's outside what you've told me", "nothing
    # you've shared says", "none of our conversations touch on it"
    r"\bnot something (?:i|we)(?:'ve| have| had)? (?:have |keep )?(?:on (?:file|record)|noted|"
    r"recorded|heard|been told)\b",
    r"\boutside (?:of )?(?:what (?:you|we)(?:'ve| have)? (?:\w+ )?(?:told|shared|said|"
    r"mentioned|discussed)|(?:our|your|my|the) (?:\w+ )?(?:conversations?|chats?|history|"
    r"records?|notes|sessions))\b",
    r"\bnothing (?:that )?(?:you|we)(?:'ve| have| had)? (?:\w+ )?(?:told|shared|said|mentioned|"
    r"discussed|written)\b(?: \w+){0,3}? (?:mentions?|says?|covers?|touch(?:es)? (?:on|upon)|"
    r"refers? to|addresses|specifies|states|indicates)\b",
    r"\b(?:is|are|was|were|remains?) silent (?:on|about|regarding)\b",
    r"\b(?:records?|history|messages|conversations?|notes|memory|memories|logs|chats?) "
    r"(?:do|does|did) not (?:show|reveal|cover|reflect)\b",
    # "None mentioned", "no hamster on record", "that detail is not in my records/our chats"
    r"\bnone (?:was |were |is |are )?(?:mentioned|recorded|given|specified|stated|found)\b",
    r"\bno (?:\w+ ){0,3}on (?:record|file)\b",
    r"\bnot (?:in|part of|among|anywhere in) (?:\w+ ){0,2}(?:records?|history|notes|memory|"
    r"memories|conversations?|chats?|messages|sessions|logs)\b",
    # "no trace of it", "nowhere in our chats", "it is not documented", "none of the sessions
    # discuss it", "our chats never touched on it"
    r"\bno trace of\b|\bnowhere (?:in|do|does|did|is|are|was|were)\b",
    r"\bno (?:talk|discussion|word|conversation) (?:of|about|on)\b",
    r"\bnot (?:been )?documented\b|\bnever (?:touched on|brought up)\b",
    r"\bnone of (?:the|our|your|my) (?:\w+ )?(?:sessions|messages|conversations|chats|records|"
    r"notes|memories|excerpts) (?:\w+ )?(?:mention|discuss|say|refer|include|contain|cover|talk|"
    r"touch)",
    # ... and with the source as its subject: "no session mentions Dr. Lee", "no message covers
    # it", "no session records one". "No other session names a different café" narrows an
    # answer; it says nothing missing.
    r"\bno (?!other\b)(?:\w+ )?(?:sessions?|messages?|conversations?|chats?|records?|notes?|"
    r"memor(?:y|ies)|excerpts?)(?: of (?:ours|yours|mine))? (?:\w+ )?(?:mentions?|"
    r"discuss(?:es)?|says?|refers? to|includes?|contains?|covers?|talks? about|names?|states?|"
    r"shows?|records?|gets? into|touch(?:es)? on)\b",
    # The general form of the phrases above, in any tense: a negation, then within three words
    # a verb of telling, discussing or turning up ("that never surfaced in our chats", "we've
    # never gone over that", "your messages never touch on it", "that's not anything you've
    # told me about"). A hedge ("not sure what you said"), an imperative ("don't hesitate to
    # share"), a comparison ("that does not fit what you said later": the telling is there) and
    # a determiner ("no work talk", "no other recipes were discussed": see the phrases with "no"
    # above) negate no telling.
    r"(?:\b(?:not|never|nothing|none|nowhere)\b|\byet to\b)"
    r"(?! (?:sure|certain|only|just|hesitate|forget|fail|be afraid|mind|fit|fits|match|matches|"
    r"agree|agrees|square|squares|tally|tallies|add up|adds up|line up|lines up)\b)"
    rf"(?: (?!but\b|however\b|though\b)[\w']+){{0,3}}? {_TELLING}",
    # "the memory search didn't return any conversations about it", "my searches turned up
    # nothing": the record searched is the subject
    r"\b(?:search|searches|memory|memories|records?|history|results?|lookups?|quer(?:y|ies))"
    r"(?: \w+){0,4} (?:didn't|did not|doesn't|does not|don't|do not|couldn't|could not) "
    r"(?:return|turn up|yield|pull up)\b|\b(?:turned|turns|came|comes) up (?:empty|nothing)\b",
    # a terse answer that is nothing but "Unknown", "N/A", "Not mentioned", "Unanswerable"
    r"^\W*(?:unknown|unclear|n/?a|not (?:mentioned|known|specified|stated|available|provided)|"
    r"no idea|no (?:answer|information|data)(?: (?:found|available|given))?|"
    r"(?:un|not )answerable)\W*$",
]

# What the history holds instead of the asked detail ("you only mentioned X", "you mentioned X
# but not Y"): for an unanswerable question, an abstention. In a response to an answerable
# one it is ordinary wording ("dust with a damp cloth rather than a dry one"), so a rule that
# asks whether a response disclaims its information reads PHRASES alone (`instead=False`).
INSTEAD_PHRASES = [
    r"\bonly (?:mentioned|talked about|told me about|said|mentions|refers? to|covers?|"
    r"(?:have|has) (?:information|info|details|records?) (?:about|on|of))\b",
    # (", not \"Software Engineer Manager\"": the name it was not, quoted or in bold; "but
    # never the violin")
    r"\bbut (?:not|never)\b|\brather than\b|[,—–] not [\"'*_]*\w",
    # "only Alex's adoption is mentioned", "only the guitar lessons were discussed"
    r"\bonly (?:[\w']+ ){1,3}(?:is|are|was|were|(?:has|have) been) (?:mentioned|recorded|"
    r"discussed|noted|covered|stated|given)\b",
]


def _compile(phrases: list[str]) -> re.Pattern:
    return re.compile("|".join(f"(?:{p})" for p in phrases))


_RE = _compile(PHRASES + INSTEAD_PHRASES)
_RE_MISSING = _compile(PHRASES)


# Markdown emphasis: "You did **not** mention it", "_never_ came up". A bullet's star goes too.
_EMPHASIS = re.compile(r"\*+|(?<!\w)_+(?=\w)|(?<=\w)_+(?!\w)")


def plain(text: str) -> str:
    """Lower-cased, typographic quotes made plain, markdown emphasis dropped, negative
    contractions spelled out ("wasn't mentioned" = "was not mentioned"), so each phrase needs
    only its spelled-out form."""
    s = unicodedata.normalize("NFKC", text or "").translate(_PLAIN).lower()
    s = _EMPHASIS.sub("", s)
    s = re.sub(r"\bcan't\b", "cannot", s)
    s = re.sub(r"\bwon't\b", "will not", s)
    return re.sub(r"\b(\w+)n't\b", r"\1 not", s)


# A clause that says the answer was not changed later (or that nothing contradicts it) is about
# the answer, not the asked information: "No later session updates that figure", "You haven't
# mentioned changing this since", "There is no later update", "there's no record of it changing
# since then", "You never updated that figure". A change it denies must be later ("later",
# "since", "newer", ...) or of the value itself ("that figure", "the count"); "You didn't mention
# changing jobs" still says the information is missing.
_NO_LATER_CHANGE = re.compile(
    r"(?:\b(?:no|not|never|nothing|none)\b(?:[^\w.;!?\n]+\w+){0,3}?[^\w.;!?\n]+"
    r"(?:updat|chang|revis|correct|overrid|overrod|supersed|replac)\w*\b"
    r"(?=[^.;!?\n]*\b(?:later|since|newer|more recent|subsequent|afterwards?)\b"
    r"|[^\w.;!?\n]+(?:it |this |that |the )?(?:figure|count|number|value|amount|total)\b)"
    r"|\b(?:no|not|never|nothing|none)\b[^.;!?\n]{0,40}?\b(?:later|newer|more recent|"
    r"subsequent)\b[^.;!?\n]{0,20}?\b(?:updat|chang|revis|correct|overrid|supersed)\w*"
    # ... or that nothing contradicts it: "nothing in our chats says otherwise", "you never told
    # me otherwise" back the answer given
    r"|\b(?:no|not|never|nothing|none)\b[^.;!?\n]{0,60}?\b(?:otherwise|contradict\w*)\b"
    # (and the rest of its clause: "... changing this since then")
    r")[^.;!?\n]*"
)


def says_missing(text: str | None, *, instead: bool = True) -> bool:
    """Does the answer say the asked information is missing from the history? With
    `instead=False`, only by saying so, not by naming what was said instead (INSTEAD_PHRASES).
    A clause that says the answer was not changed later says nothing is missing."""
    pattern = _RE if instead else _RE_MISSING
    return bool(text) and bool(pattern.search(without_no_later_change(plain(text))))


def without_no_later_change(said: str) -> str:
    """`said` (plain text) without the clauses that say the answer was not changed later."""
    return _NO_LATER_CHANGE.sub(" ", said)
