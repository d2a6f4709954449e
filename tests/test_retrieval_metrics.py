"""Retrieval metrics on hand-made cases, by the official LongMemEval definitions."""

from __future__ import annotations

import math

import polars as pl
import pytest

from memrecall.eval.retrieval_metrics import (
    dcg,
    ranking_metrics,
    retrieval_metrics,
    retrieval_table,
)


def _turns(spec: dict[str, list[tuple[str, bool]]]) -> pl.DataFrame:
    rows = [
        (sid, i, role, f"{sid} turn {i}", has)
        for sid, turns in spec.items()
        for i, (role, has) in enumerate(turns)
    ]
    return pl.DataFrame(
        rows,
        schema={
            "session_id": pl.String,
            "turn_index": pl.Int32,
            "role": pl.String,
            "content": pl.String,
            "has_answer": pl.Boolean,
        },
        orient="row",
    )


def _questions(rows) -> pl.DataFrame:
    return pl.DataFrame(
        [
            (qid, qtype, qid.endswith("_abs"), "q?", "a", "2023/01/01 (Sun) 00:00", hay, ev)
            for qid, qtype, hay, ev in rows
        ],
        schema={
            "question_id": pl.String,
            "question_type": pl.String,
            "is_abstention": pl.Boolean,
            "question": pl.String,
            "answer": pl.String,
            "question_date": pl.String,
            "haystack_session_ids": pl.List(pl.String),
            "answer_session_ids": pl.List(pl.String),
        },
        orient="row",
    )


def _cands(ranked: dict[str, list[str]]) -> pl.DataFrame:
    rows = [
        (qid, r, sid, 1.0 / r)
        for qid, sids in ranked.items()
        for r, sid in enumerate(sids, start=1)
    ]
    return pl.DataFrame(
        rows,
        schema={
            "question_id": pl.String,
            "rank": pl.Int32,
            "session_id": pl.String,
            "score": pl.Float64,
        },
        orient="row",
    )


USER_ANS = [("user", True), ("assistant", False)]
USER_PLAIN = [("user", False), ("assistant", False)]
ASSIST_ANS = [("user", False), ("assistant", True)]


def test_official_dcg_weighs_ranks_one_and_two_equally():
    assert dcg([1, 1, 1], 3) == pytest.approx(1 + 1 + 1 / math.log2(3))
    m = ranking_metrics(["x", "g"], {"g"}, ks=(1, 2))
    assert m["ndcg_any@1"] == 0.0
    assert m["ndcg_any@2"] == 1.0  # rel_1 + rel_2/log2(2): rank 2 scores like rank 1


def test_recall_any_vs_recall_all_and_exact_ndcg():
    m = ranking_metrics(["s1", "s2", "s3", "s4"], {"s1", "s3"}, ks=(1, 3))
    assert (m["recall_any@1"], m["recall_all@1"]) == (1.0, 0.0)
    assert (m["recall_any@3"], m["recall_all@3"]) == (1.0, 1.0)
    # DCG = 1 + 0 + 1/log2(3); ideal = 1 + 1
    assert m["ndcg_any@3"] == pytest.approx((1 + 1 / math.log2(3)) / 2)
    assert m["ndcg_any@3"] == pytest.approx(0.815465, abs=1e-6)
    assert m["ndcg_any@1"] == 1.0


def test_empty_gold_scores_like_the_official_script():
    m = ranking_metrics(["s1"], set(), ks=(1,))
    assert m == {"recall_any@1": 0.0, "recall_all@1": 1.0, "ndcg_any@1": 0.0}


def test_abstention_excluded_and_assistant_only_evidence_not_gold():
    turns = _turns(
        {"s1": USER_PLAIN, "s2": USER_ANS, "s3": USER_PLAIN, "s4": ASSIST_ANS, "s5": USER_ANS}
    )
    questions = _questions(
        [
            # s4's evidence sits in an assistant turn: not gold, so only s2 counts.
            ("q1", "multi-session", ["s1", "s2", "s3", "s4"], ["s2", "s4"]),
            # abstention: excluded whatever its candidates.
            ("q2_abs", "multi-session", ["s1", "s5"], ["s5"]),
            # only assistant-side evidence: no gold at all.
            ("q3", "single-session-assistant", ["s3", "s4"], ["s4"]),
        ]
    )
    cands = _cands({"q1": ["s4", "s1", "s2", "s3"], "q2_abs": ["s1", "s5"], "q3": ["s4", "s3"]})
    m = retrieval_metrics(questions, turns, cands, ks=(1, 3, 5))
    assert (m["n"], m["n_abstention"], m["n_no_gold"]) == (1, 1, 1)
    s = m["session"]
    assert s["recall_any@1"] == 0.0 and s["recall_any@3"] == 1.0
    assert s["recall_all@3"] == 1.0  # s4 is not required
    assert s["ndcg_any@3"] == pytest.approx(1 / math.log2(3))
    assert list(m["by_type"]) == ["multi-session"]

    # The official script keeps the no-gold question: recall_any 0, recall_all 1, ndcg 0.
    off = retrieval_metrics(questions, turns, cands, ks=(1, 3, 5), no_gold="official")
    assert off["n"] == 2
    assert off["session"]["recall_any@3"] == 0.5
    assert off["session"]["recall_all@1"] == 0.5  # q1: 0, q3: 1
    assert off["by_type"]["single-session-assistant"]["session"]["recall_all@5"] == 1.0

    # Published-figure protocol: every evidence session is gold (s4 too).
    pub = retrieval_metrics(questions, turns, cands, ks=(1, 3, 5), gold="answer_sessions")
    assert pub["n"] == 2
    assert pub["by_type"]["multi-session"]["session"]["recall_all@3"] == 1.0
    assert pub["by_type"]["multi-session"]["session"]["recall_any@1"] == 1.0
    assert pub["by_type"]["single-session-assistant"]["session"]["recall_any@1"] == 1.0


def test_turn_level_ids_and_ranking():
    # s2: user(0) plain, assistant(1), user(2) has_answer → gold turn id s2_3.
    turns = _turns(
        {
            "s1": [("user", False), ("assistant", False), ("user", False)],
            "s2": [("user", False), ("assistant", False), ("user", True)],
        }
    )
    questions = _questions([("q1", "single-session-user", ["s1", "s2"], ["s2"])])
    # Session order s2, s1 → turns s2_1, s2_3, s1_1, s1_3: the gold turn is 2nd.
    m = retrieval_metrics(questions, turns, _cands({"q1": ["s2", "s1"]}), ks=(1, 3))
    assert m["turn"]["recall_any@1"] == 0.0 and m["turn"]["recall_any@3"] == 1.0
    assert m["turn"]["ndcg_any@3"] == 1.0
    # A turn_indices column (round retrieval) orders the session's turns best-first.
    cands = _cands({"q1": ["s2", "s1"]}).with_columns(
        pl.Series("turn_indices", [[2, 0], [0, 2]], dtype=pl.List(pl.Int32))
    )
    m = retrieval_metrics(questions, turns, cands, ks=(1,))
    assert m["turn"]["recall_any@1"] == 1.0
    assert m["n_turn"] == 1


def test_missing_candidates_count_as_misses_and_table_renders():
    turns = _turns({"s1": USER_ANS, "s2": USER_PLAIN})
    questions = _questions(
        [
            ("q1", "knowledge-update", ["s1", "s2"], ["s1"]),
            ("q2", "knowledge-update", ["s1", "s2"], ["s1"]),
        ]
    )
    m = retrieval_metrics(questions, turns, _cands({"q1": ["s1", "s2"]}), ks=(1, 5, 10))
    assert m["session"]["recall_any@5"] == 0.5
    assert m["session"]["recall_all@10"] == 0.5
    md = retrieval_table(
        {"retrieve": m, "rerank": m}, metrics=("recall_any@1", "recall_any@5", "recall_all@10")
    )
    assert "| retrieve | 2 | 0.500 | 0.500 | 0.500 |" in md
    assert "| rerank | knowledge-update | 2 |" in md
