"""reports/data_card.md: the pieces every benchmark's data card shares (each benchmark renders
its own card). Deterministic text (no timestamps): the same data gives the same card, so DVC
sees no change."""

from __future__ import annotations


def num(x) -> str:
    return f"{x:g}" if isinstance(x, float) else f"{x:,}"


def file_rows(source: dict, subset_steps: list[str], n_in_file: int) -> list[str]:
    """The source table's rows on the file's checksum and the subset (every benchmark's card)."""
    return [
        f"| sha256 | `{source['sha256']}` |",
        f"| sha256 checked against | {source['verified_by']} |",
        f"| questions in file | {n_in_file:,} |",
        f"| subset | {'; '.join(subset_steps) if subset_steps else 'none (all questions)'} |",
    ]
