"""DryRunClient: LLMClient.complete_many's interface without sending anything, for `memrecall
plan`. A stage's own request-building code runs against it unchanged: cached requests come back
as their cached results, the others as failed results whose error is NOT_SENT (which the stage
code records like any failed call). Every request asked for is kept in `requests`."""

from __future__ import annotations

from .client import CallResult, LLMClient

NOT_SENT = "not in the LLM cache (plan: not sent)"


class DryRunClient:
    def __init__(self, llm_cfg: dict, stage: str, *, where: str | None = None, cache=None):
        self.client = LLMClient(llm_cfg, stage, where=where, cache=cache, progress=False)
        self.stage = stage
        self.model = self.client.model
        self.requests: list[tuple[str, list[dict], bool]] = []  # (hash, messages, cached)
        self.stats = {"calls": 0, "cached": 0, "failed": 0}

    def complete_many(self, messages_list, desc=None) -> list[CallResult]:
        out = []
        for m, (h, hit) in zip(messages_list, self.client.lookup(messages_list)):
            if hit is not None:
                self.stats["cached"] += 1
            out.append(
                hit or CallResult(text=None, model=self.model, request_hash=h, error=NOT_SENT)
            )
            self.requests.append((h, m, hit is not None))
        return out

    def complete(self, messages: list[dict]) -> CallResult:
        return self.complete_many([messages])[0]
