"""The interchange formats, read and written (docs/contract.md, "Interchange"): LongMemEval's
official files, which every run writes and reader=file / judge=file read back.

- hypotheses: `{question_id, hypothesis}` per JSON line, or one JSON list of such objects (what
  the official `src/evaluation/evaluate_qa.py` reads);
- eval-results log: the same objects plus `autoeval_label: {model, label}`, one JSON line each
  (what that script writes as `<hyp_file>.eval-results-<short model name>`).

A log a sweep wrote, one line per condition and question, is read one run at a time: `where`
({field: value}) keeps the lines whose fields have those values. Files may be gzipped (`.gz`).
Every problem names the file, the line (the item's position for a JSON list) and the field: a
line that is not JSON or not an object, a question_id that is missing or not a string, a
hypothesis that is not a string, a missing or non-boolean label, a log mixing judge models, the
same question_id twice, a `where` no line matches.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

from .artifacts import atomic_write_text
from .errors import InputError

# answers.error of a question an imported hypothesis file does not answer: not judged, left out
# of accuracy, counted as missing (never as wrong).
MISSING = "missing: no hypothesis for this question in"


def _text(path: Path) -> str:
    if not path.exists():
        raise InputError("file not found", file=str(path))
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text ({e.reason} at byte {e.start})", file=str(path)) from e


def json_objects(path: Path, where: dict[str, str] | None = None) -> list[tuple[int, dict]]:
    """(line, object) pairs: JSON lines, or the items of one JSON list (line = position); with
    `where`, only the objects whose fields have its values (`matches`)."""
    text = _text(path)
    if text.lstrip().startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as e:
            raise InputError(f"not valid JSON: {e.msg}", file=str(path), line=e.lineno) from e
        pairs = list(enumerate(items, 1))
    else:
        pairs = []
        for i, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                pairs.append((i, json.loads(line)))
            except json.JSONDecodeError as e:
                raise InputError(f"not valid JSON: {e.msg}", file=str(path), line=i) from e
    for i, obj in pairs:
        if not isinstance(obj, dict):
            raise InputError(
                f"expected a JSON object, got {type(obj).__name__}", file=str(path), line=i
            )
    if where:
        pairs = [(i, obj) for i, obj in pairs if matches(obj, where)]
        if not pairs:
            shown = ";".join(f"{k}={v}" for k, v in where.items())
            raise InputError(f"no entry has {shown}", file=str(path), field=next(iter(where)))
    if not pairs:
        raise InputError("no entries", file=str(path))
    return pairs


def matches(obj: dict, where: dict[str, str]) -> bool:
    """Whether every field `where` names has its value: a string equal to it, or a number,
    boolean or null written so in JSON ("k": 5 matches "5", "k": null matches "null")."""
    return all(
        field in obj and (v if isinstance(v := obj[field], str) else json.dumps(v)) == value
        for field, value in where.items()
    )


def read_hypotheses(path: str | Path) -> list[dict]:
    """[{question_id, hypothesis, line}] in file order; ids unique, hypotheses strings."""
    rows = _read_entries(Path(path))
    for r in rows:
        del r["_obj"]
    return rows


def _read_entries(path: Path, where: dict[str, str] | None = None) -> list[dict]:
    return _entries(path, json_objects(path, where))


def _entries(path: Path, pairs: list[tuple[int, dict]]) -> list[dict]:
    out, seen = [], {}
    for i, obj in pairs:
        qid = obj.get("question_id")
        if not isinstance(qid, str) or not qid:
            raise InputError(
                "missing question_id, or not a string", file=str(path), line=i, field="question_id"
            )
        if qid in seen:
            raise InputError(
                f"question_id given twice (first on line {seen[qid]})",
                file=str(path),
                line=i,
                question_id=qid,
                field="question_id",
            )
        seen[qid] = i
        hyp = obj.get("hypothesis")
        if not isinstance(hyp, str):
            raise InputError(
                f"hypothesis must be a string, got "
                f"{'nothing' if 'hypothesis' not in obj else type(hyp).__name__}",
                file=str(path),
                line=i,
                question_id=qid,
                field="hypothesis",
            )
        out.append({"question_id": qid, "hypothesis": hyp, "line": i, "_obj": obj})
    return out


def read_eval_results(path: str | Path, where: dict[str, str] | None = None) -> list[dict]:
    """[{question_id, hypothesis, label, model, line}]: an official eval-results log, one judge
    model throughout (of its lines `where` keeps, when given)."""
    path = Path(path)
    return eval_results_of(path, json_objects(path, where))


def eval_results_of(path: str | Path, pairs: list[tuple[int, dict]]) -> list[dict]:
    """read_eval_results's rows of (line, object) pairs in the official format: what a reader of
    another harness's file (memrecall.data.run_formats) hands over, the line its position there,
    checked as an official log's lines are."""
    path = Path(path)
    rows = _entries(path, pairs)
    models: dict[str, int] = {}
    for r in rows:
        auto = r.pop("_obj").get("autoeval_label")
        where = {"file": str(path), "line": r["line"], "question_id": r["question_id"]}
        if not isinstance(auto, dict):
            raise InputError(
                "missing autoeval_label {model, label}", field="autoeval_label", **where
            )
        label = auto.get("label")
        # Harnesses that re-run the official prompts write 1/0 (nambok/mentedb); nothing else
        # reads as a verdict ("yes", 0.5).
        if type(label) is int and label in (0, 1):
            label = bool(label)
        if not isinstance(label, bool):
            raise InputError(
                f"autoeval_label.label must be true or false (or 1 or 0), got {label!r}",
                field="autoeval_label.label",
                **where,
            )
        if not isinstance(auto.get("model"), str) or not auto["model"]:
            raise InputError("missing autoeval_label.model", field="autoeval_label.model", **where)
        r["label"], r["model"] = label, auto["model"]
        models.setdefault(auto["model"], r["line"])
        if len(models) > 1:
            (m0, l0), (m1, _) = list(models.items())[:2]
            raise InputError(
                f"one log, two judge models: {m0!r} (line {l0}) and {m1!r}",
                field="autoeval_label.model",
                **where,
            )
    return rows


def model_snapshot(model: str) -> str:
    """The model a label names, without the route it was called through: a harness calling
    the judge through a router or litellm writes 'openai/gpt-4o-2024-08-06', the same snapshot
    as the official script's 'gpt-4o-2024-08-06'."""
    return str(model).rsplit("/", 1)[-1]


def short_model_name(model: str) -> str:
    """The official files' suffix: 'gpt-4o-2024-08-06' -> 'gpt-4o', 'openai/gpt-4o-mini-...' ->
    'gpt-4o-mini'; other names lose their provider prefix and date, and keep [\\w.-] only."""
    name = model_snapshot(model)
    name = re.sub(r"-\d{4}-\d{2}-\d{2}$", "", name)
    return re.sub(r"[^\w.-]+", "_", name) or "judge"


def eval_results_path(hypotheses_path: str | Path, model: str) -> Path:
    p = Path(hypotheses_path)
    return p.with_name(f"{p.name}.eval-results-{short_model_name(model)}")


def write_hypotheses(path: str | Path, rows: list[dict]) -> Path:
    """One `{question_id, hypothesis}` JSON line per row, in the order given (atomic)."""
    text = "".join(
        json.dumps(
            {"question_id": r["question_id"], "hypothesis": r["hypothesis"]}, ensure_ascii=False
        )
        + "\n"
        for r in rows
    )
    return atomic_write_text(path, text)


def eval_results_line(question_id, hypothesis, model, label) -> dict:
    """One answer as the official eval-results log writes it: question_id, hypothesis,
    autoeval_label {model, label}."""
    return {
        "question_id": question_id,
        "hypothesis": hypothesis,
        "autoeval_label": {"model": model, "label": label},
    }


def write_eval_results(path: str | Path, rows: list[dict]) -> Path:
    """The official eval-results lines (eval_results_line) of read_eval_results rows."""
    text = "".join(
        json.dumps(
            eval_results_line(r["question_id"], r["hypothesis"], r["model"], bool(r["label"])),
            ensure_ascii=False,
        )
        + "\n"
        for r in rows
    )
    return atomic_write_text(path, text)
