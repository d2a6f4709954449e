"""A thinking model's inline reasoning: a `<think>...</think>` block before its answer (MiniMax,
R1 distills, Qwen3). One definition for the LLM client, which keeps only the answer of a call,
and the rule judge, which reads answers of published runs as they were published, thinking
included: the reasoning a model thinks through is not what it answers.
"""

from __future__ import annotations

import re

# A leading block; one that is never closed is all thinking (the answer was cut off).
_THINK = re.compile(r"^\s*<think>.*?(?:</think>\s*|$)", re.DOTALL)


def strip_thinking(text: str) -> str:
    """The answer after a leading `<think>` block; the text unchanged when it has none."""
    return _THINK.sub("", text, count=1)
