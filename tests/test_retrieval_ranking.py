"""Dense, BM25 and fused orderings on tiny hand-made haystacks; oracle; round aggregation."""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

from confs import group
from memrecall.errors import ConfigError, InputError
from memrecall.retrieval.bm25 import BM25Scorer
from memrecall.retrieval.dense import cosine_scores
from memrecall.retrieval.embed import vectors_column
from memrecall.retrieval.fusion import fuse, minmax, ranks
from memrecall.retrieval.ranking import rank_order, session_max, top_ranked
from memrecall.retrieval.retrieve import retrieve

RCFG = group("retrieval", "dense", bm25_stemmer="none")
ECFG = group("embedder", "minilm")


def test_dense_scores_max_aggregation_and_stable_ties():
    q = np.array([1.0, 0.0], dtype=np.float32)
    units = np.array([[0.6, 0.8], [1.0, 0.0], [0.0, 1.0], [0.8, 0.6]], dtype=np.float32)
    s = cosine_scores(q, units)
    np.testing.assert_allclose(s, [0.6, 1.0, 0.0, 0.8], rtol=1e-6)
    sess = session_max(s, np.array([0, 0, 1, 2]), 4)  # session 3 has no unit
    np.testing.assert_allclose(sess, [1.0, 0.0, 0.8, -np.inf])
    assert rank_order(sess).tolist() == [0, 2, 1, 3]
    assert rank_order(np.array([0.5, 0.9, 0.5, 0.5])).tolist() == [1, 0, 2, 3]
    assert rank_order(np.array([0.5, 0.5]), tiebreak=np.array([0.1, 0.2])).tolist() == [1, 0]


def unit(*v):
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_max_cosine_over_several_queries_per_session():
    """The rewrite stage's scoring: a session's best cosine over its units and the question's
    variants."""
    queries = np.stack([unit(1, 0, 0), unit(0, 1, 0)])  # original + one variant
    units = np.stack(
        [
            unit(1, 1, 0),
            unit(0, 0, 1),  # session A: two units
            unit(0, 1, 0),  # session B
            unit(-1, 0, 0),
        ]
    )  # session C
    seg = np.array([0, 0, 1, 2])
    both = session_max(cosine_scores(queries, units), seg, 3)
    np.testing.assert_allclose(both, [np.sqrt(0.5), 1.0, 0.0], atol=1e-6)
    # With the original alone, B is no better than C: the variant is what lifts it.
    alone = session_max(cosine_scores(queries[:1], units), seg, 3)
    np.testing.assert_allclose(alone, [np.sqrt(0.5), 0.0, -1.0], atol=1e-6)
    np.testing.assert_array_equal(cosine_scores(queries[0], units), units @ queries[0])
    assert cosine_scores(queries, np.zeros((0, 3), np.float32)).shape == (0,)


def test_one_tie_and_nan_rule_for_every_ranking():
    scores = np.array([0.5, np.nan, 0.9, 0.5, -np.inf])
    assert rank_order(scores).tolist() == [2, 0, 3, 4, 1]
    assert top_ranked(["a", "b", "c", "d", "e"], scores, 3) == [("c", 0.9), ("a", 0.5), ("d", 0.5)]
    assert ranks(scores).tolist() == [2, 5, 1, 3, 4]  # rrf's ranks follow the same order


def test_rerank_ranks_like_the_others(monkeypatch):
    """Cross-encoder scores: best first, ties in the retriever's order, NaN last (it used to
    come first: polars sorts NaN above every number)."""
    from memrecall.retrieval.rerank import rerank

    class Fixed:
        def score(self, pairs):
            return np.array([0.5, np.nan, 0.9, 0.5, 0.1, 0.2])

    q = pl.DataFrame({"question_id": ["q1", "q2"], "question": ["x?", "y?"]})
    t = pl.DataFrame(
        {
            "session_id": list("abcdef"),
            "turn_index": [0] * 6,
            "role": ["user"] * 6,
            "content": list("abcdef"),
        }
    )
    cands = pl.DataFrame(
        {
            "question_id": ["q1"] * 4 + ["q2"] * 2,
            "rank": [1, 2, 3, 4, 1, 2],
            "session_id": list("abcdef"),
            "score": [0.0] * 6,
        },
        schema_overrides={"rank": pl.Int32},
    )
    cfg = group("reranker", "bge_reranker_v2_m3", model="unused", top_k=4)
    out = rerank(q, t, cands, cfg, reranker=Fixed())
    assert out.select("question_id", "rank", "session_id").rows() == [
        ("q1", 1, "c"),
        ("q1", 2, "a"),
        ("q1", 3, "d"),
        ("q1", 4, "b"),
        ("q2", 1, "f"),
        ("q2", 2, "e"),
    ]
    assert out["rank"].dtype == pl.Int32


def test_bm25_prefers_rare_matching_terms():
    docs = [
        "I bought a red bicycle yesterday",
        "the weather was nice and the sky was blue",
        "my sister bought a house",
        "red red red wine",
    ]
    s = BM25Scorer(RCFG).scores("When did I buy the red bicycle?", docs)
    assert int(np.argmax(s)) == 0
    assert s[1] == 0.0  # no shared token after stopwords
    assert np.all(BM25Scorer(RCFG).scores("the of", docs) == 0)  # only stopwords
    assert BM25Scorer(RCFG).tokenize("The Cat's 2 toys") == ["cat", "toys"]
    stem = BM25Scorer({**RCFG, "bm25_stemmer": "english"})
    assert stem.tokenize("Hiking boots") == stem.tokenize("hike boot") == ["hike", "boot"]
    s2 = stem.scores("my hiking boots", ["I hike in new boots", "boots"])
    assert s2[0] > s2[1] > 0
    with pytest.raises(ConfigError, match="retrieval.bm25_stopwords"):
        BM25Scorer({**RCFG, "bm25_stopwords": "fr"})


def test_bm25_on_a_haystack_without_any_token_scores_zero():
    docs = ["", "the of and", ""]  # empty sessions and stopwords only: nothing to index
    assert BM25Scorer(RCFG).scores("When did I buy the bicycle?", docs).tolist() == [0, 0, 0]


def test_fusions_on_a_keyword_vs_vector_disagreement():
    # Unit 0: strong keyword hit, weak vector; unit 1: best vector, no keywords; unit 2: middling.
    dense = np.array([0.30, 0.70, 0.50])
    bm25 = np.array([9.0, 0.0, 1.0])
    np.testing.assert_allclose(ranks(dense), [3, 1, 2])
    np.testing.assert_allclose(minmax(bm25), [1.0, 0.0, 1 / 9])
    rrf, _ = fuse(dense, bm25, "rrf", rrf_k=60)
    np.testing.assert_allclose(rrf, [1 / 63 + 1 / 61, 1 / 61 + 1 / 63, 1 / 62 + 1 / 62])
    # max: the keyword hit keeps a top score (1.0), tied with the vector winner; the tiebreak
    # (mean of the two normalised scores) puts the keyword hit first.
    mx, tb = fuse(dense, bm25, "max")
    np.testing.assert_allclose(mx, [1.0, 1.0, 0.5])
    assert rank_order(mx, tb).tolist() == [0, 1, 2]
    # weighted 0.8 dense: the keyword hit is diluted below both others.
    w, _ = fuse(dense, bm25, "weighted", dense_weight=0.8)
    np.testing.assert_allclose(w, [0.2, 0.8, 0.4 + 0.2 / 9])
    assert rank_order(w).tolist() == [1, 2, 0]
    with pytest.raises(ConfigError):
        fuse(dense, bm25, "sum")


def _questions(rows):
    return pl.DataFrame(
        rows,
        schema={
            "question_id": pl.String,
            "question": pl.String,
            "haystack_session_ids": pl.List(pl.String),
            "answer_session_ids": pl.List(pl.String),
        },
        orient="row",
    )


def _embeddings(units: list[tuple[str, str, list[float], str]]) -> pl.DataFrame:
    vecs = np.asarray([u[2] for u in units], dtype=np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return pl.from_arrow(
        pa.table(
            {
                "unit_id": [u[0] for u in units],
                "session_id": [u[1] for u in units],
                "key_hash": ["h"] * len(units),
                "vector": vectors_column(vecs),
                "text": [u[3] for u in units],
            }
        )
    )


class FixedEncoder:
    """Query vectors given by hand (the retrieve stage encodes questions with this)."""

    def __init__(self, vecs):
        self.vecs = np.asarray(vecs, dtype=np.float32)

    def encode(self, texts, desc=""):
        return self.vecs[: len(texts)]


def test_retrieve_dense_bm25_hybrid_and_oracle():
    emb = _embeddings(
        [
            ("a", "a", [1, 0, 0], "hiking trip to the alps"),
            ("b", "b", [0.7, 0.7, 0], "my favourite pasta recipe"),
            ("c", "c", [0, 0, 1], "the alps hiking boots I bought"),
            ("z", "z", [0, 1, 0], "not in this haystack"),
        ]
    )
    q = _questions([("q1", "Which boots did I buy for hiking?", ["c", "b", "a", "c"], ["c"])])
    enc = FixedEncoder([[0.9, 0.1, 0.0]])
    dense = retrieve(q, emb, RCFG, ECFG, encoder=enc)
    assert dense.columns == ["question_id", "rank", "session_id", "score"]
    assert dense["session_id"].to_list() == ["a", "b", "c"]  # duplicate 'c' listed once
    assert dense["rank"].to_list() == [1, 2, 3]
    bm = retrieve(q, emb, {**RCFG, "method": "bm25"}, ECFG)
    assert bm["session_id"].to_list()[0] == "c"
    top2 = retrieve(q, emb, {**RCFG, "method": "hybrid", "top_k": 2}, ECFG, encoder=enc)
    assert top2.height == 2
    oracle = retrieve(q, None, {**RCFG, "method": "oracle"}, ECFG)
    assert oracle.rows() == [("q1", 1, "c", 1.0)]


def test_round_granularity_aggregates_by_max_and_orders_turns():
    emb = _embeddings(
        [
            ("s1_1", "s1", [0, 1], "x"),
            ("s1_3", "s1", [1, 0], "y"),
            ("s1_facts", "s1", [0.5, 0.5], "f"),
            ("s2_1", "s2", [0.6, 0.4], "z"),
        ]
    )
    q = _questions([("q1", "?", ["s2", "s1"], ["s1"])])
    out = retrieve(q, emb, RCFG, {**ECFG, "granularity": "round"}, encoder=FixedEncoder([[1, 0]]))
    assert out["session_id"].to_list() == ["s1", "s2"]
    assert out["score"][0] == pytest.approx(1.0)  # the best round's cosine
    assert out["turn_indices"].to_list() == [[2, 0], [0]]  # facts unit is not a turn


def test_missing_embedding_names_question_and_field():
    emb = _embeddings([("a", "a", [1, 0], "x")])
    q = _questions([("q7", "?", ["a", "ghost"], ["a"])])
    with pytest.raises(InputError, match="q7") as e:
        retrieve(q, emb, {**RCFG, "method": "bm25"}, ECFG, source="artifacts/embeddings.parquet")
    assert e.value.field == "haystack_session_ids" and "ghost" in str(e.value)
    with pytest.raises(ConfigError, match="retrieval.method"):
        retrieve(q, emb, {**RCFG, "method": "splade"}, ECFG)


def test_reranker_none_passes_top_k_and_a_named_one_needs_a_model():
    from memrecall.retrieval.rerank import rerank

    cands = pl.DataFrame(
        {
            "question_id": ["q1"] * 3,
            "rank": [1, 2, 3],
            "session_id": ["a", "b", "c"],
            "score": [0.3, 0.2, 0.1],
        },
        schema_overrides={"rank": pl.Int32},
    )
    out = rerank(None, None, cands, group("reranker", "none", top_k=2))
    assert out["session_id"].to_list() == ["a", "b"] and out["score"].to_list() == [0.3, 0.2]
    with pytest.raises(ConfigError, match="reranker.model"):
        rerank(None, None, cands, group("reranker", "bge_reranker_v2_m3", model=None, top_k=2))
