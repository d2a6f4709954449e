"""Passage granularity: long session keys read whole by the encoder, scored by the best passage."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from confs import group
from memrecall.errors import ConfigError
from memrecall.hashing import sha256_text
from memrecall.retrieval.keys import session_keys
from memrecall.retrieval.passages import PassageSplitter, passage_window
from memrecall.retrieval.retrieve import retrieve
from test_retrieval_ranking import RCFG, FixedEncoder, _embeddings, _questions

MINILM = group("embedder", "minilm", granularity="passage")


class WordTokenizer:
    """Whitespace tokens with character offsets (stands in for a model tokenizer)."""

    class _Enc:
        def __init__(self, text):
            import re

            self.offsets = [m.span() for m in re.finditer(r"\S+", text)]
            self.ids = list(range(len(self.offsets)))

    def encode(self, text, add_special_tokens=False):
        return self._Enc(text)


def test_windows_after_the_whole_key_overlap_and_reach_the_end():
    split = PassageSplitter(*passage_window(4, 1, max_length=6), WordTokenizer()).split
    key = "w0 w1 w2 w3 w4 w5 w6 w7 w8 w9"
    # The first passage is the key (the encoder reads its first 4 tokens); then windows
    # starting every 3 tokens, each sharing 1 token with the one before, up to the last word.
    assert split(key) == [key, "w3 w4 w5 w6", "w6 w7 w8 w9"]
    assert split("w0 w1 w2 w3") == ["w0 w1 w2 w3"]  # fits: one passage, no window
    assert split("") == [""]
    assert split("w0 w1 w2 w3 w4") == ["w0 w1 w2 w3 w4", "w3 w4"]


@pytest.mark.parametrize(
    "cfg, key",
    [
        ({"passage_tokens": 4, "passage_overlap": 4}, "embedder.passage_overlap"),
        ({"passage_tokens": 0, "passage_overlap": 0}, "embedder.passage_tokens"),
        ({"passage_tokens": 4, "passage_overlap": -1}, "embedder.passage_overlap"),
        (
            {"passage_tokens": 255, "passage_overlap": 0, "max_length": 256},
            "embedder.passage_tokens",
        ),
        ({"passage_tokens": None, "passage_overlap": 0}, "embedder.passage_tokens"),
    ],
)
def test_bad_passage_settings_name_the_key(cfg, key):
    with pytest.raises(ConfigError, match=key):
        passage_window(cfg["passage_tokens"], cfg["passage_overlap"], cfg.get("max_length"))
    # The stage checks them at its start, with the embedder group.
    from memrecall.retrieval.embedders import embedder_settings

    with pytest.raises(ConfigError, match=key):
        embedder_settings({**MINILM, **cfg})


def _turns(sessions: dict[str, list[str]]) -> pl.DataFrame:
    rows = [
        (sid, 2 * i + j, role, text if role == "user" else "ok", False)
        for sid, texts in sessions.items()
        for i, text in enumerate(texts)
        for j, role in enumerate(("user", "assistant"))
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


def test_minilm_passages_cover_a_long_session_and_reuse_short_session_keys():
    filler = "We talked about the garden and the weather in great detail. " * 60
    turns = _turns(
        {"long": [filler, "My cat is named Miso and she is three."], "short": ["I like tea."]}
    )
    passages = session_keys(None, turns, MINILM)
    sessions = session_keys(None, turns, {**MINILM, "granularity": "session"})
    assert passages["unit_id"].to_list()[-1] == "short_p1"
    long = passages.filter(pl.col("session_id") == "long")["text"].to_list()
    assert len(long) > 2
    # First passage: the whole key (not cut at max_chars), so BM25 reads everything.
    assert long[0] == filler + "\nMy cat is named Miso and she is three."
    assert len(long[0]) > MINILM["max_chars"]
    # The fact at the very end, past what the encoder reads of the key, is in the last window,
    # and every window fits the encoder (254 tokens + [CLS] + [SEP]).
    assert "Miso" in long[-1] and "Miso" not in long[1]
    from memrecall.retrieval.embedders import resolve_model
    from memrecall.retrieval.passages import model_tokenizer

    tok = model_tokenizer(resolve_model(MINILM["model"])[0])
    assert all(len(tok.encode(p, add_special_tokens=False).ids) <= 254 for p in long[1:])
    assert len(tok.encode(long[0], add_special_tokens=False).ids) > 254
    # A short session's one passage is its session key: same hash, so the cache is shared.
    short_p = passages.filter(pl.col("session_id") == "short")["text"].to_list()
    short_s = sessions.filter(pl.col("session_id") == "short")["text"].to_list()
    assert short_p == short_s and sha256_text(short_p[0]) == sha256_text(short_s[0])


def test_best_passage_scores_the_session_and_bm25_reads_the_whole_key():
    ecfg = group("embedder", "minilm", model="x", granularity="passage")
    emb = _embeddings(
        [
            ("a_p1", "a", [0.2, 1.0], "garden weather talk and then my red bicycle"),
            ("a_p2", "a", [1.0, 0.0], "then my red bicycle"),
            ("b_p1", "b", [0.6, 0.4], "a bicycle shop nearby"),
        ]
    )
    q = _questions([("q1", "Which red bicycle did I buy?", ["b", "a"], ["a"])])
    enc = FixedEncoder([[1.0, 0.0]])
    dense = retrieve(q, emb, RCFG, ecfg, encoder=enc)
    assert dense["session_id"].to_list() == ["a", "b"]
    assert dense["score"][0] == pytest.approx(1.0)  # the tail passage's cosine
    # Session granularity would only see a's first unit (cosine 0.196) and rank b first.
    first_only = emb.filter(pl.col("unit_id") != "a_p2")
    assert retrieve(q, first_only, RCFG, ecfg, encoder=enc)["session_id"][0] == "b"
    # BM25 scores sessions by their first unit, the whole key: 'red' counts once, not twice.
    bm = retrieve(q, emb, {**RCFG, "method": "bm25"}, ecfg)
    assert bm["session_id"].to_list() == ["a", "b"]
    from memrecall.retrieval.bm25 import BM25Scorer

    ref = BM25Scorer(RCFG).scores(
        q["question"][0], ["a bicycle shop nearby", "garden weather talk and then my red bicycle"]
    )
    np.testing.assert_allclose(sorted(bm["score"].to_list()), sorted(ref))
    hybrid = retrieve(q, emb, {**RCFG, "method": "hybrid"}, ecfg, encoder=enc)
    assert hybrid["session_id"].to_list() == ["a", "b"]
    # rrf at session level: a is first in both rankings.
    assert hybrid["score"][0] == pytest.approx(2 / 61)


def test_unit_pools_correct_max_pooling_for_session_length():
    from memrecall.retrieval.ranking import expected_max_z, pool_units

    # Blom's approximation against known expected maxima of n standard normals.
    np.testing.assert_allclose(expected_max_z([1, 2, 5, 30]), [0.0, 0.564, 1.163, 2.043], atol=0.04)
    # Session 0: one passage at 0.70; session 1: five passages, best 0.72 by chance.
    scores = np.array([0.70, 0.72, 0.20, 0.30, 0.25, 0.22])
    seg = np.array([0, 1, 1, 1, 1, 1])
    first = np.array([True, True, False, False, False, False])
    assert pool_units(scores, seg, 3, "max").tolist()[:2] == [0.70, 0.72]
    fair = pool_units(scores, seg, 3, "max_fair")
    assert fair[0] == pytest.approx(0.70)  # one unit: unchanged
    assert fair[1] == pytest.approx(0.72 - np.std(scores) * expected_max_z([5])[0])
    assert fair[0] > fair[1] and fair[2] == -np.inf  # session 2 has no unit
    np.testing.assert_allclose(
        pool_units(scores, seg, 2, "max_mean"), [0.70, (0.72 + scores[1:].mean()) / 2]
    )
    np.testing.assert_allclose(pool_units(scores, seg, 2, "blend", first), [0.70, 0.72])
    blend = pool_units(
        np.array([0.7, 0.1, 0.9]), np.array([0, 1, 1]), 2, "blend", np.array([True, True, False])
    )
    np.testing.assert_allclose(blend, [0.7, 0.5])  # (whole key 0.1 + best window 0.9) / 2
    with pytest.raises(ConfigError, match="retrieval.unit_pool"):
        pool_units(scores, seg, 2, "blend")
    with pytest.raises(ConfigError, match="retrieval.unit_pool"):
        pool_units(scores, seg, 2, "mean")


def test_unit_pool_reaches_the_retrieve_stage():
    ecfg = group("embedder", "minilm", model="x", granularity="passage")
    # a: one passage, cosine 0.8; b: a long session whose 4th window hits 0.85 by chance.
    emb = _embeddings(
        [("a_p1", "a", [0.8, 0.6], "short and on topic")]
        + [
            (f"b_p{j}", "b", v, "long")
            for j, v in enumerate([[0.0, 1.0], [0.1, 1.0], [0.2, 1.0], [0.85, 0.527]], 1)
        ]
    )
    q = _questions([("q1", "question", ["b", "a"], ["a"])])
    enc = FixedEncoder([[1.0, 0.0]])
    assert retrieve(q, emb, RCFG, ecfg, encoder=enc)["session_id"].to_list() == ["b", "a"]
    for pool in ("max_fair", "max_mean", "blend"):
        got = retrieve(q, emb, {**RCFG, "unit_pool": pool}, ecfg, encoder=enc)
        assert got["session_id"].to_list() == ["a", "b"], pool
    with pytest.raises(ConfigError, match="retrieval.unit_pool"):
        retrieve(
            q, emb, {**RCFG, "unit_pool": "blend"}, {**ecfg, "granularity": "round"}, encoder=enc
        )
