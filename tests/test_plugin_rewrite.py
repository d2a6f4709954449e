"""rewrite=multiangle with retrieval=plugin: the plug-in scores the question and its variants
against one index per question, and its identity joins the rewrite artifact's params."""

from __future__ import annotations

import sys

import numpy as np
import polars as pl
import pytest

from confs import group
from memrecall.artifacts import read_meta, read_table, write_table
from test_plugin_retrieval import write_plugin
from test_rewrite_stage import (  # noqa: F401
    Q_BAD,
    Q_SSU,
    TEXT_VECS,
    FakeEncoder,
    inputs,
    ranked,
    rewrite_cfg,
    run,
    server,
)

OVERLAP = """
    import numpy as np
    CALLS = []
    class Overlap:
        uses_vectors = True
        def index(self, haystack):
            CALLS.append(("index", haystack.question_id, len(haystack.sessions),
                          haystack.vectors.session_ids))
            return Idx(haystack)
    class Idx:
        def __init__(self, h):
            self.h = h
        def search(self, query, k):
            CALLS.append(("search", query.question_id, query.variant, query.text,
                          None if query.vector is None else query.vector.tolist(), k))
            words = set(query.text.lower().split())
            return [(s.session_id, float(len(words & set(
                        " ".join(t.content for t in s.turns if t.role == "user").lower().split()))))
                    for s in self.h.sessions]
"""


def test_variants_reuse_one_index_per_question(server, inputs, tmp_path, monkeypatch):  # noqa: F811
    name = write_plugin(tmp_path, monkeypatch, OVERLAP)
    retrieval = group(
        "retrieval", "plugin", callable=f"{name}:Overlap", options={}, code=f"{name}.py"
    )
    from memrecall.rewrite.rewriter import run_rewrite
    from test_rewrite_stage import EMBEDDER, NO_RERANKER

    p = inputs
    emb = read_table(p["embeddings"])  # the embed stage also stores each unit's key text
    write_table(emb.with_columns(text=pl.col("session_id")), p["embeddings"], stage="test")
    run_rewrite(
        rewrite_cfg(server, time_aware=False),
        EMBEDDER,
        NO_RERANKER,
        questions=p["questions"],
        sessions=p["sessions"],
        turns=p["turns"],
        candidates_rerank=p["candidates_rerank"],
        candidates_retrieve=p["candidates_retrieve"],
        embeddings=p["embeddings"],
        out=p["out"],
        out_rewrites=p["out_rewrites"],
        encoder=FakeEncoder(),
        retrieval_cfg=retrieval,
    )
    calls = sys.modules[name].CALLS
    # q_bad (no usable variant: the question alone) and q_ssu (question + 3 variants): one
    # index each, over the whole haystack of 6 sessions with its unit vectors.
    assert [c[:3] for c in calls if c[0] == "index"] == [
        ("index", "q_bad", 6),
        ("index", "q_ssu", 6),
    ]
    searches = [c for c in calls if c[0] == "search"]
    assert [(c[1], c[2], c[3]) for c in searches] == [
        ("q_bad", 0, Q_BAD),
        ("q_ssu", 0, Q_SSU),
        ("q_ssu", 1, "gin sour recipe"),
        ("q_ssu", 2, "I mixed a drink"),
        ("q_ssu", 3, "rum punch"),
    ]
    assert searches[2][4] == pytest.approx(TEXT_VECS["gin sour recipe"].tolist())
    assert {c[5] for c in searches} == {6}  # k: every session of the haystack
    out = read_table(p["out"], "candidates")
    # q_ssu pool {s1,s2,s4,s3,s5}, best word overlap over the 4 queries: s4 "I mixed a drink"
    # 4, s3 "gin sour recipe" 3, s2 "rum punch" 2, then s1 and s5 at 0 (pool order), top 4.
    assert ranked(out, "q_ssu") == [("s4", 4.0), ("s3", 3.0), ("s2", 2.0), ("s1", 0.0)]
    # q_ms is not a rewrite type: untouched, as without the plug-in.
    assert ranked(out, "q_ms") == [("s4", 0.9), ("s2", 0.8), ("s1", 0.7)]
    meta = read_meta(p["out"])["params"]
    assert meta["retrieval"]["plugin"]["callable"] == f"{name}:Overlap"
    assert len(meta["retrieval"]["plugin"]["code"]["sha256"]) == 64
    assert np.isfinite([s for _, s in ranked(out, "q_bad")]).all()
