"""The LLM judge's shared machinery: the prompt a benchmark builds for one answer (JudgePrompt),
the strict verdict parse, and the runner that sends every prompt through the shared LLMClient
(cache, retries, cost). The prompts themselves are each benchmark's (Benchmark.judge_prompt),
in our own words.

The verdict is parsed strictly: the reply must start with "yes" or "no" (leading whitespace,
quotes or markdown emphasis allowed); anything else gives label null with the reply kept in `raw`
and the reason in `error`. Such judge failures are counted separately (qa_metrics.judge_errors),
never scored as wrong. Generation settings (temperature 0, a few output tokens) come from the
judge config group; `judge=gpt4o` pins the model of the benchmarks' official judges, but the
wording is ours, so its scores are not comparable with published ones (judge=official is).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..hashing import sha256_text
from ..llm import usage

# judge.wording of the own-wording LLM judge: each benchmark's rules in our words, or a
# deliberately generous reading (conf/judge/lenient.yaml) that is never comparable.
WORDINGS = ("strict", "lenient")
LENIENT_NOT_COMPARABLE = (
    "lenient wording: a deliberately generous judge (an answer about the same topic as the "
    "gold counts), run to show how much a score depends on its judge; never comparable with "
    "published numbers"
)


@dataclass(frozen=True)
class JudgePrompt:
    messages: list[dict]
    kind: str
    prompt_hash: str


_VERDICT = re.compile(r"^[\s*_`'\"(\[]*(yes|no)\b", re.IGNORECASE)


def parse_verdict(text: str | None) -> tuple[bool | None, str | None]:
    """(label, error): a leading yes/no, or (None, why not)."""
    if text is None or not text.strip():
        return None, "judge returned an empty reply"
    m = _VERDICT.match(text)
    if not m:
        return None, f"unparseable judge reply (no leading yes/no): {text.strip()[:80]!r}"
    return m.group(1).lower() == "yes", None


def judge_with_llm(
    bench, items: list[dict], judge_cfg: dict, client=None
) -> tuple[list[dict], dict]:
    """(rows, client stats): one verdict row per item (question_id, question_type,
    is_abstention, question, answer, hypothesis and the benchmark's judge_item fields), in the
    same order, with the benchmark's own-wording prompts. Calls go through the shared client:
    cached, retried, costed (or the plan's dry-run client: cache only)."""
    from ..config import choice

    wording = choice(judge_cfg, "wording", WORDINGS, group="judge")
    bench.judge_templates(wording)  # a wording the benchmark lacks stops before any call
    if client is None:
        from ..llm import LLMClient

        client = LLMClient(judge_cfg, stage="judge")
    prompts = [bench.judge_prompt(it, wording) for it in items]
    results = client.complete_many([p.messages for p in prompts], desc="judge") if items else []
    rows = []
    for it, p, res in zip(items, prompts, results):
        if res.error:
            label, error = None, f"judge call failed: {res.error}"
        else:
            label, error = parse_verdict(res.text)
        rows.append(
            {
                "question_id": it["question_id"],
                "label": label,
                "judge_model": res.model or judge_cfg["model"],
                "raw": res.text,
                "error": error,
                "prompt_hash": p.prompt_hash,
                "request_hash": res.request_hash,
                **usage(res),
            }
        )
    return rows, {
        **client.stats,
        "prompts": prompt_records(bench, (p.kind for p in prompts), wording),
        **provenance_of(client),
    }


def provenance_of(client) -> dict:
    """{"provenance": where the verdicts came from} (llm/provenance.py); {} for a client that
    keeps none (the plan's dry run)."""
    log = getattr(client, "provenance", None)
    return {"provenance": log.summary()} if log is not None else {}


def prompt_records(bench, kinds, wording: str = "strict") -> dict:
    """{prompt id: {stage, name, template}} of the benchmark's own-wording templates (in
    `wording`) a run used: the judge stage records them with its verdicts (MLflow's prompt
    registry reads them back)."""
    templates = bench.judge_templates(wording)
    return {
        f"{k}:{template_hash(templates[k])}": {
            "stage": "judge",
            "name": k,
            "template": templates[k],
        }
        for k in sorted(set(kinds))
    }


def template_hash(template: str) -> str:
    """The short hash stored with every verdict: a wording change is visible in the artifact
    (and changes every request hash, so nothing stale comes from the cache)."""
    return sha256_text(template)[:12]


_PLACEHOLDER = re.compile(r"\{(question|answer|hypothesis|adversarial)\}")


def fill(template: str, values: dict) -> str:
    """The template with its placeholders replaced in one pass, so braces inside the question
    or the answers stay literal."""
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)
