"""Reading a CSV table with a fixed header (the published-runs manifest, the runs ledger), with
errors that name the file."""

from __future__ import annotations

import csv
from pathlib import Path

from ..errors import InputError


def number(row: dict[str, str], field: str, kind: type, line: int, path: str | Path):
    """`row[field]` read as `kind` (int, float), or an error that names the file, line and
    field."""
    try:
        return kind(row[field])
    except (TypeError, ValueError):
        raise InputError(
            f"line {line}: {field} is {row[field]!r}, not a number", file=str(path), field=field
        ) from None


def read_rows(path: str | Path, columns: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    """(line number, row) for each data row; the header must be exactly `columns`."""
    path = Path(path)
    try:
        f = open(path, newline="", encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot read the table: {e.strerror}", file=str(path)) from None
    with f:
        reader = csv.DictReader(f)
        if tuple(reader.fieldnames or ()) != columns:
            raise InputError(
                f"expected the columns {', '.join(columns)}; got {reader.fieldnames}",
                file=str(path),
                field="header",
            )
        return list(enumerate(reader, start=2))
