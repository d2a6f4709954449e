"""Variants of judged answers that keep their meaning, and the verdicts they change.

A variant rewrites one judged answer and keeps its label: its response dressed in another house
style (restyle.py), its question asked in other words (reword.py). Re-judging labelled answers
under each variant counts the verdicts that change. Every change is a judge reading form as
meaning, and the labels tell which way it errs. This is evidence a rule was not written from,
because the label of a variant is its original's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from tqdm import tqdm


@dataclass(frozen=True)
class Labelled:
    """One judged response: its question, the response, its label (None when unlabelled),
    whatever else its judge reads (`record`: the reference, the question type), and where it
    comes from (`source`: a run's name), to find a changed verdict again."""

    question: str
    response: str
    label: bool | None = None
    record: Any = None
    source: str | None = None


Variant = Callable[[Labelled], Labelled]


@dataclass
class Changes:
    """How one variant moved a judge's verdicts."""

    n: int = 0  # answers the variant rewrote (a rewording may leave a question as it is)
    changed: int = 0
    toward_label: int = 0  # the variant's verdict agrees with the label, the original's did not
    away_from_label: int = 0
    answers: list = field(default_factory=list)  # `key` of each answer whose verdict changed


def verdict_changes(
    items: Iterable[Labelled],
    judge: Callable[[Labelled], bool],
    variants: dict[str, Variant],
    progress: bool = False,
    key: Callable[[Labelled], Any] | None = None,
) -> dict[str, Changes]:
    """Per variant, the answers it rewrites whose verdict `judge(item)` differs from the
    original's: how many, and with `key`, which (`key(item)` of each, so that they can be read)."""
    items = list(items)
    bar = tqdm(total=len(items) * (1 + len(variants)), desc="variants", disable=not progress)
    original = []
    for item in items:
        original.append(judge(item))
        bar.update()
    out = {}
    for name, variant in variants.items():
        counts = Changes()
        for item, before in zip(items, original, strict=True):
            bar.update()
            other = variant(item)
            if other == item:
                continue
            counts.n += 1
            after = judge(other)
            if after == before:
                continue
            counts.changed += 1
            if key is not None:
                counts.answers.append(key(item))
            if item.label is not None:
                if after == item.label:
                    counts.toward_label += 1
                else:
                    counts.away_from_label += 1
        out[name] = counts
    bar.close()
    return out
