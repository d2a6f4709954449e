"""Spend limits for new LLM calls: `reader.runtime.max_cost_usd`, `judge.runtime.max_cost_usd`,
`rewrite.llm.runtime.max_cost_usd` (one run of that stage) and `sweep.max_cost_usd` (every
experiment of a sweep together, across processes).

Before a call is sent, its worst-case cost is reserved: its input tokens as litellm counts them,
plus 10% for a provider tokenizer that counts differently, plus max_tokens of output, at the
prices the client records costs with (pricing.prices_for). If the reservation would take the
spend past the limit, no further call of this run is sent: the calls in flight finish and are
cached, and the stage stops with BudgetExceeded (exit 1, no artifact written). The next run pays
only for what is not cached, so raising the limit (or removing it) continues where the run
stopped. When a call returns, its reservation becomes its real cost.

Budgets are operational knobs: they change whether a call is sent, never what it answers, so
they live under the stage's `runtime` node, so they are left out of request hashes
(providers.GEN_KEYS) and of artifact identity (config.identity).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from pathlib import Path

from ..config import runtime
from ..errors import ConfigError, MemrecallError

INPUT_MARGIN = 1.10  # tokenizers differ by provider: reserve 10% more input than litellm counts
SWEEP_LIMIT_ENV = "MEMRECALL_SWEEP_MAX_COST_USD"
SWEEP_ID_ENV = "MEMRECALL_SWEEP_ID"


class BudgetExceeded(MemrecallError):
    """A spend limit stopped new calls; what finished is cached."""


def stage_limit(cfg: dict, where: str) -> float | None:
    """The stage's runtime.max_cost_usd (conf/llm/base.yaml), checked."""
    v = runtime(cfg, where)["max_cost_usd"]
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
        raise ConfigError(f"{where}.runtime.max_cost_usd", v, hint="a number of USD >= 0, or null")
    return float(v)


class Budget:
    """One limit on new spend. In-process by default; `ledger` (a SharedLedger) makes the limit
    hold across processes (sweeps)."""

    def __init__(self, limit: float, what: str, ledger: "SharedLedger | None" = None):
        self.limit, self.what, self.ledger = float(limit), what, ledger
        self.spent = 0.0  # settled: real costs of finished calls
        self.reserved = 0.0  # worst cases of calls in flight
        self.lock = threading.Lock()

    def try_reserve(self, amount: float):
        """A token for settle(), or None when `amount` more would pass the limit."""
        with self.lock:
            if self.ledger is not None:
                return self.ledger.try_reserve(amount, self.limit)
            if self.spent + self.reserved + amount > self.limit + 1e-12:
                return None
            self.reserved += amount
            return amount

    def settle(self, token, actual: float) -> None:
        with self.lock:
            if self.ledger is not None:
                self.ledger.settle(token, actual)
                return
            self.reserved -= token
            self.spent += actual

    def total_spent(self) -> float:
        return self.ledger.spent() if self.ledger is not None else self.spent


class SharedLedger:
    """A sweep's spend, shared by every process of the sweep: rows in a table of the LLM cache's
    sqlite file, one per call (a reservation until the call returns, then its real cost).
    BEGIN IMMEDIATE makes check-and-reserve atomic across processes. Reservations of processes
    that died are ignored."""

    def __init__(self, db_path: str | Path, scope: str):
        self.scope = scope
        self.conn = sqlite3.connect(
            str(db_path), timeout=60, isolation_level=None, check_same_thread=False
        )
        self.conn.execute("PRAGMA busy_timeout=60000")
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS budget_spend (scope TEXT NOT NULL, "
            "pid INTEGER NOT NULL, amount REAL NOT NULL, settled INTEGER NOT NULL, "
            "created_unix REAL)"
        )

    def _total(self) -> float:
        total = 0.0
        for pid, amount, settled in self.conn.execute(
            "SELECT pid, amount, settled FROM budget_spend WHERE scope = ?", (self.scope,)
        ):
            if settled or _alive(pid):
                total += amount
        return total

    def try_reserve(self, amount: float, limit: float):
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            if self._total() + amount > limit + 1e-12:
                self.conn.execute("ROLLBACK")
                return None
            cur = self.conn.execute(
                "INSERT INTO budget_spend VALUES (?, ?, ?, 0, ?)",
                (self.scope, os.getpid(), amount, time.time()),
            )
            self.conn.execute("COMMIT")
            return cur.lastrowid
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def settle(self, token, actual: float) -> None:
        self.conn.execute(
            "UPDATE budget_spend SET amount = ?, settled = 1 WHERE rowid = ?", (actual, token)
        )

    def spent(self) -> float:
        return sum(
            a
            for (a,) in self.conn.execute(
                "SELECT amount FROM budget_spend WHERE scope = ? AND settled = 1", (self.scope,)
            )
        )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def budgets_for(cfg: dict, where: str, db_path: Path) -> list[Budget]:
    """The budgets a client of this config obeys: its stage's, and the sweep's (from the
    environment the sweep driver gives its DVC workers)."""
    out = []
    limit = stage_limit(cfg, where)
    if limit is not None:
        out.append(Budget(limit, f"{where}.runtime.max_cost_usd"))
    sweep = os.environ.get(SWEEP_LIMIT_ENV)
    if sweep:
        try:
            sweep_limit = float(sweep)
        except ValueError:
            raise ConfigError(
                "sweep.max_cost_usd", sweep, hint=f"from ${SWEEP_LIMIT_ENV}"
            ) from None
        scope = os.environ.get(SWEEP_ID_ENV) or "sweep"
        out.append(Budget(sweep_limit, "sweep.max_cost_usd", SharedLedger(db_path, scope)))
    return out
