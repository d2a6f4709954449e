"""EverMemBench's two released layouts, read and validated into one in-memory form.

A dataset is a folder of "units", one per topic (or batch), each holding one dialogue file and
one QA file; the dataset path is either one unit folder or a folder whose subfolders are units.

Topic layout (the hub's `01/` .. `05/`, with evidence):
  0N/dialogue.json   [{"date": "YYYY-MM-DD", "dialogues": {"Group 1": [message, ...] | null, ...}}]
                     message {"speaker", "time", "dialogue", "message_index"}
  0N/qa_0N.json      [{"id", "Q", "A", "R": [{"date", "group", "message_index": "1, 4-5"}],
                       "options": {"A": ..., "D": ...} | null}]
Batch layout (the folders the released evaluator reads, `dataset/004/` ..; no evidence):
  dialogue_en.json   {"dialogues": {"YYYY-MM-DD": {"Group 1": [message, ...]}}, ...}
                     message {"speaker", "time", "dialogue"}
  qa_004.json        {"qars": [{"id", "Q", "A", "task_id", "options": {...} | null}], ...}

As the released loaders do: days sort by date, groups keep the file's order, a message's text is
`dialogue` (or `text`), multiple choice is a question with a non-empty `options` dict (shown in
key order). Messages are numbered 1.. within their day's group: the `message_index` a message
carries where it has one, else its position; evidence `R` names those numbers, single or as
inclusive ranges. Every error names the file, the question id (where one) and the field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ...data.jsonfile import read_bytes
from ...errors import InputError
from .subtasks import subtask_of

TOPIC, BATCH = "topic", "batch"
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME_FORMATS = (
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M:%S.%f",
    "%Y-%m-%dT%H:%M:%S.%f",
)
_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")
LETTERS = ("A", "B", "C", "D")


@dataclass(frozen=True)
class Message:
    index: int  # 1-based within its day's group
    speaker: str
    time: datetime | None  # None when the file's `time` does not parse (the day is used)
    text: str


@dataclass
class Chat:
    """One group's messages on one day: a session."""

    date: str  # YYYY-MM-DD
    group: str
    messages: list[Message]


@dataclass(frozen=True)
class Evidence:
    date: str
    group: str
    indices: tuple[int, ...]


@dataclass
class Question:
    question_id: str
    subtask: str
    question: str
    answer: str
    options: dict[str, str] | None  # None: an open question
    evidence: list[Evidence] | None  # None: the layout carries no evidence
    task_id: str | None = None


@dataclass
class Unit:
    name: str  # the folder's name: "01" (topic) or "004" (batch)
    layout: str
    dialogue_file: Path
    qa_file: Path
    chats: list[Chat] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


# ---- recognising ----------------------------------------------------------------------------


def _dialogue_file(folder: Path) -> Path | None:
    for name in ("dialogue.json", "dialogue_en.json"):
        if (folder / name).is_file():
            return folder / name
    return None


def _qa_file(folder: Path) -> Path | None:
    # qa_01.json, not the download's qa_01.json.pin.json beside it
    found = sorted(p for p in folder.glob("qa_*.json") if p.name.count(".") == 1)
    return found[0] if len(found) == 1 else None


def _first_char(path: Path) -> str:
    with open(path, "rb") as f:
        head = f.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head[:1].decode("ascii", "replace")


def unit_layout(folder: Path) -> str | None:
    """The layout of a unit folder (by its dialogue file's first character), or None."""
    if not folder.is_dir():
        return None
    dialogue, qa = _dialogue_file(folder), _qa_file(folder)
    if dialogue is None or qa is None:
        return None
    first = _first_char(dialogue)
    if first == "[" and dialogue.name == "dialogue.json":
        return TOPIC
    if first == "{":
        return BATCH
    return None


def unit_folders(path: Path) -> list[Path]:
    """The unit folders of a dataset path: itself, or its subfolders that are units (sorted)."""
    path = Path(path)
    if unit_layout(path):
        return [path]
    if not path.is_dir():
        return []
    return sorted(p for p in path.iterdir() if unit_layout(p))


def layout_of(path: Path) -> str | None:
    """The layout of a dataset path, or None when it holds no EverMemBench unit or mixes both."""
    layouts = {unit_layout(p) for p in unit_folders(path)}
    return layouts.pop() if len(layouts) == 1 else None


# ---- reading --------------------------------------------------------------------------------


def _load(path: Path):
    import orjson

    try:
        return orjson.loads(read_bytes(path))
    except orjson.JSONDecodeError as e:
        raise InputError(
            f"malformed JSON at line {e.lineno} column {e.colno}: {e.msg}", file=str(path)
        ) from None


def parse_time(value, date: str) -> datetime | None:
    if isinstance(value, str):
        for fmt in _TIME_FORMATS:
            try:
                return datetime.strptime(value.strip(), fmt)
            except ValueError:
                continue
    return None


def _messages(raw, file: Path, where: str) -> list[Message]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InputError(
            f"messages of {where} are a JSON {type(raw).__name__}, not a list",
            file=str(file),
            field=where,
        )
    out, seen = [], set()
    for pos, m in enumerate(raw, start=1):
        at = f"{where}[{pos - 1}]"
        if not isinstance(m, dict):
            raise InputError("message is not an object", file=str(file), field=at)
        text = m.get("dialogue") if m.get("dialogue") is not None else m.get("text")
        if not isinstance(text, str):
            raise InputError(
                "message has no `dialogue` text", file=str(file), field=f"{at}.dialogue"
            )
        speaker = m.get("speaker")
        if not isinstance(speaker, str) or not speaker.strip():
            raise InputError("message has no `speaker`", file=str(file), field=f"{at}.speaker")
        index = m.get("message_index", pos)
        if isinstance(index, str) and index.strip().isdigit():  # "3" as well as 3
            index = int(index)
        if isinstance(index, bool) or not isinstance(index, int) or index < 1 or index in seen:
            raise InputError(
                f"message_index {index!r} is not a new positive integer",
                file=str(file),
                field=f"{at}.message_index",
            )
        seen.add(index)
        out.append(Message(index, speaker.strip(), parse_time(m.get("time"), where), text))
    return out


def _check_date(value, file: Path, at: str) -> str:
    if not isinstance(value, str) or not _DATE.fullmatch(value[:10]) or len(value) not in (10, 19):
        raise InputError(f"date {value!r} is not YYYY-MM-DD", file=str(file), field=at)
    return value[:10]  # "2025-10-22T00:00:00" (as datasets writes it) is the same day


def read_dialogue(path: Path, layout: str) -> list[Chat]:
    """Every non-empty (day, group) chat, days in date order, groups in the file's order."""
    data = _load(path)
    days: list[tuple[str, dict, str]] = []
    if layout == TOPIC:
        if not isinstance(data, list):
            raise InputError(
                f"expected a JSON list of days, got a JSON {type(data).__name__}", file=str(path)
            )
        for i, day in enumerate(data):
            if not isinstance(day, dict):
                raise InputError("day is not an object", file=str(path), field=f"[{i}]")
            date = _check_date(day.get("date"), path, f"[{i}].date")
            days.append((date, day.get("dialogues"), f"[{i}].dialogues"))
    else:
        groups_by_day = data.get("dialogues") if isinstance(data, dict) else None
        if not isinstance(groups_by_day, dict):
            raise InputError(
                "missing the `dialogues` object of dates", file=str(path), field="dialogues"
            )
        for date, groups in groups_by_day.items():
            days.append(
                (_check_date(date, path, f"dialogues[{date!r}]"), groups, f"dialogues[{date!r}]")
            )
    chats, seen = [], set()
    for date, groups, at in sorted(days, key=lambda d: d[0]):
        if groups is None:
            continue
        if not isinstance(groups, dict):
            raise InputError("groups are not an object", file=str(path), field=at)
        for group, raw in groups.items():
            if (date, group) in seen:
                raise InputError(f"day {date} has group {group!r} twice", file=str(path), field=at)
            seen.add((date, group))
            msgs = _messages(raw, path, f"{at}[{group!r}]")
            if msgs:
                chats.append(Chat(date, str(group), msgs))
    return chats


def parse_indices(value) -> tuple[int, ...]:
    """ "1, 4-5" -> (1, 4, 5); an int is itself. ValueError for anything else."""
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, int):
        parts = [str(value)]
    elif isinstance(value, str):
        parts = [p for p in value.split(",") if p.strip()]
    elif isinstance(value, list):
        parts = [str(v) for v in value]
    else:
        raise ValueError(value)
    out: list[int] = []
    for p in parts:
        m = _RANGE.match(p)
        if not m:
            raise ValueError(value)
        a, b = int(m.group(1)), int(m.group(2) or m.group(1))
        if a < 1 or b < a:
            raise ValueError(value)
        out.extend(range(a, b + 1))
    if not out:
        raise ValueError(value)
    return tuple(dict.fromkeys(out))


def _question(q, i: int, path: Path, layout: str) -> Question:
    if not isinstance(q, dict):
        raise InputError("question is not an object", file=str(path), field=f"[{i}]")
    qid = q.get("id")
    if not isinstance(qid, str) or not qid:
        raise InputError("question has no `id`", file=str(path), field=f"[{i}].id")

    def err(msg, fld):
        return InputError(msg, file=str(path), question_id=qid, field=fld)

    subtask = subtask_of(qid)
    if subtask is None:
        raise err(
            "the id names none of the nine sub-tasks (F_SH, F_MH, F_TP, MA_C, MA_P, MA_U, "
            "P_Style, P_Skill, P_Role) before `_Top`",
            "id",
        )
    for key in ("Q", "A"):
        if not isinstance(q.get(key), str) or not q[key].strip():
            raise err(f"missing or empty `{key}`", key)
    options = q.get("options")
    if options is not None and not isinstance(options, dict):
        raise err(f"`options` is a JSON {type(options).__name__}, not an object or null", "options")
    if options:
        keys = sorted(options)
        if (
            not all(k in LETTERS for k in keys)
            or len(keys) < 2
            or not all(isinstance(v, str) for v in options.values())
        ):
            raise err("`options` must map letters A-D to option texts", "options")
        if q["A"].strip().upper()[:1] not in keys:
            raise err(f"answer {q['A']!r} is not one of the options {keys}", "A")
        options = {k: options[k] for k in keys}
    else:
        options = None
    evidence = None
    if layout == TOPIC:
        raw = q.get("R", [])
        if not isinstance(raw, list):
            raise err("`R` is not a list", "R")
        evidence = []
        for j, r in enumerate(raw):
            at = f"R[{j}]"
            if not isinstance(r, dict):
                raise err("evidence entry is not an object", at)
            date = _check_date(r.get("date"), path, f"[{i}].{at}.date")
            group = r.get("group")
            if not isinstance(group, str) or not group:
                raise err("evidence entry has no `group`", f"{at}.group")
            try:
                idx = parse_indices(r.get("message_index"))
            except ValueError:
                raise err(
                    f"message_index {r.get('message_index')!r} is not a list of indices "
                    f'or ranges ("1, 4-5")',
                    f"{at}.message_index",
                ) from None
            evidence.append(Evidence(date, group, idx))
    task = q.get("task_id")
    return Question(
        qid, subtask, q["Q"], q["A"], options, evidence, task if isinstance(task, str) else None
    )


def read_questions(path: Path, layout: str) -> list[Question]:
    data = _load(path)
    if layout == TOPIC:
        items = data
        if not isinstance(items, list):
            raise InputError(
                f"expected a JSON list of questions, got a JSON {type(data).__name__}",
                file=str(path),
            )
    else:
        items = data.get("qars") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise InputError(
                "missing the `qars` list (the released evaluator's format 1; its "
                "legacy `questions` format names no sub-task and is not read)",
                file=str(path),
                field="qars",
            )
    return [_question(q, i, path, layout) for i, q in enumerate(items)]


def check_evidence(unit: Unit) -> None:
    """Every evidence pointer names a message of the dialogue."""
    have = {(c.date, c.group): {m.index for m in c.messages} for c in unit.chats}
    for q in unit.questions:
        for j, ev in enumerate(q.evidence or []):
            known = have.get((ev.date, ev.group))
            missing = [i for i in ev.indices if known is None or i not in known]
            if missing:
                raise InputError(
                    f"evidence names message(s) {missing} of {ev.group} on "
                    f"{ev.date}, which {unit.dialogue_file.name} does not have",
                    file=str(unit.qa_file),
                    question_id=q.question_id,
                    field=f"R[{j}]",
                )


def read_unit(folder: Path) -> Unit:
    layout = unit_layout(folder)
    if layout is None:
        raise InputError(
            "not an EverMemBench folder (a dialogue.json or dialogue_en.json and one qa_*.json)",
            file=str(folder),
            field="dataset.path",
        )
    unit = Unit(folder.name, layout, _dialogue_file(folder), _qa_file(folder))
    unit.chats = read_dialogue(unit.dialogue_file, layout)
    unit.questions = read_questions(unit.qa_file, layout)
    check_evidence(unit)
    return unit


def read_dataset(path: Path, units: list[str] | None = None) -> list[Unit]:
    """The dataset's units (all, or those named), validated; ids unique across them."""
    folders = unit_folders(Path(path))
    if not folders:
        raise InputError(
            "no EverMemBench data here: expected a topic folder (dialogue.json, "
            "qa_NN.json), a batch folder (dialogue_en.json, qa_NNN.json) or a "
            "folder of them",
            file=str(path),
            field="dataset.path",
        )
    names = [f.name for f in folders]
    if units is not None:
        unknown = [u for u in units if u not in names]
        if unknown:
            raise InputError(
                f"topics {unknown} are not in the dataset (it has {names})",
                file=str(path),
                field="dataset.parts",
            )
        folders = [f for f in folders if f.name in units]
    out = [read_unit(f) for f in folders]
    if len({u.layout for u in out}) > 1:
        raise InputError(
            "the folder mixes the topic and the batch layouts", file=str(path), field="dataset.path"
        )
    seen: dict[str, str] = {}
    for u in out:
        for q in u.questions:
            if q.question_id in seen:
                raise InputError(
                    f"duplicate question id (also in {seen[q.question_id]})",
                    file=str(u.qa_file),
                    question_id=q.question_id,
                    field="id",
                )
            seen[q.question_id] = str(u.qa_file)
    return out
