"""Reader prompts for EverMemBench's workplace group chats, in our own words (the released
prompts are read from the user's checkout only by judge=official; no licence is published).

The history is a topic's group chats, one session per group and day, each line with the name of
who said it. Two forms of question: multiple choice (the question as the reader sees it lists the
options "A. ..", as the released answerer shows them; reply with one letter, scored by the
released letter extraction and exact match) and open (a short answer, judged). One template
serves both: it says what to do for each form, and the question shows which form it is
(`reader_question`).
"""

from __future__ import annotations

from ...read.prompts import ReaderPrompt

_INTRO = (
    "Below are messages from a company's group chats, session by session in date order: "
    "each session is one group's messages on one day, and each line starts with the name "
    "of who wrote it. Several projects and people share these groups, and decisions are "
    "revised over time: when messages disagree, the most recent one holds. Use only what "
    "the messages say or directly imply."
)

_FORMS = (
    "If the question lists options A to D, reply with the letter of the best-supported "
    "option and nothing else (when none is clearly supported, still pick the least "
    "inconsistent one). Otherwise reply with a short, specific answer (a few words); when "
    'the question is about time, give dates ("2025-05-07") or durations worked out from '
    "the session dates, not relative words."
)

_BODY = "\n\nMessages:\n{history}\n\nToday is {today}.\n\nQuestion: {question}\n"

DEFAULT_TEMPLATE = _INTRO + " " + _FORMS + "{guidance}" + _BODY + "Answer:"

CON_TEMPLATE = (
    _INTRO + " Work in two steps.\n"
    'Step 1 - Notes: for each session, in order, write one line "Session N (date, group): '
    '..." with what was said there that helps answer the question, or "nothing relevant".\n'
    'Step 2 - Answer: using only your notes, write a final line that starts with "Answer:". '
    + _FORMS
    + "{guidance}"
    + _BODY
    + "Notes:"
)

PROMPTS: dict[str, ReaderPrompt] = {
    "default": ReaderPrompt("evermembench_default", DEFAULT_TEMPLATE),
    "con": ReaderPrompt("evermembench_con", CON_TEMPLATE, answer_marker="Answer"),
}


def reader_question(question: str, options: list[str] | None) -> str:
    """The question as the reader sees it: a multiple-choice question lists its options, one a
    line ("A. text"), as the released answerer shows them."""
    if not options:
        return question
    return question + "\nOptions:\n" + "\n".join(options)
