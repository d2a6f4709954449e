"""MLflow's GenAI views of one run: a trace per question, the verdicts as assessments, the
prompts in the registry and the dataset as a run input.

Everything is read back from what the run left (its artifacts at the experiment's commit, the
LLM call cache): no model is called again. Per question, a trace holds

    question (CHAIN: question, date, type → the answer)
    ├── retrieve / rerank / rewrite (RETRIEVER: session ids with rank and score)
    ├── read  (CHAT_MODEL: the messages sent, the reply, tokens, cost, latency)
    └── judge (EVALUATOR: the verdict and the judge's raw reply)

The gold answer is an expectation (`expected_response`) and the verdict is feedback
(`correct`, tied to the run as MLflow's GenAI evaluation ties a scorer's feedback), and the run
is marked as an evaluation run, so two runs compare question by question in the UI. A reader
or judge failure makes the trace an error and the feedback an error, never `False`.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field

import polars as pl

from .hashing import sha256_text
from .schema import PANEL_LABEL_PREFIX

log = logging.getLogger(__name__)

TRACE_NAME = "question"
EXPECTATION = "expected_response"
VERDICT = "correct"
TAG_QUESTION_ID = "memrecall.question_id"
TAG_QUESTION_TYPE = "memrecall.question_type"
TAG_ABSTENTION = "memrecall.is_abstention"
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
    extra_inputs: dict = field(default_factory=dict)  # the benchmark's own (Benchmark.trace_fields)
    extra_tags: dict = field(default_factory=dict)
    candidates: dict[str, list[dict]] = field(default_factory=dict)  # stage -> ranked sessions
    variants: list[str] = field(default_factory=list)  # rewrite's query variants
    reply: dict | None = None  # answers.parquet row
    read_call: dict | None = None  # the cached reader call (messages, created_unix, ...)
    verdict: dict | None = None  # verdicts.parquet row
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


def question_views(
    tables: dict[str, pl.DataFrame], calls: dict[str, dict] | None = None, bench=None
) -> list[QuestionView]:
    """One view per question of `tables['questions']`, joined with whatever else the run wrote
    (`candidates_<stage>`, `rewrites`, `answers`, `verdicts`); `calls` maps request_hash to the
    call cache's records (CallCache.records); `bench`: the run's benchmark (its own trace
    inputs and tags), None when not known."""
    calls = calls or {}
    views = {}
    for q in tables["questions"].sort("question_id").iter_rows(named=True):
        inputs, tags = bench.trace_fields(q) if bench is not None else ({}, {})
        views[q["question_id"]] = QuestionView(
            question_id=q["question_id"],
            question_type=q["question_type"],
            question=q["question"],
            question_date=q.get("question_date") or "",
            answer=q["answer"],
            is_abstention=bool(q.get("is_abstention")),
            extra_inputs=inputs,
            extra_tags=tags,
        )
    for stage in CANDIDATE_STAGES:
        df = tables.get(f"candidates_{stage}")
        if df is None:
            continue
        for row in df.sort(["question_id", "rank"]).iter_rows(named=True):
            v = views.get(row["question_id"])
            if v is not None:
                v.candidates.setdefault(stage, []).append(
                    {"session_id": row["session_id"], "rank": row["rank"], "score": row["score"]}
                )
    rewrites = tables.get("rewrites")
    if rewrites is not None and "variants" in rewrites.columns:
        for row in rewrites.iter_rows(named=True):
            v = views.get(row["question_id"])
            if v is not None and row.get("variants"):
                v.variants = list(row["variants"])
    for name, attr, call_attr in (
        ("answers", "reply", "read_call"),
        ("verdicts", "verdict", "judge_call"),
    ):
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


# Traces per store call: log_spans takes a batch in one transaction.
TRACES_PER_BATCH = 100


def _ids(run_id: str, question_id: str) -> tuple[bytes, str]:
    """The question's OTel trace id (16 bytes) and MLflow trace id, derived from the run and
    the question: one trace per question per run, whatever order they are written in."""
    import hashlib

    raw = hashlib.sha256(f"{run_id}\0{question_id}".encode()).digest()[:16]
    return raw, "tr-" + raw.hex()


class _TraceBuilder:
    """One question's spans as MLflow Span entities, built in memory (no live tracing, no
    exporter): they are written in batches afterwards."""

    def __init__(self, otel_id: bytes, trace_id: str, experiment_id: str):
        self.otel_id, self.trace_id, self.experiment_id = otel_id, trace_id, experiment_id
        self.spans = []

    def add(
        self,
        name: str,
        span_type: str,
        start_s: float,
        end_s: float,
        *,
        inputs,
        outputs,
        attributes: dict | None = None,
        error: str | None = None,
        parent: bytes | None = None,
    ) -> bytes:
        import base64
        import hashlib

        from mlflow.entities import Span
        from mlflow.tracing.constant import SpanAttributeKey as K

        span_id = hashlib.sha256(self.otel_id + name.encode()).digest()[:8]
        attrs = {
            K.REQUEST_ID: self.trace_id,
            K.SPAN_TYPE: span_type,
            K.INPUTS: inputs,
            K.OUTPUTS: outputs,
            **(attributes or {}),
        }
        if parent is None:
            attrs[K.EXPERIMENT_ID] = self.experiment_id
        b64 = lambda b: base64.b64encode(b).decode()  # noqa: E731  OTel's JSON form of ids
        self.spans.append(
            Span.from_dict(
                {
                    "trace_id": b64(self.otel_id),
                    "span_id": b64(span_id),
                    "parent_span_id": b64(parent) if parent else None,
                    "name": name,
                    "start_time_unix_nano": _ns(start_s),
                    "end_time_unix_nano": _ns(end_s),
                    "events": [],
                    "links": [],
                    "status": {
                        "code": "STATUS_CODE_ERROR" if error else "STATUS_CODE_OK",
                        "message": error or "",
                    },
                    "attributes": {
                        k: json.dumps(v, default=str, ensure_ascii=False) for k, v in attrs.items()
                    },
                }
            )
        )
        return span_id


def _question_trace(
    v: QuestionView, experiment_id: str, run_id: str, run_name: str, start_s: float
):
    """(TraceInfo with the gold answer and the verdict as assessments, its spans)."""
    from mlflow.entities import SpanType, TraceInfo, TraceLocation, TraceState
    from mlflow.tracing.constant import TraceMetadataKey, TraceTagKey

    otel_id, trace_id = _ids(run_id, v.question_id)
    b = _TraceBuilder(otel_id, trace_id, experiment_id)
    reply, verdict = v.reply or {}, v.verdict or {}
    latency = float(reply.get("latency_s") or 0.0)
    jlat = float(verdict.get("latency_s") or 0.0)
    end_s = start_s + latency + jlat
    inputs = {
        "question_id": v.question_id,
        "question": v.question,
        "question_date": v.question_date,
        "question_type": v.question_type,
    }
    inputs.update(v.extra_inputs)
    if v.is_abstention:  # unanswerable: the gold is the refusal expected
        inputs["unanswerable"] = True
    outputs = {"hypothesis": reply.get("hypothesis")}
    failed = v.reader_error or not v.reply
    root = b.add(
        TRACE_NAME,
        SpanType.CHAIN,
        start_s,
        end_s,
        inputs=inputs,
        outputs=outputs,
        error=v.reader_error or v.judge_error,
    )
    for stage, ranked in v.candidates.items():
        stage_in = {"query": v.question}
        if stage == "rewrite" and v.variants:
            stage_in["variants"] = v.variants
        docs = [
            {
                "id": c["session_id"],
                "page_content": "",
                "metadata": {"doc_uri": c["session_id"], "rank": c["rank"], "score": c["score"]},
            }
            for c in ranked
        ]
        b.add(
            stage, SpanType.RETRIEVER, start_s, start_s, inputs=stage_in, outputs=docs, parent=root
        )
    tokens = {
        "input_tokens": int(reply.get("input_tokens") or 0),
        "output_tokens": int(reply.get("output_tokens") or 0),
    }
    tokens["total_tokens"] = tokens["input_tokens"] + tokens["output_tokens"]
    b.add(
        "read",
        SpanType.CHAT_MODEL,
        start_s,
        start_s + latency,
        inputs=_messages_or_note(v.read_call),
        outputs={"hypothesis": reply.get("hypothesis"), "error": v.reader_error},
        attributes={
            "model": reply.get("model"),
            "prompt_id": reply.get("prompt_id"),
            "request_hash": reply.get("request_hash"),
            "cost_usd": reply.get("cost_usd"),
            "latency_s": latency,
            "refused": reply.get("refused"),
            "mlflow.chat.tokenUsage": tokens,
        },
        error=(v.reader_error or "no answer recorded") if failed else None,
        parent=root,
    )
    judge_in = {"answer": v.answer, "hypothesis": reply.get("hypothesis")}
    if v.judge_call and v.judge_call.get("messages"):
        judge_in["judge_messages"] = v.judge_call["messages"]
    b.add(
        "judge",
        SpanType.EVALUATOR,
        start_s + latency,
        end_s,
        inputs=judge_in,
        outputs={"label": verdict.get("label"), "raw": verdict.get("raw"), "error": v.judge_error},
        attributes={
            "judge_model": verdict.get("judge_model"),
            "cost_usd": verdict.get("cost_usd"),
            "latency_s": jlat,
        },
        error=v.judge_error,
        parent=root,
    )

    root_hex = root.hex()
    gold = _gold_expectation(v, trace_id, root_hex)
    feedback = verdict_feedback(v, trace_id, root_hex, run_id)
    preview = lambda x: json.dumps(x, default=str, ensure_ascii=False)[:1000]  # noqa: E731
    info = TraceInfo(
        trace_id=trace_id,
        trace_location=TraceLocation.from_experiment_id(experiment_id),
        request_time=round(start_s * 1000),
        execution_duration=round((end_s - start_s) * 1000),
        state=TraceState.ERROR if (failed or v.judge_error) else TraceState.OK,
        request_preview=preview(inputs),
        response_preview=preview(outputs),
        trace_metadata={
            TraceMetadataKey.SOURCE_RUN: run_id,
            TraceMetadataKey.INPUTS: preview(inputs),
            TraceMetadataKey.OUTPUTS: preview(outputs),
            TraceMetadataKey.TOKEN_USAGE: json.dumps(tokens),
            "mlflow.trace_schema.version": "3",
        },
        tags={
            TraceTagKey.TRACE_NAME: TRACE_NAME,
            TAG_QUESTION_ID: v.question_id,
            TAG_QUESTION_TYPE: v.question_type,
            "memrecall.run": run_name,
            TAG_ABSTENTION: str(v.is_abstention).lower(),
            **v.extra_tags,
        },
        assessments=[gold, feedback, *panel_feedback(v, trace_id, root_hex, run_id)],
    )
    return info, b.spans


def log_question_traces(
    client,
    experiment_id: str,
    run_id: str,
    views: list[QuestionView],
    *,
    start_s: float,
    run_name: str,
) -> dict[str, str]:
    """Write one trace per question, linked to `run_id`, with the gold answer as expectation
    and the verdict as feedback; returns {question_id: trace_id}. Span times are laid out from
    `start_s`; a call's span lasts its recorded latency.

    Why not the live tracing API and mlflow.genai.evaluate: they write each span, trace and
    assessment in a transaction of its own (about 10 store calls a question: 500 questions
    took 6 minutes on sqlite). Here the trace infos go in with their assessments, one store
    call each, and all spans in a batched call per TRACES_PER_BATCH traces."""
    from tqdm import tqdm

    store = client._tracking_client.store  # the tracing client's store calls take entities
    out = {}
    built = [
        (v.question_id, *_question_trace(v, experiment_id, run_id, run_name, start_s))
        for v in views
    ]
    bar = tqdm(
        total=len(built),
        desc="mlflow traces",
        unit="q",
        file=sys.stderr,
        disable=not sys.stderr.isatty(),
    )
    for chunk in _chunks(built, TRACES_PER_BATCH):
        with _one_transaction(store):
            for qid, info, _ in chunk:
                store.start_trace(info)
                out[qid] = info.trace_id
        store.log_spans(experiment_id, [s for _, _, spans in chunk for s in spans])
        client.link_traces_to_run([info.trace_id for _, info, _ in chunk], run_id)
        bar.update(len(chunk))
    bar.close()
    return out


@contextmanager
def _one_transaction(store):
    """A SQL store's calls inside share one session and commit once: on sqlite a commit per
    trace (and the experiment lookup each does) was most of the time. Other stores (an MLflow
    server over REST) are called as they are."""
    maker = getattr(store, "ManagedSessionMaker", None)
    if maker is None:
        yield
        return
    with maker(read_only=False) as session:
        store.ManagedSessionMaker = lambda *a, **k: nullcontext(session)
        try:
            yield
        finally:
            store.ManagedSessionMaker = maker


def _chunks(items: list, n: int):
    for i in range(0, len(items), n):
        yield items[i : i + n]


def _judge_source(judge_model: str | None):
    from mlflow.entities import AssessmentSource, AssessmentSourceType

    model = judge_model or "unknown"
    kind = AssessmentSourceType.CODE if model.startswith("rule") else AssessmentSourceType.LLM_JUDGE
    return AssessmentSource(source_type=kind, source_id=model)


def _gold_expectation(v: QuestionView, trace_id: str, span_id: str):
    from mlflow.entities import AssessmentSource, AssessmentSourceType, Expectation

    return Expectation(
        name=EXPECTATION,
        value=v.answer,
        trace_id=trace_id,
        span_id=span_id,
        source=AssessmentSource(source_type=AssessmentSourceType.HUMAN, source_id="dataset"),
    )


def verdict_feedback(
    v: QuestionView,
    trace_id: str | None = None,
    span_id: str | None = None,
    run_id: str | None = None,
):
    """The run's own verdict of a question as MLflow feedback, with the judge as its source and
    the judge's raw reply as rationale; a reader or judge failure is an error (NOT_JUDGED),
    never a guessed label. Tied to the run as MLflow's evaluation ties a scorer's feedback."""
    from mlflow.entities import AssessmentError, Feedback
    from mlflow.tracing.constant import AssessmentMetadataKey

    verdict = v.verdict or {}
    source = _judge_source(verdict.get("judge_model"))
    meta = {AssessmentMetadataKey.SOURCE_RUN_ID: run_id} if run_id else None
    common = dict(name=VERDICT, source=source, trace_id=trace_id, span_id=span_id, metadata=meta)
    if v.judge_error or verdict.get("label") is None:
        return Feedback(
            **common,
            error=AssessmentError(
                error_code="NOT_JUDGED", error_message=v.judge_error or "no verdict"
            ),
        )
    return Feedback(**common, value=bool(verdict["label"]), rationale=verdict.get("raw") or None)


def panel_feedback(
    v: QuestionView,
    trace_id: str | None = None,
    span_id: str | None = None,
    run_id: str | None = None,
) -> list:
    """judge=panel: every member's label of the question as its own assessment,
    "correct:<member>", its source the member (code for the rule judge); a member that gave no
    label is an error (NOT_JUDGED), never a guess."""
    from mlflow.entities import AssessmentError, AssessmentSource, AssessmentSourceType, Feedback
    from mlflow.tracing.constant import AssessmentMetadataKey

    verdict = v.verdict or {}
    meta = {AssessmentMetadataKey.SOURCE_RUN_ID: run_id} if run_id else None
    out = []
    for col in sorted(c for c in verdict if c.startswith(PANEL_LABEL_PREFIX)):
        member = col[len(PANEL_LABEL_PREFIX) :]
        kind = (
            AssessmentSourceType.CODE
            if member.startswith("rule")
            else AssessmentSourceType.LLM_JUDGE
        )
        common = dict(
            name=f"{VERDICT}:{member}",
            trace_id=trace_id,
            span_id=span_id,
            metadata=meta,
            source=AssessmentSource(source_type=kind, source_id=member),
        )
        label = verdict[col]
        out.append(
            Feedback(**common, value=bool(label))
            if label is not None
            else Feedback(
                **common,
                error=AssessmentError(
                    error_code="NOT_JUDGED", error_message=v.judge_error or "no label"
                ),
            )
        )
    return out


def mark_evaluation_run(client, run_id: str, views: list[QuestionView], time_ms: int) -> None:
    """What mlflow.genai.evaluate leaves on a run besides the assessments: the run type that
    lists it under the experiment's evaluation runs (compared there question by question) and
    the scorer's mean, `correct/mean`, over the judged questions."""
    from mlflow.entities import Metric, RunTag
    from mlflow.utils.mlflow_tags import MLFLOW_RUN_TYPE, MLFLOW_RUN_TYPE_GENAI_EVALUATE

    labels = [
        bool(v.verdict["label"])
        for v in views
        if v.verdict and v.verdict.get("label") is not None and not v.judge_error
    ]
    metrics = [Metric(f"{VERDICT}/mean", sum(labels) / len(labels), time_ms, 0)] if labels else []
    client.log_batch(
        run_id, metrics=metrics, tags=[RunTag(MLFLOW_RUN_TYPE, MLFLOW_RUN_TYPE_GENAI_EVALUATE)]
    )


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
            f"- {t}: {g}" for t, g in sorted(guidance.items())
        )
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
                name,
                text,
                commit_message=f"memrecall prompt {prompt_id}",
                tags={
                    PROMPT_HASH_TAG: digest,
                    "memrecall.prompt_id": prompt_id,
                    "memrecall.stage": entry.get("stage") or "read",
                    **(
                        {"memrecall.script_sha256": entry["script_sha256"]}
                        if entry.get("script_sha256")
                        else {}
                    ),
                },
            )
        versions.append(found)
    return versions


def dataset_entity(params: dict, dataset_sha256: str | None, n_questions: int):
    """The run's questions as an MLflow dataset: name, source, sha256 digest, size, subset."""
    from mlflow.entities import Dataset

    ds = params.get("dataset") or {}
    subset = {
        k: ds.get(k)
        for k in ("limit", "question_types", "question_ids", "stratified")
        if ds.get(k) not in (None, [], {})
    }
    source = (
        ds.get("path")
        or "/".join(str(ds.get(k)) for k in ("repo_id", "filename") if ds.get(k))
        or ds.get("url")
        or ds.get("name")
    )
    return Dataset(
        name=str(ds.get("name") or "dataset"),
        digest=(dataset_sha256 or "unknown")[:36],
        source_type="local" if ds.get("path") else "hub",
        source=json.dumps({"uri": source, "sha256": dataset_sha256, "release": ds.get("release")}),
        profile=json.dumps({"num_questions": n_questions, "subset": subset or None}),
    )


def log_dataset_input(
    client, run_id: str, params: dict, dataset_sha256: str | None, n_questions: int
) -> None:
    from mlflow.entities import DatasetInput, InputTag

    entity = dataset_entity(params, dataset_sha256, n_questions)
    client.log_inputs(
        run_id,
        datasets=[
            DatasetInput(dataset=entity, tags=[InputTag("mlflow.data.context", "evaluation")])
        ],
    )


def quiet_mlflow() -> None:
    """Synchronous trace writes (a trace is readable as soon as it is logged) and no
    per-evaluation banners."""
    os.environ.setdefault("MLFLOW_ENABLE_ASYNC_TRACE_LOGGING", "false")
    logging.getLogger("mlflow").setLevel(logging.WARNING)
