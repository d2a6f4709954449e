"""Rewrite's pure parts on hand-made inputs: time-aware reordering (±2 days, nothing dropped)
and config checks. Its scoring and ranking are retrieval/ranking.py's (test_retrieval_ranking)."""

from __future__ import annotations

from datetime import date

import pytest

from confs import group
from memrecall.benchmarks.longmemeval.categories import QUESTION_TYPES
from memrecall.errors import ConfigError
from memrecall.rewrite.prompts import TimeRange
from memrecall.rewrite.rewriter import rewrite_settings, starts_on_question_date, time_reorder

DATES = {
    "a": "2023/05/27 (Sat) 10:00",
    "b": "2023/05/29 (Mon) 23:59",
    "c": "2023/06/15 (Thu) 12:00",
    "d": "2023/07/02 (Sun) 00:10",
    "e": "2023/07/03 (Mon) 09:00",
    "f": "no date",
}


def test_time_reorder_moves_in_range_to_front_and_drops_nothing():
    rng = TimeRange(date(2023, 5, 31), date(2023, 6, 30))  # widened: 05/29 .. 07/02
    ranked = ["e", "a", "d", "f", "c", "b"]
    assert time_reorder(ranked, DATES, rng) == ["d", "c", "b", "e", "a", "f"]
    assert time_reorder(ranked, DATES, rng, widen_days=0) == ["c", "e", "a", "d", "f", "b"]
    assert time_reorder(ranked, DATES, None) == ranked
    # Nothing in range: order unchanged.
    assert time_reorder(ranked, DATES, TimeRange(date(2020, 1, 1), date(2020, 1, 2))) == ranked


def test_range_starting_on_the_question_date_is_ignored():
    asked = "2023/06/01 (Thu) 03:56"
    assert starts_on_question_date(TimeRange(date(2023, 6, 1), date(2023, 6, 1)), asked)
    assert not starts_on_question_date(TimeRange(date(2023, 3, 1), date(2023, 6, 1)), asked)
    assert not starts_on_question_date(TimeRange(date(2023, 6, 1), date(2023, 6, 1)), "n/a")


def cfg(**over):
    return group("rewrite", "multiangle", **over)


def test_rewrite_settings():
    s = rewrite_settings(cfg())
    assert s.mode == "multiangle" and s.types == ("single-session-user",)
    assert s.time_types == ("temporal-reasoning",)
    assert rewrite_settings(cfg(name="off")).mode == "off"  # params are read as YAML 1.2
    assert rewrite_settings(cfg(n_variants=0, time_aware=True)).n_variants == 0
    bad = [
        ({"name": "hyde"}, "rewrite.name"),
        ({"name": False}, "rewrite.name"),
        ({"types": ["single-session"]}, "rewrite.types"),
        ({"time_types": "temporal"}, "rewrite.time_types"),
        ({"n_variants": -1}, "rewrite.n_variants"),
        ({"n_variants": "3"}, "rewrite.n_variants"),
        ({"time_aware": "yes"}, "rewrite.time_aware"),
        ({"prompt": "x"}, "rewrite.prompt"),
        ({"name": "off", "time_aware": True}, "rewrite.time_aware"),
    ]
    for over, key in bad:
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            rewrite_settings(cfg(**over), QUESTION_TYPES)
    # rewrite=off uses no question type: another benchmark's default lists pass
    assert rewrite_settings(cfg(name="off"), ("multi-hop",)).types == ("single-session-user",)
