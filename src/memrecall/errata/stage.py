"""`dataset.errata=<name>`: a run's scores with an errata overlay (overlay.py) beside its raw ones.

    dvc exp run -S dataset.errata=longmemeval_s_cleaned    # errata/longmemeval_s_cleaned.json

Where the overlay lives: a name is `errata/<name>.json` (or .yaml / .yml) in the project; a
value with a `/` or a file suffix is a path (relative to the project, or absolute): source.py.

How it runs, so that editing the overlay reruns only what it affects:
- sources (every repro): reads and checks the overlay and writes it, with its sha256, to
  artifacts/errata.json (source.py); download does not read that file, so an edited
  overlay reruns no download and nothing that follows it but the two stages below;
- errata (after judge, `run_errata`): checks every correction against the run's questions (its
  `old` value must be what the run read: errors name the file, the question id and the field;
  on a run of the whole dataset the overlay names, an id it lacks is an error too), applies
  them, and has the run's own judge (judge.stage.judge_answers: an LLM judge's calls go through
  the cached client) judge again every question whose answer, question or type changed, against
  the corrected gold: artifacts/verdicts_errata.parquet. Imported labels (judge=file) cannot
  judge a corrected gold: the table stays empty and says why;
- aggregate: raw and corrected scores side by side, and the ceiling (overlay.errata_scores):
  metrics.json["errata"] and a section of reports/by_type.md (report.py).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..errors import InputError
from .overlay import Errata, apply_errata, rejudged_questions
from .source import read_record


def check_ids(questions: pl.DataFrame, errata: Errata, file: str, recorded: dict) -> list[str]:
    """The corrections' question ids the run lacks (a subset, or a file that holds part of the
    dataset the overlay was made for). On a run of that whole dataset (the overlay names the
    run's dataset and no subset key is set: `recorded`, the download stage's params) such an id
    is an error."""
    from ..data.subset import SUBSET_KEYS

    have = set(questions["question_id"].to_list())
    whole = recorded.get("name") == errata.dataset and all(
        recorded.get(k) is None for k in SUBSET_KEYS
    )
    outside = []
    for i, c in enumerate(errata.corrections):
        if c.question_id in have or (c.field == "present" and c.old is False):
            continue  # present: false -> true adds a question the run's data never had
        if whole:
            raise InputError(
                f"not a question of {errata.dataset}, and this run holds all of it",
                file=file,
                question_id=c.question_id,
                field=f"corrections[{i}].question_id",
            )
        outside.append(c.question_id)
    return sorted(set(outside))


def run_errata(
    judge_cfg: dict,
    *,
    errata: str | Path,
    questions: str | Path,
    answers: str | Path,
    out: str | Path,
) -> pl.DataFrame:
    """The errata stage (module docstring): verdicts against the corrected gold."""
    from .. import benchmarks
    from ..artifacts import read_meta, read_table, write_table
    from ..config import identity
    from ..judge.stage import VERDICT_SCHEMA, judge_answers, judge_kind

    rec, overlay = read_record(errata)
    empty = pl.DataFrame(schema=VERDICT_SCHEMA)
    if overlay is None:
        write_table(empty, out, table="verdicts", stage="errata", extra_meta={"errata": None})
        print("errata: no overlay (dataset.errata is null)")
        return empty
    q = read_table(questions, "questions")
    fixed = apply_errata(q, overlay, file=rec["file"])  # refuses errata for another version
    outside = check_ids(q, overlay, rec["file"], read_meta(questions).get("params") or {})
    ids = rejudged_questions(q, fixed)
    kind = judge_kind(judge_cfg)
    meta = {
        "errata": {k: rec[k] for k in ("errata", "file", "sha256")},
        "rejudged": kind != "file",
        "outside_run": len(outside),
    }
    if kind == "file":
        meta["why"] = (
            "imported labels (judge=file) cannot judge an answer against a corrected gold: "
            "the corrected score leaves out every question whose gold is wrong"
        )
        df = empty
    elif ids:
        keep = pl.col("question_id").is_in(ids)
        a = read_table(answers, "answers")
        df = judge_answers(
            benchmarks.of_artifact(questions),
            fixed.filter(keep),
            a.filter(keep),
            judge_cfg,
            answers_file=str(answers),
        )
    else:
        df = empty
    write_table(
        df,
        out,
        table="verdicts",
        stage="errata",
        params=identity(judge_cfg),
        input_files=[errata, questions, answers],
        extra_meta=meta,
    )
    print(
        f"errata ({rec['errata']}): {len(overlay.corrections)} corrections, "
        f"{q.height - fixed.height} questions removed, {df.height} judged again against the "
        f"corrected gold by {judge_cfg['name']}"
        + (f"; {len(outside)} name questions outside this run" if outside else "")
        + (f"; {meta['why']}" if "why" in meta else "")
    )
    return df
