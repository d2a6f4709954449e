"""Key texts: what gets embedded (and BM25-indexed) for each retrieval unit.

Granularity `session`: one unit per session, unit_id = session_id. Granularity `round`: one unit per
user turn together with the assistant reply that follows it, unit_id = `<session_id>_<i+1>` where
i is the user turn's index in the session (the official LongMemEval turn id), so turn-level
metrics can refer to the same ids. Granularity `passage`: the session key (not cut at `max_chars`:
reading the whole session is the point) and then the token windows after the first one
(passages.py), unit_id = `<session_id>_p<j>` (j = 1, 2, ...). Granularity `sentence`: the session
key (unit_id `<session_id>_s0`, the same text as at `session` granularity) and then each
first-person sentence of the user's turns (sentences.py), unit_id `<session_id>_s<j>`.

Key `user` keeps user turns only (the official LongMemEval session key: user turns joined);
`all` keeps both sides, each line prefixed by its role. `max_chars` truncates the key text
(Compass used 3500); the model's own max_length truncates again, in tokens.

Expansion (`V+fact`, see expansion.py) prepends a session's extracted user facts to its session
key; at round granularity the facts become one extra unit of the session (`<session_id>_facts`),
which the max-aggregation over a session's units then uses like any round.

Conversations between named people (a benchmark whose turns name their speaker: its
`speaker_column`) prefix each line with the speaker's name ("Caroline: ..."): every speaker's
turns are "user" turns, and questions name them.
"""

from __future__ import annotations

import polars as pl

from ..errors import InputError
from .embedders import GRANULARITIES, KEYS, EmbedderSettings, embedder_settings, resolve_model
from .passages import PassageSplitter, model_tokenizer
from .sentences import user_sentences

__all__ = ["GRANULARITIES", "KEYS", "JOINER", "session_keys", "session_text"]
JOINER = "\n"


def _truncate(text: str, max_chars) -> str:
    return text if not max_chars else text[: int(max_chars)]


def _line(role: str, content: str, key: str) -> str:
    return content if key == "user" else f"{role}: {content}"


def session_keys(
    sessions: pl.DataFrame | None,
    turns: pl.DataFrame,
    embedder: dict | EmbedderSettings,
    facts: dict[str, str] | None = None,
    *,
    speaker_column: str | None = None,
) -> pl.DataFrame:
    """Key texts for every session of `sessions` (or of `turns` when sessions is None); each
    line prefixed with its speaker's name when `speaker_column` names one.

    Returns pl.DataFrame[unit_id, session_id, text], sorted by (session_id, unit order).
    Every session gets at least one unit (an empty text when it has no turn of the key's roles),
    so no haystack session is silently unreachable.
    """
    settings = embedder_settings(embedder)
    granularity, key, max_chars = settings.granularity, settings.key, settings.max_chars
    splitter = None
    if granularity == "passage":
        splitter = PassageSplitter(
            settings.passage_tokens,
            settings.passage_overlap,
            model_tokenizer(resolve_model(settings.model)[0]),
        )
    facts = facts or {}
    facts_only = settings.expansion == "fact_only"

    missing = [c for c in ("session_id", "turn_index", "role", "content") if c not in turns.columns]
    if missing:
        raise InputError("turns table lacks columns", field=",".join(missing))
    ids = (
        turns.get_column("session_id").unique()
        if sessions is None
        else sessions.get_column("session_id").unique()
    )
    by_session: dict[str, list[tuple[int, str, str]]] = {sid: [] for sid in ids.to_list()}
    named = speaker_column is not None
    speaker_of: dict[tuple[str, int], str] = {}
    rows = (
        turns.select(
            "session_id", "turn_index", "role", "content", *([speaker_column] if named else [])
        )
        .sort("session_id", "turn_index")
        .iter_rows()
    )
    for sid, idx, role, content, *speaker in rows:
        if sid in by_session:
            text = content or ""
            if named:
                speaker_of[sid, int(idx)] = speaker[0]
            by_session[sid].append((int(idx), role, f"{speaker[0]}: {text}" if named else text))

    def sentences_of(sid: str, session) -> list[str]:
        """The user's first-person sentences, each once, each with its speaker's name when
        turns carry one (the turn's name prefix would otherwise reach its first only)."""
        said: dict[str, None] = {}
        for idx, role, text in session:
            if role != "user":
                continue
            name = speaker_of.get((sid, idx))
            raw = text[len(name) + 2 :] if name else text
            for sentence in user_sentences(raw):
                said.setdefault(f"{name}: {sentence}" if name else sentence)
        return list(said)

    unit_ids: list[str] = []
    session_ids: list[str] = []
    texts: list[str] = []

    def emit(uid: str, sid: str, text: str) -> None:
        unit_ids.append(uid)
        session_ids.append(sid)
        texts.append(_truncate(text, max_chars))

    for sid in sorted(by_session):
        session = by_session[sid]
        fact = facts.get(sid, "").strip()
        if fact and facts_only:
            emit(sid if granularity == "session" else f"{sid}_facts", sid, fact)
            continue
        if granularity in ("session", "passage", "sentence"):
            body = JOINER.join(
                _line(r, c, key) for _, r, c in session if key == "all" or r == "user"
            )
            text = f"{fact}{JOINER}{body}" if fact else body
            if granularity == "sentence":
                emit(f"{sid}_s0", sid, text)
                said = [x for x in sentences_of(sid, session) if x != text]  # not the key again
                for j, sentence in enumerate(said, start=1):
                    emit(f"{sid}_s{j}", sid, sentence)
            elif splitter is None:
                emit(sid, sid, text)
            else:
                for j, part in enumerate(splitter.split(text), start=1):
                    emit(f"{sid}_p{j}", sid, part)
            continue
        n_before = len(unit_ids)
        for pos, (idx, role, content) in enumerate(session):
            if role != "user":
                continue
            parts = [_line(role, content, key)]
            if key == "all":
                # The assistant reply(ies) up to the next user turn belong to this round.
                for _, r2, c2 in session[pos + 1 :]:
                    if r2 == "user":
                        break
                    parts.append(_line(r2, c2, key))
            emit(f"{sid}_{idx + 1}", sid, JOINER.join(parts))
        if fact:
            emit(f"{sid}_facts", sid, fact)
        if len(unit_ids) == n_before:
            emit(sid, sid, "")
    return pl.DataFrame(
        {"unit_id": unit_ids, "session_id": session_ids, "text": texts},
        schema={"unit_id": pl.String, "session_id": pl.String, "text": pl.String},
    )


def session_text(turns_of_session: list[tuple[str, str]], key: str, max_chars) -> str:
    """One session's passage (for the reranker): [(role, content)] → key text, truncated."""
    body = JOINER.join(_line(r, c, key) for r, c in turns_of_session if key == "all" or r == "user")
    return _truncate(body, max_chars)
