"""LoCoMo files (Maharana et al., ACL 2024): validate and normalise into the same questions /
sessions / turns tables as LongMemEval.

A LoCoMo file is a JSON list of conversations, each {sample_id, conversation: {speaker_a,
speaker_b, session_N_date_time, session_N: [{speaker, dia_id, text, blip_caption?}]}, qa:
[{question, answer | adversarial_answer, evidence: [dia_id], category 1..5}]}. Every question
of a conversation shares its haystack (that conversation's sessions), so sessions and turns are
stored once per conversation and embedded once.

Mapping (docs/benchmarks/locomo.md):
- question_id `<sample_id>_q<index>` (index in the conversation's qa list, zero-padded);
  question_type = the category's name; `category` keeps its number; category 5 (adversarial)
  is the unanswerable kind: is_abstention, and `answer` is the reply the benchmark expects
  ("Not mentioned in the conversation"), the misleading answer kept in `adversarial_answer`.
- session_id `<sample_id>_D<n>`; dates "1:56 pm on 8 May, 2023" become LongMemEval's
  "2023/05/08 (Mon) 13:56", so date ordering and the reader's dates need no second parser;
  the question date is the last session's date (questions are asked after the conversation).
- turns keep `turn_id` = the dia_id ("D3:7") and `speaker` = the speaker's name. role is "user"
  for both speakers: both are people, nothing is an assistant turn, so every turn is indexed
  and can be gold (LongMemEval indexes and scores user turns). Image turns append their
  BLIP caption as the released code does: "text and shared a photo of ...".
- gold: answer_session_ids = the D<n> sessions of `evidence`; answer_turn_ids = the evidence
  dia_ids (turn-level gold per question); has_answer marks every evidence turn.
  Evidence strings are parsed leniently ("D8:6; D9:17" names two turns, as in the released
  file); a dia_id that names no turn of the conversation is dropped and counted in the card.
"""

from __future__ import annotations

import hashlib
import logging
import re
import statistics
from datetime import datetime

import orjson

from ...data.card import file_rows, num
from ...dates import DATE_FORMAT  # the date format every stage reads
from ...errors import InputError
from ..base import Normalised
from .schema import ADVERSARIAL, CATEGORIES, table_schema

log = logging.getLogger(__name__)
UNANSWERABLE_REPLY = "Not mentioned in the conversation"
ROLE = "user"

_DATE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+)\.?,?"
    r"\s+(\d{4})\s*$",
    re.IGNORECASE,
)
_MONTHS = {
    m: i
    for i, m in enumerate(
        (
            "january february march april may june july august september october november december"
        ).split(),
        start=1,
    )
}
_SESSION_KEY = re.compile(r"session_(\d+)")
_DIA_ID = re.compile(r"D(\d+):(\d+)")


def is_conversation(item) -> bool:
    """Shape detection: a LoCoMo file's items are conversations with `conversation` and `qa`."""
    return isinstance(item, dict) and "conversation" in item and "qa" in item


def parse_date(value: str) -> datetime | None:
    m = _DATE.match(value) if isinstance(value, str) else None
    if not m:
        return None
    hh, mm, ampm, day, month, year = m.groups()
    mon = _MONTHS.get(month.lower()) or next(
        (i for name, i in _MONTHS.items() if len(month) >= 3 and name.startswith(month.lower())),
        None,
    )
    if mon is None:
        return None
    hour = int(hh) % 12 + (12 if ampm.lower() == "p" else 0)
    try:
        return datetime(int(year), mon, int(day), hour, int(mm))
    except ValueError:
        return None


def session_numbers(conv: dict) -> list[int]:
    """The N of every `session_N` list, in order (date-only keys without turns are ignored:
    the released file has `session_N_date_time` for sessions it does not contain)."""
    return sorted(
        int(m.group(1))
        for k, v in conv.items()
        if (m := _SESSION_KEY.fullmatch(k)) and isinstance(v, list)
    )


def evidence_ids(evidence) -> list[str]:
    """dia_ids named by an evidence list, parsed leniently ("D8:6; D9:17" → two)."""
    out = []
    for item in evidence:
        out.extend(f"D{a}:{b}" for a, b in _DIA_ID.findall(str(item)))
    return list(dict.fromkeys(out))


# ---- validation -----------------------------------------------------------------------------


def _where(conv_id) -> str:
    return f"conversation {conv_id!r}"


def _err(msg: str, file: str, conv_id, field: str, q: int | None = None) -> InputError:
    where = _where(conv_id) + (f", question #{q}" if q is not None else "")
    return InputError(
        f"{msg} ({where})",
        file=file,
        field=field,
        question_id=question_id(conv_id, q) if q is not None else None,
    )


def validate(records: list, file: str) -> None:
    """Raise InputError naming the conversation, the question index and the field."""
    seen: set[str] = set()
    for ci, conv in enumerate(records):
        if not isinstance(conv, dict):
            raise _err(
                f"item is a JSON {type(conv).__name__}, not a conversation object",
                file,
                f"#{ci}",
                f"[{ci}]",
            )
        cid = conv.get("sample_id")
        if not isinstance(cid, str) or not cid:
            raise _err("missing or non-string sample_id", file, f"#{ci}", "sample_id")
        if cid in seen:
            raise _err("duplicate sample_id", file, cid, "sample_id")
        seen.add(cid)
        c = conv.get("conversation")
        if not isinstance(c, dict):
            raise _err("missing or non-object conversation", file, cid, "conversation")
        for key in ("speaker_a", "speaker_b"):
            if not isinstance(c.get(key), str) or not c[key]:
                raise _err("missing or non-string speaker name", file, cid, f"conversation.{key}")
        nums = session_numbers(c)
        if not nums:
            raise _err("no session_N list of turns", file, cid, "conversation.session_1")
        for n in nums:
            dkey = f"session_{n}_date_time"
            if parse_date(c.get(dkey)) is None:
                raise _err(
                    f"missing or unparseable date {c.get(dkey)!r} (expected like "
                    f"'1:56 pm on 8 May, 2023')",
                    file,
                    cid,
                    f"conversation.{dkey}",
                )
            for j, turn in enumerate(c[f"session_{n}"]):
                fld = f"conversation.session_{n}[{j}]"
                if not isinstance(turn, dict):
                    raise _err("a turn must be an object", file, cid, fld)
                for key in ("speaker", "dia_id", "text"):
                    if not isinstance(turn.get(key), str):
                        raise _err(f"turn lacks a string '{key}'", file, cid, f"{fld}.{key}")
                cap = turn.get("blip_caption")
                if cap is not None and not isinstance(cap, str):
                    raise _err("blip_caption must be a string", file, cid, f"{fld}.blip_caption")
        qa = conv.get("qa")
        if not isinstance(qa, list):
            raise _err("missing or non-list qa", file, cid, "qa")
        for qi, q in enumerate(qa):
            _validate_question(q, qi, file, cid)
    check_category_mapping(records, file)


# The official mapping of category ids (snap-research/locomo#29, from the released evaluation
# code): schema.LOCOMO_CATEGORIES. Copies of the file circulate with the ids renumbered after
# the paper's list order (mem0ai/mem0#2609); their per-category numbers would be mislabelled.
# Two facts of the released data identify the ids: the temporal category holds the "When
# did ...?" questions, and the adversarial one the questions without an `answer`.
CATEGORY_MAPPING_SOURCE = "https://github.com/snap-research/locomo/issues/29"
_WHEN = re.compile(r"^\W*(when|how long)\b", re.IGNORECASE)
_MIN_FOR_MAPPING_CHECK = 10  # questions of a category before its shape says anything
TEMPORAL = next(c for c, n in CATEGORIES.items() if n == "temporal")


def check_category_mapping(records: list, file: str) -> None:
    """Raise InputError when the category ids do not follow the official mapping (checked
    where each category has enough questions to tell)."""
    by_cat: dict[int, list[tuple[str, dict]]] = {}
    for conv in records:
        for qi, q in enumerate(conv["qa"]):
            by_cat.setdefault(q["category"], []).append(
                ((question_id(conv["sample_id"], qi), f"qa[{qi}].category"), q)
            )
    sized = {c: qs for c, qs in by_cat.items() if len(qs) >= _MIN_FOR_MAPPING_CHECK}
    if len(sized) < 2:
        return

    def share(qs, pred):
        return sum(1 for _, q in qs if pred(q)) / len(qs)

    checks = (
        (
            "temporal",
            TEMPORAL,
            lambda q: bool(_WHEN.search(q["question"])),
            "holds most 'When did ...?' questions",
        ),
        (
            "adversarial",
            ADVERSARIAL,
            lambda q: "answer" not in q,
            "holds most questions without an answer",
        ),
    )
    for name, want, pred, what in checks:
        shares = {c: share(qs, pred) for c, qs in sized.items()}
        top = max(shares, key=lambda c: (shares[c], -c))
        if shares[top] >= 0.5 and top != want:
            (qid, field), _ = sized[top][0]
            raise InputError(
                f"category ids do not follow LoCoMo's official mapping ({CATEGORY_MAPPING_SOURCE}"
                f": {', '.join(f'{k} {v}' for k, v in CATEGORIES.items())}): category {top} "
                f"{what} ({shares[top]:.0%}), which is {name} ({want}). The file looks "
                f"renumbered; use the released locomo10.json",
                file=file,
                question_id=qid,
                field=field,
            )


def _validate_question(q, qi: int, file: str, cid: str) -> None:
    if not isinstance(q, dict):
        raise _err("a question must be an object", file, cid, f"qa[{qi}]", qi)
    if not isinstance(q.get("question"), str) or not q["question"].strip():
        raise _err("missing or empty question text", file, cid, f"qa[{qi}].question", qi)
    cat = q.get("category")
    if isinstance(cat, bool) or cat not in CATEGORIES:
        raise _err(
            f"category must be one of {sorted(CATEGORIES)}, got {cat!r}",
            file,
            cid,
            f"qa[{qi}].category",
            qi,
        )
    key = "adversarial_answer" if cat == ADVERSARIAL else "answer"
    ans = q.get(key, q.get("answer") if cat == ADVERSARIAL else None)
    if isinstance(ans, bool) or not isinstance(ans, (str, int, float)):
        raise _err(
            f"expected a string or number, got {type(ans).__name__}",
            file,
            cid,
            f"qa[{qi}].{key}",
            qi,
        )
    ev = q.get("evidence")
    if not isinstance(ev, list) or not all(isinstance(e, str) for e in ev):
        raise _err("evidence must be a list of dia_id strings", file, cid, f"qa[{qi}].evidence", qi)


# ---- flattening (for the subset step) and normalising ---------------------------------------


def question_id(conv_id: str, index: int) -> str:
    return f"{conv_id}_q{index:03d}"


def flatten(records: list[dict]) -> list[dict]:
    """One record per question, with the fields the subset step reads (question_id,
    question_type) and where it came from; file order (conversation, then qa index)."""
    out = []
    for ci, conv in enumerate(records):
        for qi, q in enumerate(conv["qa"]):
            out.append(
                {
                    "question_id": question_id(conv["sample_id"], qi),
                    "question_type": CATEGORIES[q["category"]],
                    "is_abstention": q["category"] == ADVERSARIAL,
                    "_conv": ci,
                    "_q": qi,
                }
            )
    return out


def _answer_text(value) -> str:
    # Numbers are compared as strings by the released evaluation: 2022 -> "2022".
    return value if isinstance(value, str) else str(value)


def turn_content(turn: dict) -> str:
    """The turn's text; an image turn adds its BLIP caption the way the released code shows
    it to the reader ('... and shared a photo of ...')."""
    text = turn["text"]
    cap = (turn.get("blip_caption") or "").strip()
    return f"{text} and shared {cap}." if cap else text


def session_id(conv_id: str, n: int) -> str:
    return f"{conv_id}_D{n}"


def normalise(records: list[dict], selected: list[dict]) -> Normalised:
    """Validated conversations + the selected flat question records -> the three tables.
    Only the conversations with a selected question are kept."""
    keep_convs = sorted({r["_conv"] for r in selected})
    chosen = {(r["_conv"], r["_q"]) for r in selected}
    q_rows: dict[str, list] = {
        k: []
        for k in (
            "question_id",
            "question_type",
            "is_abstention",
            "question",
            "answer",
            "question_date",
            "haystack_session_ids",
            "answer_session_ids",
            "haystack_dates",
            "category",
            "conversation_id",
            "answer_turn_ids",
            "adversarial_answer",
        )
    }
    s_rows: dict[str, list] = {
        k: [] for k in ("session_id", "date", "content_hash", "conversation_id")
    }
    t_rows: dict[str, list] = {
        k: []
        for k in ("session_id", "turn_index", "role", "content", "has_answer", "speaker", "turn_id")
    }
    stats = {
        "conversations": len(keep_convs),
        "image_turns": 0,
        "evidence_unresolved": 0,
        "evidence_malformed": 0,
        "adversarial_with_answer": 0,
        "no_evidence": 0,
    }
    for ci in keep_convs:
        conv = records[ci]
        cid, c = conv["sample_id"], conv["conversation"]
        nums = session_numbers(c)
        dates = {n: parse_date(c[f"session_{n}_date_time"]).strftime(DATE_FORMAT) for n in nums}
        # dia_id -> (session_id, turn_index) for this conversation only (ids repeat across them)
        where: dict[str, tuple[str, int]] = {}
        for n in nums:
            for j, t in enumerate(c[f"session_{n}"]):
                where.setdefault(t["dia_id"], (session_id(cid, n), j))
        marked: set[tuple[str, int]] = set()
        hay = [session_id(cid, n) for n in nums]
        hay_dates = [dates[n] for n in nums]
        for qi, q in enumerate(conv["qa"]):
            if (ci, qi) not in chosen:
                continue
            cat = q["category"]
            ids = evidence_ids(q["evidence"])
            if len(ids) != len(q["evidence"]):
                stats["evidence_malformed"] += 1
            found = [d for d in ids if d in where]
            stats["evidence_unresolved"] += len(ids) - len(found)
            stats["no_evidence"] += not found
            marked.update(where[d] for d in found)
            adv = cat == ADVERSARIAL
            if adv and "answer" in q:
                stats["adversarial_with_answer"] += 1
            q_rows["question_id"].append(question_id(cid, qi))
            q_rows["question_type"].append(CATEGORIES[cat])
            q_rows["is_abstention"].append(adv)
            q_rows["question"].append(q["question"])
            q_rows["answer"].append(UNANSWERABLE_REPLY if adv else _answer_text(q["answer"]))
            q_rows["question_date"].append(hay_dates[-1])
            q_rows["haystack_session_ids"].append(hay)
            q_rows["answer_session_ids"].append(list(dict.fromkeys(where[d][0] for d in found)))
            q_rows["haystack_dates"].append(hay_dates)
            q_rows["category"].append(cat)
            q_rows["conversation_id"].append(cid)
            q_rows["answer_turn_ids"].append(found)
            q_rows["adversarial_answer"].append(
                _answer_text(q.get("adversarial_answer", q.get("answer"))) if adv else None
            )
        for n in nums:
            sid = session_id(cid, n)
            turns = c[f"session_{n}"]
            contents = [turn_content(t) for t in turns]
            s_rows["session_id"].append(sid)
            s_rows["date"].append(dates[n])
            s_rows["content_hash"].append(
                hashlib.sha256(
                    orjson.dumps([(t["speaker"], x) for t, x in zip(turns, contents)])
                ).hexdigest()
            )
            s_rows["conversation_id"].append(cid)
            for j, (t, x) in enumerate(zip(turns, contents)):
                t_rows["session_id"].append(sid)
                t_rows["turn_index"].append(j)
                t_rows["role"].append(ROLE)
                t_rows["content"].append(x)
                t_rows["has_answer"].append((sid, j) in marked)
                t_rows["speaker"].append(t["speaker"])
                t_rows["turn_id"].append(t["dia_id"])
                stats["image_turns"] += bool((t.get("blip_caption") or "").strip())
    if stats["evidence_unresolved"]:
        log.warning(
            "%d evidence dia_ids name no turn of their conversation (dropped)",
            stats["evidence_unresolved"],
        )
    columns = {"questions": q_rows, "sessions": s_rows, "turns": t_rows}
    return Normalised.from_columns(columns, table_schema, stats)


def summary(ds: Normalised) -> dict:
    q = ds.questions
    cats = q["category"].to_list()
    per_conv = q.group_by("conversation_id").len()["len"].to_list()
    sess_per_conv = ds.sessions.group_by("conversation_id").len()["len"].to_list()
    ev = q["answer_turn_ids"].list.len().to_list()

    def mmm(xs):
        return {"min": min(xs), "median": statistics.median(xs), "max": max(xs)} if xs else {}

    return {
        "n_questions": q.height,
        "n_abstention": int(q["is_abstention"].sum()),
        "by_category": {c: cats.count(c) for c in CATEGORIES},
        "questions_per_conversation": mmm(per_conv),
        "sessions_per_conversation": mmm(sess_per_conv),
        "evidence_turns_per_question": mmm(ev),
        "sessions_unique": ds.sessions.height,
        "turns_unique": ds.turns.height,
        # printed by the download stage like LongMemEval's (a haystack is its conversation)
        "sessions_total": int(q["haystack_session_ids"].list.len().sum()),
        "turns_total": ds.turns.height,
        **ds.stats,
    }


def render_card(cfg: dict, source: dict, s: dict, subset_steps: list[str], n_in_file: int) -> str:
    """reports/data_card.md for a LoCoMo run (deterministic text)."""
    lines = [
        f"# Data card: {cfg['name']}",
        "",
        "Benchmark: **LoCoMo** (Maharana et al., ACL 2024; snap-research/locomo, CC BY-NC 4.0).",
        "",
        "## Source",
        "",
        "| | |",
        "|---|---|",
        f"| dataset | `{cfg['name']}` (source: {source['kind']}, format: locomo) |",
    ]
    if source.get("url"):
        lines.append(f"| url | `{source['url']}` |")
    lines += [
        f"| file | `{source['shown']}` |",
        *file_rows(source, subset_steps, n_in_file),
        "",
        "## Questions",
        "",
        "| category | name | questions |",
        "|---:|---|---:|",
    ]
    for c, name in CATEGORIES.items():
        note = " (unanswerable; reported apart)" if c == ADVERSARIAL else ""
        lines.append(f"| {c} | {name}{note} | {s['by_category'][c]:,} |")
    lines += [
        f"| | **total** | **{s['n_questions']:,}** |",
        "",
        "## Conversations",
        "",
        "| | min | median | max |",
        "|---|---:|---:|---:|",
    ]
    for label, key in (
        ("questions per conversation", "questions_per_conversation"),
        ("sessions per conversation", "sessions_per_conversation"),
        ("evidence turns per question", "evidence_turns_per_question"),
    ):
        m = s[key]
        lines.append(f"| {label} | {num(m['min'])} | {num(m['median'])} | {num(m['max'])} |")
    lines += [
        "",
        f"- Conversations: {s['conversations']:,}; sessions {s['sessions_unique']:,}; turns "
        f"{s['turns_unique']:,} ({s['image_turns']:,} image turns, shown with their BLIP "
        f"caption). Each conversation's sessions are every one of its questions' haystack.",
        f"- Evidence dia_ids naming no turn of their conversation (dropped): "
        f"{s['evidence_unresolved']:,}; evidence entries parsed leniently (e.g. 'D8:6; D9:17'): "
        f"{s['evidence_malformed']:,}; questions left without any evidence turn: "
        f"{s['no_evidence']:,}.",
        f"- Category-5 questions that also carry an `answer` (scored as unanswerable, as the "
        f"released evaluation does): {s['adversarial_with_answer']:,}.",
        "- Session dates are shown as `YYYY/MM/DD (Day) HH:MM`; a question's date is its "
        "conversation's last session date.",
    ]
    return "\n".join(lines) + "\n"
