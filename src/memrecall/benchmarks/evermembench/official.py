"""judge=official for EverMemBench: the released judge's prompts, read at run time from the
user's checkout of https://github.com/EverMind-AI/EverMemBench (no license is published, so no
prompt text ships with memrecall).

`judge.official_script` points at the checkout's eval/config/prompts.yaml; its `llm_judge`
block holds `system_prompt` and `user_prompt` (with `{question}`, `{golden_answer}` and
`{generated_answer}`, filled with str.format as evaluator.py does). The file's sha256 goes into
the verdicts' metadata and metrics.json. The released settings sit beside it in
eval/config/pipeline.yaml (`evaluate.model`); when that file is there, its model is recorded and
a judge model that differs from it is reported as not comparable.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...errors import MemrecallError
from ...hashing import sha256_file
from ...llm import usage
from ..checkout import official_file

REPOSITORY = "https://github.com/EverMind-AI/EverMemBench"
PROMPTS_IN_REPO = "eval/config/prompts.yaml"
PIPELINE_IN_REPO = "eval/config/pipeline.yaml"
# pipeline.yaml evaluate.model: google/gemini-3-flash-preview (through OpenRouter)
PINNED_MODEL = "gemini-3-flash-preview"
BLOCK, SYSTEM, USER = "llm_judge", "system_prompt", "user_prompt"
FIELDS = ("question", "golden_answer", "generated_answer")


@dataclass(frozen=True)
class OfficialPrompts:
    system: str
    user: str
    sha256: str  # of prompts.yaml
    path: str
    released_model: str | None  # pipeline.yaml evaluate.model, when the file is there

    def messages(self, question: str, gold: str, answer: str) -> list[dict]:
        user = self.user.format(question=question, golden_answer=gold, generated_answer=answer)
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]


def _where() -> str:
    return (
        f"Clone the released EverMemBench code ({REPOSITORY}) and set "
        f"judge.official_script to its {PROMPTS_IN_REPO} (an absolute path)."
    )


def load(path) -> OfficialPrompts:
    import yaml

    p = official_file(path, _where())
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        raise MemrecallError(f"judge.official_script: {p} is not YAML ({e}). {_where()}") from None
    block = data.get(BLOCK) if isinstance(data, dict) else None
    if not isinstance(block, dict) or not all(
        isinstance(block.get(k), str) for k in (SYSTEM, USER)
    ):
        raise MemrecallError(
            f"judge.official_script: {p} has no {BLOCK}.{SYSTEM} and {BLOCK}.{USER}. {_where()}"
        )
    try:
        block[USER].format(**{f: "" for f in FIELDS})
    except (KeyError, IndexError, ValueError) as e:
        raise MemrecallError(
            f"judge.official_script: {p}: {BLOCK}.{USER} does not format with "
            f"{', '.join(FIELDS)} ({type(e).__name__}: {e}). {_where()}"
        ) from None
    return OfficialPrompts(
        block[SYSTEM],
        block[USER],
        sha256_file(p),
        str(p),
        released_model(p.parent / Path(PIPELINE_IN_REPO).name),
    )


def released_model(pipeline: Path) -> str | None:
    """pipeline.yaml's evaluate.model, or None when the file or the key is missing."""
    import yaml

    try:
        data = yaml.safe_load(pipeline.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return None
    model = (data.get("evaluate") or {}).get("model") if isinstance(data, dict) else None
    return model if isinstance(model, str) else None


def judge_official(items: list[dict], judge_cfg: dict, client=None) -> tuple[list[dict], dict]:
    """(rows, stats): one verdict row per item, as the released evaluator judges it. Multiple
    choice: the released letter rule (no call). Open answers: [system, user] from the user's
    prompts.yaml, sent to the judge model; the reply read by the released parse
    (scoring.official_judge_label); `strict_label` is its JSON label alone (null when the
    released parse had to fall back to looking for the words). A failed call or an empty
    reply is a judge error (label null), never a wrong answer. stats carry the file's sha256
    and the released model."""
    from ...hashing import sha256_text
    from .judge import mc_verdict
    from .schema import MULTIPLE_CHOICE
    from .scoring import json_label, official_judge_label

    prompts = load(judge_cfg["official_script"])
    open_items = [it for it in items if it["form"] != MULTIPLE_CHOICE]
    messages = [
        prompts.messages(it["question"], it["answer"], it["hypothesis"] or "") for it in open_items
    ]
    if client is None and open_items:
        from ...llm import LLMClient

        client = LLMClient(judge_cfg, stage="judge")
    results = client.complete_many(messages, desc="judge (official)") if open_items else []
    by_id = {it["question_id"]: (m, r) for it, m, r in zip(open_items, messages, results)}
    rows = []
    for it in items:
        if it["question_id"] not in by_id:
            v = mc_verdict(it["answer"], it["hypothesis"])
            rows.append(
                {
                    "question_id": it["question_id"],
                    "label": v.label,
                    "judge_model": "exact-match",
                    "raw": v.reason,
                    "error": None,
                    "strict_label": v.label,
                }
            )
            continue
        msgs, res = by_id[it["question_id"]]
        if res.error:
            label, error = None, f"judge call failed: {res.error}"
        elif res.text is None or not res.text.strip():
            label, error = None, "judge returned an empty reply"
        else:
            label, error = official_judge_label(res.text), None
        rows.append(
            {
                "question_id": it["question_id"],
                "label": label,
                "strict_label": json_label(res.text) if label is not None else None,
                "judge_model": res.model or judge_cfg["model"],
                "raw": res.text,
                "error": error,
                "prompt_hash": sha256_text(msgs[0]["content"] + msgs[1]["content"])[:12],
                "request_hash": res.request_hash,
                **usage(res),
            }
        )
    stats = dict(client.stats) if client is not None else {"calls": 0, "cached": 0, "failed": 0}
    record = {
        "stage": "judge",
        "name": "official-evermembench",
        "template": {"system": prompts.system, "user": prompts.user},
        "script_sha256": prompts.sha256,
        "released_model": prompts.released_model,
    }
    return rows, {
        **stats,
        "official_script_sha256": prompts.sha256,
        "released_model": prompts.released_model,
        "prompts": {f"official-evermembench:{prompts.sha256[:12]}": record},
    }
