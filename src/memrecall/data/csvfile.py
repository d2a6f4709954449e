"""Reading a CSV table with a fixed header (the published-runs manifest, the runs ledger), with
errors that name the file."""

from __future__ import annotations

import csv
from pathlib import Path

from ..errors import InputError


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
