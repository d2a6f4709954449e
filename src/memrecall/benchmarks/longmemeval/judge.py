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

The lenient wording (`judge.wording=lenient`, judge=lenient) is a deliberately generous judge, in
the style of the generous judge prompts common in memory-system evaluations, in our own words: a
response about the same thing as the reference counts unless it clearly contradicts it. It
exists to show how much a score depends on its judge, never to be set beside published numbers.
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
# The question types whose reference is a rubric: what a personal answer draws on, not a value.
RUBRIC_TYPES = frozenset({"single-session-preference"})
_REFERENCE_LABEL = {
    **dict.fromkeys(RUBRIC_TYPES, "Rubric"),
    "abstention": "Explanation of why it cannot be answered",
}

_TEMPLATE = """You are checking whether a chat assistant answered a user's question correctly.
{instructions}

Question: {question}

{reference_label}: {answer}

Response: {hypothesis}

Is the response correct? Reply with one word: yes or no."""


def prompt_kind(question_type: str, is_abstention: bool, wording: str = "strict") -> str:
    if wording == "lenient":
        if is_abstention:
            return "lenient-abstention"
        return "lenient-preference" if question_type == "single-session-preference" else "lenient"
    if is_abstention:
        return "abstention"
    return question_type if question_type in _INSTRUCTIONS else "default"


def templates(wording: str = "strict") -> dict[str, str]:
    """{prompt kind: template} of one wording (strict: the default own-wording judge)."""
    from ...errors import ConfigError

    if wording not in WORDINGS:
        raise ConfigError("judge.wording", wording, sorted(WORDINGS))
    return WORDINGS[wording]


def _template(kind: str) -> str:
    return _TEMPLATE.replace("{instructions}", _INSTRUCTIONS[kind]).replace(
        "{reference_label}", _REFERENCE_LABEL.get(kind, "Reference answer")
    )


TEMPLATES = {kind: _template(kind) for kind in _INSTRUCTIONS}
PROMPT_HASHES = {kind: template_hash(text) for kind, text in TEMPLATES.items()}

# The lenient wording: one generous rule for every answerable type, the rubric read loosely, and
# any sign of doubt accepted as an abstention.
_LENIENT = """You are grading a chat assistant's response to a user's question. Be generous.
{instructions}

Question: {question}

{reference_label}: {answer}

Response: {hypothesis}

Is the response correct? Reply with one word: yes or no."""
_LENIENT_INSTRUCTIONS = {
    "lenient": (
        "The response does not have to match the reference answer. Say yes if it addresses the "
        "same thing as the reference answer and does not plainly contradict it: a close "
        "number, part of a list, a broader or narrower description, a date in another format "
        "or a little off, or the reference among a few possibilities all count. Say no only if "
        "the response is about something else, gives an answer that plainly contradicts the "
        "reference, or gives no answer at all."
    ),
    "lenient-preference": (
        "Instead of a fixed answer, the reference is a rubric describing a personalised "
        "response. Say yes if the response takes the user's situation, interests or history "
        "into account in any way related to the rubric. Say no only if it is entirely generic "
        "or contradicts what the rubric says about the user."
    ),
    "lenient-abstention": (
        "This question cannot be answered from the conversation history; the reference explains "
        "what is missing. Say yes if the response shows in any way that the information may be "
        "missing or uncertain. Say no only if it states an answer with no doubt at all."
    ),
}
_LENIENT_LABEL = {
    "lenient-preference": "Rubric",
    "lenient-abstention": "Explanation of why it cannot be answered",
}
LENIENT_TEMPLATES = {
    kind: _LENIENT.replace("{instructions}", text).replace(
        "{reference_label}", _LENIENT_LABEL.get(kind, "Reference answer")
    )
    for kind, text in _LENIENT_INSTRUCTIONS.items()
}
WORDINGS = {"strict": TEMPLATES, "lenient": LENIENT_TEMPLATES}


def build_prompt(
    question_type: str,
    question: str,
    answer: str,
    hypothesis: str | None,
    *,
    is_abstention: bool = False,
    wording: str = "strict",
) -> JudgePrompt:
    texts = templates(wording)
    kind = prompt_kind(question_type, is_abstention, wording)
    values = {
        "question": question.strip(),
        "answer": str(answer).strip(),
        "hypothesis": (hypothesis or "").strip(),
    }
    text = texts[kind]
    return JudgePrompt([{"role": "user", "content": fill(text, values)}], kind, template_hash(text))
