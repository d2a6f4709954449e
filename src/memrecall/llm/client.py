"""LLMClient: many chat calls through litellm, bounded, retried, cached, never paid twice.

    client = LLMClient(section(params, "reader"), stage="read")
    results = client.complete_many(messages_list, desc="read")   # same order as the input

- Concurrency: at most `concurrency` requests in flight (an asyncio.Semaphore around each
  attempt; litellm's Router rpm did not throttle, docs/tools.md); optional `rpm` spaces request
  starts evenly (60/rpm s apart).
- Faults: 429, 408/409, 5xx, timeouts (`timeout_s` per attempt), connection errors and malformed
  responses (bad JSON, no choices) are retried up to `num_retries` times by tenacity, with
  exponential backoff and jitter (Retry-After honoured up to `backoff_max_s`).
  400/401/403/404 and context-length errors are not retried.
  A call that still fails returns text=None and error="<reason>"; it is not cached, so the next
  run asks again. Callers record it as an error, never as a wrong answer.
- Cache: each successful call is committed to the sqlite cache the moment it returns (cache.py),
  so kill -9 and a rerun pay only for the calls that had not finished. Identical requests within
  one batch are sent once. A cached result carries the tokens, cost and latency of the call that
  paid for it, so artifacts are byte-identical on rerun.
- Keys: read from the environment at call time (providers.py), handed to litellm, scrubbed from
  error messages; never stored or logged.
- Latency is that of the attempt that succeeded (retry waits excluded); cost is litellm's price
  for the reported usage (0 for the local model; 0 plus a warning when litellm knows no price).

Config (conf/llm/base.yaml): model, provider, generation params and prices are the identity of
the calls; `runtime` (api_base, api_key_env, concurrency, rpm, timeout_s, num_retries, backoff_s,
backoff_max_s, max_cost_usd) only says how they are made. What it cannot say, where each answer
came from, every result records (endpoint_host, response_model; kept in the cache with the
answer) and `client.provenance.summary()` counts (provenance.py). MEMRECALL_PROGRESS=0 turns
the progress bar and the one-line summary off.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import random
import sys
import threading
import time
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt
from tqdm.auto import tqdm

from ..config import runtime
from ..errors import ConfigError, MemrecallError
from ..schema import USAGE_COLUMNS
from ..thinking import strip_thinking
from .budget import INPUT_MARGIN, BudgetExceeded, budgets_for
from .cache import CallCache, request_hash
from .lazy import litellm as _litellm
from .provenance import ProvenanceLog, endpoint_host
from .providers import call_spec, gen_params, read_api_key

log = logging.getLogger(__name__)

# Where each stage keeps its LLM config, so config errors name the right params key.
_CFG_GROUP = {
    "read": "reader",
    "judge": "judge",
    "rewrite": "rewrite.llm",
    "embed": "embedder.expansion_llm",
}
_HARD_TIMEOUT_GRACE_S = 5.0
_BUDGET_ERROR = "not sent: spend limit reached (max_cost_usd)"
_GUARD_ERROR = "not sent: the stage's guard stopped it (stop_check)"


class GuardStop(MemrecallError):
    """A caller's stop_check stopped new calls (read/refusal_guard.py); what finished is cached."""


class _NotSent(Exception):
    """Raised inside the semaphore when the guard has stopped the batch: the call is not sent."""


@dataclass(frozen=True)
class CallResult:
    text: str | None
    model: str
    request_hash: str
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    error: str | None = None
    cached: bool = False
    endpoint_host: str | None = None  # where the answer came from (provenance.py)
    response_model: str | None = None  # the model id the response named

    @property
    def ok(self) -> bool:
        return self.error is None


def usage(*calls: CallResult) -> dict:
    """The usage columns (schema.USAGE_COLUMNS) summed over `calls`, zeros for none: what a
    row's model calls cost (a cached result carries its first call's figures)."""
    return {
        name: (float if pa.types.is_floating(kind) else int)(
            sum(getattr(c, name) or 0 for c in calls)
        )
        for name, kind in USAGE_COLUMNS
    }


class MalformedResponse(Exception):
    """A 200 answer we cannot use (no choices, non-text content): retried like a 5xx."""


# ---- one event loop thread for the process --------------------------------------------------
# litellm caches async HTTP clients per event loop; a fresh asyncio.run() per batch would leave
# them bound to closed loops. The sync API therefore runs every batch on one long-lived loop.
_loop: asyncio.AbstractEventLoop | None = None
_loop_pid: int | None = None
_loop_lock = threading.Lock()


def _run_sync(coro):
    global _loop, _loop_pid
    with _loop_lock:
        # A forked child inherits _loop but not the thread running it: start its own.
        if _loop is None or _loop.is_closed() or _loop_pid != os.getpid():
            _loop, _loop_pid = asyncio.new_event_loop(), os.getpid()
            threading.Thread(target=_loop.run_forever, name="memrecall-llm", daemon=True).start()
    fut = asyncio.run_coroutine_threadsafe(coro, _loop)
    try:
        return fut.result()
    except BaseException:
        fut.cancel()
        raise


class _RateLimiter:
    """At most `rpm` request starts per minute, spaced evenly."""

    def __init__(self, rpm: float):
        self.interval = 60.0 / rpm
        self.next_t = 0.0
        self.lock = asyncio.Lock()

    async def wait(self) -> None:
        async with self.lock:
            now = time.monotonic()
            t = max(now, self.next_t)
            self.next_t = t + self.interval
        if t > now:
            await asyncio.sleep(t - now)


def _number(cfg, key, where, *, integer=False, minimum=0.0, allow_none=False):
    if key not in cfg:
        raise ConfigError(
            f"{where}.{key}",
            "(missing)",
            hint="recompose params.yaml "
            "(`memrecall compose` or `dvc exp run`); conf/llm/base.yaml sets it",
        )
    v = cfg[key]
    if v is None and allow_none:
        return None
    ok = (
        isinstance(v, (int, float))
        and not isinstance(v, bool)
        and v >= minimum
        and (not integer or float(v).is_integer())
        and math.isfinite(v)
    )
    if not ok:
        kind = "an integer" if integer else "a number"
        raise ConfigError(
            f"{where}.{key}",
            v,
            hint=f"must be {kind} >= {minimum}" + (" or null" if allow_none else ""),
        )
    return int(v) if integer else float(v)


class LLMClient:
    """Chat completions for one stage with one model config (see module docstring)."""

    def __init__(
        self,
        llm_cfg: dict,
        stage: str,
        *,
        where: str | None = None,
        cache: CallCache | None = None,
        progress: bool | None = None,
    ):
        self.stage = stage
        self.where = where or _CFG_GROUP.get(stage, stage)
        if not isinstance(llm_cfg, dict):
            raise ConfigError(
                self.where,
                type(llm_cfg).__name__,
                hint="expected a mapping of LLM settings (model, temperature, ...)",
            )
        self.cfg = dict(llm_cfg)
        self.spec = call_spec(self.cfg, self.where)
        self.model = self.spec.model
        self.params = gen_params(self.cfg)
        w = self.where
        rt = runtime(self.cfg, w)
        self.concurrency = _number(rt, "concurrency", f"{w}.runtime", integer=True, minimum=1)
        self.rpm = _number(rt, "rpm", f"{w}.runtime", minimum=1e-9, allow_none=True)
        self.timeout_s = _number(rt, "timeout_s", f"{w}.runtime", minimum=1e-3)
        self.num_retries = _number(rt, "num_retries", f"{w}.runtime", integer=True)
        self.backoff_s = _number(rt, "backoff_s", f"{w}.runtime")
        self.backoff_max_s = _number(rt, "backoff_max_s", f"{w}.runtime")
        self.input_price = _number(self.cfg, "input_cost_per_mtok", w, allow_none=True)
        self.output_price = _number(self.cfg, "output_cost_per_mtok", w, allow_none=True)
        if progress is None:
            progress = os.environ.get("MEMRECALL_PROGRESS", "1") not in ("0", "false", "no")
        self.progress = progress
        self._cache = cache
        self._warned_price = False
        self._budgets: list = []  # set per batch in _run_todo (budget.py)
        self._budget_stop: dict | None = None
        # Where every answer this client returned came from, cached or not (provenance.py).
        self.provenance = ProvenanceLog()
        # stop_check(result) -> a message to stop sending, or None; sees every answer of a batch
        # as it finishes (cached ones first, in input order). Set by the caller (the read stage's
        # refusal guard); in-flight calls finish and are cached, then GuardStop is raised.
        self.stop_check = None
        self._guard_stop: str | None = None
        self.stats: dict[str, Any] = {
            "calls": 0,
            "cached": 0,
            "failed": 0,
            "retries": 0,
            "input_tokens": 0,
            "output_tokens": 0,
            "reasoning_tokens": 0,
            "cost_usd": 0.0,
        }

    @property
    def cache(self) -> CallCache:
        if self._cache is None:
            self._cache = CallCache()
        return self._cache

    def request_hash(self, messages: list[dict]) -> str:
        return request_hash(self.model, messages, self.params)

    # ---- public API ------------------------------------------------------------------------
    def complete_many(
        self, messages_list: list[list[dict]], desc: str | None = None
    ) -> list[CallResult]:
        """Blocking: answer every conversation (same order as the input)."""
        return _run_sync(self.acomplete_many(messages_list, desc=desc))

    def complete(self, messages: list[dict]) -> CallResult:
        return self.complete_many([messages])[0]

    def lookup(self, messages_list: list[list[dict]]) -> list[tuple[str, CallResult | None]]:
        """(request hash, cached result or None) for each conversation, same order, without
        sending anything: what complete_many would answer from the cache (memrecall plan's
        dry run asks this)."""
        msgs = [_check_messages(m, i) for i, m in enumerate(messages_list)]
        hashes = [self.request_hash(m) for m in msgs]
        hits = self.cache.get_many(hashes) if hashes else {}
        return [(h, self._from_row(h, hits[h]) if h in hits else None) for h in hashes]

    async def acomplete_many(
        self, messages_list: list[list[dict]], desc: str | None = None
    ) -> list[CallResult]:
        self._budget_stop = self._guard_stop = None
        msgs = [_check_messages(m, i) for i, m in enumerate(messages_list)]
        results: list[CallResult | None] = [None] * len(msgs)
        todo: dict[str, list[int]] = {}
        for i, (h, hit) in enumerate(self.lookup(msgs)):
            if hit is not None:
                results[i] = hit
                self.stats["cached"] += 1
                self._check_stop(results[i])
            else:
                todo.setdefault(h, []).append(i)
        before = dict(self.stats)
        bar = tqdm(
            total=len(msgs),
            initial=len(msgs) - sum(map(len, todo.values())),
            desc=desc or self.stage,
            unit="call",
            disable=not (self.progress and msgs),
            dynamic_ncols=True,
            file=sys.stderr,
        )
        try:
            if todo:
                await self._run_todo(msgs, todo, results, bar)
        finally:
            bar.close()
        if self.progress and msgs:
            sent = self.stats["calls"] - before["calls"]
            print(
                f"{desc or self.stage}: {len(msgs)} requests to {self.model}: {sent} sent, "
                f"{len(msgs) - sum(map(len, todo.values()))} cached, "
                f"{sum(1 for r in results if r is not None and not r.ok)} failed, "
                f"{self.stats['retries'] - before['retries']} retries, "
                f"${self.stats['cost_usd'] - before['cost_usd']:.4f} paid now",
                file=sys.stderr,
            )
        for r in results:
            if r is not None and r.ok:
                self.provenance.add(r.endpoint_host, r.response_model)
        if self._guard_stop is not None:
            self.cache.flush()
            not_sent = sum(1 for r in results if r is not None and r.error == _GUARD_ERROR)
            raise GuardStop(
                f"{self._guard_stop}; {not_sent} call(s) not sent. Every finished "
                f"call is cached: a rerun pays only for what is not."
            )
        if self._budget_stop is not None:
            raise BudgetExceeded(
                self._budget_message(
                    self.stats["calls"] - before["calls"],
                    sum(1 for r in results if r is not None and r.error == _BUDGET_ERROR),
                )
            )
        return results  # type: ignore[return-value]

    # ---- internals -------------------------------------------------------------------------
    async def _run_todo(self, msgs, todo, results, bar) -> None:
        # Only now do we need the key (a fully cached rerun works without it).
        # Held in this coroutine only (not on the instance), so no repr/pickle can show it.
        api_key = read_api_key(self.cfg, self.spec.provider, self.where)
        if self.spec.provider == "local":
            from .local import get_model

            # Load (and on first use convert) the model before any call is timed, so that
            # latency_s measures generation, not start-up.
            await asyncio.to_thread(get_model, self.spec.litellm_model.split("/", 1)[-1])
        else:
            _litellm()  # first, so its loggers are quiet before anything else touches litellm
        sem = asyncio.Semaphore(self.concurrency)
        limiter = _RateLimiter(self.rpm) if self.rpm else None
        self._budgets, self._budget_stop = (
            budgets_for(self.cfg, self.where, self.cache.db_path),
            None,
        )
        if self._budgets:
            self._check_budget_prices()

        async def one(h: str, idxs: list[int]) -> None:
            r = await self._call(h, msgs[idxs[0]], api_key, sem, limiter)
            self._check_stop(r)
            for k, i in enumerate(idxs):
                # Duplicates within the batch reuse the one answer paid for.
                results[i] = r if k == 0 else replace(r, cached=r.ok)
            if r.ok:
                self.stats["cached"] += len(idxs) - 1
            else:
                self.stats["failed"] += len(idxs)
            bar.update(len(idxs))
            bar.set_postfix(
                failed=self.stats["failed"], retries=self.stats["retries"], refresh=False
            )

        tasks = [asyncio.ensure_future(one(h, idxs)) for h, idxs in todo.items()]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            for t in tasks:
                t.cancel()
            raise

    def _check_stop(self, result: CallResult) -> None:
        if self.stop_check is not None and self._guard_stop is None and result.error is None:
            self._guard_stop = self.stop_check(result)

    def _from_row(self, h: str, row: dict) -> CallResult:
        return CallResult(
            text=row["text"],
            model=self.model,
            request_hash=h,
            input_tokens=row["input_tokens"],
            output_tokens=row["output_tokens"],
            reasoning_tokens=row["reasoning_tokens"],
            cost_usd=row["cost_usd"],
            latency_s=row["latency_s"],
            error=None,
            cached=True,
            endpoint_host=row.get("endpoint_host"),
            response_model=row.get("response_model"),
        )

    def endpoint_host(self) -> str:
        """The host this client's calls go to now (api_base, the environment, or the
        provider's own endpoint); never a URL's path, credentials or a key."""
        return endpoint_host(self.spec.provider, self.spec.kwargs.get("api_base"))

    async def _attempt(self, messages, api_key):
        if self.spec.provider == "local":  # in this process: no HTTP, no litellm (local.complete)
            from .local import complete

            coro = asyncio.to_thread(
                complete, self.spec.litellm_model, messages, self.spec.kwargs.get("max_tokens")
            )
        else:
            kwargs = dict(self.spec.kwargs)
            if api_key is not None:
                kwargs["api_key"] = api_key
            # Our retry loop is the only one: litellm's (num_retries) and the OpenAI SDK's
            # (max_retries) would resend requests we cannot see or count.
            coro = _litellm().acompletion(
                model=self.spec.litellm_model,
                messages=messages,
                timeout=self.timeout_s,
                num_retries=0,
                max_retries=0,
                **kwargs,
            )
        # A hard bound: the in-process model has no timeout of its own, and an HTTP `timeout`
        # bounds each read, not the whole call.
        return await asyncio.wait_for(coro, self.timeout_s + _HARD_TIMEOUT_GRACE_S)

    async def _call(self, h: str, messages: list[dict], api_key, sem, limiter) -> CallResult:
        holds = None
        try:
            if self._budgets:
                async with sem:  # reserve when the call could be sent, not when it is queued
                    holds = self._reserve(messages)
                if holds is None:
                    return CallResult(
                        text=None, model=self.model, request_hash=h, error=_BUDGET_ERROR
                    )
            result = await self._send(h, messages, api_key, sem, limiter)
        except BaseException:
            self._settle(holds, 0.0)
            raise
        self._settle(holds, result.cost_usd if result.ok else 0.0)
        return result

    async def _send(self, h: str, messages: list[dict], api_key, sem, limiter) -> CallResult:
        last = {"latency": 0.0}

        async def attempt():
            if limiter is not None:
                await limiter.wait()
            async with sem:
                if self._guard_stop is not None:  # checked when it could be sent, not queued
                    raise _NotSent
                t0 = time.perf_counter()
                try:
                    resp = await self._attempt(messages, api_key)
                    return resp, _parse(resp), time.perf_counter() - t0
                finally:
                    last["latency"] = time.perf_counter() - t0

        def retryable(err: BaseException) -> bool:
            return (
                not isinstance(err, (asyncio.CancelledError, _NotSent))
                and _classify(err, self.timeout_s, api_key)[0]
            )

        def count_retry(state: RetryCallState) -> None:
            self.stats["retries"] += 1

        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.num_retries + 1),
            wait=self._wait(api_key),
            retry=retry_if_exception(retryable),
            before_sleep=count_retry,
            reraise=True,
        )
        n_attempts = 0
        try:
            async for try_ in retrying:
                with try_:
                    n_attempts = try_.retry_state.attempt_number
                    resp, (text, n_in, n_out, n_reason), latency = await attempt()
        except asyncio.CancelledError:
            raise
        except _NotSent:
            return CallResult(text=None, model=self.model, request_hash=h, error=_GUARD_ERROR)
        except Exception as err:  # classified; nothing escapes a single call
            _, reason, _ = _classify(err, self.timeout_s, api_key)
            self.cache.log_call(h, self.model, self.stage, False, n_attempts)
            self.stats["calls"] += 1
            reason = _scrub(
                f"{reason} (after {n_attempts} attempt{'s' if n_attempts > 1 else ''})", api_key
            )
            log.debug("call %s failed: %s", h[:12], reason)
            return CallResult(
                text=None,
                model=self.model,
                request_hash=h,
                latency_s=round(last["latency"], 4),
                error=reason,
                cached=False,
            )
        cost = self._cost(resp, n_in, n_out)
        named = getattr(resp, "model", None)
        row = {
            "model": self.model,
            "text": text,
            "input_tokens": n_in,
            "output_tokens": n_out,
            "reasoning_tokens": n_reason,
            "cost_usd": cost,
            "latency_s": round(latency, 4),
            "endpoint_host": self.endpoint_host(),
            "response_model": str(named) if named else None,
        }
        self.cache.put(h, row, self.stage, messages)  # committed now: survives kill -9
        self.cache.log_call(h, self.model, self.stage, True, n_attempts)
        self.stats["calls"] += 1
        for k in ("input_tokens", "output_tokens", "reasoning_tokens"):
            self.stats[k] += row[k]
        self.stats["cost_usd"] += cost
        return CallResult(
            text=text,
            model=self.model,
            request_hash=h,
            input_tokens=n_in,
            output_tokens=n_out,
            reasoning_tokens=n_reason,
            cost_usd=cost,
            latency_s=row["latency_s"],
            error=None,
            cached=False,
            endpoint_host=row["endpoint_host"],
            response_model=row["response_model"],
        )

    def _wait(self, api_key):
        """tenacity wait: exponential with jitter (half fixed, half random), so a burst of 429s
        spreads out; a Retry-After longer than that is honoured up to backoff_max_s."""

        def wait(state: RetryCallState) -> float:
            err = state.outcome.exception() if state.outcome is not None else None
            retry_after = _classify(err, self.timeout_s, api_key)[2] if err else None
            return self._backoff(state.attempt_number, retry_after)

        return wait

    # ---- budgets (budget.py) ----------------------------------------------------------------
    def _check_budget_prices(self) -> None:
        from .pricing import prices_for

        self._prices = prices_for(self.cfg, self.spec.provider, self.spec.litellm_model)
        what = self._budgets[0].what
        if not self._prices.known:
            raise ConfigError(
                what,
                self._budgets[0].limit,
                hint=(
                    f"{self._prices.source}, so a call's cost cannot be bounded before it is sent; "
                    f"set {self.where}.input_cost_per_mtok and output_cost_per_mtok"
                ),
            )
        if self.cfg["max_tokens"] is None and self._prices.output_per_mtok > 0:
            raise ConfigError(
                what,
                self._budgets[0].limit,
                hint=(
                    f"{self.where}.max_tokens is unset, "
                    "so a call's output cost has no bound; set it"
                ),
            )

    def worst_case_cost(self, messages: list[dict]) -> float:
        """The most one call can cost: counted input (+10%) and max_tokens of output."""
        from .pricing import count_tokens

        n_in = count_tokens(self.spec.litellm_model, messages) * INPUT_MARGIN
        return self._prices.cost(n_in, float(self.cfg["max_tokens"] or 0))

    def _reserve(self, messages: list[dict]):
        """Reservation tokens in every budget, or None (and no new call from now on)."""
        if self._budget_stop is not None:
            return None
        cost = self.worst_case_cost(messages)
        holds = []
        for b in self._budgets:
            tok = b.try_reserve(cost)
            if tok is None:
                for b2, t2 in holds:
                    b2.settle(t2, 0.0)
                self._budget_stop = {"budget": b, "next_cost": cost}
                return None
            holds.append((b, tok))
        return holds

    def _settle(self, holds, actual: float) -> None:
        for b, tok in holds or []:
            b.settle(tok, actual)

    def _budget_message(self, paid_calls: int, not_sent: int) -> str:
        b, nxt = self._budget_stop["budget"], self._budget_stop["next_cost"]
        scope = "this sweep" if b.ledger is not None else "this run"
        return (
            f"{b.what}={b.limit:g} reached: {scope} paid ${b.total_spent():.4f} "
            f"({paid_calls} call(s) of {self.stage} now); {not_sent} call(s) not sent (the "
            f"next would cost up to ${nxt:.4f}). Finished calls are cached: rerun with a "
            f"higher {b.what} (or none) to continue; nothing is paid twice."
        )

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        cap = min(self.backoff_max_s, self.backoff_s * 2 ** (attempt - 1))
        delay = cap * (0.5 + 0.5 * random.random())
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.backoff_max_s))
        return delay

    def _cost(self, resp, n_in: int, n_out: int) -> float:
        if self.spec.provider == "local":
            return 0.0
        if self.input_price is not None or self.output_price is not None:
            return ((self.input_price or 0.0) * n_in + (self.output_price or 0.0) * n_out) / 1e6
        cost = (getattr(resp, "_hidden_params", None) or {}).get("response_cost")
        if cost is None:
            try:
                cost = _litellm().completion_cost(
                    completion_response=resp, model=self.spec.litellm_model
                )
            except Exception:
                cost = None
        if cost is None:
            if not self._warned_price:
                log.warning(
                    "no price known for %s: its cost is recorded as 0; set "
                    "%s.input_cost_per_mtok / output_cost_per_mtok",
                    self.model,
                    self.where,
                )
                self._warned_price = True
            return 0.0
        return float(cost)


def _scrub(s: str, api_key: str | None) -> str:
    """Error text can quote the key (a proxy echoing the Authorization header): mask it."""
    return s.replace(api_key, "***") if api_key else s


def _check_messages(messages, i: int) -> list[dict]:
    if not isinstance(messages, list) or not messages:
        raise ValueError(f"messages_list[{i}] must be a non-empty list of chat messages")
    for j, m in enumerate(messages):
        if (
            not isinstance(m, dict)
            or not isinstance(m.get("role"), str)
            or not isinstance(m.get("content"), str)
        ):
            raise ValueError(
                f"messages_list[{i}][{j}] must be a dict with str 'role' and "
                f"'content', got {m!r:.200}"
            )
    return messages


def _parse(resp) -> tuple[str, int, int, int]:
    """(text, input tokens, output tokens, reasoning tokens) from a litellm ModelResponse.
    Empty content is an answer (the refusal classifier flags it); no choices is malformed."""
    choices = getattr(resp, "choices", None)
    if not choices:
        raise MalformedResponse("response has no choices")
    msg = getattr(choices[0], "message", None)
    content = getattr(msg, "content", None) if msg is not None else None
    if isinstance(content, list):  # content parts: keep the text ones
        content = "".join(
            p.get("text") or "" for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    if content is not None and not isinstance(content, str):
        raise MalformedResponse(f"message content is {type(content).__name__}, not text")
    # Some thinking models (MiniMax, R1 distills) put their reasoning inline: keep the answer.
    text = strip_thinking(content or "").strip()
    usage = getattr(resp, "usage", None)
    n_in = int(getattr(usage, "prompt_tokens", 0) or 0)
    n_out = int(getattr(usage, "completion_tokens", 0) or 0)
    details = getattr(usage, "completion_tokens_details", None)
    n_reason = int(getattr(details, "reasoning_tokens", 0) or 0) if details is not None else 0
    return text, n_in, n_out, n_reason


_NO_RETRY = (
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "BadRequestError",
    "ContextWindowExceededError",
    "UnsupportedParamsError",
    "ContentPolicyViolationError",
    "UnprocessableEntityError",
    "InvalidRequestError",
)


def _classify(
    err: BaseException, timeout_s: float, api_key: str | None = None
) -> tuple[bool, str, float | None]:
    """(retryable, reason, retry-after seconds) for an exception raised by one attempt."""
    name = type(err).__name__
    status = getattr(err, "status_code", None)
    # Mask the key before the message is cut, or a key straddling the cut leaves its prefix.
    msg = _scrub(" ".join(str(err).split()), api_key)
    for prefix in (f"litellm.{name}: ", f"{name}: "):  # litellm repeats the class name twice
        msg = msg[len(prefix) :] if msg.startswith(prefix) else msg
    msg = msg[:300]
    if isinstance(err, (asyncio.TimeoutError, TimeoutError)) or name in (
        "Timeout",
        "APITimeoutError",
    ):
        return True, f"timeout: no answer within {timeout_s:g} s", None
    if isinstance(err, MalformedResponse):
        return True, f"malformed response: {msg}", None
    if isinstance(err, MemrecallError):  # e.g. the local model's context-length error
        return False, f"{name}: {msg}", None
    retry_after = _retry_after(err)
    if isinstance(status, int):
        if status in (408, 409, 429) or status >= 500:
            return True, f"{name} (HTTP {status}): {msg}", retry_after
        return False, f"{name} (HTTP {status}): {msg}", None
    if any(c.__name__ in _NO_RETRY for c in type(err).__mro__):
        return False, f"{name}: {msg}", None
    # Connection errors, undecodable bodies, provider SDK surprises: transient until proven not.
    return True, f"{name}: {msg}", retry_after


def _retry_after(err) -> float | None:
    headers = getattr(err, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(err, "response", None), "headers", None)
    try:
        v = headers.get("retry-after") if headers is not None else None
        return float(v) if v is not None else None
    except (TypeError, ValueError, AttributeError):
        return None
