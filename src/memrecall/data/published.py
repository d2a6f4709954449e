"""Published runs with official judge labels, for measuring a judge on answers it was not
developed on: a manifest of eval-results files in public repositories, each pinned to a commit
and to the answers it held when it was measured, fetched into a folder that
bench/judge_agreement.py reads (`--logs DIR/*.jsonl`).

The manifest (CSV: name, repo, commit, path, select, format, judge_model, answers,
official_accuracy, answers_sha256) names each file where it was published; `name` is the run's
name in the bench's tables (its family before the first "_"). A sweep's harness often writes
every condition into one log, a line per condition and question: `select`
(`strategy=hybrid_raw;k=5`) names the run's lines by their fields' values (in a harness's
file of several systems, the field its format takes: bettermemory's `arm`). `format` names a
harness's own file format (memrecall.data.run_formats; empty: an official eval-results log), and
`judge_model` the snapshot behind a file's judge alias (or that judged labels naming none)
where the publisher documents it. A run
published as several files (its labels apart from its answers) names them all in `path`,
separated by ";", in the order its format reads them, and in `commit` one commit for all or one
per file (files committed apart: its labels added after its answers). A run selected, in
another format or given a snapshot is kept as its answers in the official format; otherwise the
file is kept as published. A file is downloaded from raw.githubusercontent.com
(or a mirror given as `base_url`, laid out the same way: <base>/<repo>/<commit>/<path>), read
in its format, and kept only when its answers are the ones pinned. The pin is a hash of the
answers (question id, hypothesis, judge model, label), not of the file's bytes: the same answers
written with other JSON escapes are the same run. A file already in the folder whose answers
match is used without a request. Nothing half-downloaded or unverified replaces a good file, and
nothing is downloaded while the project's offline switch (MEMRECALL_OFFLINE, HF_HUB_OFFLINE) is
set.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path

from ..artifacts import atomic_path
from ..errors import InputError, MemrecallError
from ..interchange import read_eval_results, write_eval_results
from .csvfile import number, read_rows
from .run_formats import FORMATS, files_error, read_run
from .url import download, offline_switch

RAW_BASE = "https://raw.githubusercontent.com"
PATH_SEPARATOR = ";"  # between the files of a run published as several
COLUMNS = (
    "name",
    "repo",
    "commit",
    "path",
    "select",
    "format",
    "judge_model",
    "answers",
    "official_accuracy",
    "answers_sha256",
)


@dataclass(frozen=True)
class PublishedRun:
    name: str
    repo: str
    commit: str  # one for all its files, or one per file, PATH_SEPARATOR between them
    path: str  # the file in the repository; several, PATH_SEPARATOR between them
    select: str  # "field=value;field=value": the run's lines in a log of several; "" all
    answers: int
    official_accuracy: float
    answers_sha256: str
    format: str = ""  # memrecall.data.run_formats; "" an official eval-results log
    judge_model: str = ""  # the snapshot behind the file's judge alias; "" as the file names it

    @property
    def files(self) -> list[str]:
        """The run's files in the repository, in the order its format reads them."""
        return self.path.split(PATH_SEPARATOR)

    def answers_of(self, copies: str | Path | list[str | Path]) -> list[dict]:
        """The run's answers in copies of its published files, as eval-results rows."""
        return read_run(copies, self.format, parse_select(self.select), self.judge_model)

    @property
    def kept_as_published(self) -> bool:
        """Whether the fetched file is the published one as it is (else its answers, rewritten
        in the official format)."""
        return not (self.select or self.format or self.judge_model)

    @property
    def commits(self) -> list[str]:
        """The commit of each of its files."""
        commits = self.commit.split(PATH_SEPARATOR)
        return commits * len(self.files) if len(commits) == 1 else commits

    def urls(self, base_url: str = RAW_BASE) -> list[str]:
        base = f"{base_url.rstrip('/')}/{self.repo}"
        return [f"{base}/{commit}/{file}" for commit, file in zip(self.commits, self.files)]


def commits_error(commit: str, path: str) -> str | None:
    """What is wrong with a run's `commit` for its `path`: one full commit for all its files, or
    one per file; None when nothing is."""
    commits, files = commit.split(PATH_SEPARATOR), path.split(PATH_SEPARATOR)
    if len(commits) not in (1, len(files)):
        return f"{len(commits)} commits for {len(files)} files: give one, or one per file"
    bad = [c for c in commits if not re.fullmatch(r"[0-9a-f]{40}", c)]
    return f"not a full commit (40 hex digits): {bad[0]!r}" if bad else None


def parse_select(select: str) -> dict[str, str]:
    """{field: value} of a `select` ("strategy=hybrid_raw;k=5"); {} for ""."""
    out = {}
    for part in filter(str.strip, select.split(";")):
        field, eq, value = part.partition("=")
        if not eq or not field.strip():
            raise MemrecallError(f"select {select!r}: {part.strip()!r} is not field=value")
        out[field.strip()] = value.strip()
    return out


def answers_sha256(rows: list[dict]) -> str:
    """The pin of an eval-results log's answers (read_eval_results rows), whatever the order of
    its lines or the escapes of its JSON."""
    answers = sorted((r["question_id"], r["hypothesis"], r["model"], r["label"]) for r in rows)
    blob = json.dumps(answers, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def read_manifest(path: str | Path) -> list[PublishedRun]:
    path = Path(path)
    runs = []
    for line, row in read_rows(path, COLUMNS):
        numbers = {
            field: number(row, field, kind, line, path)
            for field, kind in (("answers", int), ("official_accuracy", float))
        }
        if row["format"] not in FORMATS:
            raise InputError(
                f"line {line}: format {row['format']!r} is not one of "
                f"{', '.join(map(repr, FORMATS))}",
                file=str(path),
                field="format",
            )
        wrong = files_error(row["format"], len(row["path"].split(PATH_SEPARATOR)))
        if wrong:
            raise InputError(f"line {line}: {wrong}", file=str(path), field="path")
        wrong = commits_error(row["commit"], row["path"])
        if wrong:
            raise InputError(f"line {line}: {wrong}", file=str(path), field="commit")
        runs.append(PublishedRun(**{k: row[k] for k in COLUMNS if k not in numbers}, **numbers))
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise InputError("a run name is given twice", file=str(path), field="name")
    return runs


def manifest_row(run: PublishedRun) -> dict:
    return {k: getattr(run, k) for k in COLUMNS}


def describe(
    name: str,
    repo: str,
    commit: str,
    path: str,
    log: str | Path | list[str | Path],
    select: str = "",
    format: str = "",
    judge_model: str = "",
) -> PublishedRun:
    """A manifest entry for a log at hand (a copy of the published file, or copies of its files in
    the order of `path`): the answers of its lines `select` keeps, read in `format` and labelled
    as `judge_model`'s, counted, scored and pinned."""
    copies = [log] if isinstance(log, (str, Path)) else list(log)
    wrong = commits_error(commit, path)
    if wrong:
        raise MemrecallError(wrong)
    where = PublishedRun(  # the run but for what its answers give
        name=name,
        repo=repo,
        commit=commit,
        path=path,
        select=select,
        format=format,
        judge_model=judge_model,
        answers=0,
        official_accuracy=0.0,
        answers_sha256="",
    )
    if len(copies) != len(where.files):
        raise MemrecallError(
            f"path names {len(where.files)} file(s) ({path}), but {len(copies)} copies are given"
        )
    rows = where.answers_of(copies)
    return replace(
        where,
        answers=len(rows),
        official_accuracy=round(sum(r["label"] for r in rows) / len(rows), 4),
        answers_sha256=answers_sha256(rows),
    )


def fetch(run: PublishedRun, out_dir: str | Path, base_url: str = RAW_BASE) -> tuple[Path, bool]:
    """(the run's log in out_dir, whether it was downloaded now). A log already there with the
    pinned answers is kept; otherwise the published files are downloaded and must hold them."""
    dest = Path(out_dir) / f"{run.name}.jsonl"
    if dest.is_file() and _pinned(run, dest):
        return dest, False
    urls = run.urls(base_url)
    switch = offline_switch()
    if switch:
        raise MemrecallError(
            f"{switch} is set, so {run.name} is not downloaded from {', '.join(urls)}; unset it "
            "to fetch"
        )
    hint = (
        f"The run {run.name} is published at https://github.com/{run.repo} "
        f"(commit {', '.join(dict.fromkeys(run.commits))})."
    )
    where = " + ".join(urls)
    with atomic_path(dest) as tmp, ExitStack() as stack:
        # one file: downloaded where it is kept; several: into a folder of parts, then joined
        if len(urls) == 1:
            copies = [tmp]
        else:
            parts = stack.enter_context(
                tempfile.TemporaryDirectory(prefix=f".{run.name}.", dir=dest.parent)
            )
            copies = [Path(parts) / str(i) for i in range(len(urls))]
        for url, copy in zip(urls, copies):
            download(url, copy, hint)
        try:
            rows = run.answers_of(copies)
        except InputError as e:
            kind = f"a {run.format} run" if run.format else "an eval-results log"
            kind += f" with {run.select}" if run.select else ""
            raise MemrecallError(f"{where} is not {kind}: {e}") from None
        if not run.kept_as_published:  # the run's own answers, as the official evaluator writes
            write_eval_results(tmp, rows)
        got = answers_sha256(rows)
        if got != run.answers_sha256:
            raise MemrecallError(
                f"{where} holds other answers than the manifest pinned for {run.name} "
                f"({len(rows)} answers, sha256 {got[:12]}; pinned {run.answers} answers, "
                f"{run.answers_sha256[:12]}): the figures measured on it would not be reproduced"
            )
    return dest, True


def _pinned(run: PublishedRun, log: Path) -> bool:
    try:
        return answers_sha256(read_eval_results(log)) == run.answers_sha256
    except InputError as e:
        print(f"published: {log} is damaged ({e}); downloading it again", file=sys.stderr)
        return False
