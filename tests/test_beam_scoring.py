"""BEAM's released scores as memrecall computes them: the judge-reply parse, the rubric
combination with the code's cast, and event ordering's Kendall tau-b score."""

from __future__ import annotations

import math

import pytest
from scipy.stats import kendalltau

from memrecall.benchmarks.beam import scoring


def test_reply_parse_follows_the_released_order():
    assert scoring.parse_reply('{"score": 1.0, "reason": "ok"}')["score"] == 1.0
    fenced = '```json\n{"score": 0.5, "reason": "partly"}\n```'
    assert scoring.parse_reply(fenced)["score"] == 0.5
    assert scoring.parse_reply('Here: {"score": 0.0, "reason": "no"} done')["score"] == 0.0
    with pytest.raises(scoring.ReplyError):
        scoring.parse_reply("score is one")


def test_int_cast_drops_half_points_float_keeps_them():
    assert scoring.item_score('{"score": 0.5}', "int") == 0.0
    assert scoring.item_score('{"score": 0.5}', "float") == 0.5
    assert scoring.item_score('{"score": 1.0}', "int") == 1.0
    with pytest.raises(scoring.ReplyError):  # int("0.5") raises in the released code too
        scoring.item_score('{"score": "0.5"}', "int")
    assert scoring.rubric_score([1.0, 0.0, 1.0, 1.0], 4) == 0.75


def test_align_takes_the_first_unused_match_in_order():
    def eq(ref, line):
        return ref.lower() in line.lower()

    got = scoring.align(["A", "B"], ["1. a", "2. a again", "3. b", ""], eq)
    assert got == ["A", "2. a again", "B", ""]


def test_ordering_score_matches_scipy_on_the_union_ranking():
    ref = ["A", "B", "C", "D"]
    aligned = ["B", "A", "x", "D"]  # C missing, one extra line
    s = scoring.ordering_score(ref, aligned)
    assert s["precision"] == pytest.approx(3 / 4) and s["recall"] == pytest.approx(3 / 4)
    union = ["A", "B", "C", "D", "x"]  # absent items tie at rank len(union) + 1 = 6
    r_ref, r_sys = [1, 2, 3, 4, 6], [2, 1, 6, 4, 3]
    tau = kendalltau(r_ref, r_sys, variant="b").statistic
    assert [u for u in union] == list(dict.fromkeys(ref + aligned))
    assert s["tau_b"] == pytest.approx(tau)
    assert s["tau_norm"] == pytest.approx((tau + 1) / 2)
    assert s["final_score"] == pytest.approx(s["tau_norm"] * s["f1"])


def test_perfect_reversed_and_undefined_orders():
    assert scoring.ordering_score(["a", "b", "c"], ["a", "b", "c"])["tau_norm"] == 1.0
    assert scoring.ordering_score(["a", "b", "c"], ["c", "b", "a"])["tau_norm"] == 0.0
    one = scoring.ordering_score(["a"], ["a"])  # a single ranked item: tau undefined
    assert math.isnan(one["tau_b"])
    assert scoring.ordering_value(one) == (0.0, True)


def test_repeated_line_keeps_its_last_position():
    s = scoring.ordering_score(["a", "b"], ["b", "a", "b"])
    # ranks over union [a, b]: reference [1, 2], answer [2, 3] -> concordant
    assert s["tau_b"] == pytest.approx(1.0)
