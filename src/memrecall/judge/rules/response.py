"""Where a response says its answer: its HTML and underscore emphasis read as Markdown
(`as_markdown`) and its hard-wrapped lines joined, the lines that restate the question dropped
(`without_question_echo`), notes on itself and closing offers dropped, asides and worked examples
dropped, the first sentence that says something (`first_sentence`: not a greeting, heading or
status line), the answer a response labels (`stated_answer`: a JSON "answer" field, an `<answer>`
tag, an "Answer:" line before a labelled explanation or closing the response, "Final Answer:"),
where a reasoning transcript concludes (`conclusion`), and what a response retracts, replaces or
settles on (`after_retraction`, `replaced_by`, `settled_answer`)."""

from __future__ import annotations

import html
import json
import re

import ftfy

from ...abstention import plain, says_missing, without_no_later_change
from .normalise import DIGIT_GROUP_SPACE, NO_BREAK_SPACE, content_tokens, normalize
from .phrases import ANNOUNCEMENT, GREETING, LABEL_WORDS, LEAD_IN


def without_asides(text: str) -> str:
    """The text without its parenthetical asides ("11 days (or 12, if ...)" -> "11 days")."""
    return re.sub(r"\([^()]*\)", " ", text)


# An aside that lists examples of what could be meant ("the amount of RAM (e.g., 8GB, 16GB)
# was not mentioned", "a frequency (e.g., weekly, monthly)") names possibilities, not an answer.
_EXAMPLES_ASIDE = re.compile(
    r"\(\s*(?:e\.g\.|eg\b|for example|for instance|such as)[^()\n]*\)", re.IGNORECASE
)


# A worked example on a made-up value: "If you packed, say, 5 pairs and wore 2, that would be
# 40%". Its "say" marks the value as supposed, so what follows from it is no answer. (One
# conditional without it can be the answer with its caveat: "If the workshop counts, the total
# is $720.") Tried only where a sentence starts: tried at every character, it took 6 s over the
# 10,000 published answers.
_SUPPOSED_VALUE = re.compile(
    r"(?<![^.!?\n])[^.!?\n]*\bif\b[^.!?\n]*,\s*say,[^.!?\n]*[.!?]?", re.IGNORECASE
)
# A list of conditionals the response calls examples ("For example:\n- If you packed 4 pairs,
# you wore 50%\n- If you packed 5 pairs, you wore 40%"): possibilities, none of them chosen.
_CONDITIONAL_ITEM = r"\n[ \t]*(?:[-*•]|\d+[.)])[ \t]+[*_]*if\b[^\n]*"
_CONDITIONAL_EXAMPLES = re.compile(
    rf"(?i)\b(?:for example|for instance|e\.g\.|say):[ \t]*(?:{_CONDITIONAL_ITEM})+"
)


def without_examples(text: str) -> str:
    """The text without its examples: parenthetical lists of them ("(e.g., weekly, biweekly)"),
    a worked example on a supposed value ("If you packed, say, 5 pairs, ...") and conditionals
    listed as examples ("For example:\n- If 4 pairs, 50%\n- If 5 pairs, 40%")."""
    text = _EXAMPLES_ASIDE.sub(" ", text)
    text = _SUPPOSED_VALUE.sub(" ", text)
    return _CONDITIONAL_EXAMPLES.sub(" ", text)


_HTML_MARKUP = [
    (re.compile(r"(?i)<br\s*/?>"), "\n"),
    (re.compile(r"(?i)</?p\s*>"), "\n\n"),
    (re.compile(r"(?i)</?(?:b|strong)\s*>"), "**"),
    (re.compile(r"(?i)</?(?:i|em)\s*>"), "*"),
    (re.compile(r"(?i)<li\s*>"), "\n- "),
    (re.compile(r"(?i)</?(?:ul|ol|li|div|span)\s*>"), "\n"),
]


def as_markdown(text: str) -> str:
    """A response as the Markdown the rules read: HTML line breaks, paragraphs, bold, italics and
    list items ("<br>", "<p>", "<b>", "<li>") and entities ("&amp;", "&nbsp;") as Markdown and
    text; non-breaking spaces as spaces, and a run of spaces inside a line as one; "__7 PM__" and
    "_two weeks_" as "**7 PM**" and "*two weeks*"; a negation in bold or italics ("You did
    **not** mention it") and a number in bold before its unit ("**7** PM") as plain words, and
    without inline citations ("[Session 2]", "[3]") or horizontal rules; a line break inside a
    sentence, as text wrapped at a fixed width has them, as a space. A style changes no answer,
    so every style reads the same way. An underscore inside a word or an id
    ("answer_54f0d6f9_1") stays."""
    if "<" in text:
        for tag, markdown in _HTML_MARKUP:
            text = tag.sub(markdown, text)
    if "&" in text:
        text = html.unescape(text)
    text = DIGIT_GROUP_SPACE.sub(",", text)
    text = _THEMATIC_BREAK.sub("", text)
    text = re.sub(NO_BREAK_SPACE, " ", text)
    text = re.sub(r"(?<=\S)[ \t]{2,}", " ", text)  # "one.  Two": spacing, not structure
    text = re.sub(r"(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])", lambda m: "*" * len(m.group(0)), text)
    text = _INLINE_CITATION.sub("", text)
    text = _unwrapped(text) if "\n" in text else text
    return _EMPHASISED_NUMBER.sub(r"\1", _EMPHASISED_NEGATION.sub(r"\1", text))


# A horizontal rule ("---", "***", "___" on a line of its own) sets parts apart and says nothing:
# it is read as the blank line it stands for.
_THEMATIC_BREAK = re.compile(r"(?m)^[ \t]*(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")


# A line break inside a sentence, as a response wrapped at a fixed width has them ("you had been
# taking classes for\nabout 6 weeks"): Markdown reads it as a space, and so do the rules. Only
# where the sentence plainly goes on: the line before ends in no stop or colon and is no heading,
# table row or line of bold alone; the line after starts no list item, heading, quote or table
# row, and opens with a small letter or a number, or follows a comma or a word no sentence ends
# on ("in\nFebruary"). A capital after another word may start a line on purpose ("Total: 10
# years\nPlease confirm"), so that break stays.
_BLOCK_LINE = re.compile(r"^\s*(?:#|\||```|>|[*_]{1,3}[^*_\n]+[*_]{1,3}[\s:]*$)")
_BLOCK_START = re.compile(r"^\s*(?:[-*+•]\s|[#>|]|```|\d+[.)]\s)")
_OPEN_ENDED = re.compile(
    r"(?:,|\b(?:the|a|an|of|to|in|on|at|with|for|from|by|and|or|but|than|as|was|were|is|are|"
    r"your|my|his|her|their|its|that|this|about|between|since|until|during|into|via|called|"
    r"named))[*_]*\s*$",
    re.IGNORECASE,
)


def _goes_on(before: str, line: str) -> bool:
    """Whether `line` continues the sentence of the line `before` it (see _BLOCK_LINE)."""
    start = line.lstrip()[:1]
    if not start or not before.strip() or _BLOCK_LINE.match(before) or _BLOCK_START.match(line):
        return False
    if before.rstrip().endswith((".", "!", "?", ":", ";")):
        return False
    return start.islower() or start.isdigit() or bool(_OPEN_ENDED.search(before))


def _unwrapped(text: str) -> str:
    """`text` with the line breaks inside its sentences read as spaces (see _goes_on), and in
    text wrapped at a fixed width, every break the width made (see _wrap_width)."""
    lines = text.split("\n")
    width = _wrap_width(lines)
    out = lines[:1]
    for before, line in zip(lines, lines[1:]):
        if _goes_on(out[-1], line) or (width and _overflowed(before, line, width)):
            out[-1] = out[-1].rstrip() + " " + line.lstrip()
        else:
            out.append(line)
    return "\n".join(out)


def _overflowed(before: str, line: str, width: int) -> bool:
    """Would the first word of `line` have pushed the line `before` it past `width`? Then a
    wrapper broke the line there ("on **Valentine's\nDay**"), unless `line` opens a block."""
    words = line.split(maxsplit=1)
    return (
        bool(words and before.strip())
        and not _BLOCK_START.match(line)
        and not line.lstrip().startswith("<")
        and len(before.rstrip()) + 1 + len(words[0]) > width
    )


def _wrap_width(lines: list[str]) -> int | None:
    """The width `lines` were wrapped at, taken as their widest: None when they were not, that
    is when the widest is over 100 columns (or under 40), or fewer than two breaks overflowed."""
    width = max((len(line.rstrip()) for line in lines), default=0)
    if not 40 <= width <= 100:
        return None
    breaks = sum(_overflowed(a, b, width) for a, b in zip(lines, lines[1:]))
    return width if breaks >= 2 else None


# An inline citation of where the response read something: "[Session 2]", "[3]", "[^3]",
# "[1, 4]", "【2】", "(Session 3)", "(sessions 2 and 5)". It says nothing of the answer, and its
# number counts nothing. (A bare number in parentheses may be part of what is said, "(2 of
# them)": not one.)
_CITED = r"(?:sessions?|sources?|messages?|refs?|chunks?|excerpts?|docs?)\s*#?\s*\d+"
_CITED_MORE = rf"(?:\s*(?:,|;|and|&|-|–)\s*(?:{_CITED}|\d+))*"
_INLINE_CITATION = re.compile(
    rf"(?i)[ \t]*(?:\[\s*\^?\s*(?:{_CITED}|\d+){_CITED_MORE}\s*\]|【\s*\d+{_CITED_MORE}\s*】|"
    rf"\({_CITED}{_CITED_MORE}\))"
)
# ... and a number in bold before its unit of time or its percent sign ("**1.5** hours", "**7**
# PM"): the unit is part of the value. Before another word the bold marks the answer ("a total of
# **17** social media break days"), so it stays.
_EMPHASISED_NUMBER = re.compile(
    r"(?i)\*{1,3}(\d[\d.,:]*)\*{1,3}(?=[ \t]*(?:[ap]\.?m\b|%|percent\b|"
    r"(?:second|minute|hour|day|week|month|year|weekend)s?\b))"
)
_EMPHASISED_NEGATION = re.compile(
    r"(?i)\*{1,3}((?:[a-z]+ )?(?:not|never|no|none|nothing|cannot|[a-z]+n['’]t))\*{1,3}(?![\w*])"
)
_LABEL_NUMBER = re.compile(
    rf"\b({LABEL_WORDS})[\s*_#]*\d+\b(?!\s*(?:minutes?|hours?|days?|weeks?|months?|years?|times?)\b)"
)


def without_label_numbers(text: str) -> str:
    """The normalised text with the numbers that name a part dropped ("session 3" -> "session")."""
    return _LABEL_NUMBER.sub(r"\1", normalize(text))


_MARKUP = r"[\s*_>#•-]*"  # list bullets, emphasis, quote marks and heading marks before a line
# A status line ("Searching memory...", "Let me check my notes…") is no sentence of the answer.
_STATUS = r"(?:\w+ ){0,3}?(?:search|check|look|retriev|recall|think|review|scann)ing\b.*(?:\.{3}|…)"
# Notes a response adds about itself: where it looked and how sure it is ("Sources: session 3",
# "Confidence: high", "Note: this is based on the information in my memory.", "I'm fairly
# confident in this, but ...", "Note: I only have access to our past conversations."). A note
# that qualifies the answer ("Note: the count may now be 38") is not one.
_NOTE_ON_ITSELF = (
    r"[\W_]*(?:(?:[a-z]+ )?(?:sources?|citations?|references?|confidence(?: level| score)?)"
    r"(?: [a-z]+)?[*_]*\s*[:：]|p\.?s\.?[:,]?\s|"  # ("Memory sources: ...", a postscript)
    r"(?:(?:please )?note:?\s*)?(?:(?:(?:this|that|my) (?:answer |response |summary )?is|"
    r"(?:these|my) (?:answers|findings|details) are) based (?:only |solely |entirely )?on\b|"
    r"i(?:'m| am) (?:fairly|reasonably|quite|pretty|very|not (?:entirely|completely|100%)) "
    r"(?:confident|sure|certain) (?:in|about|of) (?:this|that|my answer|the answer)\b|"
    r"i (?:only )?have access (?:only )?to (?:our|your|the) (?:past |previous |earlier )?"
    r"(?:conversations|chats|sessions|messages|history)\b)|"
    # a footer on how the response was made ("_Last updated: 2023-05-30_", "Generated from 12
    # retrieved sessions", "(Retrieved 5 memories)") and a signature ("— Your assistant")
    r"(?:last )?(?:updated|checked|synced|refreshed)\s*[:：]|"
    r"(?:(?:this |the )?(?:answer|response|summary) (?:was |is )?)?(?:generated|powered|written|"
    r"produced|created|compiled) (?:by|from|with|using)\b|"
    r"(?:answered|generated|retrieved|searched|consulted|used|based on|drawn from) "
    r"(?:using |from |on )?\d+ (?:\w+ ){0,2}(?:memories|sessions|messages|documents|results|"
    r"snippets|entries|sources|conversations|chats)\b|"
    r"(?:—|--|~)\s*[A-Za-z][\w' .-]{0,40}$)"
)
_PREAMBLE = re.compile(
    # (a bold line that ends its sentence inside the bold is a sentence, not a heading: "**I
    # cannot answer this.**")
    rf"(?i){_MARKUP}(?:{GREETING}[.!:,]*(?:\*\*)?|#+ .*|\*\*[^*]+(?<![.!?])\*\*:?|{_STATUS}|"
    rf"{ANNOUNCEMENT}|"
    rf"{_NOTE_ON_ITSELF}[^\n]*)"
)
# What may label a line that restates the question, after a greeting or not: "Question:",
# "You asked:", "Q:", "Re:" (the line's words, lower-cased and without punctuation).
_ECHO_LEAD = re.compile(rf"(?:{GREETING}\s*)?(?:(?:your |the )?question|you asked(?: me)?|q|re)?")


def without_question_echo(text: str, question: str) -> str:
    """`text` without the lines that restate `question` ('**Question:** Which came first, A or
    B?'): the question's own words name every option and every item, and answer nothing. A line
    may restate all of it or only what it asks, without the words around it ("Hi!", "Thanks!")."""
    restated = {
        " ".join(re.findall(r"\w+", normalize(q))): (re.findall(r"\w+", q.lower()) or [""])[-1]
        for q in (question, asked_part(question))
    }
    restated.pop("", None)
    if not restated:
        return text
    kept = []
    for line in text.splitlines():
        # A restatement holds the question's own last word; only such lines are worth normalising.
        if not any(last in line.lower() for last in restated.values()):
            kept.append(line)
            continue
        said = " ".join(re.findall(r"\w+", normalize(line)))
        if any(
            said.endswith(asked) and _ECHO_LEAD.fullmatch(said[: len(said) - len(asked)].strip())
            for asked in restated
        ):
            continue
        kept.append(line)
    return "\n".join(kept)


# A line a response opens with about itself: a greeting, a Markdown heading, a status line, an
# announcement or a note on itself (a bold line can hold the answer, so it stays).
_SELF_LINE = re.compile(
    rf"(?i){_MARKUP}(?:{GREETING}[.!:,]*|#+ .*|{_STATUS}|{ANNOUNCEMENT}|{_NOTE_ON_ITSELF}.*)"
)
_NOTE_LINE = re.compile(rf"(?i)^{_NOTE_ON_ITSELF}")


def without_notes(text: str) -> str:
    """The response without the lines it adds about itself: an opening status line, greeting or
    heading ("Searching memory...", "## Answer") and closing notes ("Sources: session 3",
    "Confidence: high"). Their words ("memory", "sources") say nothing of the user."""
    lines = (text or "").strip().splitlines()
    while len(lines) > 1 and (not lines[0].strip() or _SELF_LINE.fullmatch(lines[0].strip())):
        lines.pop(0)
    paragraphs = re.split(r"\n\s*\n", "\n".join(lines).strip())
    while len(paragraphs) > 1 and _NOTE_LINE.match(paragraphs[-1].strip()):
        paragraphs.pop()
    return "\n\n".join(paragraphs)


# Abbreviations whose full stop ends no sentence: "the training pads (a month ago, vs. the dog
# bed three weeks ago)" is one sentence, "e.g. the lamp", "Dr. Patel" and "St. Mary's" are
# inside one.
_STOP_ABBREVIATIONS = ("vs", "e.g", "i.e", "approx", "cf", "mr", "mrs", "ms", "dr", "st")
_SENTENCE_END = re.compile(
    # (a sentence in bold or italics ends after its closing marks: "**I can't say.** You ...")
    r"(?:(?<=[.!?])|(?<=[.!?][*_])|(?<=[.!?][*_]{2}))"
    + "".join(rf"(?<!\b{re.escape(a)}\.)" for a in _STOP_ABBREVIATIONS)
    + r"\s+",
    re.IGNORECASE,
)


def sentences(text: str) -> list[str]:
    """The text's sentences and lines, in order, without empty ones. A Markdown heading is one,
    whatever dots it holds ("### 1. Answer")."""
    return [
        s
        for line in text.strip().splitlines()
        for s in ([line] if _HEADING_LINE.match(line) else _SENTENCE_END.split(line))
        if s.strip()
    ]


_HEADING_LINE = re.compile(r"\s*#{1,6}\s")


# An opening before a colon when what follows asks: "Quick question: which ...?", "Can you
# remind me: how many ...?", "Quick question: Before I bought it, ...?". Not an opening that
# asks itself ("Which came first: the blender or the toaster?", "What time did I set: 6:30 or
# 7?"), where the colon's right side is the options.
_WH_WORD = r"which|what|who|whom|whose|where|when|how|why"
_ASKING_WORD = (
    rf"{_WH_WORD}|do|does|did|is|are|was|were|am|can|could|have|has|had|should|would|will"
)
_OPENING_BEFORE_ASKING = re.compile(
    rf"^(?!\s*(?i:{_WH_WORD})\b)[^:?\n]*:\s+(?=[A-Z]|(?i:{_ASKING_WORD})\b)"
)
# An indirect question's opening: "Can you remind me which ...?", "Do you remember how many
# ...?", "I was wondering what ...?". What it asks is the wh-clause.
_INDIRECT_OPENING = re.compile(
    r"^(?:(?:can|could|would|will) you (?:please )?(?:remind|tell) me(?: again)?|"
    r"do you (?:happen to )?(?:remember|recall|know)|i(?:'m| am| was)? (?:wondering|wonder)|"
    rf"i(?:'d| would) like to know),? (?=(?:{_WH_WORD})\b)",
    re.IGNORECASE,
)
# "please" asks nothing: "..., A or B, please?", "Please, which ...?"
_PLEASE = re.compile(r"^please,?\s+|,?\s+please(?=[\s*_]*\?)", re.IGNORECASE)


def asked_part(question: str) -> str:
    """What a question asks: its sentences that end in a question mark (or the last one, when it
    ends with no mark at all). The sentences around them ("Hi!", "I'm trying to remember
    something.", "Thanks!") ask nothing, and nor do a "please", an opening before a colon or an
    indirect question's opening ("Can you remind me which ...?": "which ...?"). The whole
    question when no sentence asks."""
    found = sentences(question)
    asking = [
        _INDIRECT_OPENING.sub("", _OPENING_BEFORE_ASKING.sub("", _PLEASE.sub("", s.strip())))
        for i, s in enumerate(found)
        if (end := s.rstrip(" *_\"')")).endswith("?")
        or (i == len(found) - 1 and not end.endswith((".", "!")))
    ]
    return " ".join(asking) if asking else question.strip()


def first_sentence(text: str) -> str:
    """The response's opening sentence (or line), where it declines or says what is missing."""
    for sentence in (found := sentences(text)):
        if not _says_nothing(sentence):
            return sentence
    return found[0] if found else ""


def _says_nothing(sentence: str) -> bool:
    """Is `sentence` no part of an answer? "1." of a numbered list is no sentence; a greeting,
    heading or status line says nothing, nor does a note that nothing later changed the answer,
    nor what the response says it does to find one."""
    return (
        not re.search(r"[^\W\d_]", sentence)
        or bool(_PREAMBLE.fullmatch(sentence.strip()))
        or says_only_no_later_change(sentence)
        or (bool(_NARRATION.match(sentence)) and not says_missing(sentence))
    )


# What the response says it does or did to find the answer ("I'll read the full prompt first",
# "Let me work through the sessions", "I checked the later sessions for any update"): unless
# it says what it could not find, it is no opening.
_NARRATION = re.compile(
    rf"(?i)^[\W_]*(?:{LEAD_IN}[\W_]*)*(?:i(?:['’]ll| will| am going to|['’]m going to)|let me|"
    r"i(?: first)? (?:checked|searched|scanned|looked|reviewed|read|went through))\b"
)


def says_only_no_later_change(text: str) -> bool:
    """Is `text` only a note that nothing later changed the answer ("No later session updates
    this.", "Nothing later revises the count.")? It is about the answer, not part of it."""
    said = plain(text)
    rest = without_no_later_change(said)
    return rest != said and not content_tokens(rest)


# Where a reasoning transcript gives its answer: "**Step 3: Draw a conclusion**", "Final answer:",
# "In conclusion", "Therefore". The last such marker starts the conclusion.
_CONCLUSION = re.compile(
    # ("Answer: 4", "**Answer**", "Answer 2: 4", "Answer — 4"; not "Answer generated by ...")
    r"(?im)^[\W_]*(?:step \d+\W+(?:\w+ ){0,3}(?:conclusion|answer)\b|"
    r"(?:final )?answer\b(?: \d+)?[*_]*\s*(?:[:：—–-]|is\b|$)|"
    r"(?:in )?conclusion\b|therefore\b|thus\b|in summary\b|to summari[sz]e\b|"
    # a line that labels the sum of what was listed: "**Total: about 11 weeks**", "Total time:"
    r"(?:grand )?total(?: [a-z]+){0,2}[*_]*\s*[:：])"
    r"|(?:^|(?<=[.!?]\s))(?:therefore|thus|in conclusion)\b"
    # "..., so my final answer is: X" names its answer mid-sentence
    r"|\b(?:my|the) final answer\b"
)


def conclusion(text: str) -> str:
    """The part of a response after its last conclusion marker; the whole text if it has none."""
    marks = list(_CONCLUSION.finditer(text or ""))
    return text[marks[-1].start() :] if marks else text


# How a response labels the part that is its answer: a JSON object's "answer" field, an
# `<answer>` tag, or an "Answer:" line that a labelled explanation follows ("Answer: 4\n
# Reasoning: you listed 3 road bikes and 1 mountain bike"). What the label sets apart as
# reasoning, evidence or a confidence note is not the answer. A "Note:" or "Details:" section is
# not one of those: it can qualify the answer ("Note: the count may now be 38").
_JSON_ANSWER_KEYS = ("answer", "final_answer", "finalanswer", "final answer", "response", "result")
_JSON_LIKE = re.compile(
    r"""^\s*(?:```(?:json)?\s*)?\{\s*["']?(?:final[_ ]?)?answer["']?\s*:\s*"""
    r"""(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([^,}\n]+))"""
)
_ANSWER_TAG = re.compile(r"<(?:final_)?answer>(.*?)</(?:final_)?answer>", re.DOTALL | re.IGNORECASE)
# (a greeting, an apology, a lead-in or a list number before the label on its line leaves it the
# label: "Sure! **Answer: 11 weeks**")
_ANSWER_LINE = re.compile(
    rf"(?im)^[\W_]*(?:(?:{GREETING}[.!,]*|{ANNOUNCEMENT}|{LEAD_IN}|\d+[.)])[\W_]*)?"
    r"(?:(?:final |short |direct )?answer|tl;?dr)[*_]*\s*[:：][*_]*"
)
_SECTION_LINE = re.compile(
    r"(?im)^[\W_]*(?:reasoning|explanation|rationale|justification|evidence|sources?|long answer|"
    r"confidence(?: level| score)?|supporting evidence|why|"
    r"how i (?:got|found) (?:it|this|there))[*_]*\s*[:：]"
)


# A closing paragraph that offers more help ("Let me know if you need anything else!", "Hope this
# helps."), signs off ("Best regards,") or is a note on the response itself (_NOTE_ON_ITSELF): it
# says nothing of the answer.
_OFFER = (
    r"[\W_]*(?:let me know|feel free|(?:i )?hope (?:this|that) helps|is there anything else|"
    r"would you like|(?:i'm |i am )?happy to help|if you (?:have|need)|"
    r"(?:best|kind|warm)(?:est)? regards\b|regards,|cheers[,!]|sincerely,|best wishes\b)"
)
# (the whole last paragraph: a sign-off's name on the line after it too)
_CLOSING_OFFER_OR_NOTE = re.compile(
    rf"(?is)\n\s*\n(?:{_OFFER}|{_NOTE_ON_ITSELF})(?:(?!\n\s*\n).)*$"
)


def without_closing_notes(text: str) -> str:
    """`text` without the closing offers and notes after its last paragraph of substance: a
    note on itself ("Sources: ...") or that nothing later changed the answer."""
    paragraphs = re.split(r"\n\s*\n", _CLOSING_OFFER_OR_NOTE.sub("", text).strip())
    while len(paragraphs) > 1 and says_only_no_later_change(paragraphs[-1]):
        paragraphs.pop()
    return "\n\n".join(paragraphs)


def closing_paragraph(text: str) -> str:
    """The response's last paragraph that says something of the answer, where it can say it
    cannot answer after all. A closing offer to help and notes set apart after it ("Sources:
    session 3", "Confidence: high") are not that paragraph."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", (text or "").strip()) if p.strip()]
    while len(paragraphs) > 1 and (
        re.match(_OFFER, paragraphs[-1], re.IGNORECASE)
        or _SECTION_LINE.match(paragraphs[-1])
        or _NOTE_LINE.match(paragraphs[-1])
        or says_only_no_later_change(paragraphs[-1])
    ):
        paragraphs.pop()
    return paragraphs[-1] if paragraphs else ""


def _json_object(text: str) -> object:
    """The JSON value a response is made of (in a code fence or not); None if it is not one."""
    try:
        return json.loads(re.sub(r"^\s*```(?:json)?|```\s*$", "", text.strip()))
    except ValueError:
        return None


# A tag around the whole response ("<response>...</response>", "<output>...</output>"): how a
# pipeline delivers it, not part of what it says.
_ENCLOSING_TAG = re.compile(r"^\s*<([A-Za-z][\w-]*)>\s*(.*?)\s*</\1>\s*$", re.DOTALL)


def repaired(text: str) -> str:
    """A response as its writer wrote it, whatever happened to it on the way to the file:
    mojibake undone ("donâ€™t" is "don’t", by ftfy), the escaped line breaks of a response
    serialised twice ("You have 3.\\n\\nThey are ...") read as line breaks, and a tag
    around all of it taken off."""
    if not text.isascii():
        text = ftfy.fix_text(text)
    if "\n" not in text and "\\n" in text:
        text = text.replace("\\r\\n", "\n").replace("\\n", "\n").replace('\\"', '"')
    enclosed = _ENCLOSING_TAG.match(text)
    return enclosed.group(2) if enclosed else text


def unwrapped_json(text: str) -> str:
    """A response that is a JSON object with its answer as the only field ('{"answer": "You
    mentioned ...\\n\\n- ..."}') as the text of that answer, its escaped line breaks and
    quotes as they read: the object is how the response is delivered, not what it says. Any
    other response as it is (stated_answer reads an answer field beside others)."""
    if not _JSON_LIKE.match(text or ""):
        return text
    obj = _json_object(text)
    if isinstance(obj, dict) and len(obj) == 1:
        ((key, value),) = obj.items()
        if key.lower() in _JSON_ANSWER_KEYS and isinstance(value, str):
            return value
    return text


def stated_answer(text: str) -> str:
    """The part of a response that it labels as its answer; the whole text when it labels none."""
    m = _JSON_LIKE.match(text or "")
    if m:
        obj = _json_object(text)
        if isinstance(obj, dict):
            for key, value in obj.items():
                if key.lower() in _JSON_ANSWER_KEYS and value is not None:
                    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        found = next((g for g in m.groups() if g is not None), "").strip()
        if found and found != "null":
            return found
    tags = _ANSWER_TAG.findall(text or "")
    if tags and tags[-1].strip():
        return stated_answer(tags[-1].strip())
    labelled = _labelled_answer(text or "")
    return labelled[0] if labelled else text


def reasoning_before_answer(text: str) -> str | None:
    """What a response says before the line that labels its answer ("... you repainted them a
    lighter shade of gray.\n\nAnswer: lighter gray"), when it says something there; None for a
    response with no such line."""
    labelled = _labelled_answer(text or "")
    before = text[: labelled[1]].strip() if labelled else ""
    return before or None


def _labelled_answer(text: str) -> tuple[str, int] | None:
    """(the answer an "Answer:" line labels, where that line starts), or None."""
    labels = list(_ANSWER_LINE.finditer(text))
    if labels:
        after = text[labels[-1].end() :]
        section = _SECTION_LINE.search(after)
        if section and _CONCLUSION.search(after[section.end() :]):
            # "Final Answer: ... **Reasoning:** ... Therefore, 14 days": a section that reaches
            # a conclusion is the reasoning the answer is made of, not notes set apart from it.
            section = None
        answer = after[: section.start()] if section else after
        # The label cuts at a labelled explanation, opens the response ("Answer: N/A"), or
        # closes it (no paragraph after its own), so notes appended after it change nothing.
        closes = "\n\n" not in without_closing_notes(answer)
        # "Final Answer:" ends an agent's trace ("Thought: ... Observation: ... Final Answer:")
        final = "final" in labels[-1].group(0).lower()
        opens = not text[: labels[-1].start()].strip()
        if (section or closes or final or opens) and answer.strip():
            return answer.strip(), labels[-1].start()
    return None


# Taking back what was just said: disowning it ("Actually, no", "Hmm, no", "scratch that",
# "disregard that", "never mind", "I take that back", "or rather", "Correction:"), owning a
# mistake ("I was wrong", "I misspoke", "I was mistaken", "my mistake", "I got that wrong", "I
# made a mistake") or judging it ("that's not right", "that isn't correct", "that's incorrect",
# "that was a mistake", "I don't think that's right"): what follows the last retraction is the
# answer, and a retraction with nothing after it leaves none. A correction of the question's
# premise reads the same way ("you said 2021, but that is not correct: it was 2022"). "It"
# judges too much else ("it was wrong of them") to be read as judging the answer, except as
# "not right", "not correct" or "not accurate".
_RETRACTION = re.compile(
    r"(?i)\b(?:actually,? no\b|hmm+,? no\b|no,? wait\b|wait,? no\b|(?:scratch|strike) that\b|"
    # ("ignore that warning", "never mind the date" disown nothing: the phrase ends a clause)
    r"(?:(?:please )?(?:disregard|ignore) (?:that|this|what i (?:just )?said)|never ?mind)"
    r"(?=\s*(?:[,.;:!—–-]|$))|"
    r"i take (?:that|it) back\b|,? or rather\b|correction:|"
    r"i was wrong\b|i misspoke\b|i was mistaken\b|i misread\b|i misremembered\b|"
    r"my (?:mistake|bad)\b|"
    r"i got (?:that|it|this) wrong\b|i made (?:a|an) (?:mistake|error)\b|"
    r"i don['’]?t think (?:that|this)(?:['’]s| is) (?:right|correct|accurate)\b|"
    # ("that isn't right", "this wasn't correct": the contraction as well; "if that's not
    # accurate, tell me" supposes, it takes nothing back)
    r"(?<!\bif )(?<!\bunless )(?<!\bin case )(?:that|this|it)(?:(?:'s|’s| is| was) not|"
    r"(?: is| was)n['’]t) (?:right|correct|accurate)\b|"
    r"(?<!\bif )(?<!\bunless )(?<!\bin case )(?:that|this)(?:'s|’s| is| was) "
    r"(?:wrong|incorrect|inaccurate|an? (?:mistake|error))\b)"
)


def _after_last(pattern: re.Pattern, text: str) -> str | None:
    """What `text` says after the last match of `pattern`; None when nothing matches."""
    marks = list(pattern.finditer(text or ""))
    return text[marks[-1].end() :].strip(" \t\n:;,.-—–") if marks else None


def after_retraction(text: str) -> tuple[str, bool]:
    """(what the response says after its last retraction, whether it retracts anything)."""
    after = _after_last(_RETRACTION, text)
    return (text, False) if after is None else (after, True)


# Where a response settles on an answer after wavering: correcting itself ("Wait, I need to
# correct that: ...", "... — but wait, that is earlier still. So ...", "On second thought, ...")
# or reasoning to one ("..., so the answer is X", "though, the answer is X", "Since ..., the
# answer is X", "That leaves X", "At first I thought X, but actually it was Y"; not "The answer
# is based on your May message", which opens no answer). Unlike a retraction above, the part
# after it is not read instead of the whole: the official judges split on a wrong first answer
# corrected to the right one (gpt-4o accepted one, gpt-4o-mini rejected them), but an answer
# settled on wrong is wrong for both, whatever it named before.
_SETTLES = re.compile(
    r"(?i)(?:^|(?<=[.!?]\s)|(?<=\n)|\bbut,?\s)[*_]*wait\s*[,.!:;—–-]|\bon second thought\b|"
    r"\b(?:i need to|let me) correct (?:that|this|myself)\b|"
    r"(?:\b(?:so|thus|therefore|hence|though|however),?|,) the (?:final |correct )?answer is\b|"
    r"\bthe (?:final |correct )?answer is:|"
    r"\bthat leaves\b|\bbut actually,? (?:it|that|this|the answer)(?: was|'s| is)\b|"
    r"\b(?:but|however),?[^.!?\n]{0,80}?\b(?:it|the answer)(?:'s| is| was) actually\b|"
    r"\bgoing with the (?:latest|most recent|newest)(?: one| value| figure| answer)?\s*[:,]|"
    r"\bthe (?:latest|most recent|updated) (?:answer|figure|count|number|value) is\b|"
    r"\bto (?:directly |simply |briefly )?answer your (?:\w+ )?question(?: directly)?\s*[:,]"
)


# Where a response says what it named was replaced: by a correction or a later update ("but you
# corrected it later: Y", "a more recent message updates that to Y", "you later clarified it
# was Y", "X, but that was superseded by Y", "X is outdated; it's now Y") or by naming the right one
# ("The correct figure, from your later message, is Y"). What follows is the value it settles
# on. A denied one settles nothing: "No later session updates that figure", "You never updated
# it", "Nothing later revises the count".
_REPLACED = re.compile(
    r"(?i)\b(?:correct(?:s|ed)|updat(?:es|ed)|revis(?:es|ed)|amend(?:s|ed)|chang(?:es|ed)|"
    r"overrides|overrode|supersedes|clarifie[sd])"
    r"(?: (?:it|that|this)"
    r"(?: (?:figure|number|count|value|amount|total|answer|date|time|name|one))?)"
    r"(?: later| afterwards| since)?(?: (?:to|with|as)\b|(?=\s*(?:[:,;.—–]|was\b|is\b)))"
    r"|\b(?:it|that|this|which)(?: (?:figure|number|count|value|amount|total|answer))? "
    r"(?:was|has been|had been|got)(?: later| since| then)? "
    r"(?:corrected|updated|revised|amended|changed|overridden|superseded|replaced)"
    r"(?: later| since)? (?:to|by|with)\b"
    r"|\b(?:is|was)(?: now)? (?:outdated|out of date|superseded|no longer (?:accurate|correct|"
    r"current|valid|right|true))\b"
    # a later telling: "your most recent message says B", "then later said it was B"
    r"|\b(?:a|the|your|my) (?:more recent|most recent|latest|later|newer|last) (?:messages?|"
    r"sessions?|conversations?|chats?|notes?|mentions?|updates?|entry|entries|details|"
    r"information|info|records?) (?:says?|said|states?|stated|shows?|showed|gives?|gave|"
    r"puts? it at|points? to|indicates?|changes? it to)\b"
    r"|\blater,? (?:you )?(?:said|told me|mentioned|stated) (?:that )?(?:it was|it's|it is)\b"
    # ("the actual total is likely higher" replaces nothing)
    r"|\bthe (?:correct|right|accurate|most accurate|updated|corrected|revised) "
    r"(?:answer|figure|number|count|value|total|amount|date|time|name|one)\b"
    r"[^.;:\n]{0,40}?\b(?:is|was)\b"
)
# Of those, the ones that say the earlier telling was wrong, not that the value changed since
# ("you corrected it later: B", "it was corrected to B", "the correct figure is B"): for a
# question that asks for an earlier value, B is that value, where after an update ("a more
# recent message updates that to B") the earlier one is.
_CORRECTED = re.compile(
    r"(?i)\bcorrect(?:s|ed)?\b|\b(?:right|accurate) (?:answer|figure|number|"
    r"count|value|total|amount|date|time|name|one)\b"
)
# A denial before it in its sentence: "No later session updates it", "You never changed that".
# ("I'm not sure, but you corrected it later" denies nothing: the clause has turned)
_DENIED_IN_SENTENCE = re.compile(
    r"(?i)(?:\b(?:no|nothing|never|not|none|nor|without)\b|n't)"
    r"(?:(?!\b(?:but|however|though|although)\b)[^.!?\n,;—–])*$"
)


def _replacement_ends(text: str, *, corrections_only: bool = False) -> list[int]:
    """Where the response's undenied statements that something was replaced end (with
    `corrections_only`, that the earlier telling was wrong)."""
    return [
        m.end()
        for m in _REPLACED.finditer(text)
        if not _DENIED_IN_SENTENCE.search(text[max(0, m.start() - 60) : m.start()])
        and (not corrections_only or _CORRECTED.search(m.group(0)))
    ]


def _after(text: str, ends: list[int]) -> str | None:
    return text[max(ends) :].strip(" \t\n:;,.-—–") if ends else None


def replaced_by(text: str, *, earlier: bool = False) -> str | None:
    """What the response names after the last place it says what it named was replaced ("you
    originally said A, but you corrected it later: B" -> "B"); None when it says none was.
    `earlier`: the question asks for an earlier value, which only a correction replaces."""
    return _after(text or "", _replacement_ends(text or "", corrections_only=earlier))


def settled_answer(text: str, *, earlier: bool = False) -> str | None:
    """What the response says after the last place it settles on an answer (see _SETTLES) or
    says what it named was replaced (see _REPLACED; only a correction, when the question asks
    for an `earlier` value); None when it has none."""
    text = text or ""
    ends = [m.end() for m in _SETTLES.finditer(text)]
    return _after(text, ends + _replacement_ends(text, corrections_only=earlier))
