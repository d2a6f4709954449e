"""Errata overlays: versioned corrections to a dataset's gold, each with its source, and what a
run's score is with them: raw and corrected side by side, and the ceiling.

An errata file (YAML or JSON):

    name: longmemeval_s_cleaned_vs_s      # what `memrecall errata report --errata` names
    version: "1"
    dataset: longmemeval_s
    corrections:
      - question_id: 5d3d2817
        field: answer                     # answer | question | question_type |
                                          # answer_session_ids | answer_turn_ids | present
        old: "..."                        # the value the file holds (checked before applying)
        new: "..."
        gold_wrong: true                  # the gold answer itself is wrong
        source: "https://github.com/.../issues/37"
                 # or "<file> sha256 <...>", "<repo> <path> @ <commit>"
        note: "..."

Scores: `raw` counts every judged question as the run's judge scored it. `corrected` scores
the corrected data: a question whose answer, question text or type a correction changed is
judged again, by the run's own judge, against the corrected gold (`dataset.errata` in the
pipeline: the `errata` stage); a question whose gold is wrong and has no corrected answer, or
that the corrections remove, is left out. Without verdicts against the corrected gold
(`memrecall errata report`, imported labels) every question whose gold is wrong is left out (a
run cannot be credited or blamed against a wrong gold). `ceiling` is the share of judged
questions whose gold is right: the best a run scored strictly against the raw gold can honestly
reach.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import InputError

FIELDS = ("answer", "question", "question_type", "answer_session_ids", "answer_turn_ids", "present")
# the fields of a question every judge reads: a correction to one is judged again
JUDGED_FIELDS = ("answer", "question", "question_type")


@dataclass(frozen=True)
class Correction:
    question_id: str
    field: str
    old: Any
    new: Any
    gold_wrong: bool
    source: str
    note: str = ""


@dataclass
class Errata:
    name: str
    version: str
    dataset: str
    corrections: list[Correction] = field(default_factory=list)

    @property
    def gold_wrong(self) -> set[str]:
        return {c.question_id for c in self.corrections if c.gold_wrong}

    @property
    def removed(self) -> set[str]:
        """Questions the corrections take out of the data (`present` set to false)."""
        return {c.question_id for c in self.corrections if c.field == "present" and c.new is False}

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "version": self.version,
            "dataset": self.dataset,
            "corrections": [asdict(c) for c in self.corrections],
        }


def load_errata(path: str | Path) -> Errata:
    """Read and check an errata file; errors name the file, the question id and the field."""
    from ..config import load_yaml_file

    path = Path(path)
    file = str(path)
    if path.suffix in (".yaml", ".yml"):
        raw = load_yaml_file(path)
    else:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise InputError(f"not JSON: {e}", file=file) from None
    return parse_errata(raw, file)


def parse_errata(raw, file: str) -> Errata:
    """An errata overlay from its mapping (an errata file's content, or Errata.to_dict()),
    checked; errors name `file`, the question id and the field."""
    if not isinstance(raw, dict):
        raise InputError(
            "an errata file is a mapping with name, version, dataset, corrections", file=file
        )
    for key in ("name", "version", "dataset"):
        if not isinstance(raw.get(key), (str, int)) or str(raw.get(key)).strip() == "":
            raise InputError(f"missing {key}", file=file, field=key)
    items = raw.get("corrections")
    if not isinstance(items, list):
        raise InputError("corrections must be a list", file=file, field="corrections")
    out = []
    for i, c in enumerate(items):
        where = f"corrections[{i}]"
        if not isinstance(c, dict) or not isinstance(c.get("question_id"), str):
            raise InputError(
                "a correction needs a question_id", file=file, field=f"{where}.question_id"
            )
        qid = c["question_id"]
        if c.get("field") not in FIELDS:
            raise InputError(
                f"field must be one of {list(FIELDS)}, got {c.get('field')!r}",
                file=file,
                question_id=qid,
                field=f"{where}.field",
            )
        if not isinstance(c.get("source"), str) or not c["source"].strip():
            raise InputError(
                "every correction names its source (an issue URL, or an audit "
                "file with its commit)",
                file=file,
                question_id=qid,
                field=f"{where}.source",
            )
        if not isinstance(c.get("gold_wrong"), bool):
            raise InputError(
                "gold_wrong must be true or false",
                file=file,
                question_id=qid,
                field=f"{where}.gold_wrong",
            )
        out.append(
            Correction(
                qid,
                c["field"],
                c.get("old"),
                c.get("new"),
                c["gold_wrong"],
                c["source"],
                str(c.get("note") or ""),
            )
        )
    return Errata(str(raw["name"]), str(raw["version"]), str(raw["dataset"]), out)


def write_errata(errata: Errata, path: str | Path) -> Path:
    from ..artifacts import atomic_write_text

    return atomic_write_text(
        path, json.dumps(errata.to_dict(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    )


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return list(a or []) == list(b or [])
    return ("" if a is None else str(a)) == ("" if b is None else str(b))


def apply_errata(questions: pl.DataFrame, errata: Errata, *, file: str = "errata") -> pl.DataFrame:
    """The questions table with the corrections applied (a `present` correction that removes a
    question drops it). Each correction's `old` must be what the table holds: errata made for
    another version of the file are refused, never applied halfway."""
    rows = {r["question_id"]: r for r in questions.iter_rows(named=True)}
    drop = set()
    for c in errata.corrections:
        if c.field == "present":
            if c.new is False and c.question_id in rows:
                drop.add(c.question_id)
            continue
        row = rows.get(c.question_id)
        if row is None:
            continue  # a question outside this subset
        if c.field not in row:
            raise InputError(
                f"the questions have no column {c.field!r}",
                file=file,
                question_id=c.question_id,
                field=c.field,
            )
        if not _same(row[c.field], c.old):
            raise InputError(
                f"the file holds {row[c.field]!r}, the errata expect {c.old!r}: "
                f"they were made for another version of the data",
                file=file,
                question_id=c.question_id,
                field=c.field,
            )
        row[c.field] = c.new
    kept = [r for q, r in rows.items() if q not in drop]
    return pl.DataFrame(kept, schema=questions.schema) if kept else questions.clear()


def _acc(df: pl.DataFrame) -> float | None:
    v = df["correct"].drop_nulls()
    return float(v.cast(pl.Float64).mean()) if v.len() else None


def rejudged_questions(questions: pl.DataFrame, corrected: pl.DataFrame) -> list[str]:
    """The questions to judge again against the corrected gold: still in the corrected data
    (`corrected`: apply_errata of `questions`), with a judged field (JUDGED_FIELDS) changed and
    a gold answer left (a wrong gold without a corrected answer is only left out)."""
    before = {r["question_id"]: r for r in questions.iter_rows(named=True)}
    out = []
    for r in corrected.iter_rows(named=True):
        old = before[r["question_id"]]
        if str(r["answer"] or "").strip() and any(
            not _same(r[f], old[f]) for f in JUDGED_FIELDS if f in r
        ):
            out.append(r["question_id"])
    return sorted(out)


def errata_scores(
    per_question: pl.DataFrame, errata: Errata, corrected: pl.DataFrame | None = None
) -> dict:
    """Raw and corrected accuracy and the ceiling, overall and per type, from a run's
    per-question results (question_id, question_type, correct). `corrected`: the same columns
    for the questions judged again against the corrected gold (rejudged_questions; their
    question_type as corrected); None: no such verdicts, every question whose gold is wrong is
    left out of the corrected score."""
    wrong = errata.gold_wrong
    judged = per_question.filter(pl.col("correct").is_not_null())
    flagged = judged.filter(pl.col("question_id").is_in(sorted(wrong)))
    cols = ["question_id", "question_type", "correct"]
    rejudged = (
        corrected.select(cols)
        if corrected is not None
        else pl.DataFrame(schema={c: judged.schema[c] for c in cols})
    ).cast({c: judged.schema[c] for c in cols})
    # the corrected data's verdicts: each question judged again where a correction changed
    # what a judge reads, the run's verdict where none did; removed questions, and wrong golds
    # that were not judged again, are left out
    out = sorted(wrong | errata.removed | set(rejudged["question_id"].to_list()))
    fixed = pl.concat(
        [
            judged.select(cols).filter(~pl.col("question_id").is_in(out)),
            rejudged.filter(pl.col("correct").is_not_null()),
        ]
    )
    before = dict(zip(judged["question_id"].to_list(), judged["correct"].to_list()))
    now = dict(zip(rejudged["question_id"].to_list(), rejudged["correct"].to_list()))
    changed = {q: (before[q], v) for q, v in now.items() if q in before and v is not None}

    def block(df: pl.DataFrame, fixed_df: pl.DataFrame, again: pl.DataFrame) -> dict:
        """df: the raw verdicts, fixed_df: the corrected data's, again: those judged again
        (the last two under their corrected type)."""
        bad = df.filter(pl.col("question_id").is_in(sorted(wrong)))
        ids = again["question_id"].to_list()
        flips = [changed[q] for q in ids if q in changed and changed[q][0] != changed[q][1]]
        return {
            "n": df.height,
            "n_gold_wrong": bad.height,
            "n_corrected": fixed_df.height,
            "n_rejudged": again.height,
            "raw": _acc(df),
            "corrected": _acc(fixed_df),
            "ceiling": ((df.height - bad.height) / df.height) if df.height else None,
            "credited_on_wrong_gold": int(bad["correct"].sum()) if bad.height else 0,
            "flips_to_correct": sum(1 for a, b in flips if b and not a),
            "flips_to_wrong": sum(1 for a, b in flips if a and not b),
        }

    types = sorted(
        {t for t in judged["question_type"].to_list() + fixed["question_type"].to_list() if t}
    )
    return {
        "errata": {
            "name": errata.name,
            "version": errata.version,
            "dataset": errata.dataset,
            "corrections": len(errata.corrections),
            "gold_wrong": len(wrong),
            "sources": sorted({c.source for c in errata.corrections}),
            "rejudged": corrected is not None,
        },
        "overall": block(judged, fixed, rejudged),
        "by_type": {
            t: block(*(df.filter(pl.col("question_type") == t) for df in (judged, fixed, rejudged)))
            for t in types
        },
        "flagged_questions": sorted(flagged["question_id"].to_list()),
        "rejudged_questions": sorted(now),
    }


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def errata_markdown(scores: dict, heading: str = "#") -> str:
    e = scores["errata"]
    corrected = (
        "Corrected: the corrected data, each question a correction changed judged again "
        "against the corrected gold by the run's own judge (n corrected: the questions "
        "it holds); wrong golds without a corrected answer and removed questions left out."
        if e["rejudged"]
        else "Corrected: the questions with a wrong gold left out (no verdicts against the "
        "corrected gold)."
    )
    lines = [
        f"{heading} Scores with errata `{e['name']}` (version {e['version']})",
        "",
        f"{e['corrections']} corrections to {e['dataset']}, {e['gold_wrong']} of them "
        f"questions whose gold answer is wrong. Raw: every judged question as judged. "
        f"{corrected} Ceiling: the share of judged questions whose gold is right. Credited "
        "on wrong gold: questions judged correct against a gold answer that is wrong.",
        "",
        "| type | n | wrong gold | raw | n corrected | corrected | ceiling "
        "| credited on wrong gold | judged again (flips →✓ / →✗) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    rows = [*scores["by_type"].items(), ("**all**", scores["overall"])]
    for t, b in rows:
        lines.append(
            f"| {t} | {b['n']} | {b['n_gold_wrong']} | {_pct(b['raw'])} | "
            f"{b['n_corrected']} | {_pct(b['corrected'])} | {_pct(b['ceiling'])} | "
            f"{b['credited_on_wrong_gold']} | {b['n_rejudged']} "
            f"({b['flips_to_correct']} / {b['flips_to_wrong']}) |"
        )
    if e.get("outside_run"):  # the pipeline's count (errata/stage.py)
        lines += ["", f"{e['outside_run']} corrections name questions outside this run."]
    if e.get("why_not_rejudged"):
        lines += ["", f"Not judged again: {e['why_not_rejudged']}."]
    lines += ["", "Sources: " + "; ".join(e["sources"]) + "."]
    return "\n".join(lines) + "\n"
