"""Reader prompts, selected by name (`reader.prompt`) and identified by a hash of their text.

Every prompt is one user message: the instructions, the dated history, today's date (the
question date) and the question. The template text is part of the request the LLM client
hashes, so editing a template re-sends exactly the requests it changes; the short template
hash in `prompt_id` makes that visible in answers.parquet.

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

import re
from dataclasses import dataclass, field

from ..errors import ConfigError
from ..hashing import sha256_json

ABSTAIN = ("If the chat history does not contain the information needed to answer, say that "
           "the information is not available instead of guessing.")

_INTRO = ("I will give you several past chat sessions between you (the assistant) and a user, "
          "each with its date, in date order. Answer the user's question based on the relevant "
          "chat history.")

_BODY = "\n\nHistory Chats:\n{history}\n\nCurrent Date: {today}\nQuestion: {question}\n"

DEFAULT_TEMPLATE = _INTRO + " " + ABSTAIN + "{guidance}" + _BODY + "Answer:"

CON_TEMPLATE = (
    _INTRO + " Work in two steps.\n"
    "Step 1 - Notes: for each session, in order, write one line \"Session N (date): ...\" with "
    "the facts from that session that help answer the question, or \"nothing relevant\".\n"
    "Step 2 - Answer: using only your notes, write a final line that starts with \"Answer:\". "
    + ABSTAIN + "{guidance}" + _BODY + "Notes:"
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


@dataclass(frozen=True)
class ReaderPrompt:
    name: str
    template: str  # placeholders: {guidance} {history} {today} {question}
    guidance: dict = field(default_factory=dict)  # question_type -> extra instruction
    answer_marker: str | None = None  # the final answer follows the last such marker

    @property
    def template_hash(self) -> str:
        return sha256_json({"template": self.template, "guidance": self.guidance,
                            "answer_marker": self.answer_marker})[:8]

    @property
    def prompt_id(self) -> str:
        return f"{self.name}:{self.template_hash}"

    def render(self, *, question: str, question_type: str, today: str, history: str) -> str:
        extra = self.guidance.get(question_type)
        return self.template.format(guidance=f"\n{extra}" if extra else "", history=history,
                                    today=today, question=question)

    def extract_answer(self, text: str) -> str:
        """The final answer: for note-taking prompts, what follows the last answer marker
        (the whole text when the model never wrote one)."""
        text = text.strip()
        if self.answer_marker:
            parts = re.split(rf"(?i)\b{re.escape(self.answer_marker)}\s*:", text)
            if len(parts) > 1 and parts[-1].strip():
                return parts[-1].strip()
        return text


PROMPTS: dict[str, ReaderPrompt] = {
    "default": ReaderPrompt("default", DEFAULT_TEMPLATE),
    "type_aware": ReaderPrompt("type_aware", DEFAULT_TEMPLATE, dict(_TYPE_AWARE)),
    "multi_session": ReaderPrompt("multi_session", DEFAULT_TEMPLATE,
                                  {"multi-session": MULTI_SESSION}),
    "recency": ReaderPrompt("recency", DEFAULT_TEMPLATE, {"knowledge-update": KNOWLEDGE_UPDATE}),
    "con": ReaderPrompt("con", CON_TEMPLATE, answer_marker="Answer"),
    "preference": ReaderPrompt("preference", DEFAULT_TEMPLATE,
                               {**_TYPE_AWARE, "single-session-preference": PREFERENCE}),
}


def get_prompt(name) -> ReaderPrompt:
    if name not in PROMPTS:
        raise ConfigError("reader.prompt", name, list(PROMPTS))
    return PROMPTS[name]


# reading=con (LongMemEval's Chain-of-Note): one extra call per session writes reading notes,
# and the answer prompt then sees the notes in place of the raw session.
NOTES_TEMPLATE = (
    "I will give you one past chat session between you (the assistant) and a user, and a "
    "question from the user. Write reading notes with all the information in this session "
    "that is relevant to answering the question. If nothing is relevant, write only \"empty\"."
    "\n\nSession Date: {date}\nSession Content:\n{content}\n\n"
    "Current Date: {today}\nQuestion: {question}\nReading notes:"
)
NOTES_HASH = sha256_json({"notes": NOTES_TEMPLATE})[:8]


def render_notes(*, date: str, content: str, today: str, question: str) -> str:
    return NOTES_TEMPLATE.format(date=date, content=content, today=today, question=question)
