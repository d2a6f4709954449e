"""LongMemEval's own-wording LLM judge: one prompt per question type, following the official
judging rules in our own words (the official prompts are read from the user's checkout only, by
judge=official: official.py).

Per type:
- default (single-session-user/-assistant, multi-session): the response must state the reference
  or an equivalent, or reach it through its steps; a partial answer is wrong.
- temporal-reasoning: as default, and day/week/month counts that are off by one are accepted.
- knowledge-update: the reference is the latest value; old values mentioned alongside it are fine.
- single-session-preference: the reference is a rubric; the response must recall and use the
  user's personal information, without covering every point.
- abstention (`_abs`): correct when the response recognises the information is missing.
"""

from __future__ import annotations

from ...judge.llm_judge import JudgePrompt, fill, template_hash

_INSTRUCTIONS = {
    "default": (
        "Say yes if the response gives the reference answer or something equivalent to it, or "
        "if it works through the steps that lead to the reference answer. Say no if it gives a "
        "different answer, or only part of what the reference answer requires."
    ),
    "temporal-reasoning": (
        "Say yes if the response gives the reference answer or something equivalent to it, or "
        "if it works through the steps that lead to the reference answer. Say no if it gives a "
        "different answer, or only part of what the reference answer requires. When the "
        "question asks for a number of days, weeks or months, a count that is off by one from "
        "the reference (say 19 days where the reference says 18) still counts as correct."
    ),
    "knowledge-update": (
        "The reference answer is the user's most recent information; earlier values may have "
        "changed since. Say yes if the response gives the reference answer or something "
        "equivalent to it. A response that also mentions older information is still correct, "
        "as long as the answer it gives is the updated one. Say no otherwise."
    ),
    "single-session-preference": (
        "Instead of a fixed answer, the reference is a rubric describing what a good, "
        "personalised response looks like. Say yes if the response recalls the user's personal "
        "information and uses it the way the rubric describes; it does not need to cover every "
        "point of the rubric. Say no if it ignores or gets wrong the user's information."
    ),
    "abstention": (
        "This question cannot be answered from the conversation history; the reference explains "
        "what is missing. Say yes if the response recognises that the information is missing or "
        "incomplete, for example by saying it was never mentioned, or by pointing out what was "
        "said instead. Say no if the response commits to an answer."
    ),
}
_REFERENCE_LABEL = {
    "single-session-preference": "Rubric",
    "abstention": "Explanation of why it cannot be answered",
}

_TEMPLATE = """You are checking whether a chat assistant answered a user's question correctly.
{instructions}

Question: {question}

{reference_label}: {answer}

Response: {hypothesis}

Is the response correct? Reply with one word: yes or no."""


def prompt_kind(question_type: str, is_abstention: bool) -> str:
    if is_abstention:
        return "abstention"
    return question_type if question_type in _INSTRUCTIONS else "default"


def _template(kind: str) -> str:
    return _TEMPLATE.replace("{instructions}", _INSTRUCTIONS[kind]).replace(
        "{reference_label}", _REFERENCE_LABEL.get(kind, "Reference answer")
    )


TEMPLATES = {kind: _template(kind) for kind in _INSTRUCTIONS}
PROMPT_HASHES = {kind: template_hash(text) for kind, text in TEMPLATES.items()}


def build_prompt(
    question_type: str,
    question: str,
    answer: str,
    hypothesis: str | None,
    *,
    is_abstention: bool = False,
) -> JudgePrompt:
    kind = prompt_kind(question_type, is_abstention)
    values = {
        "question": question.strip(),
        "answer": str(answer).strip(),
        "hypothesis": (hypothesis or "").strip(),
    }
    return JudgePrompt(
        [{"role": "user", "content": fill(TEMPLATES[kind], values)}], kind, PROMPT_HASHES[kind]
    )
