"""The formats published LongMemEval runs come in, each read into official eval-results rows
(memrecall.interchange.read_eval_results's {question_id, hypothesis, label, model, line}). A run
is one file, or several in the order its format names them (FILES).

- "" (the default): an official eval-results log, a line per answer with `autoeval_label`;
  `select` keeps the lines of one run in a log of several.
- "caura": caura-ai/caura-longmemeval's `outputs/<run>/eval_results.json`, one JSON object whose
  `results` list gives each answer's `question_id`, `hypothesis` and `correct` (the official
  prompts' verdict, true or false) with the `judge_model` asked for. Where the file records the
  model that answered (`judge_model_resolved`, the snapshot behind the alias), the labels are
  that model's.
- "mnimi": IasonasKokkalos/mnimi's `results/published/<run>/results.json`, one JSON object: the
  `judge` that graded the run (`judge_model`, a snapshot) and a `results` list giving each
  answer's `question_id`, `predicted` (the reader's answer) and `correct` (the official
  prompts' verdict).
- "cjchanh": cjchanh/longmemeval-evidence's runs, published as several files: first the
  judge's `rescored.jsonl` (a line per answer: `question_id`, `llm_judge_correct`, `model` and
  `resolved_snapshot`, `attempts`), then the reader's checkpoint files
  (`checkpoint_answerable.jsonl`, `checkpoint_abs.jsonl`: `question_id`, `response`), joined by
  question id. A verdict whose answer is missing, an answer without a verdict and a row never
  judged (`attempts` 0: the harness stores false there) are errors, never answers counted
  wrong.
- "engrava": sovantica/engrava-benchmark's runs, two files: the judge's `judge_labels.jsonl`
  (`question_id`, `correct`), then the reader's `hypotheses.jsonl` (`question_id`,
  `hypothesis`), joined as cjchanh's are. The labels name no judge, so the run's `judge_model`
  must (the run's summary file gives the snapshot).

- "bettermemory": 0Mattias/bettermemory's `bench/longmemeval/results/<run>.json`, one JSON
  object whose `rows` list gives each answer's `question_id`, `hypothesis` and `verdicts`: one
  verdict per judge, keyed by its model ("openai/gpt-4o-2024-08-06"). The run's `judge_model`
  names the judge whose verdicts are read. A file that sets several systems side by side keys
  the verdicts by arm first, and its answers are one arm's: `select` names it (`arm=NAME`).

- "groundfloor": rafidowla/groundfloor-lore's `benchmarks/longmemeval/results/<run>.json`, one
  JSON object whose `perInstance` list gives each answer's `questionId`, the reader's `answer`
  (`text`) and the judge's `judge` (`model`, a snapshot, and `label`: the official prompts'
  verdict). A row whose reader or judge call failed (`answerError`, `judgeError`) is an error,
  never an answer counted wrong.

- "c137": ra1ngod/c137-runner's runs, two files joined by question id: the judge's
  `published/<run>.grading.json` (one JSON object keyed by question id, each entry's `label` the
  official prompts' verdict), then the reader's `published/<run>.results.json` (a JSON list of
  `question_id`, `c137_answer`). The labels name no judge, so the run's `judge_model` must (the
  README's `evaluate_qa.py gpt-4o`, which the official script runs as gpt-4o-2024-08-06).

- "graphnosis": nehloo/Graphnosis's `benchmarks/evidence/<run>.jsonl`, a line per answer:
  `question_id`, the reader's `predicted`, the official prompts' verdict `correct` and the
  snapshot that gave it, `judgeModel`. A line whose reader call failed names no judge (its
  publisher counts it wrong): an error, unless `select` keeps the judged lines
  (`judgeModel=SNAPSHOT`), which leaves it out of the run.

A run's `judge_model` (the manifest's column) names the snapshot for files that give only an
alias ("gpt-4o"), where the publisher says elsewhere which snapshot answered: it must be the
file's own name for the model with a date after it, or that name itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson

from ..errors import InputError
from ..interchange import (
    eval_results_line,
    eval_results_of,
    json_objects,
    model_snapshot,
    read_eval_results,
)
from .jsonfile import read_bytes

# How many files a run of each format is published as: (fewest, most; None for no limit).
FILES = {
    "": (1, 1),
    "caura": (1, 1),
    "mnimi": (1, 1),
    "cjchanh": (2, None),
    "engrava": (2, 2),
    "bettermemory": (1, 1),
    "groundfloor": (1, 1),
    "c137": (2, 2),
    "graphnosis": (1, 1),
}
FORMATS = tuple(FILES)
# The fields `select` takes in a harness's file: its lines of one run in a file of several (an
# official log: any field of its lines; bettermemory's arm), or its judged lines (graphnosis's,
# leaving out those whose reader's call failed). The other formats hold one run each, all of it
# judged.
SELECTS = {"bettermemory": ("arm",), "graphnosis": ("judgeModel",)}


def files_error(format: str, n: int) -> str | None:
    """What is wrong with a run of `format` given as `n` files; None when nothing is."""
    fewest, most = FILES[format]
    if fewest <= n and (most is None or n <= most):
        return None
    name = (
        f"a{'n' if format[:1] in 'aeiou' else ''} {format} run" if format else "an eval-results log"
    )
    if most == 1:
        return f"{name} is one file, not {n}"
    if most == fewest:
        return f"{name} is {most} files (its labels, then its answers), not {n}"
    return f"{name} is at least {fewest} files (its labels, then its answers), not {n}"


def read_run(
    path: str | Path | Sequence[str | Path],
    format: str = "",
    where: dict[str, str] | None = None,
    judge_model: str = "",
) -> list[dict]:
    """The answers of a published run's file (or files, in the order FILES says), in `format`, as
    official eval-results rows; with `judge_model`, labelled as that snapshot's (see the module
    docstring)."""
    files = [Path(p) for p in ([path] if isinstance(path, (str, Path)) else path)]
    path = files[0]
    if format not in FORMATS:
        raise InputError(
            f"unknown run format {format!r} (known: {', '.join(map(repr, FORMATS))})",
            file=str(path),
            field="format",
        )
    wrong = files_error(format, len(files))
    if wrong:
        raise InputError(wrong, file=", ".join(map(str, files)), field="path")
    if where and format and not set(where) <= set(SELECTS.get(format, ())):
        fields = SELECTS.get(format)
        raise InputError(
            f"a {format} file's select names its {', '.join(fields)} only"
            if fields
            else f"a {format} file holds one run: select names lines of an official log only",
            file=str(path),
            field="select",
        )
    rows = _READERS[format](files, where, judge_model)
    if judge_model:
        named = model_snapshot(rows[0]["model"])
        # "gpt-4o-2024-08-06" is a snapshot of "gpt-4o"; "gpt-4o-mini-2024-07-18" is not
        if named != judge_model and not re.fullmatch(
            rf"{re.escape(named)}-\d{{4}}-\d\d-\d\d", judge_model
        ):
            raise InputError(
                f"the file's judge is {named!r}; judge_model {judge_model!r} is not a snapshot "
                "of it",
                file=str(path),
                field="judge_model",
            )
        for r in rows:
            r["model"] = judge_model
    return rows


def _json_of(path: Path, object_pairs_hook: Callable[[list], dict] | None = None) -> object:
    """A file's one JSON document; malformed JSON names its line."""
    try:
        if object_pairs_hook is None:
            return orjson.loads(read_bytes(path))
        return json.loads(read_bytes(path), object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as e:  # (orjson's error is one too)
        raise InputError(f"malformed JSON at line {e.lineno}: {e.msg}", file=str(path)) from None


def _results_list(path: Path, kind: str, key: str = "results") -> tuple[dict, list]:
    """A harness's one JSON object per run and its list of answers (`key`, one item each)."""
    data = _json_of(path)
    results = data.get(key) if isinstance(data, dict) else None
    if not isinstance(results, list) or not results:
        raise InputError(f"no {key} list (a {kind})", file=str(path))
    return data, results


def _located(path: Path, pairs: Iterable[tuple[int, object]]) -> Iterator[tuple[int, object, dict]]:
    """Each (position, item) of a file with where it is: the `where` its errors name."""
    for i, item in pairs:
        yield i, item, {"file": str(path), "line": i}


def _items(path: Path, items: list, key: str) -> Iterator[tuple[int, dict, dict]]:
    """Each answer of a harness's list (`key`), counted from 1, with where it is (file, line);
    an item that is not a JSON object names its position."""
    for i, item, where in _located(path, enumerate(items, 1)):
        if not isinstance(item, dict):
            raise InputError(f"{key}[{i - 1}] is not a JSON object", **where)
        yield i, item, where


def _verdict(obj: dict, field: str, where: dict) -> bool:
    """A harness's verdict on one answer, true or false; anything else names where it is."""
    label = obj.get(field)
    if not isinstance(label, bool):
        raise InputError(f"{field} must be true or false, got {label!r}", field=field, **where)
    return label


def _answer(obj: dict, field: str, where: dict) -> str:
    """The text of one answer; a missing or non-string one names where it is."""
    text = obj.get(field)
    if not isinstance(text, str):
        got = "nothing" if field not in obj else type(text).__name__
        raise InputError(f"{field} must be a string, got {got}", field=field, **where)
    return text


def _question_id(obj: dict, where: dict, field: str = "question_id") -> str:
    """An item's question id (`field`), added to `where`; a missing or non-string one names its
    line."""
    qid = obj.get(field)
    if not isinstance(qid, str) or not qid:
        raise InputError(f"missing {field}, or not a string", field=field, **where)
    where["question_id"] = qid
    return qid


def _judge_named(model: object, missing: str, field: str, where: dict) -> str:
    """The judge's model an item names; none (`missing` says what is absent) names its line."""
    if not isinstance(model, str) or not model:
        raise InputError(missing, field=field, **where)
    return model


def _verdicts(
    path: Path,
    items: Iterable[tuple[int, dict, dict]],
    answer: str,
    model_of: Callable[[dict], object],
    no_model: str,
    judge_field: str = "judge_model",
) -> list[dict]:
    """Official rows of a harness's answers (`items`: position, item, where it is) whose items
    give `question_id`, the answer (field `answer`) and `correct`, each labelled by
    `model_of(item)` (`no_model` says what is missing, at `judge_field`, when it gives none)."""
    pairs = []
    for i, r, where in items:
        where["question_id"] = str(r.get("question_id"))
        model = _judge_named(model_of(r), no_model, judge_field, where)
        label, said = _verdict(r, "correct", where), _answer(r, answer, where)
        pairs.append((i, eval_results_line(r.get("question_id"), said, model, label)))
    return eval_results_of(path, pairs)


def _caura(path: Path) -> list[dict]:
    data, results = _results_list(path, "Caura eval_results.json")
    resolved = data.get("judge_model_resolved")
    return _verdicts(
        path,
        _items(path, results, "results"),
        "hypothesis",
        lambda r: resolved or r.get("judge_model"),
        "no judge_model, and no judge_model_resolved",
    )


def _mnimi(path: Path) -> list[dict]:
    data, results = _results_list(path, "mnimi results.json")
    judge = data.get("judge")
    model = judge.get("judge_model") if isinstance(judge, dict) else None
    return _verdicts(
        path,
        _items(path, results, "results"),
        "predicted",
        lambda r: model,
        "no judge.judge_model: no judge named",
    )


def _graphnosis(path: Path, where: dict[str, str] | None) -> list[dict]:
    """nehloo/Graphnosis's `benchmarks/evidence/<run>.jsonl`: a line per answer giving
    `question_id`, `predicted` (the reader's answer), `correct` (the official prompts' verdict)
    and `judgeModel` (the snapshot that gave it). A line whose reader call failed holds no
    answer and names no judge: it was never judged (its publisher counts it wrong), so it is an
    error, never an answer counted wrong. `select` (judgeModel=SNAPSHOT) keeps the judged lines,
    and so measures the rest."""
    return _verdicts(
        path,
        _located(path, json_objects(path, where)),
        "predicted",
        lambda r: r.get("judgeModel"),
        "no judgeModel: never judged (its reader's call failed); select "
        "judgeModel=SNAPSHOT to read the judged answers only",
        "judgeModel",
    )


def _bettermemory(path: Path, arm: str | None, judge_model: str) -> list[dict]:
    """0Mattias/bettermemory's results file: a `rows` list whose items give `question_id`,
    `hypothesis` and `verdicts`, one verdict per judge keyed by the judge's model
    ("openai/gpt-4o-2024-08-06"). A file that sets several systems side by side keys the verdicts
    by arm first (`verdicts[arm][judge]`), and its `hypothesis` is one arm's answer: the run's
    `select` (`arm=NAME`) names that arm. Several judges graded the same answers, so the run's
    `judge_model` says whose verdicts are read. A row without that judge's verdict is an error,
    never an answer counted wrong."""
    if not judge_model:
        raise InputError(
            "a bettermemory file holds several judges' verdicts: give the run's judge_model "
            "(the snapshot whose verdicts to read)",
            file=str(path),
            field="judge_model",
        )
    _, rows = _results_list(path, "bettermemory results file", key="rows")
    pairs = []
    for i, r, where in _items(path, rows, "rows"):
        qid = _question_id(r, where)
        verdicts, field = r.get("verdicts"), "verdicts"
        by_arm = isinstance(verdicts, dict) and any(isinstance(v, dict) for v in verdicts.values())
        wrong = None
        if by_arm and arm not in verdicts:
            arms = ", ".join(map(repr, verdicts))
            wrong = (
                f"no arm {arm!r} (its arms: {arms})"
                if arm
                else f"verdicts by arm ({arms}): select the arm of the answers ('arm=NAME')"
            )
        elif arm and not by_arm:
            wrong = f"select names arm {arm!r}, but the verdicts are one system's, not by arm"
        if wrong:
            raise InputError(wrong, field="select", **where)
        if arm:
            verdicts, field = verdicts[arm], f"verdicts.{arm}"
        named = (
            [k for k in verdicts if model_snapshot(k) == judge_model]
            if isinstance(verdicts, dict)
            else []
        )
        if len(named) != 1:
            judges = ", ".join(map(repr, verdicts)) if isinstance(verdicts, dict) else "none"
            raise InputError(
                f"no single verdict of {judge_model} (its verdicts: {judges})",
                field=field,
                **where,
            )
        label = _verdict(verdicts, named[0], where)
        said = _answer(r, "hypothesis", where)
        pairs.append((i, eval_results_line(qid, said, judge_model, label)))
    return eval_results_of(path, pairs)


def _groundfloor(path: Path) -> list[dict]:
    """rafidowla/groundfloor-lore's results file: a `perInstance` list whose items give
    `questionId`, `answer` ({model, text}: the reader's) and `judge` ({model, label}: the
    official prompts' verdict and the snapshot that gave it). A failed reader or judge call
    (`answerError`, `judgeError`) is an error, never an answer counted wrong."""
    _, rows = _results_list(path, "groundfloor-lore results file", key="perInstance")
    pairs = []
    for i, r, where in _items(path, rows, "perInstance"):
        qid = _question_id(r, where, "questionId")
        for failed in ("answerError", "judgeError"):
            if r.get(failed) is not None:
                raise InputError(f"the call failed ({r[failed]!r})", field=failed, **where)
        for part in ("answer", "judge"):
            if not isinstance(r.get(part), dict):
                raise InputError(f"{part} must be a JSON object", field=part, **where)
        model = _judge_named(
            r["judge"].get("model"), "no judge.model: no judge named", "judge.model", where
        )
        label = _verdict(r["judge"], "label", where)
        said = _answer(r["answer"], "text", where)
        pairs.append((i, eval_results_line(qid, said, model, label)))
    return eval_results_of(path, pairs)


class _KeyTwice(ValueError):
    """A JSON object that gives one key twice (the JSON parser would keep the last silently)."""


def _once(pairs: list[tuple[str, object]]) -> dict:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise _KeyTwice(key)
        seen.add(key)
    return dict(pairs)


def _keyed_by_question(path: Path) -> list[tuple[int, dict]]:
    """(position, entry) pairs of one JSON object keyed by question id, each entry given its key
    as `question_id`. A key given twice is an error: one of its two verdicts would go unread."""
    try:
        data = _json_of(path, _once)
    except _KeyTwice as e:
        raise InputError(
            "a key given twice", file=str(path), question_id=e.args[0], field="question_id"
        ) from None
    if not isinstance(data, dict) or not data:
        raise InputError("not a JSON object keyed by question_id", file=str(path))
    entries = []
    for i, (qid, entry) in enumerate(data.items(), 1):
        if not isinstance(entry, dict):
            got = type(entry).__name__
            raise InputError(
                f"expected a JSON object, got {got}", file=str(path), line=i, question_id=qid
            )
        entries.append((i, {**entry, "question_id": qid}))
    return entries


@dataclass(frozen=True)
class Split:
    """A run whose judge's labels and reader's answers are separate files, joined by question id:
    the field of a label's verdict, the field of an answer's text, the judge's model of a label
    (None where the labels name none: the run's judge_model must), and how the labels file is
    read into (position, entry) pairs (JSON lines or a JSON list, unless the run says otherwise)."""

    verdict: str
    answer: str
    model_of: Callable[[dict], str | None]
    labels_of: Callable[[Path], list[tuple[int, dict]]] = json_objects


def _joined(split: Split, labels: Path, answer_files: list[Path], judge_model: str) -> list[dict]:
    said: dict[str, tuple[Path, int]] = {}  # question id -> where its answer is
    answers: dict[str, str] = {}
    for file in answer_files:
        for i, obj, where in _located(file, json_objects(file)):
            qid = _question_id(obj, where)
            if qid in said:
                first, line = said[qid]
                raise InputError(
                    f"question_id answered twice (first in {first}, line {line})",
                    field="question_id",
                    **where,
                )
            said[qid], answers[qid] = (file, i), _answer(obj, split.answer, where)
    pairs, judged = [], set()
    for i, obj, where in _located(labels, split.labels_of(labels)):
        qid = _question_id(obj, where)
        if obj.get("attempts") == 0:
            raise InputError(
                "never judged (attempts 0): its label is no verdict", field="attempts", **where
            )
        if qid not in answers:
            raise InputError(
                f"a verdict without an answer in {', '.join(map(str, answer_files))}",
                field="question_id",
                **where,
            )
        label = _verdict(obj, split.verdict, where)
        model = split.model_of(obj) or judge_model
        if not model:
            raise InputError(
                "the labels name no judge: give the run's judge_model, the snapshot its "
                "publisher documents",
                field="judge_model",
                **where,
            )
        judged.add(qid)
        pairs.append((i, eval_results_line(qid, answers[qid], model, label)))
    unjudged = sorted(set(answers) - judged)
    if unjudged:
        file, line = said[unjudged[0]]
        raise InputError(
            f"{len(unjudged)} answer(s) without a verdict in {labels}",
            file=str(file),
            line=line,
            question_id=unjudged[0],
            field="question_id",
        )
    return eval_results_of(labels, pairs)


CJCHANH = Split(
    "llm_judge_correct", "response", lambda r: r.get("resolved_snapshot") or r.get("model")
)
ENGRAVA = Split("correct", "hypothesis", lambda r: None)
C137 = Split("label", "c137_answer", lambda r: None, _keyed_by_question)


# format -> (its files, `select`'s fields, the run's judge_model) -> official rows
_READERS: dict[str, Callable[[list[Path], dict | None, str], list[dict]]] = {
    "": lambda files, where, _: read_eval_results(files[0], where),
    "caura": lambda files, _, __: _caura(files[0]),
    "mnimi": lambda files, _, __: _mnimi(files[0]),
    "cjchanh": lambda files, _, model: _joined(CJCHANH, files[0], files[1:], model),
    "engrava": lambda files, _, model: _joined(ENGRAVA, files[0], files[1:], model),
    "bettermemory": lambda files, where, model: _bettermemory(
        files[0], (where or {}).get("arm"), model
    ),
    "groundfloor": lambda files, _, __: _groundfloor(files[0]),
    "c137": lambda files, _, model: _joined(C137, files[0], files[1:], model),
    "graphnosis": lambda files, where, _: _graphnosis(files[0], where),
}
