"""BEAM's reader prompts and the own-wording LLM judge's prompts.

Reader: one instruction for every question (the prompt never learns the question's ability,
so nothing tells it that a question is unanswerable or holds a contradiction). The instruction
covers what each ability needs from an answer: say so when the history does not hold the
information (abstention); point out contradictory statements and ask which holds
(contradiction resolution); give the latest value when something changed (knowledge update);
put each item of an ordered list on its own line (event ordering: the released score splits
the answer into lines); work dates out from the session dates (temporal reasoning); and follow
the standing instructions and preferences the user gave earlier in the conversation
(instruction and preference following: they are only in the history, so the retrieved
sessions must hold them; the retrieval metrics of those abilities show whether they did).

Judge (own wording, not the released prompt): one call per answer. Rubric abilities: the
model scores every rubric item 1, 0.5 or 0 in one JSON list, and the question's score is
their mean (the released code casts each item with int(), which drops 0.5; ours keeps it and
says so). Event ordering: the model maps each answer line to the rubric item it states (or
none), and the released Kendall tau-b score is computed from that alignment.
"""

from __future__ import annotations

import json
import re

from ...read.prompts import ReaderPrompt
from .scoring import ReplyError, parse_reply

_INTRO = (
    "Below is the history of a long conversation between a user and you (the assistant), "
    "exchange by exchange in date order, each with its date. Then the user asks a new "
    "question.\n"
    "- Answer from the history only. If it does not contain what is asked, say plainly that "
    "the conversation has no information about it, and do not guess.\n"
    "- If the history holds statements that contradict each other on what is asked, point out "
    "both and ask the user which one is correct instead of choosing one.\n"
    "- If something changed over the conversation, answer with its latest value.\n"
    "- When asked for things in the order they came up, give one item per line, in order, "
    "with nothing else on those lines.\n"
    "- Work out dates and durations from the exchanges' dates and the dates the user gave.\n"
    "- Follow every standing instruction and preference the user stated earlier in the "
    "conversation (formats, things to always or never do, what they prefer), as if they had "
    "repeated it with this question."
)

_BODY = "\n\nConversation history:\n{history}\n\nToday is {today}.\nQuestion: {question}\n"

DEFAULT_TEMPLATE = _INTRO + "{guidance}" + _BODY + "Answer:"

CON_TEMPLATE = (
    _INTRO + "\nWork in two steps.\n"
    "Step 1 - Notes: list what the history says that bears on the question, with dates, "
    "including any standing instructions or preferences that apply.\n"
    'Step 2 - Answer: write a final part that starts with "Answer:" and answers the user '
    "directly." + "{guidance}" + _BODY + "Notes:"
)

READER_PROMPTS: dict[str, ReaderPrompt] = {
    "default": ReaderPrompt("beam_default", DEFAULT_TEMPLATE),
    "con": ReaderPrompt("beam_con", CON_TEMPLATE, answer_marker="Answer"),
}

# ---- the own-wording judge -------------------------------------------------------------------

RUBRIC_TEMPLATE = (
    "You grade an assistant's answer against a rubric. Each rubric item is one thing the "
    "answer must do or say. Judge meaning, not wording: paraphrases, synonyms and equivalent "
    "forms of numbers and dates count. Ignore style and length unless an item asks for a "
    "format. An answer that does not address the question meets no item.\n"
    "Score each item: 1 = fully met, 0.5 = partly met (present but incomplete or slightly "
    "wrong), 0 = not met.\n\n"
    "Question: {question}\n\nRubric items:\n{items}\n\nAnswer to grade:\n{response}\n\n"
    "Reply with a JSON list of {n} numbers, one per item in order, e.g. [1, 0.5, 0], and "
    "nothing else."
)

ORDER_TEMPLATE = (
    "An assistant was asked to list events in the order they came up. Below are the "
    "reference events, numbered, and the assistant's answer, line by line, numbered. For each "
    "answer line, give the number of the reference event it describes (the same event or "
    "fact, in any wording), or 0 if it describes none. Use each reference event at most once.\n\n"
    "Reference events:\n{items}\n\nAnswer lines:\n{lines}\n\n"
    "Reply with a JSON list of {n} integers, one per answer line in order, e.g. [2, 0, 1], "
    "and nothing else."
)

TEMPLATES = {"rubric": RUBRIC_TEMPLATE, "event_ordering": ORDER_TEMPLATE}


def numbered(items: list[str]) -> str:
    return "\n".join(f"{i}. {x}" for i, x in enumerate(items, start=1))


def rubric_prompt(question: str, rubric: list[str], response: str) -> str:
    return RUBRIC_TEMPLATE.format(
        question=question, items=numbered(rubric), response=response, n=len(rubric)
    )


def order_prompt(rubric: list[str], lines: list[str]) -> str:
    return ORDER_TEMPLATE.format(items=numbered(rubric), lines=numbered(lines), n=len(lines))


def _number_list(reply: str, n: int) -> list:
    obj = parse_reply(reply)
    if not isinstance(obj, list) or len(obj) != n:
        raise ReplyError(f"expected a JSON list of {n} numbers")
    return obj


def parse_rubric(reply: str, n: int) -> list[float]:
    """The item scores of an own-wording rubric reply (each 0, 0.5 or 1)."""
    out = []
    for x in _number_list(reply, n):
        if isinstance(x, str) and re.fullmatch(r"\s*[01](?:\.5|\.0)?\s*", x):
            x = float(x)
        if isinstance(x, bool) or not isinstance(x, (int, float)) or x not in (0, 0.5, 1):
            raise ReplyError(f"item score {json.dumps(x)} is not 0, 0.5 or 1")
        out.append(float(x))
    return out


def parse_order(reply: str, lines: list[str], rubric: list[str]) -> list[str]:
    """The answer lines aligned to the rubric as the own judge mapped them: a line mapped to
    item k becomes that item's text (first use only), any other line stays as it is."""
    used: set[int] = set()
    out = []
    for line, k in zip(lines, _number_list(reply, len(lines))):
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= len(rubric):
            raise ReplyError(f"{json.dumps(k)} is not an item number 0..{len(rubric)}")
        if k and k - 1 not in used:
            used.add(k - 1)
            out.append(rubric[k - 1])
        else:
            out.append(line)
    return out
