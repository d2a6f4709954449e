"""Judging LoCoMo answers: the `rule` judge's LoCoMo entry and the LLM judge's LoCoMo prompts
(the "J" accuracy papers report since Mem0, here in our own words).

Rule (offline): category 5 (adversarial) is right when the reply says the information is not
there (the rule judge's abstention phrases, plus the two phrases LoCoMo's released evaluation
looks for); other categories go through the same rules as LongMemEval's general questions
(normalised containment of the gold's content words, numbers, yes/no), with category 3's gold cut
before the first ';' as the released evaluation does (the rest is a justification).

LLM: one prompt for categories 1-4 (the gold or an equivalent, date formats and extra detail
allowed, a contradiction or a partial list is wrong) and one for category 5 (right only when the
reply says the conversations do not tell; the misleading answer the question invites is shown
so the judge can recognise it). The reply must begin with yes or no, as for LongMemEval.
"""

from __future__ import annotations

import re

from ...hashing import sha256_file, sha256_text
from ...judge.llm_judge import JudgePrompt, fill, template_hash
from ...judge.rules import RuleVerdict, abstains, as_read, judge_one
from ...judge.rules.verdict import RULES_HASH
from .schema import ADVERSARIAL

RULE_HASH = sha256_text(RULES_HASH + sha256_file(__file__))[:12]
_LOCOMO_ABSTAIN = re.compile(r"no information available|not mentioned", re.IGNORECASE)


def gold_for(category: int, answer: str) -> str:
    """The part of the gold answer that is scored (category 3: before the first ';')."""
    answer = str(answer)
    return answer.split(";")[0].strip() if category == 3 else answer


def rule_verdict(
    category: int, question_type: str, question: str, answer: str, hypothesis: str | None
) -> RuleVerdict:
    hyp = (hypothesis or "").strip()
    if category == ADVERSARIAL:
        hyp = as_read(hyp).strip()  # read as judge_one reads a response
        if not hyp:
            return RuleVerdict(False, "empty response")
        if _LOCOMO_ABSTAIN.search(hyp) or abstains(hyp):
            return RuleVerdict(True, "adversarial: says the information is not there")
        return RuleVerdict(False, "adversarial: answers instead of saying it is not there")
    return judge_one(question_type, question, gold_for(category, answer), hyp)


_ANSWERABLE = """You are checking an answer to a question about a long conversation between two people.

Question: {question}

Gold answer: {answer}

Response: {hypothesis}

Say yes if the response gives the gold answer or something that means the same. It may use other words, be longer or add detail, as long as it does not contradict the gold answer. A date or period written in another format counts as the same one ("7 May 2023" and "May 7, 2023"); a relative date must point to the same time. When the gold answer lists several things, the response must give them all. Say no if the response gives a different answer, only part of the gold answer, or says the information is not available.

Is the response correct? Reply with one word: yes or no."""  # noqa: E501 (prompt text)

_ADVERSARIAL = """You are checking an answer to a question about a long conversation between two people.

Question: {question}

This question cannot be answered from the conversation: it presupposes something the conversation does not say. A misleading answer it invites is: {adversarial}

Response: {hypothesis}

Say yes if the response says the information is not available, not mentioned, or cannot be determined from the conversation. Say no if the response commits to an answer, the misleading one or any other.

Is the response correct? Reply with one word: yes or no."""  # noqa: E501 (prompt text)

TEMPLATES = {"locomo": _ANSWERABLE, "locomo-adversarial": _ADVERSARIAL}
PROMPT_HASHES = {kind: template_hash(text) for kind, text in TEMPLATES.items()}

# The lenient wording (judge=lenient): generous in the way the judge prompt common in LoCoMo
# evaluations is (an answer about the same topic as the gold counts), in our own words. It shows
# how much a LoCoMo score depends on its judge; it is never comparable.
_LENIENT = """You are grading an answer to a question about a long conversation between two people. Be generous.

Question: {question}

Gold answer: {answer}

Response: {hypothesis}

The response does not have to match the gold answer. Say yes if it is about the same topic as the gold answer and does not plainly contradict it: other wording, a longer or vaguer answer, part of a list, or a date or period in another format or only roughly the same all count. Say no only if the response is about something else, plainly contradicts the gold answer, or gives no answer.

Is the response correct? Reply with one word: yes or no."""  # noqa: E501 (prompt text)

_LENIENT_ADVERSARIAL = """You are grading an answer to a question about a long conversation between two people. Be generous.

Question: {question}

This question cannot be answered from the conversation: it presupposes something the conversation does not say. A misleading answer it invites is: {adversarial}

Response: {hypothesis}

Say yes if the response shows in any way that the information may be missing, uncertain or not in the conversation. Say no only if it states an answer with no doubt at all.

Is the response correct? Reply with one word: yes or no."""  # noqa: E501 (prompt text)

LENIENT_TEMPLATES = {
    "locomo-lenient": _LENIENT,
    "locomo-adversarial-lenient": _LENIENT_ADVERSARIAL,
}
WORDINGS = {"strict": TEMPLATES, "lenient": LENIENT_TEMPLATES}


def templates(wording: str = "strict") -> dict[str, str]:
    """{prompt kind: template} of one wording (strict: the default own-wording judge)."""
    from ...errors import ConfigError

    if wording not in WORDINGS:
        raise ConfigError("judge.wording", wording, sorted(WORDINGS))
    return WORDINGS[wording]


def build_prompt(
    category: int,
    question: str,
    answer: str,
    hypothesis: str | None,
    adversarial: str | None = None,
    wording: str = "strict",
) -> JudgePrompt:
    texts = templates(wording)
    adv = category == ADVERSARIAL
    kind = "locomo-adversarial" if adv else "locomo"
    if wording != "strict":
        kind += f"-{wording}"
    values = {
        "question": question.strip(),
        "answer": gold_for(category, answer).strip(),
        "hypothesis": (hypothesis or "").strip(),
        "adversarial": (adversarial or "(none given)").strip(),
    }
    return JudgePrompt(
        [{"role": "user", "content": fill(texts[kind], values)}], kind, template_hash(texts[kind])
    )
