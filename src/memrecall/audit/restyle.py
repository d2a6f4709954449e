"""Restylings: a response dressed in another house style, its answer unchanged.

Published systems answer in many styles: a greeting first, a Markdown heading, the question
restated, a closing offer to help, citations of the sessions read. A judge's verdict should not
depend on the style, so each restyling below keeps what the response says and changes only how
it is dressed. `RESTYLED` are the same as variants (variants.py), which count the verdicts a
restyling changes.
"""

from __future__ import annotations

import calendar
import json
import re
import textwrap
from collections.abc import Callable
from dataclasses import replace

from .variants import Variant


def lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


_MONTHS = "|".join(calendar.month_name[1:])


def _day_first(text: str) -> str:
    """ "March 25, 2023" and "March 25th" written day first: "25 March 2023", "25 March"."""
    return re.sub(
        rf"\b({_MONTHS}) (\d{{1,2}})(?:st|nd|rd|th)?\b(?:,? (\d{{4}})\b)?",
        lambda m: f"{m.group(2)} {m.group(1)}" + (f" {m.group(3)}" if m.group(3) else ""),
        text,
    )


_NEGATION = re.compile(
    r"\b(not|never|no|cannot|(?:did|do|does|have|has|could|can|was|were|is|are)n['’]t)\b",
    re.IGNORECASE,
)


_WORD_SENTENCE_END = re.compile(r"(?<=[a-z)])\.(?=\s|$)")
# (up to the first sentence end before a capital or the end; not an abbreviation's dot)
_FIRST_SENTENCE = re.compile(
    r"^((?:[^.!?\n]|(?<=\bvs)\.|(?<=\b(?:Dr|Mr|Ms|St))\.|(?<=\bMrs)\.|\.(?=\S))+[.!?])"
    r"(?=\s+[A-Z*]|\s*$)"
)


def _hard_wrapped(text: str, width: int = 72) -> str:
    """Each line of `text` broken at `width` columns, as a plain-text pipeline or a terminal
    writes it; list items, headings and paragraphs stay where they were."""
    return "\n".join(
        textwrap.fill(line, width, break_on_hyphens=False, break_long_words=False)
        if line.strip()
        else line
        for line in text.split("\n")
    )


def _as_windows_1252(text: str) -> str:
    """`text`'s UTF-8 bytes read as Windows-1252, as a careless pipeline reads them ("don’t" as
    "donâ€™t"); a byte that code page leaves undefined as the Latin-1 character it names."""
    return "".join(bytes([b]).decode("cp1252", "ignore") or chr(b) for b in text.encode())


def _sentence_end(text: str) -> str:
    """`text` ending its last sentence, so that one can follow it."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else text + "."


# name -> (question, response) -> the response restyled
RESTYLINGS: dict[str, Callable[[str, str], str]] = {
    "greeting": lambda q, r: "Sure! " + r,
    "heading": lambda q, r: "## Answer\n\n" + r,
    "bold_title": lambda q, r: "**Answer**\n\n" + r,
    "horizontal_rules": lambda q, r: "---\n\n" + r + "\n\n---",
    "status_line": lambda q, r: "Searching memory...\n\n" + r,
    "numbered": lambda q, r: "1. " + r,
    "lead_in": lambda q, r: "Based on our previous conversations, " + lower_first(r),
    "recall_hedge": lambda q, r: "If I recall correctly, " + lower_first(r),
    "answering_lead_in": lambda q, r: "To answer your question: " + r,
    "unsure_hedge": lambda q, r: "I'm not 100% sure, but " + lower_first(r),
    "restated_question": lambda q, r: f"**Question:** {q}\n\n" + r,
    "agent_trace": lambda q, r: (
        "Thought: I should check our past conversations.\nFinal Answer: " + r
    ),
    "bullet": lambda q, r: "- " + r,
    "bold": lambda q, r: f"**{r}**",
    "underscore_emphasis": lambda q, r: r.replace("**", "__"),
    "answer_tag": lambda q, r: f"<answer>{r}</answer>",
    "closing_offer": lambda q, r: r + "\n\nLet me know if there's anything else I can help with!",
    "citations": lambda q, r: r + "\n\nSources: session 3, session 12",
    "confidence": lambda q, r: r + "\n\nConfidence: high",
    "provenance_footer": lambda q, r: r + "\n\n_Generated from 12 retrieved sessions._",
    "lower_case": lambda q, r: r.lower(),
    "day_first_dates": lambda q, r: _day_first(r),
    "html": lambda q, r: re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", r).replace("\n", "<br>"),
    "ampersand": lambda q, r: r.replace(" and ", " & "),
    "double_space": lambda q, r: r.replace(". ", ".  "),
    "tilde": lambda q, r: re.sub(r"\b(?:about|approximately|around|roughly) (?=\$?\d)", "~", r),
    "as_of_lead_in": lambda q, r: "As of our last conversation, " + lower_first(r),
    "basis_note": lambda q, r: (
        r + "\n\nNote: this is based on the information available in my memory."
    ),
    "confidence_note": lambda q, r: (
        r + "\n\nI'm fairly confident in this, but let me know if it doesn't match your records."
    ),
    "access_note": lambda q, r: "Note: I only have access to our past conversations.\n\n" + r,
    "thinking_tags": lambda q, r: "<thinking>Let me check the sessions first.</thinking>\n" + r,
    "announced": lambda q, r: "Here's what I found:\n\n" + r,
    "apology": lambda q, r: "I apologize for any confusion earlier. " + r,
    "sign_off": lambda q, r: r + "\n\nBest regards,\nYour assistant",
    # a note that the answer was checked for later updates: about the answer, not a lack of it
    "no_later_update_note": lambda q, r: r + "\n\nNo later session updates this.",
    "no_change_since": lambda q, r: (
        _sentence_end(r) + " You haven't mentioned changing this since."
    ),
    "smart_quotes": lambda q, r: r.replace("'", "\u2019"),
    "em_dash": lambda q, r: r.replace(" - ", " \u2014 "),
    "crlf": lambda q, r: r.replace("\n", "\r\n"),
    # "You did **not** mention it": the negation in bold, as many assistants set it
    "bold_negations": lambda q, r: _NEGATION.sub(r"**\1**", r),
    # a citation of the session read at the end of each sentence, as retrieval systems cite
    "inline_citations": lambda q, r: _WORD_SENTENCE_END.sub(" [Session 2].", r),
    # the opening sentence in bold, as a summary before the detail
    # lines broken at a fixed width, as a plain-text pipeline writes them
    "hard_wrapped": lambda q, r: _hard_wrapped(r),
    # the whole response as a structured output's only field, its line breaks escaped
    "json_answer": lambda q, r: json.dumps({"answer": r}),
    # damage on the way to a published file: a tag around it all, its curly apostrophes decoded
    # as Windows-1252 (mojibake: "don’t" as "donâ€™t"), its line breaks escaped twice
    "response_tag": lambda q, r: f"<response>\n{r}\n</response>",
    "mojibake": lambda q, r: _as_windows_1252(r.replace("'", "\u2019")),
    "escaped_twice": lambda q, r: r.replace("\n", "\\n"),
    "bold_first_sentence": lambda q, r: _FIRST_SENTENCE.sub(
        lambda m: "**" + m.group(1).replace("**", "") + "**", r, count=1
    ),
}


def dressed(restyle: Callable[[str, str], str]) -> Variant:
    """The variant that dresses an answer's response in a restyling."""
    return lambda item: replace(item, response=restyle(item.question, item.response))


RESTYLED: dict[str, Variant] = {name: dressed(f) for name, f in RESTYLINGS.items()}
