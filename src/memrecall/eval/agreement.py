"""Agreement between two judges that labelled the same answers (e.g. `rule` vs an LLM judge):
raw agreement, Cohen's kappa and the confusion counts, overall, by question type and for the
abstention questions. Pure functions of two label tables; reading labelings from files, the
Markdown report and the `memrecall agreement` command are report/agreement.py.

Only questions both judges labelled (label not null) count; the rest are reported as skipped.
Kappa = (p_o − p_e) / (1 − p_e), with p_e from each judge's own yes-rate; it is undefined (None)
when both judges give one constant label (p_e = 1).
"""

from __future__ import annotations

from collections.abc import Iterator

import polars as pl

from ..errors import InputError
from .qa_metrics import type_order

# Response lengths in words, banded by round sizes (not fitted to any data): up to 40, 41-100,
# 101-250, over 250.
LENGTH_BANDS = (40, 100, 250)


def length_band(words: int) -> str:
    """The band of LENGTH_BANDS a response of `words` words falls in: "<=40", "41-100", ..."""
    lower = 0
    for upper in LENGTH_BANDS:
        if words <= upper:
            return f"{lower + 1}-{upper}" if lower else f"<={upper}"
        lower = upper
    return f">{lower}"


LENGTH_BAND_NAMES = tuple(length_band(n) for n in (*LENGTH_BANDS, LENGTH_BANDS[-1] + 1))


def response_words(answers: pl.DataFrame) -> pl.DataFrame:
    """question_id, words: each response's (`hypothesis`) length in words, as str.split()
    counts them (runs of non-space); null where there is no response."""
    return answers.select(
        "question_id", pl.col("hypothesis").str.count_matches(r"\S+").alias("words")
    )


def by_length_band(frame: pl.DataFrame) -> Iterator[tuple[str, pl.DataFrame]]:
    """(band, its rows) for each band of LENGTH_BANDS that holds a row of `frame` with a length
    in `words`, shortest first."""
    banded = frame.filter(pl.col("words").is_not_null()).with_columns(
        pl.col("words").map_elements(length_band, return_dtype=pl.String).alias("length")
    )
    for name in LENGTH_BAND_NAMES:
        sub = banded.filter(pl.col("length") == name)
        if sub.height:
            yield name, sub


def cohen_kappa(a, b) -> float | None:
    a, b = [bool(x) for x in a], [bool(x) for x in b]
    if len(a) != len(b):
        raise ValueError("cohen_kappa needs two label lists of equal length")
    n = len(a)
    if n == 0:
        return None
    p_o = sum(x == y for x, y in zip(a, b)) / n
    pa, pb = sum(a) / n, sum(b) / n
    p_e = pa * pb + (1 - pa) * (1 - pb)
    if p_e >= 1.0:
        return None
    return (p_o - p_e) / (1 - p_e)


def _summary(a: list, b: list) -> dict:
    """a_yes / b_yes are each labeling's accuracy over these answers; the confusion table is
    both_yes, a_only_yes, b_only_yes, both_no."""
    n = len(a)
    return {
        "n": n,
        "agreement": (sum(x == y for x, y in zip(a, b)) / n) if n else None,
        "kappa": cohen_kappa(a, b),
        "a_yes": (sum(a) / n) if n else None,
        "b_yes": (sum(b) / n) if n else None,
        "both_yes": sum(x and y for x, y in zip(a, b)),
        "a_only_yes": sum(x and not y for x, y in zip(a, b)),
        "b_only_yes": sum(y and not x for x, y in zip(a, b)),
        "both_no": sum(not x and not y for x, y in zip(a, b)),
    }


def judge_agreement(
    verdicts_a: pl.DataFrame,
    verdicts_b: pl.DataFrame,
    questions: pl.DataFrame | None = None,
    words: pl.DataFrame | None = None,
) -> dict:
    """{"overall": {...}, "by_type": {type: {...}}, "abstention": {...}, "skipped": n} where each
    {...} holds n, agreement, kappa, a_yes, b_yes and the confusion counts (see _summary).
    by_type includes abstention questions in their type (as the official metrics do);
    "abstention" is the abstention questions alone (the is_abstention column of the questions
    or verdicts). With `words` (question_id, words: the response's length), also "by_length":
    the same per band of LENGTH_BANDS, shortest first, bands without an answer left out."""
    source = next(
        (
            t
            for t in (questions, verdicts_a, verdicts_b)
            if t is not None and "question_type" in t.columns
        ),
        None,
    )
    if source is not None:
        types = source.select(
            "question_id",
            "question_type",
            (
                pl.col("is_abstention").fill_null(False)
                if "is_abstention" in source.columns
                else pl.lit(False)
            ).alias("is_abstention"),
        )
    else:
        raise InputError(
            "verdicts lack question_type: pass the questions table", field="question_type"
        )
    j = (
        verdicts_a.select("question_id", pl.col("label").alias("a"))
        .join(
            verdicts_b.select("question_id", pl.col("label").alias("b")),
            on="question_id",
            how="full",
            coalesce=True,
        )
        .join(types, on="question_id", how="left")
        .sort("question_id")
    )
    both = j.filter(pl.col("a").is_not_null() & pl.col("b").is_not_null())
    out = {
        "overall": _summary(both["a"].to_list(), both["b"].to_list()),
        "by_type": {},
        "skipped": j.height - both.height,
    }
    for t in type_order([t for t in both["question_type"].to_list() if t is not None]):
        sub = both.filter(pl.col("question_type") == t)
        out["by_type"][t] = _summary(sub["a"].to_list(), sub["b"].to_list())
    ab = both.filter(pl.col("is_abstention").fill_null(False))
    out["abstention"] = _summary(ab["a"].to_list(), ab["b"].to_list())
    if words is not None:
        out["by_length"] = {
            name: _summary(sub["a"].to_list(), sub["b"].to_list())
            for name, sub in by_length_band(both.join(words, on="question_id", how="inner"))
        }
    return out
