"""BEAM's LLM judges: the released one (judge=official, prompts from the user's checkout) and
the own-wording one. Both give each question a score in [0, 1] (the verdict's `score`; `label`
is true only for a full score) and never count a failed or unreadable judge call as a wrong
answer: such a question gets no score and the error says why.

Calls go through the shared LLM client (cached, retried, costed). The released judge sends one
user message per rubric item; event ordering's alignment sends, line by line, one equivalence
question per still-unused rubric item until one says yes: those calls depend on each other, so
they go one round at a time (every event-ordering question's next call together).
"""

from __future__ import annotations

import json

from ...hashing import sha256_text
from ...judge.llm_judge import provenance_of
from ...llm import usage
from . import prompts, scoring
from .official import OfficialBeam, read_checkout


def _row(item: dict, model: str, prompt_hash: str) -> dict:
    return {
        "question_id": item["question_id"],
        "label": None,
        "score": None,
        "judge_model": model,
        "raw": None,
        "error": None,
        "prompt_hash": prompt_hash,
        "request_hash": None,
        **usage(),
    }


def _add_usage(row: dict, res) -> None:
    for k, v in usage(res).items():
        row[k] += v
    row["request_hash"] = row["request_hash"] or res.request_hash
    row["judge_model"] = res.model or row["judge_model"]


ORDERING_PARTS = ("precision", "recall", "f1", "tau_norm", "final_score")


def _finish(row: dict, score: float | None, detail: dict, error: str | None) -> dict:
    """The verdict: the score, a label for a full score, the details as JSON in `raw`, and the
    verdict columns BEAM reports from (the rubric judge's mean, event ordering's parts)."""
    row["score"] = score
    row["label"] = None if score is None else score >= 1.0
    row["error"] = error
    row["raw"] = json.dumps(detail, ensure_ascii=False, sort_keys=True)
    row["rubric_score"] = detail.get("rubric_score")
    ordering = detail.get("ordering") if error is None else None
    for part in ORDERING_PARTS:
        row[f"eo_{part}"] = ordering[part] if ordering else None
    row["tau_undefined"] = detail.get("tau_undefined") if ordering else None
    return row


def _client(judge_cfg: dict, client):
    if client is None:
        from ...llm import LLMClient

        client = LLMClient(judge_cfg, stage="judge")
    return client


# ---- the released judge ----------------------------------------------------------------------


def _align_rounds(client, official: OfficialBeam, jobs: list[dict]) -> None:
    """Run the released alignment of every event-ordering job at once, round by round.
    A job: {rubric, lines, row}; sets job["aligned"] or job["error"]."""
    for job in jobs:
        job.update(line=0, ref=0, used=set(), aligned=[], error=None)
    while True:
        live = [j for j in jobs if j["error"] is None and j["line"] < len(j["lines"])]
        if not live:
            return
        asks = []
        for j in live:  # the next reference item to try for the current line
            while j["ref"] < len(j["rubric"]) and j["ref"] in j["used"]:
                j["ref"] += 1
            if j["ref"] >= len(j["rubric"]):
                j["aligned"].append(j["lines"][j["line"]])
                j["line"], j["ref"] = j["line"] + 1, 0
            else:
                asks.append(j)
        if not asks:
            continue
        msgs = [
            official.equivalence_messages(j["rubric"][j["ref"]], j["lines"][j["line"]])
            for j in asks
        ]
        for j, res in zip(asks, client.complete_many(msgs, desc="judge (event order)")):
            _add_usage(j["row"], res)
            if res.error:
                j["error"] = f"judge call failed: {res.error}"
                continue
            if "yes" in (res.text or "").lower():
                j["used"].add(j["ref"])
                j["aligned"].append(j["rubric"][j["ref"]])
                j["line"], j["ref"] = j["line"] + 1, 0
            else:
                j["ref"] += 1


def judge_official(items: list[dict], judge_cfg: dict, client=None) -> tuple[list[dict], dict]:
    official = read_checkout(judge_cfg["official_script"])
    client = _client(judge_cfg, client)
    model = str(judge_cfg["model"])
    phash = sha256_text(official.rubric_template)[:12]
    rows = {it["question_id"]: _row(it, model, phash) for it in items}
    # every rubric item of every question: one user message each
    calls = [
        (it, k, official.rubric_prompt(it["question_type"], r, it["hypothesis"], it["question"]))
        for it in items
        for k, r in enumerate(it["rubric"])
    ]
    results = (
        client.complete_many(
            [[{"role": "user", "content": p}] for _, _, p in calls], desc="judge (rubric items)"
        )
        if calls
        else []
    )
    per: dict[str, list] = {it["question_id"]: [None] * len(it["rubric"]) for it in items}
    errors: dict[str, str] = {}
    for (it, k, _), res in zip(calls, results):
        qid = it["question_id"]
        _add_usage(rows[qid], res)
        if res.error:
            errors.setdefault(qid, f"judge call failed: {res.error}")
            continue
        try:
            per[qid][k] = scoring.item_score(res.text, official.fillings[it["question_type"]].cast)
        except scoring.ReplyError as e:
            errors.setdefault(qid, f"rubric item {k + 1}: {e}")
    order_jobs = [
        {
            "rubric": it["rubric"],
            "lines": scoring.answer_lines(it["hypothesis"]),
            "row": rows[it["question_id"]],
            "item": it,
        }
        for it in items
        if it["question_type"] == "event_ordering"
    ]
    _align_rounds(client, official, order_jobs)
    ordering = {j["item"]["question_id"]: j for j in order_jobs}
    for it in items:
        qid = it["question_id"]
        rubric_score = None if qid in errors else scoring.rubric_score(per[qid], len(it["rubric"]))
        detail = {"items": per[qid], "rubric_score": rubric_score}
        error = errors.get(qid)
        score = rubric_score
        if qid in ordering:
            job = ordering[qid]
            error = error or job["error"]
            if job["error"] is None:
                scores = scoring.ordering_score(it["rubric"], job["aligned"])
                score, undefined = scoring.ordering_value(scores)
                detail.update(ordering=scores, aligned=job["aligned"], tau_undefined=undefined)
            else:
                score = None
        _finish(rows[qid], None if error else score, detail, error)
    stats = {
        **client.stats,
        "official_script_sha256": official.files[next(iter(official.files))],
        "official_files": official.files,
        "official_model": official.model,
        "official_temperature": official.temperature,
        **provenance_of(client),
    }
    return [rows[it["question_id"]] for it in items], stats


# ---- the own-wording judge -------------------------------------------------------------------


def own_prompt(item: dict) -> tuple[str, str, list[str] | None]:
    """(kind, prompt, answer lines) of the own-wording judge for one answer: event ordering maps
    the answer's non-empty lines to rubric items, the other abilities score each item; lines is
    None for those, and [] for an ordering answer with no line (nothing to ask)."""
    if item["question_type"] == "event_ordering":
        lines = [x for x in scoring.answer_lines(item["hypothesis"]) if x.strip()]
        return "event_ordering", prompts.order_prompt(item["rubric"], lines), lines
    return (
        "rubric",
        prompts.rubric_prompt(item["question"], item["rubric"], item["hypothesis"]),
        None,
    )


def check_wording(wording) -> None:
    """BEAM's own judge scores rubric items: it has the strict wording only."""
    if wording != "strict":
        from ...errors import ConfigError

        raise ConfigError(
            "judge.wording",
            wording,
            ["strict"],
            hint="BEAM's own-wording judge scores rubric items (0, 0.5 or 1 each): it has no "
            "lenient wording (judge=lenient is for benchmarks judged by a yes or a no)",
        )


def judge_own(items: list[dict], judge_cfg: dict, client=None) -> tuple[list[dict], dict]:
    check_wording(judge_cfg["wording"])
    client = _client(judge_cfg, client)
    model = str(judge_cfg["model"])
    hashes = {k: sha256_text(t)[:12] for k, t in prompts.TEMPLATES.items()}
    rows, asks = [], []
    for it in items:
        kind, text, lines = own_prompt(it)
        row = _row(it, model, hashes[kind])
        rows.append(row)
        if lines == []:  # an ordering answer with no line: no item found, no call needed
            scores = scoring.ordering_score(it["rubric"], [])
            value, undefined = scoring.ordering_value(scores)
            _finish(row, value, {"ordering": scores, "tau_undefined": undefined}, None)
            continue
        asks.append((it, row, lines, text))
    results = (
        client.complete_many([[{"role": "user", "content": p}] for *_, p in asks], desc="judge")
        if asks
        else []
    )
    for (it, row, lines, _), res in zip(asks, results):
        _add_usage(row, res)
        if res.error:
            _finish(row, None, {"reply": res.text}, f"judge call failed: {res.error}")
            continue
        try:
            if lines is None:
                items_ = prompts.parse_rubric(res.text, len(it["rubric"]))
                mean = sum(items_) / len(items_)
                _finish(row, mean, {"items": items_, "rubric_score": mean}, None)
            else:
                aligned = prompts.parse_order(res.text, lines, it["rubric"])
                scores = scoring.ordering_score(it["rubric"], aligned)
                value, undefined = scoring.ordering_value(scores)
                _finish(
                    row,
                    value,
                    {"ordering": scores, "aligned": aligned, "tau_undefined": undefined},
                    None,
                )
        except scoring.ReplyError as e:
            _finish(row, None, {"reply": res.text}, f"unreadable judge reply: {e}")
    kinds = sorted(
        {"event_ordering" if it["question_type"] == "event_ordering" else "rubric" for it in items}
    )
    return rows, {
        **client.stats,
        **provenance_of(client),
        "prompts": {
            f"{k}:{hashes[k]}": {"stage": "judge", "name": k, "template": prompts.TEMPLATES[k]}
            for k in kinds
        },
    }
