"""judge=file: verdicts from an official eval-results log (memrecall.interchange), no model
calls; each verdict keeps the judge model the log recorded.

The log must label the same answers the read stage holds (normally reader=file on the same
run's hypotheses). Errors name the file, line, question id and field:
- a log id that is not a dataset question, or an id twice (interchange);
- a missing or non-boolean label, or two judge models in one log (interchange);
- an answered question with no line in the log;
- a log line whose hypothesis differs from the answer being judged, or that labels a question
  the answers leave missing.
"""

from __future__ import annotations

from ..data.subset import resolve_path
from ..errors import InputError, MemrecallError
from ..hashing import sha256_file
from ..interchange import read_eval_results


def judge_from_log(items: list[dict], judge_cfg: dict) -> tuple[list[dict], dict]:
    """(rows, stats) for the answered items; `items` are all questions (see judge._items)."""
    if not judge_cfg["path"]:
        raise MemrecallError(
            "judge=file needs judge.path: an official eval-results log "
            "(JSON lines with autoeval_label: {model, label})"
        )
    path = resolve_path(str(judge_cfg["path"]))
    entries = read_eval_results(path)
    by_q = {it["question_id"]: it for it in items}
    for e in entries:
        where = {"file": str(path), "line": e["line"], "question_id": e["question_id"]}
        it = by_q.get(e["question_id"])
        if it is None:
            raise InputError("question_id not in the dataset", field="question_id", **where)
        if it["reader_error"]:
            raise InputError(
                f"the log labels a question the answers do not have ({it['reader_error']})",
                field="hypothesis",
                **where,
            )
        if e["hypothesis"] != it["hypothesis"]:
            raise InputError(
                "the log's hypothesis differs from the answer being judged (judge "
                "a log with the hypotheses it labelled: reader=file on the same "
                "run)",
                field="hypothesis",
                **where,
            )
    labelled = {e["question_id"]: e for e in entries}
    rows = []
    for it in items:
        if it["reader_error"]:
            continue
        e = labelled.get(it["question_id"])
        if e is None:
            raise InputError(
                "no label for this answered question in the log",
                file=str(path),
                question_id=it["question_id"],
                field="autoeval_label",
            )
        rows.append(
            {
                "question_id": it["question_id"],
                "label": e["label"],
                "judge_model": e["model"],
                "raw": f"{path.name}:{e['line']}",
                "error": None,
            }
        )
    return rows, {"log_sha256": sha256_file(path)}
