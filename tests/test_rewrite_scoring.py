"""Rewrite's pure parts on hand-made inputs: max-cosine rescoring, deterministic ranking,
time-aware reordering (±2 days, nothing dropped) and config checks."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from memrecall.errors import ConfigError
from memrecall.rewrite.rewriter import (max_cosine, rank_scores, rewrite_settings,
                               starts_on_question_date, time_reorder)
from memrecall.rewrite.prompts import TimeRange


def unit(*v):
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_max_cosine_over_queries_and_units():
    queries = np.stack([unit(1, 0, 0), unit(0, 1, 0)])      # original + one variant
    units = np.stack([unit(1, 1, 0), unit(0, 0, 1),           # session A: two units
                      unit(0, 1, 0),                          # session B
                      unit(-1, 0, 0)])                        # session C
    scores = max_cosine(queries, units, ["A", "A", "B", "C"])
    assert scores["A"] == pytest.approx(np.sqrt(0.5), abs=1e-6)
    assert scores["B"] == pytest.approx(1.0, abs=1e-6)   # found only through the variant
    assert scores["C"] == pytest.approx(0.0, abs=1e-6)   # max(-1, 0)
    # With the original alone, B is no better than C: the variant is what lifts it.
    alone = max_cosine(queries[:1], units, ["A", "A", "B", "C"])
    assert alone["B"] == pytest.approx(0.0, abs=1e-6)
    assert max_cosine(queries, np.zeros((0, 3)), []) == {}


def test_rank_scores_best_first_ties_keep_pool_order_and_top_k():
    scores = {"s3": 0.5, "s1": 0.9, "s2": 0.5, "s4": 0.1}
    assert rank_scores(scores, 3) == [("s1", 0.9), ("s3", 0.5), ("s2", 0.5)]


DATES = {"a": "2023/05/27 (Sat) 10:00", "b": "2023/05/29 (Mon) 23:59",
         "c": "2023/06/15 (Thu) 12:00", "d": "2023/07/02 (Sun) 00:10",
         "e": "2023/07/03 (Mon) 09:00", "f": "no date"}


def test_time_reorder_moves_in_range_to_front_and_drops_nothing():
    rng = TimeRange(date(2023, 5, 31), date(2023, 6, 30))   # widened: 05/29 .. 07/02
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
    return {"name": "multiangle", "types": ["single-session-user"], "n_variants": 3,
            "prompt": "multiangle", "time_aware": False, **over}


def test_rewrite_settings():
    s = rewrite_settings(cfg())
    assert s.mode == "multiangle" and s.types == ("single-session-user",)
    assert s.time_types == ("temporal-reasoning",)
    assert rewrite_settings(cfg(name="off")).mode == "off"  # params are read as YAML 1.2
    assert rewrite_settings(cfg(n_variants=0, time_aware=True)).n_variants == 0
    bad = [({"name": "hyde"}, "rewrite.name"), ({"name": False}, "rewrite.name"), ({"types": ["single-session"]}, "rewrite.types"),
           ({"time_types": "temporal"}, "rewrite.time_types"),
           ({"n_variants": -1}, "rewrite.n_variants"), ({"n_variants": "3"}, "rewrite.n_variants"),
           ({"time_aware": "yes"}, "rewrite.time_aware"), ({"prompt": "x"}, "rewrite.prompt"),
           ({"name": "off", "time_aware": True}, "rewrite.time_aware")]
    for over, key in bad:
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            rewrite_settings(cfg(**over))
