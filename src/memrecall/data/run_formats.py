"""The formats published LongMemEval runs come in, each read into official eval-results rows
(memrecall.interchange.read_eval_results's {question_id, hypothesis, label, model, line}).

- "" (the default): an official eval-results log, a line per answer with `autoeval_label`;
  `select` keeps the lines of one run in a log of several.
- "caura": caura-ai/caura-longmemeval's `outputs/<run>/eval_results.json`, one JSON object whose
  `results` list gives each answer's `question_id`, `hypothesis` and `correct` (the official
  prompts' verdict, true or false) with the `judge_model` asked for. Where the file records the
  model that answered (`judge_model_resolved`, the snapshot behind the alias), the labels are
  that model's.

A run's `judge_model` (the manifest's column) names the snapshot for files that give only an
alias ("gpt-4o"), where the publisher says elsewhere which snapshot answered: it must be the
file's own name for the model with a date after it, or that name itself.
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson

from ..errors import InputError
from ..interchange import eval_results_of, model_snapshot, read_eval_results
from .jsonfile import read_bytes

FORMATS = ("", "caura")


def read_run(
    path: str | Path, format: str = "", where: dict[str, str] | None = None, judge_model: str = ""
) -> list[dict]:
    """The answers of a published run's file, in `format`, as official eval-results rows; with
    `judge_model`, labelled as that snapshot's (see the module docstring)."""
    path = Path(path)
    if format not in FORMATS:
        raise InputError(
            f"unknown run format {format!r} (known: {', '.join(map(repr, FORMATS))})",
            file=str(path),
            field="format",
        )
    if where and format:
        raise InputError(
            f"a {format} file holds one run: select names lines of an official log only",
            file=str(path),
            field="select",
        )
    rows = _caura(path) if format == "caura" else read_eval_results(path, where)
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


def _caura(path: Path) -> list[dict]:
    try:
        data = orjson.loads(read_bytes(path))
    except orjson.JSONDecodeError as e:
        raise InputError(f"malformed JSON at line {e.lineno}: {e.msg}", file=str(path)) from None
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list) or not results:
        raise InputError("no results list (a Caura eval_results.json)", file=str(path))
    resolved = data.get("judge_model_resolved")
    pairs = []
    for i, r in enumerate(results, 1):
        if not isinstance(r, dict):
            raise InputError(f"results[{i - 1}] is not a JSON object", file=str(path), line=i)
        model = resolved or r.get("judge_model")
        label = r.get("correct")
        where = {"file": str(path), "line": i, "question_id": str(r.get("question_id"))}
        if not isinstance(model, str) or not model:
            raise InputError(
                "no judge_model, and no judge_model_resolved", field="judge_model", **where
            )
        if not isinstance(label, bool):
            raise InputError(
                f"correct must be true or false, got {label!r}", field="correct", **where
            )
        auto = {"model": model, "label": label}
        fields = {k: r[k] for k in ("question_id", "hypothesis") if k in r}
        pairs.append((i, fields | {"autoeval_label": auto}))
    return eval_results_of(path, pairs)
