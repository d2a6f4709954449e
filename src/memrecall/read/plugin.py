"""`reader=plugin`: a system that answers from its own memory (an agent with tools, a service
client) answers each question instead of the built-in LLM reader.

The protocol (docs/plugins.md; examples/openai_reader.py is a complete one):

    class MyReader:
        def __init__(self, **options): ...
        def answer(self, question: ReaderQuestion):      # or: async def answer(...)
            return "text"  |  Answer(text, model=..., input_tokens=..., cost_usd=...)
                           |  {"text": ..., "input_tokens": ..., ...}

`question` carries the question, its type and date, and the final candidate sessions best first
(at most `reader.top_k_context`), each with this question's date for it and its turns.

Like an LLM call (llm/client.py): up to `concurrency` questions in flight (a semaphore for an
async answer(), a thread pool otherwise), `timeout_s` per async attempt, an exception retried
`num_retries` times with exponential backoff, then recorded in `answers.error` (hypothesis null,
never judged, retried on the next run). Each answer is committed to the shared call cache the
moment it returns, keyed by the plug-in's identity (code + options) and the question's content,
so a rerun or a resumed run never asks twice. Usage (tokens, cost) goes into the answers table
and from there into the cost tables. An answer of the wrong shape is the plug-in's bug: the
stage stops with a PluginError naming the plug-in, the question and the expected shape.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from numbers import Real
from pathlib import Path

from tqdm.auto import tqdm

from ..config import check_int, identity, runtime
from ..errors import ConfigError
from ..hashing import sha256_json
from ..haystack import Session
from ..llm.client import CallResult
from ..plugins import PluginError, load_plugin, plugin_identity, result_params

WHERE = "reader"
STAGE = "read"


@dataclass(frozen=True)
class ReaderQuestion:
    question_id: str
    question: str
    question_type: str
    question_date: str
    sessions: tuple[Session, ...]  # the final candidates, best first


@dataclass(frozen=True)
class Answer:
    text: str
    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float = 0.0


_USAGE = ("input_tokens", "output_tokens", "reasoning_tokens")
SHAPE = (
    "a str, an Answer(text, model=None, input_tokens=0, output_tokens=0, "
    "reasoning_tokens=0, cost_usd=0.0), or a dict with 'text' and optional usage keys"
)


def _knob(cfg: dict, key: str):
    """An operational knob: under `reader.runtime` (conf/reader/plugin.yaml)."""
    return runtime(cfg, "reader")[key]


def _number(value, key: str, minimum: float) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not value >= minimum:
        raise ConfigError(f"reader.{key}", value, hint=f"expected a number >= {minimum}")
    return float(value)


@dataclass(frozen=True)
class PluginSettings:
    concurrency: int
    timeout_s: float
    num_retries: int
    backoff_s: float
    top_k_context: int | None

    @classmethod
    def from_cfg(cls, cfg: dict) -> "PluginSettings":
        top_k = cfg["top_k_context"]
        return cls(
            concurrency=check_int(
                _knob(cfg, "concurrency"), "reader.runtime.concurrency", minimum=1
            ),
            timeout_s=_number(_knob(cfg, "timeout_s"), "timeout_s", 1e-3),
            num_retries=check_int(
                _knob(cfg, "num_retries"), "reader.runtime.num_retries", minimum=0
            ),
            backoff_s=_number(_knob(cfg, "backoff_s"), "backoff_s", 0.0),
            top_k_context=None
            if top_k is None
            else check_int(top_k, "reader.top_k_context", minimum=1),
        )


# A plug-in's answer takes the shape of an LLM call's result, so the answers table is built
# from either the same way.
PluginResult = CallResult


class PluginReader:
    def __init__(self, cfg: dict, cache=None):
        self.spec = cfg["callable"]
        self.settings = PluginSettings.from_cfg(cfg)
        self.identity = plugin_identity(cfg, WHERE)
        self.obj = load_plugin(cfg, WHERE, methods=("answer",))
        self.is_async = inspect.iscoroutinefunction(self.obj.answer)
        self._cache = cache
        self.stats = {"calls": 0, "cached": 0, "failed": 0, "retries": 0}

    @property
    def prompt_id(self) -> str:
        """The answers table's prompt_id: which plug-in code and options answered."""
        return f"plugin:{sha256_json(self.identity)[:12]}"

    @property
    def cache(self):
        if self._cache is None:
            from ..llm.cache import CallCache

            self._cache = CallCache()
        return self._cache

    def request_hash(self, q: ReaderQuestion) -> str:
        return sha256_json({"plugin": self.identity, "question": asdict(q)})

    def answer_all(self, questions: list[ReaderQuestion]) -> list[PluginResult]:
        """One result per question, same order; cached answers are not asked again."""
        hashes = [self.request_hash(q) for q in questions]
        hits = self.cache.get_many(hashes)
        results: list[PluginResult | None] = [None] * len(questions)
        todo = []
        for i, h in enumerate(hashes):
            if h in hits:
                r = hits[h]
                results[i] = PluginResult(
                    r["text"],
                    r["model"],
                    h,
                    r["input_tokens"],
                    r["output_tokens"],
                    r["reasoning_tokens"],
                    r["cost_usd"],
                    r["latency_s"],
                )
                self.stats["cached"] += 1
            else:
                todo.append(i)
        bar = tqdm(
            total=len(questions),
            initial=len(questions) - len(todo),
            unit="question",
            desc="read (plugin)",
            file=sys.stderr,
            dynamic_ncols=True,
        )
        try:
            if self.is_async:
                asyncio.run(self._run_async(questions, hashes, todo, results, bar))
            else:
                self._run_threads(questions, hashes, todo, results, bar)
        finally:
            bar.close()
        return results  # type: ignore[return-value]

    # ---- running -----------------------------------------------------------------------------
    def _run_threads(self, questions, hashes, todo, results, bar) -> None:
        with ThreadPoolExecutor(max_workers=self.settings.concurrency) as pool:
            futures = {
                pool.submit(self._attempts, questions[i], hashes[i], self._sync_call): i
                for i in todo
            }
            try:
                for fut in as_completed(futures):
                    results[futures[fut]] = fut.result()
                    bar.update(1)
            except BaseException:  # a wrong-shaped answer: stop asking the rest
                for f in futures:
                    f.cancel()
                # as_completed yields the futures already finished in no set order: raise the
                # earliest question's error, so the message does not depend on thread timing
                failed = sorted(
                    (i, f)
                    for f, i in futures.items()
                    if f.done() and not f.cancelled() and f.exception() is not None
                )
                if failed:
                    raise failed[0][1].exception() from None
                raise

    async def _run_async(self, questions, hashes, todo, results, bar) -> None:
        sem = asyncio.Semaphore(self.settings.concurrency)

        async def one(i):
            results[i] = await self._aattempts(questions[i], hashes[i], sem)
            bar.update(1)

        await asyncio.gather(*(one(i) for i in todo))

    def _sync_call(self, q):
        return self.obj.answer(q)

    def _attempts(self, q, h, call) -> PluginResult:
        for attempt in range(1, self.settings.num_retries + 2):
            t0 = time.perf_counter()
            try:
                out = call(q)
            except Exception as e:  # the plug-in's failure: retried, then recorded
                err = e
            else:
                return self._finish(q, h, out, time.perf_counter() - t0, attempt)
            if attempt <= self.settings.num_retries:
                self.stats["retries"] += 1
                time.sleep(self._backoff(attempt))
        return self._failed(q, h, err, attempt, time.perf_counter() - t0)

    async def _aattempts(self, q, h, sem) -> PluginResult:
        for attempt in range(1, self.settings.num_retries + 2):
            async with sem:
                t0 = time.perf_counter()
                try:
                    out = await asyncio.wait_for(self.obj.answer(q), self.settings.timeout_s)
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    err = (
                        TimeoutError(f"no answer within {self.settings.timeout_s:g} s")
                        if isinstance(e, asyncio.TimeoutError)
                        else e
                    )
                else:
                    return self._finish(q, h, out, time.perf_counter() - t0, attempt)
            if attempt <= self.settings.num_retries:
                self.stats["retries"] += 1
                await asyncio.sleep(self._backoff(attempt))
        return self._failed(q, h, err, attempt, time.perf_counter() - t0)

    def _backoff(self, attempt: int) -> float:
        cap = min(60.0, self.settings.backoff_s * 2 ** (attempt - 1))
        return cap * (0.5 + 0.5 * random.random())

    def _failed(self, q, h, err, attempts, latency) -> PluginResult:
        self.stats["failed"] += 1
        self.stats["calls"] += 1
        self.cache.log_call(h, self.spec, STAGE, False, attempts)
        reason = " ".join(f"{type(err).__name__}: {err}".split())[:300]
        return PluginResult(
            None,
            self.spec,
            h,
            latency_s=round(latency, 4),
            error=f"plug-in failed: {reason} (after {attempts} attempt"
            f"{'s' if attempts > 1 else ''})",
        )

    def _finish(self, q, h, out, latency, attempts) -> PluginResult:
        a = self.check(out, q.question_id)
        row = {
            "model": a.model or self.spec,
            "text": a.text,
            "input_tokens": a.input_tokens,
            "output_tokens": a.output_tokens,
            "reasoning_tokens": a.reasoning_tokens,
            "cost_usd": a.cost_usd,
            "latency_s": round(latency, 4),
        }
        self.cache.put(h, row, STAGE)  # committed now: a crash later never asks again
        self.cache.log_call(h, row["model"], STAGE, True, attempts)
        self.stats["calls"] += 1
        return PluginResult(request_hash=h, **row)

    def check(self, out, qid: str) -> Answer:
        """The plug-in's return value as an Answer, or a PluginError saying what was wrong."""

        def bad(what: str) -> PluginError:
            return PluginError(
                self.spec, f"answer() returned {what}", where=WHERE, question_id=qid, expected=SHAPE
            )

        if isinstance(out, str):
            return Answer(out)
        if isinstance(out, Answer):
            fields = out.__dict__
        elif isinstance(out, dict):
            fields = out
            unknown = sorted(set(out) - set(Answer.__dataclass_fields__))
            if unknown:
                raise bad(f"a dict with unknown keys {unknown}")
        else:
            raise bad(f"a {type(out).__name__}: {out!r:.120}")
        if not isinstance(fields.get("text"), str):
            raise bad(f"text {fields.get('text')!r:.80} (not a str)")
        if fields.get("model") is not None and not isinstance(fields["model"], str):
            raise bad(f"model {fields['model']!r:.80} (not a str)")
        for key in _USAGE:
            v = fields.get(key) or 0
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise bad(f"{key}={v!r} (not a non-negative int)")
        cost = fields.get("cost_usd") or 0.0
        if (
            isinstance(cost, bool)
            or not isinstance(cost, Real)
            or not (math.isfinite(cost) and cost >= 0)
        ):
            raise bad(f"cost_usd={cost!r} (not a non-negative number)")
        return Answer(
            fields["text"],
            fields.get("model"),
            *(int(fields.get(k) or 0) for k in _USAGE),
            float(cost),
        )


def reader_questions(
    questions, ranked: dict[str, list[str]], builder, top_k: int | None
) -> list[ReaderQuestion]:
    """Each question with its final candidates (best first, at most top_k) as sessions."""
    out = []
    for row in questions.sort("question_id").iter_rows(named=True):
        qid = row["question_id"]
        ids = list(dict.fromkeys(ranked.get(qid, [])))[:top_k]
        hay = builder.haystack(qid, ids, with_vectors=False)
        out.append(
            ReaderQuestion(
                qid, row["question"], row["question_type"], row["question_date"], hay.sessions
            )
        )
    return out


def run_plugin_read(
    reader_cfg: dict,
    *,
    questions: str | Path,
    sessions: str | Path,
    turns: str | Path,
    candidates: str | Path,
    out: str | Path,
    prompts_out: str | Path | None = None,
    cache=None,
):
    import json

    import polars as pl

    from ..artifacts import atomic_write_text, read_table, write_table
    from ..errors import InputError
    from ..haystack import HaystackBuilder
    from ..llm.refusal import is_refusal
    from ..schema import polars_schema

    reader = PluginReader(reader_cfg, cache=cache)
    qs, ss, ts = (
        read_table(questions, "questions"),
        read_table(sessions, "sessions"),
        read_table(turns, "turns"),
    )
    ranked: dict[str, list[str]] = {}
    known = set(ss["session_id"])
    for qid, sid in (
        read_table(candidates, "candidates")
        .sort(["question_id", "rank"])
        .select("question_id", "session_id")
        .iter_rows()
    ):
        if sid not in known:
            raise InputError(
                f"candidate session {sid!r} is not in sessions.parquet",
                file=str(candidates),
                question_id=qid,
                field="session_id",
            )
        ranked.setdefault(qid, []).append(sid)
    asked = reader_questions(qs, ranked, HaystackBuilder(qs, ss, ts), reader.settings.top_k_context)
    rows = []
    for q, res in zip(asked, reader.answer_all(asked)):
        rows.append(
            {
                "question_id": q.question_id,
                "hypothesis": res.text,
                "model": res.model,
                "prompt_id": reader.prompt_id,
                "request_hash": res.request_hash,
                "input_tokens": res.input_tokens,
                "output_tokens": res.output_tokens,
                "reasoning_tokens": res.reasoning_tokens,
                "cost_usd": float(res.cost_usd),
                "latency_s": float(res.latency_s),
                # A failure is not a refusal: no answer was given to decline with.
                "refused": res.text is not None and bool(is_refusal(res.text)),
                "error": res.error,
                "raw": res.text,
                "context_session_ids": [s.session_id for s in q.sessions],
            }
        )
    df = pl.DataFrame(rows, schema=polars_schema("answers"))
    params = result_params(identity(reader_cfg), reader.identity)
    write_table(
        df,
        out,
        table="answers",
        stage="read",
        params=params,
        input_files=[questions, sessions, turns, candidates],
    )
    if prompts_out is not None:  # no prompt of ours: what answered instead (for MLflow)
        atomic_write_text(
            prompts_out,
            json.dumps(
                {reader.prompt_id: {"stage": "read", "name": "plugin", "plugin": reader.identity}},
                indent=1,
                sort_keys=True,
                ensure_ascii=False,
            )
            + "\n",
        )
    s = reader.stats
    print(
        f"read: {len(df)} answers from plug-in {reader.spec}; asked {s['calls']}, cached "
        f"{s['cached']}, failed {s['failed']}, retries {s['retries']}",
        file=sys.stderr,
    )
    return df
