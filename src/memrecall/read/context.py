"""The reader's view of memory: the top `top_k_context` final candidates, sorted by date, each
shown with its date and cut to `max_chars_per_session` characters, as JSON or plain text."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence

from ..dates import date_key
from ..errors import ConfigError

HISTORY_FORMATS = ("json", "nl")
TRUNCATED = " [...]"  # marks a session cut to max_chars_per_session
NO_HISTORY = "(no past chat sessions were retrieved)"


@dataclass(frozen=True)
class ContextSession:
    session_id: str
    date: str
    content: str  # formatted and truncated session text (or reading notes)


def select_sessions(ranked_ids: Sequence[str], top_k: int, dates: dict[str, str]) -> list[str]:
    """The top_k best-ranked sessions, then in date order (ties keep rank order)."""
    top = list(dict.fromkeys(ranked_ids))[:top_k]
    order = {sid: i for i, sid in enumerate(top)}
    return sorted(top, key=lambda sid: (date_key(dates.get(sid)), order[sid]))


def format_session(turns: Sequence[tuple[str, str]], fmt: str, max_chars: int) -> str:
    """One session's turns as a JSON list of {role, content} (LongMemEval's `json` history
    format) or as 'role: content' paragraphs (`nl`), at most max_chars characters long."""
    if fmt == "json":
        return _json_within(turns, max_chars)
    if fmt == "nl":
        text = "\n\n".join(f"{role}: {content.strip()}" for role, content in turns)
        return _cut(text, max_chars)
    raise ConfigError("reader.history_format", fmt, HISTORY_FORMATS)


def _cut(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    return text[: max(0, max_chars - len(TRUNCATED))].rstrip() + TRUNCATED


def _dump(items) -> str:
    return json.dumps(items, ensure_ascii=False)


def _json_within(turns, max_chars: int) -> str:
    """Keep whole turns while they fit, then cut the next turn's content so the JSON stays
    valid and within max_chars (cutting the serialised text would break the JSON)."""
    items: list[dict] = []
    for role, content in turns:
        item = {"role": role, "content": content}
        if len(_dump(items + [item])) <= max_chars:
            items.append(item)
            continue
        cut = content
        while cut:
            over = len(_dump(items + [{"role": role, "content": cut + TRUNCATED}])) - max_chars
            if over <= 0:
                items.append({"role": role, "content": cut.rstrip() + TRUNCATED})
                break
            cut = cut[: len(cut) - over]
        break
    return _dump(items)


def render_history(sessions: Sequence[ContextSession]) -> str:
    if not sessions:
        return NO_HISTORY
    return "\n\n".join(
        f"### Session {i}:\nSession Date: {s.date}\nSession Content:\n{s.content}"
        for i, s in enumerate(sessions, 1)
    )
