"""LongMemEval's reader prompts, selected by name (`reader.prompt`).

Options:
- `default`: answer from the history; saying the information is not available is invited.
- `type_aware`: `default` plus per-type guidance for multi-session (list items per session,
  deduplicate, then count) and knowledge-update (latest information by date).
  single-session-preference stays at `default`: Compass found the special prompt hurt.
- `multi_session`, `recency`: `default` plus only the multi-session, or only the
  knowledge-update, part of `type_aware` (the separate rungs of the ablation ladder).
- `con`: Chain-of-Note in one call: notes per session first, then the answer.
- `preference`: `type_aware` plus the special preference prompt, kept only to reproduce that
  negative finding.
"""

from __future__ import annotations

from ...read.prompts import ReaderPrompt

ABSTAIN = (
    "If the chat history does not contain the information needed to answer, say that "
    "the information is not available instead of guessing."
)

_INTRO = (
    "I will give you several past chat sessions between you (the assistant) and a user, "
    "each with its date, in date order. Answer the user's question based on the relevant "
    "chat history."
)

_BODY = "\n\nHistory Chats:\n{history}\n\nCurrent Date: {today}\nQuestion: {question}\n"

DEFAULT_TEMPLATE = _INTRO + " " + ABSTAIN + "{guidance}" + _BODY + "Answer:"

CON_TEMPLATE = (
    _INTRO + " Work in two steps.\n"
    'Step 1 - Notes: for each session, in order, write one line "Session N (date): ..." with '
    'the facts from that session that help answer the question, or "nothing relevant".\n'
    'Step 2 - Answer: using only your notes, write a final line that starts with "Answer:". '
    + ABSTAIN
    + "{guidance}"
    + _BODY
    + "Notes:"
)

MULTI_SESSION = (
    "The answer may be spread over several sessions. First list every relevant item session "
    "by session, with the session date; then remove duplicates (the same item mentioned again "
    "in a later session); then count or add up what is left, and give that total as the answer."
)
KNOWLEDGE_UPDATE = (
    "The user's information may have changed over time. When sessions disagree, trust the most "
    "recent session by date and answer with the current value; you may mention the older one."
)
PREFERENCE = (
    "The user wants a personalised answer. First recall what the user said in earlier sessions "
    "about their preferences, interests, skills and circumstances; then give a recommendation "
    "that builds on them instead of a generic one."
)

_TYPE_AWARE = {"multi-session": MULTI_SESSION, "knowledge-update": KNOWLEDGE_UPDATE}


PROMPTS: dict[str, ReaderPrompt] = {
    "default": ReaderPrompt("default", DEFAULT_TEMPLATE),
    "type_aware": ReaderPrompt("type_aware", DEFAULT_TEMPLATE, dict(_TYPE_AWARE)),
    "multi_session": ReaderPrompt(
        "multi_session", DEFAULT_TEMPLATE, {"multi-session": MULTI_SESSION}
    ),
    "recency": ReaderPrompt("recency", DEFAULT_TEMPLATE, {"knowledge-update": KNOWLEDGE_UPDATE}),
    "con": ReaderPrompt("con", CON_TEMPLATE, answer_marker="Answer"),
    "preference": ReaderPrompt(
        "preference", DEFAULT_TEMPLATE, {**_TYPE_AWARE, "single-session-preference": PREFERENCE}
    ),
}
