"""The phrases the rule families read a response by, each defined once: what denies a value,
what says it changed and from what, what marks a former value and what turns to the value now,
lead-ins and openings that say nothing of the answer, and a list's item numbers. Regular
expressions (compiled, or pattern strings for the families to build on)."""

from __future__ import annotations

import re

# Words whose number names a part rather than counts: "Session 24" of the history, "Step 2" of a
# reasoning transcript, "Message 3" of the retrieved ones.
LABEL_WORDS = r"sessions?|steps?|messages?|chunks?|excerpts?|snippets?"


# Words that deny what follows ("not 3", "it wasn't the Sony", "rather than TikTok", "I have no
# record of Veja"): a value or name named only to be denied is not the response's answer.
DENIED_BEFORE = re.compile(
    r"(?:\bnot|n't|\brather than|\binstead of|(?<!none )(?<!no )\bother than|\bno longer|"
    r"(?:\bno|n't (?:have|see)|\bnot (?:have|see)) (?:any )?(?:record|mention|trace|sign) of)"
    r"(?:\s+(?:the|a|an|on|at|in|to|with|from|your|my|be|been|was|were|is|are)){0,2}"
    r"(?:[\s*_\"'(~]*(?:usd|us\$|\$))?[\s*_\"'($~]*$"  # ("not USD 400,000": its currency)
)


# What a value changed from: "you switched gyms from X", "up from 25", "after updating from 25",
# "you had advanced from the 20 videos".
CHANGED_FROM = (
    r"\b(?:up|down|rose|fell|grew|went|(?:switch|mov|chang|upgrad|transition|updat|increas|"
    r"decreas|dropp|advanc|progress|improv|climb|jump)\w*)(?: \w+){0,2} from\b"
)


# A label the response puts on the value now: "Current: 3", "Latest: 1,300", "currently it's
# 3". Not "you said you currently own 3": that reports an earlier statement.
CURRENT_LABEL = (
    r"(?:\b(?:current(?:ly)?|now|latest|most recent(?:ly)?|as of (?:today|now))"
    r"(?: (?:value|count|total))?[\s*_]*[:|]"
    r"|\b(?:currently|now|these days),? (?:it's|it is|that's|that is|it stands at|you're at|"
    r"you are at)"
    r"|\b(?:current|latest|new|updated|most recent) (?:value|count|total|number|figure|tally)"
    r"(?: is| stands at| of)"
    # "your current personal best time in the charity 5k run is" (not "the current date is")
    r"|\b(?:your|the) (?:current|latest|most recent) (?!(?:date|day|time|year|month|week)\b)"
    r"(?:[a-z0-9']+ ){1,10}(?:is|stands at)\b)"
)


# How sure the speaker is, not a condition or a negation of what is said: "if I recall
# correctly", "if I'm not mistaken", "I'm not 100% sure, but".
EPISTEMIC_HEDGE = re.compile(
    r"\bif i (?:recall|remember)(?: correctly| right)?\b|\bif i(?: a|')m not mistaken\b|"
    r"\bi(?: a|')m not (?:100% |completely |entirely |totally )?(?:sure|certain)\b"
)


# A word that turns a sentence from one thing to another: "I didn't find the date, but it was in
# May", "You didn't fix the mountain bike; however, ...".
TURN = re.compile(r"\b(?:but|however|although|though)\b", re.IGNORECASE)


# A list's item number ("2.", "2)"): not inside a number ("3.2"), a date ("5.10") or a run of
# numbers ("1,2)").
LIST_NUMBER = r"(?<![\w.,])\d{1,2}[.)](?=\s)"


# A lead-in that says nothing of the answer ("Based on our chats, ", "Unfortunately, ", "If I
# recall correctly, ", "I'm not 100% sure, but ", "As of our last conversation, ", "Having checked
# your notes, ").
LEAD_IN = (
    r"(?:(?:(?:based on|according to|from|looking at|unfortunately|sadly|actually|well|"
    r"as far as i|as of|in|after|per|checking|reviewing|searching|going (?:through|over)|"
    r"having (?:checked|reviewed|searched|looked|gone)|to (?:my|the best of my) knowledge)\b|"
    rf"{EPISTEMIC_HEDGE.pattern})[^,.!?;:\n]{{0,40}},\s*(?:but\s+)?|"
    # "To answer your question:", "In answer to your question,"
    r"(?:to answer|in (?:answer|reply|response) to|answering) (?:your|the|this) question"
    r"[^,.!?;:\n]{0,30}[:,]\s*)"
)


# How a response says a value changed, in the past tense (advice, "increase it to 7", changes
# nothing): "updated", "grew", "bumped", "switched".
CHANGED = (
    r"(?:updated|changed|revised|increased|decreased|raised|lowered|bumped|adjusted|corrected|"
    r"grew|grown|rose|risen|fell|fallen|dropped|jumped|climbed|expanded|reduced|shrank|shrunk|"
    r"switched|moved)"
)


# Words after a value that date it as earlier: "600 at first", "it was 600 before.", "you were at
# FitHub previously;", "you mentioned 600, but that was before." (the sentence ends there, so
# "before the trip" is no such word).
FORMER_AFTER = re.compile(
    r"^(?::\d{2})?[\w' -]{0,30}?"
    r"(?:(?:,\s*(?:but|though|although) (?:that|this|it) (?:was|were|is|'s) )?"
    r"\b(?:at (?:first|1st)|before|previously|earlier|originally|initially|in the past)\b"
    r"\s*(?:[.;,!)]|$)"
    r"|\b(?:is|was|were|'s) (?:the |your )?(?:earlier|old|older|previous|original|former|initial|"
    r"outdated) (?:one|1|value|count|total|number|figure|answer|amount)\b"
    r"|\b(?:is|was) (?:now )?(?:out of date|outdated|superseded)\b"
    # what it became: "4 → 7", "4 initially, later updated to 7", "Boston, but you've since moved
    # to Denver", "the suburbs, but it's since become X"; in the past tense, so advice ("4;
    # increase it to 7") changes nothing, and about the value itself ("it", not "your schedule")
    r"|\s*(?:→|->|=>|⟶|➔|➜)"
    r"|(?:[,;]|\b(?:and|but|then|later|since)\b)[\w' ,-]{0,25}?"
    rf"\b{CHANGED}(?: (?:it|that|this|them|up|down|back|over))*\s+(?:to|into)\b"
    r"|(?:[,;]|\b(?:and|but|then|later|since)\b)[\w' ,-]{0,25}?\b(?:became|become)\b)"
)
# What a value changed from, after the value it changed to: "bumped it up to 7 from 4", "you
# moved to Denver from Boston".
NEW_THEN_FROM = r"\bto\b[^.;:\n]{1,40}?\bfrom(?:\s+(?:the|a|an|your|my))?[\s*_:$~\"']*$"


# Words that call what follows a former value ("previously 4", "your old gym, FitHub"); the
# history's own "previous conversations" are no such value, nor is what was told before ("as you
# mentioned earlier, Paris", "what you shared previously"): the word dates the telling. "At
# first" is none either: it opens a sequence ("at first X, then Y") whose last value is the new
# one (and normalised text reads it "at 1st"); after a value it is one ("X at first").
FORMER_MARKER = (
    r"(?<!mentioned )(?<!said )(?<!told me )(?<!told us )(?<!shared )(?<!noted )(?<!stated )"
    r"(?<!wrote )(?<!discussed )"
    r"\b(?:previous(?:ly)?|earlier|prior|old|original(?:ly)?|used to|formerly|initially|"
    r"before that|before then|(?<![\w,] )before,|"
    r"after (?:it|that|this) (?:was|had been))(?![\w-])(?![\s*_]+(?:conversation|session|chat|"
    r"message|discussion|exchange|interaction|record|note)s?\b)"
)
# Words between a former value's marker and a value that turn to the value now: "initially 4,
# later updated to 7", "you used to go on Wednesday, but now it's Friday".
TURN_TO_NOW = r"(?:but|now|currently|today|however|later|then|since|updated|changed|revised)"


# An opening that says nothing about the question: a greeting or acknowledgement ("Sure!",
# "Great question!", "Hi there,"), a heading ("## Answer", "**Answer**") or a status line. The
# response opens with the sentence after it.
GREETING = (
    r"(?:sure|of course|certainly|absolutely|okay|ok|alright|all right|hi|hello|hey|"
    r"(?:great|good) question|thanks?(?: you)?(?: for (?:asking|your question))?|"
    r"happy to help|glad to help|let me (?:check|see|look)(?: into (?:it|that))?)"
    r"(?: there| thing)?"
)
# A line that announces what follows ("Here's what I found:") or apologises for an earlier turn
# ("I apologize for any confusion earlier.") says nothing of the answer either.
ANNOUNCEMENT = (
    r"here(?:'s| is) (?:what|everything) (?:i|we) (?:found|know|have|could find|see|recall)\b"
    r"[^.!?\n]{0,40}[:.]?|"
    r"(?:i )?(?:apologi[sz]e|(?:i'm |i am )?sorry) for (?:any |the )?(?:confusion|"
    r"misunderstanding|mix-?up|delay)(?: earlier| before)?[.!]?"
)
