"""The refusal-cascade guard of the read stage: `reader.runtime.max_refusal_rate`.

A thinking model on a tight budget can fall into a cascade: answer after answer comes back empty
or declining (the Compass paper's MiniMax run at a 1,024-token budget: 44% refusals before it was
stopped by hand). The guard watches the answers as they finish (cached ones first, in question
order; failed calls are faults, not refusals, and are not counted) and keeps the last
`refusal_window` of them. Once the window holds at least `refusal_min_count` answers and the share
of refusals in it (llm/refusal.py, on the answer the prompt extracts) exceeds
`max_refusal_rate`, no further call is sent: the calls in flight finish and are cached, and the
stage stops with a message naming the rate and the window (no artifact written).

A rerun answers every finished call from the cache, pays only for the rest, and meets the same
cached answers first: with the same limit it stops at the same place without paying anything, so
to go on raise the limit (or set it to null) or change what caused the cascade. The knobs live
under `runtime`: they decide whether calls are sent, never what an answer is, so they are no part
of a result's identity.
"""

from __future__ import annotations

from collections import deque
from typing import Callable

from ..config import check_int, runtime
from ..errors import ConfigError
from ..llm.refusal import is_refusal


class RefusalGuard:
    """stop_check for LLMClient: call it with each finished CallResult; returns the stop message
    once the rolling refusal rate passes the limit, else None."""

    def __init__(
        self,
        max_rate: float,
        window: int,
        min_count: int,
        extract: Callable[[str], str | None] = lambda text: text,
        label: str = "read",
    ):
        self.max_rate, self.window, self.min_count = max_rate, window, min_count
        self.extract, self.label = extract, label
        self.recent: deque[bool] = deque(maxlen=window)
        self.seen = 0

    def rate(self) -> float:
        return sum(self.recent) / len(self.recent) if self.recent else 0.0

    def __call__(self, result) -> str | None:
        self.seen += 1
        self.recent.append(bool(is_refusal(self.extract(result.text or ""))))
        if len(self.recent) >= self.min_count and self.rate() > self.max_rate:
            refused = sum(self.recent)
            return (
                f"{self.label}: refusal cascade: {refused} of the last {len(self.recent)} "
                f"answers refused ({self.rate():.0%} > reader.runtime.max_refusal_rate "
                f"{self.max_rate:g}; window {self.window}, at least {self.min_count}) after "
                f"{self.seen} answers"
            )
        return None


def refusal_guard(
    reader_cfg: dict, extract: Callable[[str], str | None], label: str = "read"
) -> RefusalGuard | None:
    """The guard reader.runtime asks for, or None when max_refusal_rate is null."""
    rt = runtime(reader_cfg, "reader")
    limit = rt["max_refusal_rate"]
    window = check_int(rt["refusal_window"], "reader.runtime.refusal_window", minimum=1)
    min_count = check_int(rt["refusal_min_count"], "reader.runtime.refusal_min_count", minimum=1)
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not 0 <= limit < 1:
        raise ConfigError(
            "reader.runtime.max_refusal_rate", limit, hint="a share in [0, 1), or null for no guard"
        )
    if min_count > window:
        raise ConfigError(
            "reader.runtime.refusal_min_count",
            min_count,
            hint=f"at most reader.runtime.refusal_window ({window})",
        )
    return RefusalGuard(float(limit), window, min_count, extract, label)
