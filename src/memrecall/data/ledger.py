"""The ledger of labelled runs a judge was developed against: which published runs each round of
development read, and which it only measured.

A held-out figure means something only while its runs are ones no round read. Names drift (a
round calls a run `daidocs_gpt4o_s`, a later manifest `kerneta_gpt4o_s`) and copies are lost
between machines, so a round that knows runs only by the names on its disk can take a run read
long before for an unseen one. The ledger keys each run by what it is (repository @ commit and
path, `#select` for one run of a log of several; for a run published as several files, their
paths as the manifest joins them; a harness's run folder for a run not in the manifest whose
labels and answers are separate files), lists every name it was given, and says which round
first measured it, which first read its disagreements ("never" if none has), and which held it
out.

CSV columns: key, names ("|"-separated), manifest_name (its row in the published-runs manifest,
or empty), answers, judge, first_measured_round, first_read_round, held_in_rounds, evidence
(where the round documents say so), notes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from .csvfile import number, read_rows
from .published import PATH_SEPARATOR

COLUMNS = (
    "key",
    "names",
    "manifest_name",
    "answers",
    "judge",
    "first_measured_round",
    "first_read_round",
    "held_in_rounds",
    "evidence",
    "notes",
)
NEVER = "never"


@dataclass(frozen=True)
class LedgerRun:
    key: str
    names: tuple[str, ...]
    manifest_name: str
    answers: int
    judge: str
    first_measured_round: int
    first_read_round: int | None  # None: no round has read it
    held_in_rounds: str
    evidence: str
    notes: str

    def read_by(self, round_: int | None) -> bool:
        """Whether a round up to `round_` (any round, for None) read its disagreements."""
        read = self.first_read_round
        return read is not None and (round_ is None or read <= round_)


def manifest_key(repo: str, commit: str, path: str, select: str = "") -> str:
    """The ledger key of a run published as a file (a manifest row): repo@commit:path, the
    commit cut to 12 hex digits (each of them, for a run whose files were committed apart),
    `#select` for one run of a log of several."""
    cut = PATH_SEPARATOR.join(c[:12] for c in commit.split(PATH_SEPARATOR))
    return f"{repo}@{cut}:{path}" + (f"#{select}" if select else "")


def _round(value: str, field: str, line: int, path: Path) -> int:
    try:
        out = int(value)
    except ValueError:
        out = -1
    if out < 1:
        raise InputError(
            f"line {line}: {field} is {value!r}, not a round number", file=str(path), field=field
        )
    return out


def read_ledger(path: str | Path) -> list[LedgerRun]:
    """The ledger's runs; every name belongs to one run only, and no run is read before the
    round that first measured it."""
    path = Path(path)
    runs, owner = [], {}
    for line, row in read_rows(path, COLUMNS):
        names = tuple(n.strip() for n in row["names"].split("|") if n.strip())
        if not row["key"] or not names:
            raise InputError(f"line {line}: a run needs a key and a name", file=str(path))
        if row["manifest_name"] and row["manifest_name"] not in names:
            raise InputError(
                f"line {line}: manifest_name {row['manifest_name']!r} is not among its names",
                file=str(path),
                field="manifest_name",
            )
        for name in names + (row["key"],):
            if name in owner:
                raise InputError(
                    f"line {line}: {name!r} already names the run on line {owner[name]}",
                    file=str(path),
                    field="names",
                )
            owner[name] = line
        measured = _round(row["first_measured_round"], "first_measured_round", line, path)
        read = row["first_read_round"].strip()
        read_round = None if read == NEVER else _round(read, "first_read_round", line, path)
        if read_round is not None and read_round < measured:
            raise InputError(
                f"line {line}: read in round {read_round}, before round {measured} first "
                f"measured it",
                file=str(path),
                field="first_read_round",
            )
        runs.append(
            LedgerRun(
                key=row["key"],
                names=names,
                manifest_name=row["manifest_name"],
                answers=number(row, "answers", int, line, path),
                judge=row["judge"],
                first_measured_round=measured,
                first_read_round=read_round,
                held_in_rounds=row["held_in_rounds"],
                evidence=row["evidence"],
                notes=row["notes"],
            )
        )
    return runs


def run_of(runs: list[LedgerRun]) -> dict[str, LedgerRun]:
    """Every name (and key) a run goes by -> the run."""
    return {name: run for run in runs for name in (*run.names, run.key)}


def history(runs: list[LedgerRun], key: str, name: str) -> str:
    """What the ledger says of the run `key` about to be measured as `name`: who read it and
    when, or that it has no row yet (so a run read under another name is not taken for new)."""
    run = next((r for r in runs if r.key == key), None)
    if run is None:
        return (
            f"{name} is not in the ledger: add its row (key {key}, first_read_round never) "
            f"before measuring it"
        )
    known = "|".join(run.names)
    what = (
        f"read in round {run.first_read_round}, so it is a development run"
        if run.first_read_round is not None
        else f"never read (held out in rounds {run.held_in_rounds or 'none'})"
    )
    missing = "" if name in run.names else f"; add {name} to its names"
    return f"{name} is in the ledger as {known}: {what}{missing}"
