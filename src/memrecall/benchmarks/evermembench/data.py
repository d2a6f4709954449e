"""EverMemBench into the questions / sessions / turns tables; the data card.

Mapping (docs/benchmarks/evermembench.md):
- a session is one group's messages on one day of one topic: session_id
  `<topic>/<YYYY-MM-DD>/<group>` ("01/2025-03-03/Group 1"), dated by the day and the time of its
  first message (`2025/03/03 (Mon) 09:05`); empty groups (null) make no session.
- a turn is one message: role "user" (every speaker is a person: each message is indexed and can
  be gold), the speaker's name in `speaker`, its 1-based index in the day's group in
  `message_index`, turn_id `<session_id>#<index>`.
- a question's haystack is every session of its topic (the topic's whole history is the
  memory), its date the topic's last session date (questions come after the conversation).
- question_type is the sub-task read from the id prefix (F_SH .. P_Role; P_Title counts as
  P_Role); `form` is multiple_choice when the question has options (the released rule), else
  open; `answer` is the released `A` (a letter for multiple choice).
- gold: the sessions and turns `R` names (topic layout); a question without `R` (every question
  of the batch layout) has no gold and is left out of retrieval metrics.
"""

from __future__ import annotations

import hashlib
import statistics
from datetime import datetime

import orjson

from ...data.card import file_rows, num
from ...dates import DATE_FORMAT
from ..base import Normalised
from .layouts import Chat, Unit
from .schema import MULTIPLE_CHOICE, OPEN, table_schema
from .subtasks import CODES, RECALL, label

ROLE = "user"


def session_id(unit: str, date: str, group: str) -> str:
    return f"{unit}/{date}/{group}"


def turn_id(sid: str, index: int) -> str:
    return f"{sid}#{index}"


def session_date(chat: Chat) -> str:
    first = next((m.time for m in chat.messages if m.time is not None), None)
    day = datetime.strptime(chat.date, "%Y-%m-%d")
    if first is not None and first.date() == day.date():
        day = first
    return day.strftime(DATE_FORMAT)


def options_shown(options: dict[str, str] | None) -> list[str]:
    """The options as the released answerer shows them: "A. text", in letter order."""
    return [f"{k}. {v}" for k, v in sorted((options or {}).items())]


def flatten(units: list[Unit]) -> list[dict]:
    """One record per question for the subset step (question_id, question_type), file order."""
    return [
        {
            "question_id": q.question_id,
            "question_type": q.subtask,
            "is_abstention": False,
            "_unit": ui,
            "_q": qi,
        }
        for ui, u in enumerate(units)
        for qi, q in enumerate(u.questions)
    ]


def normalise(units: list[Unit], selected: list[dict]) -> Normalised:
    """Validated units + the selected flat records -> the three tables. Only the topics with a
    selected question are kept."""
    chosen = {(r["_unit"], r["_q"]) for r in selected}
    q_rows: dict[str, list] = {k: [] for k in table_schema("questions")}
    s_rows: dict[str, list] = {k: [] for k in table_schema("sessions")}
    t_rows: dict[str, list] = {k: [] for k in table_schema("turns")}
    stats = {
        "topics": [],
        "layout": units[0].layout if units else None,
        "no_evidence": 0,
        "evidence_turns": 0,
        "quirk": 0,
    }
    for ui, unit in enumerate(units):
        if not any((ui, qi) in chosen for qi in range(len(unit.questions))):
            continue
        stats["topics"].append(unit.name)
        sids = [session_id(unit.name, c.date, c.group) for c in unit.chats]
        dates = [session_date(c) for c in unit.chats]
        by_key = {(c.date, c.group): sid for c, sid in zip(unit.chats, sids)}
        marked: set[str] = set()
        for qi, q in enumerate(unit.questions):
            if (ui, qi) not in chosen:
                continue
            turns = [
                turn_id(by_key[(e.date, e.group)], i) for e in q.evidence or [] for i in e.indices
            ]
            turns = list(dict.fromkeys(turns))
            marked.update(turns)
            stats["no_evidence"] += not turns
            stats["evidence_turns"] += len(turns)
            ev_sessions = list(dict.fromkeys(t.rsplit("#", 1)[0] for t in turns))
            row = {
                "question_id": q.question_id,
                "question_type": q.subtask,
                "is_abstention": False,
                "question": q.question,
                "answer": q.answer,
                "question_date": max(dates),
                "haystack_session_ids": sids,
                "answer_session_ids": ev_sessions,
                "haystack_dates": dates,
                "topic": unit.name,
                "form": MULTIPLE_CHOICE if q.options else OPEN,
                "options": options_shown(q.options),
                "task_id": q.task_id,
                "has_evidence": bool(turns),
                "answer_turn_ids": turns,
            }
            for k in q_rows:
                q_rows[k].append(row[k])
        for chat, sid, date in zip(unit.chats, sids, dates):
            s_rows["session_id"].append(sid)
            s_rows["date"].append(date)
            s_rows["content_hash"].append(
                hashlib.sha256(
                    orjson.dumps([(m.speaker, m.text) for m in chat.messages])
                ).hexdigest()
            )
            s_rows["topic"].append(unit.name)
            s_rows["day"].append(chat.date)
            s_rows["group"].append(chat.group)
            for j, m in enumerate(chat.messages):
                tid = turn_id(sid, m.index)
                for k, v in (
                    ("session_id", sid),
                    ("turn_index", j),
                    ("role", ROLE),
                    ("content", m.text),
                    ("has_answer", tid in marked),
                    ("speaker", m.speaker),
                    ("message_index", m.index),
                    ("time", m.time.strftime("%Y-%m-%d %H:%M:%S") if m.time else None),
                    ("turn_id", tid),
                ):
                    t_rows[k].append(v)
    columns = {"questions": q_rows, "sessions": s_rows, "turns": t_rows}
    return Normalised.from_columns(columns, table_schema, stats)


def summary(ds: Normalised) -> dict:
    q = ds.questions
    types = q["question_type"].to_list()
    forms = q["form"].to_list()
    per_session = ds.turns.group_by("session_id").len()["len"].to_list()

    def mmm(xs):
        return {"min": min(xs), "median": statistics.median(xs), "max": max(xs)} if xs else {}

    return {
        "n_questions": q.height,
        "n_abstention": 0,
        "by_subtask": {c: types.count(c) for c in CODES},
        "by_form": {f: forms.count(f) for f in (MULTIPLE_CHOICE, OPEN)},
        "messages_per_session": mmm(per_session),
        "evidence_turns_per_question": mmm(q["answer_turn_ids"].list.len().to_list()),
        "speakers": ds.turns["speaker"].n_unique(),
        "sessions_unique": ds.sessions.height,
        "turns_unique": ds.turns.height,
        "sessions_total": int(q["haystack_session_ids"].list.len().sum()),
        "turns_total": ds.turns.height,
        **ds.stats,
    }


def render_card(cfg: dict, source: dict, s: dict, subset_steps: list[str], n_in_file: int) -> str:
    """reports/data_card.md for an EverMemBench run (deterministic text)."""
    layout = {
        "topic": "hub topic folders (0N/dialogue.json, qa_0N.json; evidence R)",
        "batch": "batch folders of the released evaluator (dialogue_en.json, "
        "qa_NNN.json; no evidence)",
    }.get(s["layout"], s["layout"])
    lines = [
        f"# Data card: {cfg['name']}",
        "",
        "Benchmark: **EverMemBench** (Hu et al., arXiv 2602.01313; hub "
        "EverMind-AI/EverMemBench-Dynamic, Apache-2.0 per its card).",
        "",
        "## Source",
        "",
        "| | |",
        "|---|---|",
        f"| dataset | `{cfg['name']}` (source: {source['kind']}, format: evermembench) |",
        f"| layout | {layout} |",
        f"| topics | {', '.join(s['topics'])} |",
        f"| path | `{source['shown']}` |",
    ]
    if source.get("commit"):
        lines.append(f"| revision | `{source.get('revision')}` (commit `{source['commit']}`) |")
    lines += [
        *file_rows(source, subset_steps, n_in_file),
        "",
        "## Questions",
        "",
        "| sub-task | questions |",
        "|---|---:|",
    ]
    for c in CODES:
        recall = " (recall)" if c in RECALL else ""
        lines.append(f"| {label(c)}{recall} | {s['by_subtask'][c]:,} |")
    lines += [
        f"| **total** | **{s['n_questions']:,}** |",
        "",
        f"- Multiple choice: {s['by_form'][MULTIPLE_CHOICE]:,}; open answers: "
        f"{s['by_form'][OPEN]:,} (the form follows each question's `options`, as released).",
        f"- Questions without evidence (left out of retrieval metrics): {s['no_evidence']:,}.",
        "",
        "## Conversations",
        "",
        "| | min | median | max |",
        "|---|---:|---:|---:|",
    ]
    for name, key in (
        ("messages per session (day x group)", "messages_per_session"),
        ("evidence messages per question", "evidence_turns_per_question"),
    ):
        m = s[key]
        if m:
            lines.append(f"| {name} | {num(m['min'])} | {num(m['median'])} | {num(m['max'])} |")
    lines += [
        "",
        f"- Sessions {s['sessions_unique']:,} (one per topic, day and group); messages "
        f"{s['turns_unique']:,}; speakers {s['speakers']:,}. A question's haystack is every "
        f"session of its topic; its date is the topic's last session date.",
    ]
    return "\n".join(lines) + "\n"
