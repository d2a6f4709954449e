"""A thinking model's inline reasoning: a `<think>...</think>` block before its answer (MiniMax,
R1 distills, Qwen3), or a `<thinking>`, `<thought>` or `<reasoning>` block where a prompt asked a
model to think in tags first (a common chain-of-thought prompt for Claude). One definition for
the LLM client, which keeps only the answer of a call, and the rule judge, which reads answers
of published runs as they were published, thinking included: the reasoning a model thinks
through is not what it answers.
"""

from __future__ import annotations

import re

# A leading block; one that is never closed is all thinking (the answer was cut off).
_THINK = re.compile(
    r"^\s*<(think|thinking|thought|reasoning)>.*?(?:</\1>\s*|$)", re.DOTALL | re.IGNORECASE
)


def strip_thinking(text: str) -> str:
    """The answer after a leading thinking block; the text unchanged when it has none."""
    return _THINK.sub("", text, count=1)
