"""BEAM chat folders -> the questions / sessions / turns tables, one chat at a time.

Units: a session is one released exchange ("turn" in the files: a main question with the
assistant's answer and the follow-ups that belong to it), dated by its batch's time anchor; a
turn is one message. All questions of a chat share its sessions as their haystack (the
question is asked after the whole chat, so its date is the chat's last date).

Evidence: a question's source_chat_ids are message ids. The sessions holding them are its
answer sessions; its gold turns are the rounds holding them (a user message and the assistant's
reply, named by the user message as retrieval's round units are: an assistant message can hold
the answer); has_answer marks every message that is evidence of a selected question of its
chat. Abstention questions have no source ids: no gold, as in LongMemEval.

Memory: questions are read first (small) to choose the subset; then each chosen chat is
streamed batch by batch (formats.exchanges) and its turns go to disk as one table part, so a
10M-token chat (about 20,000 messages) never sits in memory twice.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import polars as pl
import pyarrow as pa

from .formats import ABILITIES, QUESTIONS, chat_file, exchanges, read_questions, tier_of

log = logging.getLogger(__name__)


def conversation_id(tier: str | None, folder: Path) -> str:
    return f"{tier or 'BEAM'}_{folder.name}"


def question_id(conv: str, ability: str, index: int) -> str:
    return f"{conv}_{ability}_{index}"


def session_id(conv: str, batch: int, number: int) -> str:
    return f"{conv}_b{batch:04d}_t{number:04d}"


def gold_turn_id(session: str, turn_index: int) -> str:
    return f"{session}_{turn_index + 1}"  # eval.gold.turn_id's form


@dataclass
class Chat:
    folder: Path
    tier: str | None
    conv: str
    questions: list[dict]  # formats.read_questions records, plus question_id


def read_chats(folders: list[Path], tier: str | None = None) -> list[Chat]:
    """Every chat's questions (validated), in conversation-id order."""
    out = []
    for folder in folders:
        t = tier or tier_of(folder)
        conv = conversation_id(t, folder)
        qs = read_questions(folder / QUESTIONS, lambda a, i, c=conv: question_id(c, a, i))
        for q in qs:
            q["question_id"] = question_id(conv, q["ability"], q["index"])
            q["question_type"] = q["ability"]
            q["is_abstention"] = q["ability"] == "abstention"
        out.append(Chat(folder, t, conv, qs))
    convs = [c.conv for c in out]
    dupes = sorted({c for c in convs if convs.count(c) > 1})
    if dupes:
        raise ValueError(f"two chat folders give the same conversation id {dupes[0]}")
    return sorted(out, key=lambda c: c.conv + "_")  # the order of their session ids


@dataclass
class Tables:
    questions: pl.DataFrame
    sessions: pl.DataFrame
    stats: dict = field(default_factory=dict)


TURN_SCHEMA = pa.schema(
    [
        ("session_id", pa.string()),
        ("turn_index", pa.int32()),
        ("role", pa.string()),
        ("content", pa.string()),
        ("has_answer", pa.bool_()),
        ("message_id", pa.int32()),
        ("message_kind", pa.string()),
    ]
)


def _session_hash(messages) -> str:
    return hashlib.sha256(orjson.dumps([(m.role, m.content) for m in messages])).hexdigest()


def normalise(
    chats: list[Chat], selected: set[str], questions_schema: dict, sessions_schema: dict
) -> tuple[Tables, Iterator[pa.Table]]:
    """The questions and sessions tables of the selected questions' chats, and their turns as
    an iterator of one table per chat (in session-id order), computed while it is consumed.
    The questions/sessions frames are complete only once the iterator is exhausted."""
    q_rows: dict[str, list] = {k: [] for k in questions_schema}
    s_rows: dict[str, list] = {k: [] for k in sessions_schema}
    stats = {
        "chats": 0,
        "messages": 0,
        "evidence_ids": 0,
        "evidence_unresolved": 0,
        "evidence_ambiguous": 0,
        "no_evidence": 0,
        "sessions_undated": 0,
        "files": [],
        "messages_by_chat": {},
    }
    tables = Tables(pl.DataFrame(), pl.DataFrame(), stats)

    def parts() -> Iterator[pa.Table]:
        for chat in chats:
            chosen = [q for q in chat.questions if q["question_id"] in selected]
            if not chosen:
                continue
            stats["chats"] += 1
            file = chat_file(chat.folder)
            stats["files"].append(str(file))
            evidence = {i for q in chosen for i in q["source_ids"]}
            where: dict[int, tuple[str, int]] = {}
            round_of: dict[int, int] = {}  # message id -> index of its round's user message
            repeated: set[int] = set()  # ids of several messages (plans numbered afresh)
            t_rows: dict[str, list] = {k: [] for k in TURN_SCHEMA.names}
            hay, hay_dates = [], []
            for ex in exchanges(file):
                sid = session_id(chat.conv, ex.batch, ex.number)
                hay.append(sid)
                hay_dates.append(ex.date)
                stats["sessions_undated"] += ex.date is None
                s_rows["session_id"].append(sid)
                s_rows["date"].append(ex.date)
                s_rows["content_hash"].append(_session_hash(ex.messages))
                s_rows["conversation_id"].append(chat.conv)
                user_at = 0
                for j, m in enumerate(ex.messages):
                    if m.id in where:
                        repeated.add(m.id)
                    where[m.id] = (sid, j)
                    user_at = j if m.role == "user" else user_at
                    round_of[m.id] = user_at
                    t_rows["session_id"].append(sid)
                    t_rows["turn_index"].append(j)
                    t_rows["role"].append(m.role)
                    t_rows["content"].append(m.content)
                    t_rows["has_answer"].append(None)  # once the chat's ids are all known
                    t_rows["message_id"].append(m.id)
                    t_rows["message_kind"].append(m.kind)
                stats["messages"] += len(ex.messages)
            t_rows["has_answer"] = [
                i in evidence and i not in repeated for i in t_rows["message_id"]
            ]
            stats["messages_by_chat"][chat.conv] = len(t_rows["session_id"])
            last_date = next((d for d in reversed(hay_dates) if d), None)
            for q in chosen:
                ids = list(dict.fromkeys(q["source_ids"]))
                found = [i for i in ids if i in where and i not in repeated]
                ambiguous = sum(i in repeated for i in ids)
                stats["evidence_ids"] += len(ids)
                stats["evidence_ambiguous"] += ambiguous
                stats["evidence_unresolved"] += len(ids) - len(found) - ambiguous
                stats["no_evidence"] += bool(not found and not q["is_abstention"])
                row = {
                    "question_id": q["question_id"],
                    "question_type": q["ability"],
                    "is_abstention": q["is_abstention"],
                    "question": q["question"],
                    "answer": q["answer"],
                    "question_date": last_date,
                    "haystack_session_ids": hay,
                    "answer_session_ids": list(dict.fromkeys(where[i][0] for i in found)),
                    "haystack_dates": hay_dates,
                    "conversation_id": chat.conv,
                    "tier": chat.tier,
                    "rubric": q["rubric"],
                    "source_message_ids": ids,
                    "answer_turn_ids": list(
                        dict.fromkeys(gold_turn_id(where[i][0], round_of[i]) for i in found)
                    ),
                    "details": json.dumps(q["details"], ensure_ascii=False, sort_keys=True),
                }
                for k in q_rows:
                    q_rows[k].append(row[k])
            order = sorted(
                range(len(t_rows["session_id"])),
                key=lambda r: (t_rows["session_id"][r], t_rows["turn_index"][r]),
            )
            yield pa.table(
                {k: [t_rows[k][r] for r in order] for k in TURN_SCHEMA.names}, schema=TURN_SCHEMA
            )
        if stats["evidence_unresolved"]:
            log.warning(
                "%d source_chat_ids name no message of their chat (dropped)",
                stats["evidence_unresolved"],
            )
        tables.questions = pl.DataFrame(q_rows, schema=questions_schema).sort("question_id")
        tables.sessions = pl.DataFrame(s_rows, schema=sessions_schema).sort("session_id")

    return tables, parts()


def flat_records(chats: list[Chat]) -> list[dict]:
    """One record per question (for data.subset.select), in conversation then ability order."""
    rank = {a: i for i, a in enumerate(ABILITIES)}
    return [
        {
            "question_id": q["question_id"],
            "question_type": q["ability"],
            "is_abstention": q["is_abstention"],
            "conversation_id": c.conv,
        }
        for c in chats
        for q in sorted(c.questions, key=lambda q: (rank[q["ability"]], q["index"]))
    ]
