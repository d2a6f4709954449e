"""LLMClient against a real HTTP server on 127.0.0.1 speaking OpenAI chat-completions, with
injected 429s, 500s, hangs, malformed JSON and empty answers: every call ends answered or
recorded as failed, retries happen, nothing is answered twice, costs add up, the concurrency
bound holds, and a killed run resumes paying only for unfinished calls."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from confs import group
from fake_openai_server import KEY_ENV, FakeOpenAIServer, body_key, default_answer, fake_runtime
from memrecall.errors import ConfigError, MemrecallError
from memrecall.llm import CallResult, LLMClient, request_hash
from memrecall.llm.cache import read_journal

REPO = Path(__file__).resolve().parents[1]
# litellm's price for gpt-4o-2024-08-06 (its bundled price list), USD per token
PRICE_IN, PRICE_OUT = 2.5e-06, 1e-05


@pytest.fixture
def server():
    with FakeOpenAIServer(hang_s=10) as srv:
        yield srv


pytestmark = pytest.mark.usefixtures("fake_key")  # every test here has the fake key set


def cfg(server, **over) -> dict:
    return group(
        "reader",
        "gpt4o",
        **{
            "model": "openai/gpt-4o-2024-08-06",
            **fake_runtime(server.url, timeout_s=0.5, num_retries=3),
            "max_tokens": 16,
            "concurrency": 4,
            "backoff_s": 0.01,
            **over,
        },
    )


def convs(*texts):
    return [[{"role": "user", "content": t}] for t in texts]


def test_faults_are_retried_and_every_call_ends(server, fresh_cache):
    server.plan("rate", ["429", "429"])
    server.plan("boom", ["500", "503"])
    server.plan("slow", ["hang"])
    server.plan("garbled", ["malformed", "nochoices"])
    server.plan("blank", ["empty"])
    texts = ["rate", "boom", "slow", "garbled", "blank", "fine"]
    # Only the hang may time out: on a loaded machine a 0.5 s bound also expired attempts
    # before the server saw them, which counted as retries no fault caused.
    client = LLMClient(cfg(server, timeout_s=2.0), "read", progress=False)
    res = client.complete_many(convs(*texts))

    assert [r.text for r in res] == [default_answer(c) for c in convs(*texts[:4])] + [
        "",
        default_answer(convs("fine")[0]),
    ]
    assert all(r.error is None and not r.cached for r in res)
    # Each fault cost exactly one extra request, then the call was answered.
    assert [server.requests_for(t) for t in texts] == [3, 3, 2, 3, 1, 1]
    assert client.stats["retries"] == 2 + 2 + 1 + 2
    assert client.stats["calls"] == 6 and client.stats["failed"] == 0
    assert sum(server.answered.values()) == 6
    # Costs: litellm's price x the usage the server reported, per call and in total.
    for r in res:
        assert r.cost_usd == pytest.approx(r.input_tokens * PRICE_IN + r.output_tokens * PRICE_OUT)
        assert r.latency_s > 0
    sent = server.usage_sent
    assert sum(r.input_tokens for r in res) == sent["prompt_tokens"]
    assert sum(r.output_tokens for r in res) == sent["completion_tokens"]
    total = sent["prompt_tokens"] * PRICE_IN + sent["completion_tokens"] * PRICE_OUT
    assert client.stats["cost_usd"] == pytest.approx(total)
    assert sum(r.cost_usd for r in res) == pytest.approx(total)
    journal = read_journal(fresh_cache / "llm")
    assert len(journal) == 6 and all(j["ok"] and j["stage"] == "read" for j in journal)
    assert sorted(j["attempts"] for j in journal) == [1, 1, 2, 3, 3, 3]


def test_failure_after_retries_is_recorded_then_retried_next_run(server, fresh_cache):
    server.plan("doomed", ["500"] * 3)  # more failures than 1 + num_retries(2) attempts
    server.plan("unauthorised", ["echo401"])  # not retryable: one request only
    client = LLMClient(cfg(server, num_retries=2), "judge", progress=False)
    res = client.complete_many(convs("doomed", "unauthorised", "fine"))
    assert res[0].text is None and "HTTP 500" in res[0].error and "after 3 attempts" in res[0].error
    assert res[1].text is None and "HTTP 401" in res[1].error and "after 1 attempt)" in res[1].error
    assert res[2].ok and res[2].text == "echo: fine"
    assert server.requests_for("doomed") == 3 and server.requests_for("unauthorised") == 1
    assert client.stats == {**client.stats, "calls": 3, "failed": 2, "cached": 0}
    assert sorted(j["ok"] for j in read_journal(fresh_cache / "llm")) == [False, False, True]

    # Failures were not cached: the next run asks again, and only for them.
    again = LLMClient(cfg(server, num_retries=2), "judge", progress=False)
    res2 = again.complete_many(convs("doomed", "unauthorised", "fine"))
    assert [r.text for r in res2] == ["echo: doomed", "echo: unauthorised", "echo: fine"]
    assert [r.cached for r in res2] == [False, False, True]
    assert server.requests_for("fine") == 1
    assert again.stats["calls"] == 2 and again.stats["cached"] == 1
    assert res2[2] == CallResult(**{**res[2].__dict__, "cached": True})


def test_rerun_pays_nothing_and_returns_what_was_paid(server, fresh_cache):
    texts = [f"question {i}" for i in range(12)] + ["question 3", "question 5"]  # 2 duplicates
    first = LLMClient(cfg(server, concurrency=3), "read", progress=False)
    res1 = first.complete_many(convs(*texts))
    assert server.total_requests == 12  # in-batch duplicates sent once
    assert first.stats["calls"] == 12 and first.stats["cached"] == 2
    assert res1[12].text == res1[3].text and res1[12].cached and not res1[3].cached

    second = LLMClient(cfg(server, concurrency=3), "read", progress=False)
    res2 = second.complete_many(convs(*texts))
    assert server.total_requests == 12 and max(server.answered.values()) == 1
    assert second.stats["calls"] == 0 and second.stats["cached"] == 14
    # Byte-identical artifacts need identical numbers, latency included.
    assert [
        (r.text, r.request_hash, r.input_tokens, r.output_tokens, r.cost_usd, r.latency_s)
        for r in res2
    ] == [
        (r.text, r.request_hash, r.input_tokens, r.output_tokens, r.cost_usd, r.latency_s)
        for r in res1
    ]
    assert all(r.cached for r in res2)
    assert len(read_journal(fresh_cache / "llm")) == 12


def test_lookup_answers_from_the_cache_and_sends_nothing(server, fresh_cache):
    """The public cache view (`memrecall plan`'s dry run): each request's hash, with its cached
    result (as complete_many would return it) or None; nothing is sent, nothing counted."""
    client = LLMClient(cfg(server), "read", progress=False)
    (paid,) = client.complete_many(convs("paid"))
    found = client.lookup(convs("paid", "never asked", "paid"))
    assert server.total_requests == 1 and client.stats["calls"] == 1
    assert [h for h, _ in found] == [
        client.request_hash(m) for m in convs("paid", "never asked", "paid")
    ]
    assert found[1][1] is None and found[0][1] == found[2][1]
    hit = found[0][1]
    assert hit.cached and (hit.text, hit.request_hash, hit.cost_usd, hit.latency_s) == (
        paid.text,
        paid.request_hash,
        paid.cost_usd,
        paid.latency_s,
    )
    with pytest.raises(ValueError, match=r"messages_list\[0\]"):
        client.lookup([[]])


def test_request_hash_covers_model_messages_and_generation_params(server, fresh_cache):
    m = convs("hello")[0]
    base = LLMClient(cfg(server), "read", progress=False)
    h = base.request_hash(m)
    assert h == request_hash("openai/gpt-4o-2024-08-06", m, {"temperature": 0.0, "max_tokens": 16})
    # Concurrency, timeouts, retries and the endpoint do not change the answer, so not the hash.
    assert (
        LLMClient(
            cfg(server, concurrency=9, timeout_s=3, num_retries=0, api_base="http://other/v1"),
            "read",
        ).request_hash(m)
        == h
    )
    for over in ({"temperature": 0.7}, {"max_tokens": 17}, {"model": "openai/gpt-4o-mini"}):
        assert LLMClient(cfg(server, **over), "read").request_hash(m) != h
    assert LLMClient(
        cfg(server, provider="deepseek", model="deepseek/deepseek-chat", thinking_budget=0), "read"
    ).request_hash(m) != LLMClient(
        cfg(server, provider="deepseek", model="deepseek/deepseek-chat"), "read"
    ).request_hash(m)
    assert base.request_hash(convs("hello!")[0]) != h


@pytest.mark.parametrize("limit", [1, 5])
def test_concurrency_bound_is_respected(limit, fresh_cache):
    with FakeOpenAIServer(latency=(0.15, 0.15)) as srv:
        client = LLMClient(cfg(srv, concurrency=limit), "read", progress=False)
        res = client.complete_many(convs(*[f"c{i}" for i in range(15)]))
        assert all(r.ok for r in res)
        assert srv.max_in_flight == limit


def test_rpm_limit_spaces_request_starts(fresh_cache):
    with FakeOpenAIServer() as srv:
        client = LLMClient(cfg(srv, concurrency=8, rpm=300), "read", progress=False)  # 0.2 s apart
        t0 = time.perf_counter()
        client.complete_many(convs(*[f"r{i}" for i in range(6)]))
        assert time.perf_counter() - t0 >= 5 * 0.2 - 0.02


def test_retry_after_header_is_honoured(fresh_cache):
    with FakeOpenAIServer(retry_after=0.6) as srv:
        srv.plan("wait", ["429"])
        client = LLMClient(cfg(srv, backoff_s=0.01), "read", progress=False)
        t0 = time.perf_counter()
        assert client.complete(convs("wait")[0]).ok
        assert time.perf_counter() - t0 >= 0.6


def test_reasoning_tokens_and_inline_thinking(fresh_cache):
    answer = lambda msgs: "<think>the user said Paris twice</think>\nParis"  # noqa: E731
    with FakeOpenAIServer(answer=answer, reasoning_tokens=7) as srv:
        r = LLMClient(cfg(srv), "read", progress=False).complete(convs("where?")[0])
    assert r.text == "Paris" and r.reasoning_tokens == 7
    assert r.output_tokens == len(answer([]).split()) + 7  # as the server reported it


def test_unknown_price_costs_zero_unless_configured(server, fresh_cache, caplog):
    r = LLMClient(cfg(server, model="openai/no-such-model"), "read", progress=False).complete(
        convs("x")[0]
    )
    assert r.ok and r.cost_usd == 0.0
    assert "no price known for openai/no-such-model" in caplog.text
    priced = LLMClient(
        cfg(
            server,
            model="openai/no-such-model-2",
            input_cost_per_mtok=1.0,
            output_cost_per_mtok=4.0,
        ),
        "read",
        progress=False,
    )
    r2 = priced.complete(convs("x")[0])
    assert r2.cost_usd == pytest.approx((r2.input_tokens * 1.0 + r2.output_tokens * 4.0) / 1e6)


def test_missing_key_fails_only_when_a_call_must_be_paid(server, fresh_cache, monkeypatch):
    LLMClient(cfg(server), "read", progress=False).complete_many(convs("a"))
    monkeypatch.delenv(KEY_ENV)
    # Fully cached: no key needed.
    assert LLMClient(cfg(server), "read", progress=False).complete_many(convs("a"))[0].cached
    with pytest.raises(MemrecallError, match=KEY_ENV):
        LLMClient(cfg(server), "read", progress=False).complete_many(convs("a", "b"))


@pytest.mark.parametrize(
    "over,key",
    [
        ({"concurrency": 0}, "reader.runtime.concurrency"),
        ({"timeout_s": -1}, "reader.runtime.timeout_s"),
        ({"num_retries": 1.5}, "reader.runtime.num_retries"),
        ({"max_tokens": 0}, "reader.max_tokens"),
        ({"provider": "acme"}, "reader.provider"),
        ({"model": ""}, "reader.model"),
    ],
)
def test_config_errors_name_the_key(server, over, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        LLMClient(cfg(server, **over), "read")


def test_bad_messages_are_rejected(server):
    client = LLMClient(cfg(server), "read", progress=False)
    with pytest.raises(ValueError, match=r"messages_list\[1\]\[0\]"):
        client.complete_many([convs("a")[0], [{"role": "user", "content": None}]])


_CHILD = """
import sys
from memrecall.llm import LLMClient
cfg = {cfg!r}
LLMClient(cfg, "read", progress=False).complete_many(
    [[{{"role": "user", "content": f"item {{i}}"}}] for i in range({n})])
"""


def test_kill_9_then_rerun_pays_only_unfinished_calls(fresh_cache):
    n = 16
    with FakeOpenAIServer(latency=(0.4, 0.4)) as srv:
        c = cfg(srv, concurrency=2, timeout_s=10)
        env = {
            **os.environ,
            "MEMRECALL_CACHE_DIR": str(fresh_cache),
            "PYTHONPATH": str(REPO / "src"),
        }
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD.format(cfg=c, n=n)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        journal = fresh_cache / "llm" / "calls.jsonl"
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and child.poll() is None:
            if journal.exists() and len(journal.read_text().splitlines()) >= 5:
                break
            time.sleep(0.05)
        assert child.poll() is None, "the child finished before it could be killed"
        os.kill(child.pid, signal.SIGKILL)
        child.wait()

        with sqlite3.connect(fresh_cache / "llm" / "calls.sqlite") as db:
            finished = {row[0] for row in db.execute("SELECT text FROM calls")}
        assert 5 <= len(finished) < n
        answered_before = sum(srv.answered.values())

        rerun = LLMClient(c, "read", progress=False)
        res = rerun.complete_many(convs(*[f"item {i}" for i in range(n)]))
        assert all(r.ok for r in res)
        # Finished calls came from the cache; only the rest were sent again.
        assert sum(r.cached for r in res) == len(finished)
        assert rerun.stats["calls"] == n - len(finished)
        for text in finished:  # each finished request was answered exactly once, ever
            assert srv.requests[body_key(convs(text.removeprefix("echo: "))[0])] == 1
        # At most the requests in flight at the kill (concurrency 2) were answered twice.
        assert sum(srv.answered.values()) - n <= 2
        assert answered_before >= len(finished)


def test_sync_api_works_inside_a_running_event_loop(server, fresh_cache):
    import asyncio

    async def main():
        return LLMClient(cfg(server), "read", progress=False).complete(convs("in loop")[0])

    assert asyncio.run(main()).text == "echo: in loop"


def test_progress_summary_reports_cached_calls(server, fresh_cache, capsys):
    LLMClient(cfg(server), "read", progress=True).complete_many(convs("p1", "p2"), desc="read")
    LLMClient(cfg(server), "read", progress=True).complete_many(
        convs("p1", "p2", "p3"), desc="read"
    )
    err = capsys.readouterr().err
    assert "read: 2 requests to openai/gpt-4o-2024-08-06: 2 sent, 0 cached" in err
    assert "read: 3 requests to openai/gpt-4o-2024-08-06: 1 sent, 2 cached, 0 failed" in err


def test_journal_lines_are_whole_json(server, fresh_cache):
    LLMClient(cfg(server, concurrency=8), "rewrite", progress=False).complete_many(
        convs(*[f"j{i}" for i in range(20)])
    )
    lines = (fresh_cache / "llm" / "calls.jsonl").read_text().splitlines()
    assert len(lines) == 20
    for line in lines:
        rec = json.loads(line)
        assert {"request_hash", "model", "stage", "ok"} <= set(rec)
        assert rec["stage"] == "rewrite" and rec["model"] == "openai/gpt-4o-2024-08-06"


def test_usage_sums_every_usage_column_of_a_rows_calls_with_its_schema_type():
    from memrecall.llm import usage
    from memrecall.schema import USAGE, polars_schema

    notes = CallResult("n", "m", "h1", input_tokens=10, output_tokens=2, cost_usd=0.25)
    answer = CallResult(
        "a", "m", "h2", input_tokens=None, output_tokens=7, reasoning_tokens=3, latency_s=1.5
    )
    assert usage(notes, answer) == {
        "input_tokens": 10,
        "output_tokens": 9,
        "reasoning_tokens": 3,
        "cost_usd": 0.25,
        "latency_s": 1.5,
    }
    nothing = usage()
    assert list(nothing) == list(USAGE) and not any(nothing.values())
    # what the answers table declares for the same columns
    schema = polars_schema("answers")
    for name, value in nothing.items():
        assert isinstance(value, float) == schema[name].is_float(), name
