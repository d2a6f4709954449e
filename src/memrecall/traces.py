"""MLflow's GenAI views of one run: a trace per question, the verdicts as assessments, the
prompts in the registry and the dataset as a run input.

Everything is read back from what the run left (its artifacts at the experiment's commit, the
LLM call cache): no model is called again. Per question, a trace holds

    question (CHAIN: question, date, type → the answer)
    ├── retrieve / rerank / rewrite (RETRIEVER: session ids with rank and score)
    ├── read  (CHAT_MODEL: the messages sent, the reply, tokens, cost, latency)
    └── judge (EVALUATOR: the verdict and the judge's raw reply)

The gold answer is an expectation (`expected_response`) and the verdict is feedback
(`correct`), logged through `mlflow.genai.evaluate` with a scorer that reads the recorded
verdict, so the run is an evaluation run and two runs compare question by question in the UI.
A reader or judge failure makes the trace an error and the feedback an error, never `False`.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field

import polars as pl

from .hashing import sha256_text

log = logging.getLogger(__name__)

TRACE_NAME = "question"
EXPECTATION = "expected_response"
VERDICT = "correct"
TAG_QUESTION_ID = "memrecall.question_id"
TAG_QUESTION_TYPE = "memrecall.question_type"
CANDIDATE_STAGES = ("retrieve", "rerank", "rewrite")
PROMPT_HASH_TAG = "memrecall.content_sha256"


@dataclass
class QuestionView:
    """What one run did with one question, gathered from its artifacts."""
    question_id: str
    question_type: str
    question: str
    question_date: str
    answer: str
    is_abstention: bool
    candidates: dict[str, list[dict]] = field(default_factory=dict)  # stage -> ranked sessions
    variants: list[str] = field(default_factory=list)               # rewrite's query variants
    reply: dict | None = None      # answers.parquet row
    read_call: dict | None = None  # the cached reader call (messages, created_unix, ...)
    verdict: dict | None = None    # verdicts.parquet row
    judge_call: dict | None = None

    @property
    def reader_error(self) -> str | None:
        return (self.reply or {}).get("error") or None

    @property
    def judge_error(self) -> str | None:
        if self.reply is None:
            return "no answer recorded for this question"
        if self.reader_error:
            return f"not judged: the reader failed ({self.reader_error})"
        v = self.verdict or {}
        if v.get("label") is None:
            return v.get("error") or "the judge gave no verdict"
        return None


def question_views(tables: dict[str, pl.DataFrame], calls: dict[str, dict] | None = None
                   ) -> list[QuestionView]:
    """One view per question of `tables['questions']`, joined with whatever else the run wrote
    (`candidates_<stage>`, `rewrites`, `answers`, `verdicts`); `calls` maps request_hash to the
    call cache's records (CallCache.records)."""
    calls = calls or {}
    views = {}
    for q in tables["questions"].sort("question_id").iter_rows(named=True):
        views[q["question_id"]] = QuestionView(
            question_id=q["question_id"], question_type=q["question_type"],
            question=q["question"], question_date=q.get("question_date") or "",
            answer=q["answer"], is_abstention=bool(q.get("is_abstention")))
    for stage in CANDIDATE_STAGES:
        df = tables.get(f"candidates_{stage}")
        if df is None:
            continue
        for row in df.sort(["question_id", "rank"]).iter_rows(named=True):
            v = views.get(row["question_id"])
            if v is not None:
                v.candidates.setdefault(stage, []).append(
                    {"session_id": row["session_id"], "rank": row["rank"], "score": row["score"]})
    rewrites = tables.get("rewrites")
    if rewrites is not None and "variants" in rewrites.columns:
        for row in rewrites.iter_rows(named=True):
            v = views.get(row["question_id"])
            if v is not None and row.get("variants"):
                v.variants = list(row["variants"])
    for name, attr, call_attr in (("answers", "reply", "read_call"),
                                  ("verdicts", "verdict", "judge_call")):
        df = tables.get(name)
        if df is None:
            continue
        for row in df.iter_rows(named=True):
            v = views.get(row["question_id"])
            if v is None:
                continue
            setattr(v, attr, row)
            if row.get("request_hash") in calls:
                setattr(v, call_attr, calls[row["request_hash"]])
    return list(views.values())


def _ns(seconds: float) -> int:
    return int(seconds * 1e9)


def _messages_or_note(call: dict | None) -> object:
    if call and call.get("messages"):
        return {"messages": call["messages"]}
    return {"note": "the messages of this call were cached before memrecall kept them"}


def log_question_traces(client, experiment_id: str, run_id: str, views: list[QuestionView], *,
                        start_s: float, run_name: str) -> dict[str, str]:
    """Write one trace per question, linked to `run_id`; returns {question_id: trace_id}.
    Span times are laid out from `start_s`; a call's span lasts its recorded latency."""
    from mlflow.entities import SpanType

    out = {}
    for v in views:
        t = start_s
        root = client.start_trace(
            TRACE_NAME, span_type=SpanType.CHAIN, experiment_id=experiment_id, run_id=run_id,
            inputs={"question_id": v.question_id, "question": v.question,
                    "question_date": v.question_date, "question_type": v.question_type},
            tags={TAG_QUESTION_ID: v.question_id, TAG_QUESTION_TYPE: v.question_type,
                  "memrecall.run": run_name},
            start_time_ns=_ns(t))
        tid, parent = root.trace_id, root.span_id
        for stage, ranked in v.candidates.items():
            inputs = {"query": v.question}
            if stage == "rewrite" and v.variants:
                inputs["variants"] = v.variants
            span = client.start_span(stage, tid, parent, span_type=SpanType.RETRIEVER,
                                     inputs=inputs, start_time_ns=_ns(t))
            docs = [{"id": c["session_id"], "page_content": "",
                     "metadata": {"doc_uri": c["session_id"], "rank": c["rank"],
                                  "score": c["score"]}} for c in ranked]
            client.end_span(tid, span.span_id, outputs=docs, end_time_ns=_ns(t))
        reply = v.reply or {}
        latency = float(reply.get("latency_s") or 0.0)
        span = client.start_span(
            "read", tid, parent, span_type=SpanType.CHAT_MODEL,
            inputs=_messages_or_note(v.read_call), start_time_ns=_ns(t),
            attributes={"model": reply.get("model"), "prompt_id": reply.get("prompt_id"),
                        "request_hash": reply.get("request_hash"),
                        "cost_usd": reply.get("cost_usd"), "latency_s": latency,
                        "refused": reply.get("refused"),
                        "mlflow.chat.tokenUsage": {
                            "input_tokens": int(reply.get("input_tokens") or 0),
                            "output_tokens": int(reply.get("output_tokens") or 0),
                            "total_tokens": int(reply.get("input_tokens") or 0)
                            + int(reply.get("output_tokens") or 0)}})
        t += latency
        client.end_span(tid, span.span_id, end_time_ns=_ns(t),
                        outputs={"hypothesis": reply.get("hypothesis"),
                                 "error": v.reader_error},
                        status="ERROR" if v.reader_error or not v.reply else "OK")
        verdict = v.verdict or {}
        jlat = float(verdict.get("latency_s") or 0.0)
        span = client.start_span(
            "judge", tid, parent, span_type=SpanType.EVALUATOR, start_time_ns=_ns(t),
            inputs={"answer": v.answer, "hypothesis": reply.get("hypothesis"),
                    **({"judge_messages": v.judge_call["messages"]}
                       if v.judge_call and v.judge_call.get("messages") else {})},
            attributes={"judge_model": verdict.get("judge_model"),
                        "cost_usd": verdict.get("cost_usd"), "latency_s": jlat})
        t += jlat
        client.end_span(tid, span.span_id, end_time_ns=_ns(t),
                        outputs={"label": verdict.get("label"), "raw": verdict.get("raw"),
                                 "error": v.judge_error},
                        status="ERROR" if v.judge_error else "OK")
        client.end_trace(tid, outputs={"hypothesis": reply.get("hypothesis")},
                         status="ERROR" if v.reader_error or v.judge_error else "OK",
                         end_time_ns=_ns(t))
        out[v.question_id] = tid
    return out


def _judge_source(judge_model: str | None):
    from mlflow.entities import AssessmentSource, AssessmentSourceType

    model = judge_model or "unknown"
    kind = AssessmentSourceType.CODE if model.startswith("rule") else \
        AssessmentSourceType.LLM_JUDGE
    return AssessmentSource(source_type=kind, source_id=model)


def recorded_verdict(trace):
    """The run's own verdict of a question, read from its judge span: MLflow feedback with
    the judge as its source, or an error (reader or judge failure), never a guessed label."""
    from mlflow.entities import AssessmentError, Feedback

    span = next((s for s in trace.data.spans if s.name == "judge"), None)
    outputs = (span.outputs if span is not None else None) or {}
    attrs = span.attributes if span is not None else {}
    source = _judge_source(attrs.get("judge_model"))
    if outputs.get("error") or outputs.get("label") is None:
        return Feedback(name=VERDICT, source=source, error=AssessmentError(
            error_code="NOT_JUDGED", error_message=outputs.get("error") or "no verdict"))
    return Feedback(name=VERDICT, value=bool(outputs["label"]), source=source,
                    rationale=outputs.get("raw") or None)


def log_assessments(client, run_id: str, trace_ids: dict[str, str],
                    views: list[QuestionView]) -> None:
    """Gold answers as expectations, then the verdicts as feedback through MLflow's GenAI
    evaluation (which marks the run as an evaluation run)."""
    import mlflow
    from mlflow.entities import AssessmentSource, AssessmentSourceType
    from mlflow.genai.scorers import scorer

    mlflow.flush_trace_async_logging()
    gold = AssessmentSource(source_type=AssessmentSourceType.HUMAN, source_id="dataset")
    for v in views:
        mlflow.log_expectation(trace_id=trace_ids[v.question_id], name=EXPECTATION,
                               value=v.answer, source=gold)
    traces = [client.get_trace(trace_ids[v.question_id]) for v in views]
    verdict_scorer = scorer(name=VERDICT)(recorded_verdict)
    with mlflow.start_run(run_id=run_id):
        mlflow.genai.evaluate(data=traces, scorers=[verdict_scorer])


# ---------------------------------------------------------------- prompts and dataset

def prompt_name(stage: str, prompt_id: str) -> str:
    """Registry name by stage and prompt (the prompt id's name part): `memrecall-read-default`.
    Versions of one name differ by content."""
    base = prompt_id.split(":", 1)[0]
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in base)
    return f"memrecall-{stage}-{safe}"


def _prompt_template(entry: dict) -> str | list[dict]:
    """The registry's template: a chat template (the messages a stage sent, placeholders for
    the question) or a text template with the reader's per-type guidance appended."""
    if entry.get("messages"):
        return [{"role": m["role"], "content": m["content"]} for m in entry["messages"]]
    text = entry.get("template") or ""
    guidance = entry.get("guidance") or {}
    if guidance:
        text += "\n\n# guidance added for these question types\n" + "\n".join(
            f"- {t}: {g}" for t, g in sorted(guidance.items()))
    return text


def register_prompts(client, prompts: dict) -> list:
    """Each prompt the run used (reports/prompts.json: {prompt id: {stage, template, ...}}) as a
    version in MLflow's prompt registry; the same content is never registered twice. Returns
    the PromptVersions, for linking to the run."""
    from mlflow.exceptions import MlflowException

    versions = []
    for prompt_id, entry in sorted((prompts or {}).items()):
        text = _prompt_template(entry)
        if not text:
            continue
        name = prompt_name(entry.get("stage") or "read", prompt_id)
        digest = sha256_text(text if isinstance(text, str) else json.dumps(text, sort_keys=True))
        found = None
        try:
            for pv in client.search_prompt_versions(name):
                if (pv.tags or {}).get(PROMPT_HASH_TAG) == digest:
                    found = pv
                    break
        except MlflowException:
            pass  # no such prompt yet
        if found is None:
            found = client.register_prompt(
                name, text, commit_message=f"memrecall prompt {prompt_id}",
                tags={PROMPT_HASH_TAG: digest, "memrecall.prompt_id": prompt_id,
                      "memrecall.stage": entry.get("stage") or "read",
                      **({"memrecall.script_sha256": entry["script_sha256"]}
                         if entry.get("script_sha256") else {})})
        versions.append(found)
    return versions


def dataset_entity(params: dict, dataset_sha256: str | None, n_questions: int):
    """The run's questions as an MLflow dataset: name, source, sha256 digest, size, subset."""
    from mlflow.entities import Dataset

    ds = params.get("dataset") or {}
    subset = {k: ds.get(k) for k in ("limit", "question_types", "question_ids", "stratified")
              if ds.get(k) not in (None, [], {})}
    source = ds.get("path") or "/".join(str(ds.get(k)) for k in ("repo_id", "filename")
                                        if ds.get(k)) or ds.get("url") or ds.get("name")
    return Dataset(
        name=str(ds.get("name") or "dataset"), digest=(dataset_sha256 or "unknown")[:36],
        source_type="local" if ds.get("path") else "hub",
        source=json.dumps({"uri": source, "sha256": dataset_sha256, "release": ds.get("release")}),
        profile=json.dumps({"num_questions": n_questions, "subset": subset or None}))


def log_dataset_input(client, run_id: str, params: dict, dataset_sha256: str | None,
                      n_questions: int) -> None:
    from mlflow.entities import DatasetInput, InputTag

    entity = dataset_entity(params, dataset_sha256, n_questions)
    client.log_inputs(run_id, datasets=[DatasetInput(
        dataset=entity, tags=[InputTag("mlflow.data.context", "evaluation")])])


def quiet_mlflow() -> None:
    """Synchronous trace writes (a trace is readable as soon as it is logged) and no
    per-evaluation banners."""
    os.environ.setdefault("MLFLOW_ENABLE_ASYNC_TRACE_LOGGING", "false")
    logging.getLogger("mlflow").setLevel(logging.WARNING)
