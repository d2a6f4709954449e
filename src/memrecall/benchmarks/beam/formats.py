"""BEAM's released files: what a chat folder holds, reading it (chat.json streamed batch by
batch, so a 10M-token chat is never held whole) and validating it with errors that name the
file, the question and the field.

A chat folder (the repository's chats/<tier>/<n>/, or test_chats/<tier>/<id>/ as the released
download_dataset.py writes it from the hub):
    chat.json                                   the conversation
    chat_trunecated.json                        some chats only (sic); the released answerer
                                                uses it instead of chat.json when present
    probing_questions/probing_questions.json    {ability: [question, ...]}
chat.json is a list of batches {batch_number, turns: [[message, ...], ...], time_anchor}; a
10M chat is a list of plans {"<plan name>": [batch, ...]}. A message: {role, id, content} and,
on user messages, question_type, index "b,t" (the first of each exchange) and time_anchor
(the first of each batch, "March-15-2024").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ...errors import InputError

# The ten abilities, in the column order of the released report_results.py.
ABILITIES = (
    "abstention",
    "contradiction_resolution",
    "event_ordering",
    "information_extraction",
    "instruction_following",
    "knowledge_update",
    "multi_session_reasoning",
    "preference_following",
    "summarization",
    "temporal_reasoning",
)
SHORT_NAMES = {
    "abstention": "ABS",
    "contradiction_resolution": "CR",
    "event_ordering": "EO",
    "information_extraction": "IE",
    "instruction_following": "IF",
    "knowledge_update": "KU",
    "multi_session_reasoning": "MR",
    "preference_following": "PF",
    "summarization": "SUM",
    "temporal_reasoning": "TR",
}
# Each ability's reference-answer field (the released files name it differently per ability).
GOLD_FIELD = {
    "abstention": "ideal_response",
    "contradiction_resolution": "ideal_answer",
    "event_ordering": "answer",
    "information_extraction": "answer",
    "instruction_following": "expected_compliance",
    "knowledge_update": "answer",
    "multi_session_reasoning": "answer",
    "preference_following": "expected_compliance",
    "summarization": "ideal_summary",
    "temporal_reasoning": "answer",
}
# The paper's tier names -> the repository's folder names (the 128K tier lives in chats/100K).
TIERS = {"128K": "100K", "500K": "500K", "1M": "1M", "10M": "10M"}
TIER_OF_DIR = {v: k for k, v in TIERS.items()}

CHAT = "chat.json"
TRUNCATED = "chat_trunecated.json"
QUESTIONS = Path("probing_questions") / "probing_questions.json"
_ANCHOR = re.compile(r"([A-Za-z]+)-(\d{1,2})-(\d{4})")


def chat_file(folder: Path) -> Path | None:
    """The conversation the released answerer reads: the truncated chat when there is one."""
    for name in (TRUNCATED, CHAT):
        if (folder / name).is_file():
            return folder / name
    return None


def is_chat_folder(path: Path) -> bool:
    return path.is_dir() and (path / QUESTIONS).is_file() and chat_file(path) is not None


def chat_folders(path: Path) -> list[Path]:
    """One chat folder, or the chat folders directly inside `path`, in natural order (2 < 10)."""
    if is_chat_folder(path):
        return [path]
    if not path.is_dir():
        return []
    subs = [p for p in path.iterdir() if is_chat_folder(p)]
    return sorted(subs, key=lambda p: (0, int(p.name), "") if p.name.isdigit() else (1, 0, p.name))


def tier_of(folder: Path) -> str | None:
    """The tier a chat folder belongs to, from its parent folder's name (chats/100K/3 -> 128K)."""
    parent = folder.resolve().parent.name
    return TIER_OF_DIR.get(parent) or (parent if parent in TIERS else None)


def anchor_date(value) -> str | None:
    """A time anchor ("March-15-2024") as the shared date format ("2024/03/15 (Fri) 00:00");
    None when absent or unreadable (the session then has no date)."""
    if not isinstance(value, str):
        return None
    m = _ANCHOR.fullmatch(value.strip())
    if not m:
        return None
    for fmt in ("%B-%d-%Y", "%b-%d-%Y"):
        try:
            day = datetime.strptime(f"{m[1]}-{m[2]}-{m[3]}", fmt)
        except ValueError:
            continue
        return day.strftime("%Y/%m/%d (%a) %H:%M")
    return None


# ---- the conversation --------------------------------------------------------------------------


@dataclass
class Message:
    id: int
    role: str
    content: str
    kind: str | None  # the user message's question_type (main_question, ...)


@dataclass
class Exchange:
    """One released "turn": a main question, the answers and the follow-ups that go with it."""

    batch: int  # 1-based position of its batch in the chat (plans concatenated)
    number: int  # 1-based position in its batch
    date: str | None  # its batch's time anchor
    messages: list[Message]


def _shape(file: Path) -> str:
    """'batches' or 'plans', from the first item of the list (read lazily)."""
    import ijson

    with open(file, "rb") as f:
        for item in ijson.items(f, "item"):
            if isinstance(item, dict) and "turns" in item:
                return "batches"
            if (
                isinstance(item, dict)
                and len(item) == 1
                and isinstance(next(iter(item.values())), list)
            ):
                return "plans"
            raise InputError(
                "expected a list of batches ({batch_number, turns}) or of plans "
                "({name: [batch, ...]})",
                file=str(file),
                field="[0]",
            )
    raise InputError("the chat has no batches", file=str(file), field="[0]")


def _batches(file: Path) -> Iterator[tuple[str, int, dict]]:
    """(where, plan number, batch) for every batch of the chat, one batch in memory at a time;
    a plan of a 10M chat is read whole (a tenth of the chat). A chat of batches is one plan."""
    import ijson

    shape = _shape(file)
    try:
        with open(file, "rb") as f:
            if shape == "batches":
                for b, batch in enumerate(ijson.items(f, "item", use_float=True)):
                    yield f"[{b}]", 0, batch
            else:
                for p, plan in enumerate(ijson.items(f, "item", use_float=True)):
                    if not isinstance(plan, dict) or len(plan) != 1:
                        raise InputError(
                            "a plan must be an object with one key", file=str(file), field=f"[{p}]"
                        )
                    ((name, batches),) = plan.items()
                    if not isinstance(batches, list):
                        raise InputError(
                            "a plan's value must be a list of batches",
                            file=str(file),
                            field=f"[{p}].{name}",
                        )
                    for b, batch in enumerate(batches):
                        yield f"[{p}].{name}[{b}]", p, batch
    except ijson.JSONError as e:
        raise InputError(
            f"malformed JSON: {str(e).splitlines()[0][:200]}", file=str(file)
        ) from None


def exchanges(file: Path) -> Iterator[Exchange]:
    """The chat's exchanges in order, validated (message ids unique within a plan, roles
    known). Whether a 10M chat numbers its messages across plans or afresh in each is not
    documented: an id repeated in another plan is allowed, and normalise treats evidence that
    names it as ambiguous."""
    seen: set[tuple[int, int]] = set()
    last: str | None = None  # a batch without an anchor continues at the previous one's date
    for b, (where, plan, batch) in enumerate(_batches(file), start=1):
        if not isinstance(batch, dict) or not isinstance(batch.get("turns"), list):
            raise InputError(
                "a batch must be an object with a 'turns' list",
                file=str(file),
                field=f"{where}.turns",
            )
        date = anchor_date(batch.get("time_anchor"))
        out: list[Exchange] = []
        for t, turn in enumerate(batch["turns"]):
            if not isinstance(turn, list):
                raise InputError(
                    "a turn must be a list of messages", file=str(file), field=f"{where}.turns[{t}]"
                )
            msgs = []
            for m, msg in enumerate(turn):
                fld = f"{where}.turns[{t}][{m}]"
                if not isinstance(msg, dict):
                    raise InputError("a message must be an object", file=str(file), field=fld)
                mid, role, content = msg.get("id"), msg.get("role"), msg.get("content")
                if isinstance(mid, float) and mid.is_integer():
                    mid = int(mid)
                if not isinstance(mid, int) or isinstance(mid, bool):
                    raise InputError(
                        "missing or non-integer message id", file=str(file), field=f"{fld}.id"
                    )
                if (plan, mid) in seen:
                    raise InputError(
                        f"duplicate message id {mid}", file=str(file), field=f"{fld}.id"
                    )
                seen.add((plan, mid))
                if role not in ("user", "assistant"):
                    raise InputError(
                        f"role must be user or assistant, not {role!r}",
                        file=str(file),
                        field=f"{fld}.role",
                    )
                if not isinstance(content, str):
                    raise InputError(
                        "missing or non-string content", file=str(file), field=f"{fld}.content"
                    )
                date = date or anchor_date(msg.get("time_anchor"))
                kind = msg.get("question_type")
                msgs.append(Message(mid, role, content, kind if isinstance(kind, str) else None))
            if msgs:
                out.append(Exchange(b, len(out) + 1, None, msgs))
        last = date = date or last
        for ex in out:  # the anchor sits on the batch's first user message
            ex.date = date
            yield ex


# ---- the probing questions ---------------------------------------------------------------------


def source_ids(value) -> list[int] | None:
    """source_chat_ids as a flat list of message ids (a list, or an object of lists), None when
    the field is malformed."""
    if value is None:
        return []
    if isinstance(value, dict):
        parts = list(value.values())
    else:
        parts = [value]
    out: list[int] = []
    for part in parts:
        items = part if isinstance(part, list) else [part]
        for x in items:
            if isinstance(x, float) and x.is_integer():
                x = int(x)
            if not isinstance(x, int) or isinstance(x, bool):
                return None
            out.append(x)
    return out


def read_questions(file: Path, question_id) -> list[dict]:
    """The folder's probing questions, validated, in ability order then file order:
    [{ability, index, question, answer, rubric, source_ids, details}]. `question_id(ability,
    index)` names a question in errors."""
    import orjson

    try:
        data = orjson.loads(file.read_bytes())
    except orjson.JSONDecodeError as e:
        raise InputError(
            f"malformed JSON at line {e.lineno} column {e.colno}: {e.msg}", file=str(file)
        ) from None
    if not isinstance(data, dict):
        raise InputError("expected an object {ability: [question, ...]}", file=str(file))
    unknown = sorted(set(data) - set(ABILITIES))
    if unknown:
        raise InputError(
            f"unknown abilities {unknown}; BEAM has {list(ABILITIES)}",
            file=str(file),
            field=unknown[0],
        )
    out = []
    for ability in ABILITIES:
        items = data.get(ability, [])
        if not isinstance(items, list):
            raise InputError("expected a list of questions", file=str(file), field=ability)
        for i, q in enumerate(items):
            qid = question_id(ability, i)

            def bad(msg: str, fld: str, qid=qid, where=f"{ability}[{i}]") -> InputError:
                return InputError(msg, file=str(file), question_id=qid, field=f"{where}.{fld}")

            if not isinstance(q, dict):
                raise bad("a question must be an object", "")
            if not isinstance(q.get("question"), str) or not q["question"].strip():
                raise bad("missing or empty question", "question")
            rubric = q.get("rubric")
            if (
                not isinstance(rubric, list)
                or not rubric
                or not all(isinstance(r, str) for r in rubric)
            ):
                raise bad("rubric must be a non-empty list of strings", "rubric")
            gold = q.get(GOLD_FIELD[ability])
            if isinstance(gold, list):
                gold = "\n".join(map(str, gold))
            if not isinstance(gold, str):
                raise bad(f"missing {GOLD_FIELD[ability]}", GOLD_FIELD[ability])
            ids = source_ids(q.get("source_chat_ids"))
            if ids is None:
                raise bad(
                    "source_chat_ids must be message ids (a list, or an object of lists)",
                    "source_chat_ids",
                )
            details = {
                k: v for k, v in q.items() if k not in ("question", "rubric", GOLD_FIELD[ability])
            }
            out.append(
                {
                    "ability": ability,
                    "index": i,
                    "question": q["question"],
                    "answer": gold,
                    "rubric": list(rubric),
                    "source_ids": ids,
                    "details": details,
                }
            )
    return out
