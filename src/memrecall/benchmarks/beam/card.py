"""BEAM's data card (reports/data_card.md) and the download stage's summary."""

from __future__ import annotations

import polars as pl

from .formats import ABILITIES, SHORT_NAMES
from .normalise import Tables


def summarise(tables: Tables) -> dict:
    q, s = tables.questions, tables.sessions
    hay = q["haystack_session_ids"].list.len().sum() if q.height else 0
    msgs_per_chat = tables.stats["messages"]
    return {
        "n_questions": q.height,
        "n_abstention": int(q["is_abstention"].sum()),
        "sessions_total": int(hay),
        "sessions_unique": s.height,
        # every question of a chat sees all of its messages
        "turns_total": int(sum(n * k for n, k in _messages_times_questions(tables)))
        if q.height
        else 0,
        "turns_unique": int(msgs_per_chat),
        "chats": tables.stats["chats"],
        "by_ability": {a: int((q["question_type"] == a).sum()) for a in ABILITIES},
    }


def _messages_times_questions(tables: Tables):
    per_chat_q = dict(tables.questions.group_by("conversation_id").len().iter_rows())
    per_chat_m = tables.stats.get("messages_by_chat", {})
    return [(per_chat_m.get(c, 0), n) for c, n in per_chat_q.items()]


def render_card(
    cfg: dict, source: dict, tables: Tables, summary: dict, steps: list[str], n_in_files: int
) -> str:
    q, st = tables.questions, tables.stats
    tiers = sorted(set(q["tier"].drop_nulls().to_list())) if q.height else []
    ev = q.filter(~pl.col("is_abstention"))
    lines = [
        "# Data card: BEAM",
        "",
        f"Source: {source.get('shown') or source.get('file')} "
        f"(verified by: {source.get('verified_by')}).",
    ]
    if source.get("commit"):
        lines.append(f"Repository commit: {source['commit']}.")
    if source.get("files"):
        lines += ["", "| file | sha256 |", "|---|---|"]
        lines += [f"| {f} | {sha[:16]}… |" for f, sha in sorted(source["files"].items())]
    lines += [
        "",
        f"Tiers: {', '.join(tiers) or 'unknown (folder not named by tier)'}; chats: "
        f"{st['chats']}; questions: {summary['n_questions']} of {n_in_files} in the files "
        f"({'; '.join(steps) if steps else 'no subset'}).",
        f"Sessions (released exchanges): {summary['sessions_unique']:,}; messages: "
        f"{st['messages']:,}; sessions without a date: {st['sessions_undated']}.",
        "",
        "| ability | questions |",
        "|---|---:|",
        *[
            f"| {a} ({SHORT_NAMES[a]}) | {summary['by_ability'][a]} |"
            for a in ABILITIES
            if summary["by_ability"][a]
        ],
        "",
        f"Evidence (source_chat_ids): {st['evidence_ids']} ids over {ev.height} answerable "
        f"questions; {st['evidence_unresolved']} name no message of their chat and "
        f"{st['evidence_ambiguous']} name several (a chat whose plans number their messages "
        f"afresh), both dropped; "
        f"{st['no_evidence']} answerable questions are left without evidence. Abstention "
        f"questions have none (no retrieval gold).",
        "",
        "A session is one released exchange (a main question with its answer and follow-ups), "
        "dated by its batch's time anchor; a turn is one message. docs/benchmarks/beam.md "
        "says why.",
    ]
    return "\n".join(lines) + "\n"
