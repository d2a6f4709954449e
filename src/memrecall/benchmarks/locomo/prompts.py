"""Reader prompts for two-person conversations (LoCoMo): both speakers are people, each turn is
shown with its speaker's name, and nothing in the history was said by the assistant.

Chosen by the same `reader.prompt` names when the questions come from a LoCoMo file (the turns
carry a `speaker`): `default` and `con`. The replies follow what LoCoMo's released evaluation
scores: a short phrase in the conversation's own words, and "No information available" when the
conversations do not say (its category-5 rule looks for that phrase). The instruction is the
same for every question: the prompt never learns a question's category.
"""

from __future__ import annotations

from ...read.prompts import ReaderPrompt

ABSTAIN = (
    "If the conversations do not contain the information needed to answer, reply "
    '"No information available" instead of guessing.'
)

_INTRO = (
    "Below are past conversations between two people, session by session in date order, "
    "each session with its date and each line with the name of who said it. Answer the "
    "question about them with a short phrase, using the conversations' own words where "
    'you can. When someone refers to a time relative to the session ("yesterday", '
    '"last week"), give the date it means, worked out from that session\'s date.'
)

_BODY = "\n\nConversations:\n{history}\n\nQuestion: {question}\n"

DEFAULT_TEMPLATE = _INTRO + " " + ABSTAIN + "{guidance}" + _BODY + "Short answer:"

CON_TEMPLATE = (
    _INTRO + " Work in two steps.\n"
    'Step 1 - Notes: for each session, in order, write one line "Session N (date): ..." with '
    'what was said there that helps answer the question, or "nothing relevant".\n'
    'Step 2 - Answer: using only your notes, write a final line that starts with "Answer:". '
    + ABSTAIN
    + "{guidance}"
    + _BODY
    + "Notes:"
)

PROMPTS: dict[str, ReaderPrompt] = {
    "default": ReaderPrompt("locomo_default", DEFAULT_TEMPLATE),
    "con": ReaderPrompt("locomo_con", CON_TEMPLATE, answer_marker="Answer"),
}
