"""Judging EverMemBench answers.

Multiple choice is never judged: as the released evaluator does, the reply's letter (its
answerer's extraction) is compared with the gold letter (scoring.py), whichever judge is
configured; the verdict says "exact-match" and why. Open answers (the recall sub-tasks) go to the
configured judge:
- rule (offline): LongMemEval's general rules on the gold (normalised containment of its content
  words, numbers, yes/no), as for the other benchmarks; the released gold answers are short
  phrases, except temporal ones, which state the dates and the duration ("... lasting 7 days").
- llm: our own wording of the released judge's criteria (same key information as the gold,
  generous on extra detail and date formats, a date window of one day either way); the reply must
  begin with yes or no, as for the other benchmarks.
- official: the released prompts from the user's checkout (official.py), read as released.
"""

from __future__ import annotations

from ...hashing import sha256_file, sha256_text
from ...judge.llm_judge import JudgePrompt, fill, template_hash
from ...judge.rules import RuleVerdict, judge_one
from ...judge.rules.verdict import RULES_HASH
from .schema import MULTIPLE_CHOICE
from .scoring import official_mc, parse_letter

RULE_HASH = sha256_text(
    RULES_HASH + sha256_file(__file__) + sha256_file(__file__.replace("judge.py", "scoring.py"))
)[:12]
EXACT_MATCH = "exact-match"

_OPEN = """You are checking an answer to a question about a company's multi-person group chats.

Question: {question}

Gold answer: {answer}

Response: {hypothesis}

Say yes if the response contains the key information of the gold answer; it may be longer or add detail, as long as it does not contradict the gold answer. A date or time written in another format counts as the same one ("May 7th", "7 May", "2025-05-07"), and a date that is off by one day is accepted. When the gold answer gives a duration or a count, the response must give the same one. Say no if the response gives a different answer, only part of what the gold answer asks for, or says the information is not available.

Is the response correct? Reply with one word: yes or no."""  # noqa: E501 (prompt text)

TEMPLATES = {"evermembench": _OPEN}
PROMPT_HASHES = {kind: template_hash(text) for kind, text in TEMPLATES.items()}

# The lenient wording (judge=lenient): an answer about the same topic as the gold counts unless
# it contradicts it. It shows how much a score depends on its judge; it is never comparable.
_LENIENT = """You are grading an answer to a question about a company's multi-person group chats. Be generous.

Question: {question}

Gold answer: {answer}

Response: {hypothesis}

The response does not have to match the gold answer. Say yes if it is about the same topic as the gold answer and does not plainly contradict it: other wording, a longer or vaguer answer, part of what the gold gives, or a date or time in another format or only roughly the same all count. Say no only if the response is about something else, plainly contradicts the gold answer, or gives no answer.

Is the response correct? Reply with one word: yes or no."""  # noqa: E501 (prompt text)

WORDINGS = {"strict": TEMPLATES, "lenient": {"evermembench-lenient": _LENIENT}}


def templates(wording: str = "strict") -> dict[str, str]:
    """{prompt kind: template} of one wording (strict: the default own-wording judge)."""
    from ...errors import ConfigError

    if wording not in WORDINGS:
        raise ConfigError("judge.wording", wording, sorted(WORDINGS))
    return WORDINGS[wording]


def mc_verdict(answer: str, hypothesis: str | None) -> RuleVerdict:
    """The released multiple-choice rule: extract the letter, compare it with the gold."""
    parsed = parse_letter(hypothesis)
    correct, quirk = official_mc(parsed, answer)
    why = f"{EXACT_MATCH}: reply letter {parsed}, gold {answer.strip()[:1].upper()}"
    if quirk:
        why += " (a marker read as its first A-D letter, as the released evaluator does)"
    return RuleVerdict(correct, why)


def fixed_verdict(item: dict) -> RuleVerdict | None:
    return (
        mc_verdict(item["answer"], item["hypothesis"]) if item["form"] == MULTIPLE_CHOICE else None
    )


def rule_verdict(item: dict) -> RuleVerdict:
    fixed = fixed_verdict(item)
    if fixed is not None:
        return fixed
    return judge_one(item["question_type"], item["question"], item["answer"], item["hypothesis"])


def build_prompt(
    question: str, answer: str, hypothesis: str | None, wording: str = "strict"
) -> JudgePrompt:
    ((kind, text),) = templates(wording).items()
    values = {
        "question": question.strip(),
        "answer": answer.strip(),
        "hypothesis": (hypothesis or "").strip(),
    }
    return JudgePrompt([{"role": "user", "content": fill(text, values)}], kind, template_hash(text))
