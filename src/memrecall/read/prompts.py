"""Reader prompts: a template identified by a hash of its text, and the reading-notes call of
`reading=con`. Each benchmark has its own prompts (Benchmark.reader_prompts), selected by name
(`reader.prompt`).

Every prompt is one user message: the instructions, the dated history, today's date (the
question date) and the question. The template text is part of the request the LLM client
hashes, so editing a template re-sends exactly the requests it changes; the short template
hash in `prompt_id` makes that visible in answers.parquet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..hashing import sha256_json


@dataclass(frozen=True)
class ReaderPrompt:
    name: str
    template: str  # placeholders: {guidance} {history} {today} {question}
    guidance: dict = field(default_factory=dict)  # question_type -> extra instruction
    answer_marker: str | None = None  # the final answer follows the last such marker

    @property
    def template_hash(self) -> str:
        return sha256_json(
            {
                "template": self.template,
                "guidance": self.guidance,
                "answer_marker": self.answer_marker,
            }
        )[:8]

    @property
    def prompt_id(self) -> str:
        return f"{self.name}:{self.template_hash}"

    def render(self, *, question: str, question_type: str, today: str, history: str) -> str:
        extra = self.guidance.get(question_type)
        return self.template.format(
            guidance=f"\n{extra}" if extra else "", history=history, today=today, question=question
        )

    def extract_answer(self, text: str) -> str:
        """The final answer: for note-taking prompts, what follows the last answer marker
        (the whole text when the model never wrote one)."""
        text = text.strip()
        if self.answer_marker:
            parts = re.split(rf"(?i)\b{re.escape(self.answer_marker)}\s*:", text)
            if len(parts) > 1 and parts[-1].strip():
                return parts[-1].strip()
        return text


# reading=con (LongMemEval's Chain-of-Note): one extra call per session writes reading notes,
# and the answer prompt then sees the notes in place of the raw session.
NOTES_TEMPLATE = (
    "I will give you one past chat session between you (the assistant) and a user, and a "
    "question from the user. Write reading notes with all the information in this session "
    'that is relevant to answering the question. If nothing is relevant, write only "empty".'
    "\n\nSession Date: {date}\nSession Content:\n{content}\n\n"
    "Current Date: {today}\nQuestion: {question}\nReading notes:"
)
NOTES_HASH = sha256_json({"notes": NOTES_TEMPLATE})[:8]


def render_notes(*, date: str, content: str, today: str, question: str) -> str:
    return NOTES_TEMPLATE.format(date=date, content=content, today=today, question=question)
