"""Restylings: a response dressed in another house style, its answer unchanged.

Published systems answer in many styles: a greeting first, a Markdown heading, the question
restated, a closing offer to help, citations of the sessions read. A judge's verdict should not
depend on the style, so each restyling below keeps what the response says and changes only how
it is dressed. Re-judging labelled answers under each one counts the verdicts that change: every
change is a reading of style as meaning, and the labels tell which way it errs. These are
evidence a rule was not written from, because the label of a restyled answer is its original's.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from tqdm import tqdm


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


_MONTHS = "|".join(calendar.month_name[1:])


def _day_first(text: str) -> str:
    """ "March 25, 2023" and "March 25th" written day first: "25 March 2023", "25 March"."""
    return re.sub(
        rf"\b({_MONTHS}) (\d{{1,2}})(?:st|nd|rd|th)?\b(?:,? (\d{{4}})\b)?",
        lambda m: f"{m.group(2)} {m.group(1)}" + (f" {m.group(3)}" if m.group(3) else ""),
        text,
    )


# name -> (question, response) -> the response restyled
RESTYLINGS: dict[str, Callable[[str, str], str]] = {
    "greeting": lambda q, r: "Sure! " + r,
    "heading": lambda q, r: "## Answer\n\n" + r,
    "status_line": lambda q, r: "Searching memory...\n\n" + r,
    "numbered": lambda q, r: "1. " + r,
    "lead_in": lambda q, r: "Based on our previous conversations, " + _lower_first(r),
    "recall_hedge": lambda q, r: "If I recall correctly, " + _lower_first(r),
    "unsure_hedge": lambda q, r: "I'm not 100% sure, but " + _lower_first(r),
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
    "lower_case": lambda q, r: r.lower(),
    "day_first_dates": lambda q, r: _day_first(r),
    "html": lambda q, r: re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", r).replace("\n", "<br>"),
    "ampersand": lambda q, r: r.replace(" and ", " & "),
    "double_space": lambda q, r: r.replace(". ", ".  "),
    "tilde": lambda q, r: re.sub(r"\b(?:about|approximately|around|roughly) (?=\$?\d)", "~", r),
    "as_of_lead_in": lambda q, r: "As of our last conversation, " + _lower_first(r),
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
    "smart_quotes": lambda q, r: r.replace("'", "\u2019"),
    "em_dash": lambda q, r: r.replace(" - ", " \u2014 "),
    "crlf": lambda q, r: r.replace("\n", "\r\n"),
}


@dataclass(frozen=True)
class Labelled:
    """One judged response: its question, the response, its label (None when unlabelled), and
    whatever else its judge reads (`record`: the reference, the question type)."""

    question: str
    response: str
    label: bool | None = None
    record: Any = None


@dataclass
class Changes:
    """How one restyling moved a judge's verdicts."""

    n: int = 0
    changed: int = 0
    toward_label: int = 0  # the restyled verdict agrees with the label, the original did not
    away_from_label: int = 0


def verdict_changes(
    items: Iterable[Labelled],
    judge: Callable[[Labelled, str], bool],
    restylings: dict[str, Callable[[str, str], str]] = RESTYLINGS,
    progress: bool = False,
) -> dict[str, Changes]:
    """Per restyling, the verdicts `judge(item, response)` gives differently on the restyled
    response than on the original."""
    items = list(items)
    bar = tqdm(total=len(items) * (1 + len(restylings)), desc="restyled", disable=not progress)
    original = []
    for item in items:
        original.append(judge(item, item.response))
        bar.update()
    out = {}
    for name, restyle in restylings.items():
        counts = Changes(n=len(items))
        for item, before in zip(items, original, strict=True):
            bar.update()
            after = judge(item, restyle(item.question, item.response))
            if after == before:
                continue
            counts.changed += 1
            if item.label is not None:
                if after == item.label:
                    counts.toward_label += 1
                else:
                    counts.away_from_label += 1
        out[name] = counts
    bar.close()
    return out
