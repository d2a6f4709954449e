"""Key expansion `V+fact` (LongMemEval paper, §5): an LLM reads each session's user turns and lists
the facts the user reveals about themselves; the facts are prepended to the session's key
(keys.py). Off by default (`embedder.expansion: none`); `embedder.expansion: fact` turns it on,
and `fact_only` makes the facts the whole key (the paper's K = fact; a session whose extraction
gave no facts keeps its ordinary key, so no session becomes unreachable).

Every extraction goes through memrecall.llm.LLMClient, so it is cached by request hash and a
rerun pays nothing. A failed call (after the client's retries) leaves that session unexpanded,
is counted and logged, and is retried on the next run (failures are not cached).
"""

from __future__ import annotations

import logging
import sys

import polars as pl

from .embedders import EXPANSIONS, EmbedderSettings, embedder_settings

__all__ = ["EXPANSIONS", "fact_messages", "parse_facts", "session_facts"]
log = logging.getLogger(__name__)

PROMPT = (
    "Below are the user's messages from one conversation with an AI assistant.\n"
    "List every fact the user states or implies about themselves: events in their life (with "
    "dates or times if given), possessions, plans, preferences, people they know, numbers.\n"
    'Write one short fact per line, in the third person ("The user ..."). '
    "If the user reveals nothing personal, write NONE.\n\n"
    "User messages:\n{messages}\n\nFacts:"
)


def fact_messages(user_turns: list[str], max_chars: int) -> list[dict]:
    text = "\n".join(f"- {t}" for t in user_turns)[:max_chars]
    return [{"role": "user", "content": PROMPT.format(messages=text)}]


def parse_facts(text: str | None) -> str:
    """The model's answer → newline-joined facts ('' for NONE / empty)."""
    facts: dict[str, None] = {}  # ordered set: small models repeat themselves
    for line in (text or "").splitlines():
        line = line.strip().lstrip("-*•0123456789.) ").strip()
        if line and line.upper().rstrip(".") != "NONE":
            facts.setdefault(line)
    return "\n".join(facts)


def session_facts(
    sessions: pl.DataFrame | None,
    turns: pl.DataFrame,
    embedder: dict | EmbedderSettings,
    client=None,
) -> dict[str, str]:
    """{session_id: facts text} for every session with user turns; {} when expansion is none."""
    settings = embedder_settings(embedder)
    if settings.expansion == "none":
        return {}
    llm_cfg, max_chars = settings.expansion_llm, settings.expansion_max_chars
    user = turns.filter(pl.col("role") == "user").sort("session_id", "turn_index")
    if sessions is not None:
        user = user.filter(pl.col("session_id").is_in(sessions.get_column("session_id").implode()))
    grouped = user.group_by("session_id", maintain_order=True).agg(pl.col("content"))
    ids = grouped.get_column("session_id").to_list()
    messages = [fact_messages(c, max_chars) for c in grouped.get_column("content").to_list()]
    if client is None:
        from ..llm import LLMClient  # the LLM layer; imported only when expansion is on

        client = LLMClient(llm_cfg, stage="embed", where="embedder.expansion_llm")
    results = client.complete_many(messages, desc="facts")
    facts, failed = {}, 0
    for sid, res in zip(ids, results):
        if res.error is not None or res.text is None:
            failed += 1
            log.warning("fact extraction failed for session %s: %s", sid, res.error)
            continue
        facts[sid] = parse_facts(res.text)
    if failed:
        print(
            f"embed: fact extraction failed for {failed} of {len(ids)} sessions "
            f"(keys left unexpanded; retried next run)",
            file=sys.stderr,
        )
    return facts
