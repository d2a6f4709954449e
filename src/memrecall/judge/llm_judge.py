"""The LLM judge: one prompt per question type, following LongMemEval's official judging rules
(docs/tools.md) in our own words, sent through the shared LLMClient (cache, retries, cost).

Per type:
- default (single-session-user/-assistant, multi-session): the response must state the reference
  or an equivalent, or reach it through its steps; a partial answer is wrong.
- temporal-reasoning: as default, and day/week/month counts that are off by one are accepted.
- knowledge-update: the reference is the latest value; old values mentioned alongside it are fine.
- single-session-preference: the reference is a rubric; the response must recall and use the
  user's personal information, without covering every point.
- abstention (`_abs`): correct when the response recognises the information is missing.

The verdict is parsed strictly: the reply must start with "yes" or "no" (leading whitespace,
quotes or markdown emphasis allowed); anything else gives label null with the reply kept in `raw`
and the reason in `error`. Such judge failures are counted separately (qa_metrics.judge_errors),
never scored as wrong. Generation settings (temperature 0, a few output tokens) come from the
judge config group; `judge=gpt4o` pins the official model, gpt-4o-2024-08-06, but its wording is
ours, so its scores are not comparable with published ones (judge=official, official.py, is).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..hashing import sha256_text

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
_REFERENCE_LABEL = {"single-session-preference": "Rubric", "abstention": "Explanation of why "
                    "it cannot be answered"}

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
        "{reference_label}", _REFERENCE_LABEL.get(kind, "Reference answer"))


TEMPLATES = {kind: _template(kind) for kind in _INSTRUCTIONS}
# The hash of each per-type prompt template: stored with every verdict, so a wording change is
# visible in the artifact (and changes every request hash, so nothing stale comes from cache).
PROMPT_HASHES = {kind: sha256_text(text)[:12] for kind, text in TEMPLATES.items()}


def prompt_records(kinds) -> dict:
    """{prompt id: {stage, name, template}} of the per-type templates a run used: the judge
    stage records them with its verdicts (MLflow's prompt registry reads them back)."""
    from . import locomo

    templates = {**TEMPLATES, **locomo.TEMPLATES}
    hashes = {**PROMPT_HASHES, **locomo.PROMPT_HASHES}
    return {f"{k}:{hashes[k]}": {"stage": "judge", "name": k, "template": templates[k]}
            for k in sorted(set(kinds))}


@dataclass(frozen=True)
class JudgePrompt:
    messages: list[dict]
    kind: str
    prompt_hash: str


_PLACEHOLDER = re.compile(r"\{(question|answer|hypothesis)\}")


def build_prompt(question_type: str, question: str, answer: str, hypothesis: str | None, *,
                 is_abstention: bool = False) -> JudgePrompt:
    kind = prompt_kind(question_type, is_abstention)
    values = {"question": question.strip(), "answer": str(answer).strip(),
              "hypothesis": (hypothesis or "").strip()}
    # One pass over the template: braces inside the question or answers stay literal.
    text = _PLACEHOLDER.sub(lambda m: values[m.group(1)], _template(kind))
    return JudgePrompt([{"role": "user", "content": text}], kind, PROMPT_HASHES[kind])


_VERDICT = re.compile(r"^[\s*_`'\"(\[]*(yes|no)\b", re.IGNORECASE)


def parse_verdict(text: str | None) -> tuple[bool | None, str | None]:
    """(label, error): a leading yes/no, or (None, why not)."""
    if text is None or not text.strip():
        return None, "judge returned an empty reply"
    m = _VERDICT.match(text)
    if not m:
        return None, f"unparseable judge reply (no leading yes/no): {text.strip()[:80]!r}"
    return m.group(1).lower() == "yes", None


def judge_with_llm(items: list[dict], judge_cfg: dict, client=None) -> tuple[list[dict], dict]:
    """(rows, client stats): one verdict row per item (question_id, question_type,
    is_abstention, question, answer, hypothesis), in the same order. Calls go through the shared
    client: cached, retried, costed (or the plan's dry-run client: cache only)."""
    if client is None:
        from ..llm import LLMClient

        client = LLMClient(judge_cfg, stage="judge")
    from . import locomo

    prompts = [locomo.build_prompt(it["category"], it["question"], it["answer"],
                                   it["hypothesis"], it.get("adversarial_answer"))
               if it.get("category") is not None else
               build_prompt(it["question_type"], it["question"], it["answer"], it["hypothesis"],
                            is_abstention=it["is_abstention"]) for it in items]
    results = client.complete_many([p.messages for p in prompts], desc="judge") if items else []
    rows = []
    for it, p, res in zip(items, prompts, results):
        if res.error:
            label, error = None, f"judge call failed: {res.error}"
        else:
            label, error = parse_verdict(res.text)
        rows.append({
            "question_id": it["question_id"], "label": label,
            "judge_model": res.model or judge_cfg["model"], "raw": res.text, "error": error,
            "prompt_hash": p.prompt_hash, "request_hash": res.request_hash,
            "input_tokens": int(res.input_tokens or 0),
            "output_tokens": int(res.output_tokens or 0),
            "reasoning_tokens": int(res.reasoning_tokens or 0),
            "cost_usd": float(res.cost_usd or 0.0), "latency_s": float(res.latency_s or 0.0),
        })
    return rows, {**client.stats, "prompts": prompt_records(p.kind for p in prompts)}
