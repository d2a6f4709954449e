"""Spend limits: a budget stops new calls before the spend would pass it (worst case reserved
before sending), the stage fails without writing its artifact, and a rerun pays only for what is
missing. A budget is no part of request hashes or artifact bytes."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from memrecall.artifacts import read_table
from memrecall.benchmarks.longmemeval import BENCHMARK as LME
from memrecall.errors import ConfigError
from memrecall.hashing import sha256_file
from memrecall.llm import LLMClient
from memrecall.llm.budget import SWEEP_ID_ENV, SWEEP_LIMIT_ENV, Budget, BudgetExceeded, SharedLedger
from memrecall.llm.cache import CallCache, read_journal
from memrecall.read.reader import answer_messages, build_contexts, reader_settings
from test_read_stage import cfg, run, server  # noqa: F401 (server: a fixture)
from test_read_stage import env as read_env  # noqa: F401 (a fixture)


@pytest.fixture
def env(read_env, monkeypatch):
    monkeypatch.delenv(SWEEP_LIMIT_ENV, raising=False)
    return read_env


def priced(server, **over):
    return cfg(server, concurrency=1, input_cost_per_mtok=1.0, output_cost_per_mtok=4.0, **over)


def worst_case(c, env) -> list[float]:
    settings = reader_settings(c, LME)
    ctxs = build_contexts(
        settings, *(read_table(env[k]) for k in ("questions", "sessions", "turns", "candidates"))
    )
    client = LLMClient(c, stage="read", progress=False)
    client._budgets = [Budget(1.0, "x")]
    client._check_budget_prices()
    return [client.worst_case_cost(answer_messages(settings, x)) for x in ctxs]


def paid_cost() -> float:
    cache = CallCache()
    return sum(
        r["cost_usd"]
        for r in cache.get_many([j["request_hash"] for j in read_journal() if j["ok"]]).values()
    )


def test_budget_stops_before_the_limit_and_a_rerun_completes(server, env):
    limit = 1.5 * max(worst_case(priced(server), env))
    with pytest.raises(
        BudgetExceeded, match=r"reader.runtime.max_cost_usd=.* reached: this run paid"
    ):
        run(env, priced(server, max_cost_usd=limit))
    first = read_journal()
    assert 1 <= len(first) < 3, "the budget let some calls through and stopped the rest"
    assert paid_cost() <= limit
    assert not Path(env["out"]).exists()

    df = run(env, priced(server))  # no budget: the rest, nothing twice
    journal = read_journal()
    assert len(journal) == 3
    assert max(collections.Counter(j["request_hash"] for j in journal).values()) == 1
    assert df.get_column("error").null_count() == 3
    # A budget is operational: with one that is not reached, the artifact is byte-identical.
    before = sha256_file(env["out"])
    run(env, priced(server, max_cost_usd=100.0))
    assert sha256_file(env["out"]) == before
    assert len(read_journal()) == 3


def test_zero_budget_sends_nothing(server, env):
    with pytest.raises(BudgetExceeded, match="3 call.s. not sent"):
        run(env, priced(server, max_cost_usd=0))
    assert server.total_requests == 0


def test_budget_needs_a_price(server, env):
    with pytest.raises(ConfigError, match="no price known"):
        run(env, cfg(server, max_cost_usd=1.0))


def test_sweep_budget_is_shared_between_processes(server, env, monkeypatch, fresh_cache):
    # Two ledgers on one file stand for two queued experiments: together they stay under it.
    fresh_cache.mkdir(parents=True, exist_ok=True)
    db = fresh_cache / "ledger.sqlite"
    a, b = SharedLedger(db, "s1"), SharedLedger(db, "s1")
    other = SharedLedger(db, "s2")
    ta = a.try_reserve(0.6, 1.0)
    assert ta is not None and b.try_reserve(0.6, 1.0) is None
    assert other.try_reserve(0.6, 1.0) is not None  # another sweep: its own budget
    a.settle(ta, 0.25)
    assert b.try_reserve(0.6, 1.0) is not None and b.spent() == pytest.approx(0.25)

    limit = 1.5 * max(worst_case(priced(server), env))
    monkeypatch.setenv(SWEEP_LIMIT_ENV, str(limit))
    monkeypatch.setenv(SWEEP_ID_ENV, "sweep-test")
    with pytest.raises(BudgetExceeded, match=r"sweep.max_cost_usd=.* reached: this sweep paid"):
        run(env, priced(server))
    assert 1 <= len(read_journal()) < 3 and paid_cost() <= limit
