"""The retrieve stage: rank each question's haystack sessions, keep the top_k (50).

Methods (`retrieval.method`):
- `dense`: cosine of the question's vector (same CachedEncoder and model as the keys) with each
  unit's vector;
- `bm25`: BM25 over the units' key texts (bm25.py);
- `hybrid`: both, fused per unit by `retrieval.fusion` (fusion.py);
- `m3`: the dense ranking's top `m3_pool` re-scored with BGE-M3's dense, sparse and ColBERT
  scores (m3.py; needs embedder=bge_m3);
- `oracle`: the evidence sessions only (answer_session_ids), in haystack order, score 1.0; an
  upper bound for the reader, no model involved;
- `plugin`: a retriever of your own, `retrieval.callable` (plugin.py).
Units are sessions, rounds, passages or sentences (embedder.granularity); unit scores are
aggregated to their session by `retrieval.unit_pool` (ranking.pool_units). Round candidates
carry `turn_indices` (the session's user turns, best round first), which turn-level metrics
use. At passage and sentence granularity BM25 reads each session's whole key (its first unit;
BM25 has no window to fit and its length normalisation is per document) and hybrid fuses
session scores: the pooled dense units with the session's BM25.

Time-aware retrieval (`retrieval.time_aware`, timeaware.py): for a question that names a time
relative to its date, sessions dated inside that range (in that question's haystack) are boosted.
"""

from __future__ import annotations

import sys

import numpy as np
import polars as pl
import pyarrow as pa
from tqdm import tqdm

from ..artifacts import read_table, read_vectors, write_table
from ..config import check_int, choice, identity
from ..errors import ConfigError
from ..plugins import result_params
from ..schema import CANDIDATES, TURN_INDICES
from .bm25 import BM25Scorer
from .dense import cosine_scores
from .embedders import CachedEncoder
from .fusion import FUSIONS, fuse
from .m3 import M3Scorer, m3_rescore, m3_settings
from .plugin import open_plugin, plugin_retrieve
from .ranking import UNIT_POOLS, first_units, pool_units, rank_order, session_max
from .timeaware import boost, in_range_mask, question_time_ranges, time_settings
from .units import UnitIndex

METHODS = ("dense", "bm25", "hybrid", "m3", "oracle", "plugin")


def _haystack(ids) -> list[str]:
    return list(dict.fromkeys(ids or []))  # one question's haystack may list a session twice


def _turn_index(unit_id: str, session_id: str) -> int | None:
    """`<session_id>_<i+1>` → i; None for session units and fact units."""
    tail = unit_id[len(session_id) + 1:] if unit_id.startswith(session_id + "_") else ""
    return int(tail) - 1 if tail.isdigit() else None


def retrieve(questions: pl.DataFrame, embeddings: pl.DataFrame | None, retrieval_cfg: dict,
             embedder_cfg: dict, *, encoder: CachedEncoder | None = None,
             source: str = "embeddings", plugin=None,
             vectors: np.ndarray | None = None) -> pl.DataFrame:
    """Candidates: question_id, rank (1-based), session_id, score [+ turn_indices for rounds],
    sorted by (question_id, rank). `plugin`: (PluginRetriever, HaystackBuilder) for
    method=plugin. `vectors`: the embeddings' vector column read apart (UnitIndex)."""
    method = choice(retrieval_cfg, "method", METHODS, group="retrieval")
    top_k = check_int(retrieval_cfg["top_k"], "retrieval.top_k", minimum=1)
    qids = questions.get_column("question_id").to_list()
    haystacks = [_haystack(h) for h in questions.get_column("haystack_session_ids").to_list()]
    if method == "plugin":
        return _plugin_frame(questions, haystacks, top_k, embedder_cfg, encoder, *plugin)

    out_q, out_rank, out_sid, out_score, out_turns = [], [], [], [], []
    if method == "oracle":
        for qid, hay, ev in zip(qids, haystacks,
                                questions.get_column("answer_session_ids").to_list()):
            evidence = set(ev or [])
            for r, sid in enumerate([s for s in hay if s in evidence][:top_k], start=1):
                out_q.append(qid), out_rank.append(r), out_sid.append(sid), out_score.append(1.0)
        return _frame(out_q, out_rank, out_sid, out_score, None)

    fusion = choice(retrieval_cfg, "fusion", FUSIONS, group="retrieval")
    unit_pool = choice(retrieval_cfg, "unit_pool", UNIT_POOLS, group="retrieval")
    timing = time_settings(retrieval_cfg)
    use_dense, use_bm25 = method in ("dense", "hybrid", "m3"), method in ("bm25", "hybrid")
    if method == "m3":
        m3_pool, m3_weights = m3_settings(retrieval_cfg, embedder_cfg)
        m3 = M3Scorer(embedder_cfg)
    index = UnitIndex(embeddings, need_vectors=use_dense, source=source,
                      need_texts=use_bm25 or method == "m3", vectors=vectors)
    bm25 = BM25Scorer(retrieval_cfg) if use_bm25 else None
    qtexts = questions.get_column("question").to_list()
    if use_dense:
        encoder = encoder or CachedEncoder(embedder_cfg)
        qvecs = encoder.encode(qtexts, desc="queries")
    granularity = embedder_cfg["granularity"]
    rounds = granularity == "round"
    # BM25 and fusion on sessions (the first unit: the whole key), not on passages or sentences
    session_level = granularity in ("passage", "sentence")
    if unit_pool == "blend" and granularity == "round":
        raise ConfigError("retrieval.unit_pool", unit_pool, hint=(
            "blend pools a session's whole key with its best unit: it needs "
            "embedder.granularity=passage or sentence (rounds have no whole-session unit)"))
    fuse_kw = {"rrf_k": float(retrieval_cfg["rrf_k"]),
               "dense_weight": float(retrieval_cfg["dense_weight"])}
    ranges = question_time_ranges(questions, timing) if timing.enabled else {}
    boosted = 0

    for qi, (qid, hay) in enumerate(tqdm(list(zip(qids, haystacks)), desc="retrieve",
                                         file=sys.stderr, disable=False)):
        rows, seg = index.units_of(hay, qid)
        n = len(hay)
        first = None if rounds else first_units(seg)  # each session's whole key
        dense = cosine_scores(qvecs[qi], index.vectors[rows]) if use_dense else None
        tiebreak = unit_scores = sess_tb = None
        if method == "m3":
            unit_scores = dense  # orders a session's rounds
            sess = m3_rescore(qtexts[qi], session_max(dense, seg, n),
                              [index.texts[r] for r in rows], seg, m3_pool, m3_weights, m3,
                              rank_order)
        elif session_level:
            sparse = (bm25.scores(qtexts[qi], [index.session_text(sid) for sid in hay])
                      if use_bm25 else None)
            dense_s = pool_units(dense, seg, n, unit_pool, first) if use_dense else None
            if method == "hybrid":
                sess, sess_tb = fuse(dense_s, sparse, fusion, **fuse_kw)
            else:
                sess, sess_tb = (dense_s if use_dense else sparse), None
        else:
            if method == "dense":
                unit_scores = dense
            elif method == "bm25":
                unit_scores = bm25.scores(qtexts[qi], [index.texts[r] for r in rows])
            else:
                unit_scores, tiebreak = fuse(
                    dense, bm25.scores(qtexts[qi], [index.texts[r] for r in rows]), fusion,
                    **fuse_kw)
            sess = pool_units(unit_scores, seg, n, unit_pool, first)
            sess_tb = session_max(tiebreak, seg, n) if tiebreak is not None else None
        if qid in ranges:
            mask = in_range_mask(ranges[qid][0], [ranges[qid][1].get(sid) for sid in hay])
            boosted += int(mask.sum())
            sess = boost(sess, mask, timing.boost)
        order = rank_order(sess, sess_tb)[:top_k]
        by_session: dict[int, list[int]] = {}
        if rounds:  # each session's user turns, best round first
            for u in rank_order(unit_scores, tiebreak):
                t = _turn_index(index.unit_ids[rows[u]], hay[seg[u]])
                if t is not None:
                    by_session.setdefault(int(seg[u]), []).append(t)
        for r, pos in enumerate(order, start=1):
            out_q.append(qid), out_rank.append(r), out_sid.append(hay[pos])
            out_score.append(float(sess[pos]))
            if rounds:
                out_turns.append(by_session.get(int(pos), []))
    if timing.enabled:
        print(f"retrieve: time-aware: {len(ranges)} of {len(qids)} questions name a time; "
              f"{boosted} sessions boosted", file=sys.stderr)
    return _frame(out_q, out_rank, out_sid, out_score, out_turns if rounds else None)


def _plugin_frame(questions, haystacks, top_k, embedder_cfg, encoder, retriever, builder):
    qvecs = None
    if retriever.uses_vectors:
        encoder = encoder or CachedEncoder(embedder_cfg)
        qvecs = encoder.encode(questions.get_column("question").to_list(), desc="queries")
    out_q, out_rank, out_sid, out_score, out_turns = [], [], [], [], []
    for qid, ids, scores, turns in plugin_retrieve(questions, haystacks, builder, retriever,
                                                   top_k, qvecs):
        for r, (sid, score) in enumerate(zip(ids, scores), start=1):
            out_q.append(qid), out_rank.append(r), out_sid.append(sid), out_score.append(score)
        if turns is not None:
            out_turns.extend(turns)
    rounds = retriever.granularity == "round"
    return _frame(out_q, out_rank, out_sid, out_score, out_turns if rounds else None)


def _frame(q, rank, sid, score, turns) -> pl.DataFrame:
    fields, cols = list(CANDIDATES), [q, rank, sid, score]
    if turns is not None:
        fields.append(TURN_INDICES)
        cols.append(turns)
    return pl.from_arrow(pa.table(cols, schema=pa.schema(fields))).sort("question_id", "rank")


def run_retrieve(retrieval_cfg: dict, embedder_cfg: dict, *, questions: str, embeddings: str,
                 out: str, extra_inputs=(), sessions: str | None = None,
                 turns: str | None = None) -> pl.DataFrame:
    qdf = read_table(questions, table="questions")
    method = choice(retrieval_cfg, "method", METHODS, group="retrieval")
    params = {"retrieval": result_params(identity(retrieval_cfg)),
              "embedder": identity(embedder_cfg)}
    plugin, inputs, vectors = None, [questions] + list(extra_inputs), None
    if method == "plugin":
        plugin, plugin_params, plugin_inputs = open_plugin(
            retrieval_cfg, qdf, sessions=sessions, turns=turns, embeddings=embeddings)
        emb = None
        params["retrieval"] = plugin_params
        inputs += plugin_inputs
    else:
        # Only the columns this method reads: at LongMemEval-M's size the others cost GBs. The
        # vectors are decoded batch by batch straight into one matrix (read_vectors).
        cols = ["unit_id", "session_id"] + (["text"] if method in ("bm25", "hybrid", "m3") else [])
        emb = None if method == "oracle" else read_table(embeddings, columns=cols)
        if method in ("dense", "hybrid", "m3"):
            vectors = read_vectors(embeddings)
        inputs += [] if method == "oracle" else [embeddings]
    cands = retrieve(qdf, emb, retrieval_cfg, embedder_cfg, source=str(embeddings), plugin=plugin,
                     vectors=vectors)
    write_table(cands, out, table="candidates", stage="retrieve", params=params,
                input_files=inputs)
    return cands
