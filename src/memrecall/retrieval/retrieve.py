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
from dataclasses import dataclass, field

import numpy as np
import polars as pl
import pyarrow as pa
from tqdm import tqdm

from ..artifacts import read_table, read_vectors, write_table
from ..config import Kind, Registry, check_int, choice, identity
from ..errors import ConfigError
from ..plugins import result_params
from ..schema import CANDIDATES, TURN_INDICES, polars_dtypes
from .bm25 import BM25Scorer, BM25Settings, bm25_settings
from .dense import cosine_scores
from .embedders import CachedEncoder, EmbedderSettings, embedder_settings
from .fusion import FUSIONS, fuse
from .m3 import M3Scorer, M3Settings, check_m3_embedder, m3_rescore, m3_settings
from .plugin import open_plugin, plugin_retrieve
from .ranking import UNIT_POOLS, first_units, pool_units, rank_order, session_max
from .timeaware import TimeSettings, boost, in_range_mask, question_time_ranges, time_settings
from .units import UnitIndex


@dataclass(frozen=True)
class RetrievalSettings:
    """The retrieval group, checked (`retrieval_settings`); `kind` is `retrieval.method`. Every
    option carries every key (conf/base/retrieval.yaml), so all are checked whatever the kind,
    and a bad value fails before a sweep switches to the method that reads it."""

    kind: str
    top_k: int
    fusion: str
    rrf_k: float
    dense_weight: float
    unit_pool: str
    time: TimeSettings
    bm25: BM25Settings
    m3: M3Settings | None  # method m3
    # method plugin: the group node, which the shared plug-in loader (plugins.py) reads and
    # checks (callable, options, code)
    plugin: dict | None = field(compare=False)


def _retrieval_settings(cfg: dict) -> RetrievalSettings:
    kind = cfg["method"]
    return RetrievalSettings(
        kind=kind,
        top_k=check_int(cfg["top_k"], "retrieval.top_k", minimum=1),
        fusion=choice(cfg, "fusion", FUSIONS, group="retrieval"),
        rrf_k=float(cfg["rrf_k"]),
        dense_weight=float(cfg["dense_weight"]),
        unit_pool=choice(cfg, "unit_pool", UNIT_POOLS, group="retrieval"),
        time=time_settings(cfg),
        bm25=bm25_settings(cfg),
        m3=m3_settings(cfg) if kind == "m3" else None,
        plugin=cfg if kind == "plugin" else None,
    )


def _haystack(ids) -> list[str]:
    return list(dict.fromkeys(ids or []))  # one question's haystack may list a session twice


def _turn_index(unit_id: str, session_id: str) -> int | None:
    """`<session_id>_<i+1>` → i; None for session units and fact units."""
    tail = unit_id[len(session_id) + 1 :] if unit_id.startswith(session_id + "_") else ""
    return int(tail) - 1 if tail.isdigit() else None


def _questions(questions: pl.DataFrame) -> tuple[list[str], list[list[str]]]:
    return (
        questions.get_column("question_id").to_list(),
        [_haystack(h) for h in questions.get_column("haystack_session_ids").to_list()],
    )


def rank_oracle(
    questions: pl.DataFrame, embeddings, s: RetrievalSettings, embedder: EmbedderSettings, **_
) -> pl.DataFrame:
    """The evidence sessions only, in haystack order, score 1.0: no model involved."""
    qids, haystacks = _questions(questions)
    out_q, out_rank, out_sid, out_score = [], [], [], []
    for qid, hay, ev in zip(qids, haystacks, questions.get_column("answer_session_ids").to_list()):
        evidence = set(ev or [])
        for r, sid in enumerate([x for x in hay if x in evidence][: s.top_k], start=1):
            out_q.append(qid), out_rank.append(r), out_sid.append(sid), out_score.append(1.0)
    return _frame(out_q, out_rank, out_sid, out_score, None)


def rank_by_scores(
    questions: pl.DataFrame,
    embeddings: pl.DataFrame,
    s: RetrievalSettings,
    embedder: EmbedderSettings,
    *,
    encoder: CachedEncoder | None = None,
    source: str = "embeddings",
    vectors: np.ndarray | None = None,
    **_,
) -> pl.DataFrame:
    """dense, bm25, hybrid and m3: score each question's units, pool them to sessions."""
    qids, haystacks = _questions(questions)
    out_q, out_rank, out_sid, out_score, out_turns = [], [], [], [], []
    use_dense, use_bm25 = s.kind in ("dense", "hybrid", "m3"), s.kind in ("bm25", "hybrid")
    if s.kind == "m3":
        m3 = M3Scorer(embedder)
    index = UnitIndex(
        embeddings,
        need_vectors=use_dense,
        source=source,
        need_texts=use_bm25 or s.kind == "m3",
        vectors=vectors,
    )
    bm25 = BM25Scorer(s.bm25) if use_bm25 else None
    qtexts = questions.get_column("question").to_list()
    if use_dense:
        encoder = encoder or CachedEncoder(embedder)
        qvecs = encoder.encode(qtexts, desc="queries")
    granularity = embedder.granularity
    rounds = granularity == "round"
    # BM25 and fusion on sessions (the first unit: the whole key), not on passages or sentences
    session_level = granularity in ("passage", "sentence")
    fuse_kw = {"rrf_k": s.rrf_k, "dense_weight": s.dense_weight}
    ranges = question_time_ranges(questions, s.time) if s.time.enabled else {}
    boosted = 0

    for qi, (qid, hay) in enumerate(
        tqdm(list(zip(qids, haystacks)), desc="retrieve", file=sys.stderr, disable=False)
    ):
        rows, seg = index.units_of(hay, qid)
        n = len(hay)
        first = None if rounds else first_units(seg)  # each session's whole key
        dense = cosine_scores(qvecs[qi], index.vectors[rows]) if use_dense else None
        tiebreak = unit_scores = sess_tb = None
        if s.kind == "m3":
            unit_scores = dense  # orders a session's rounds
            sess = m3_rescore(
                qtexts[qi],
                session_max(dense, seg, n),
                [index.texts[r] for r in rows],
                seg,
                s.m3.pool,
                s.m3.weights,
                m3,
                rank_order,
            )
        elif session_level:
            sparse = (
                bm25.scores(qtexts[qi], [index.session_text(sid) for sid in hay])
                if use_bm25
                else None
            )
            dense_s = pool_units(dense, seg, n, s.unit_pool, first) if use_dense else None
            if s.kind == "hybrid":
                sess, sess_tb = fuse(dense_s, sparse, s.fusion, **fuse_kw)
            else:
                sess, sess_tb = (dense_s if use_dense else sparse), None
        else:
            if s.kind == "dense":
                unit_scores = dense
            elif s.kind == "bm25":
                unit_scores = bm25.scores(qtexts[qi], [index.texts[r] for r in rows])
            else:
                unit_scores, tiebreak = fuse(
                    dense,
                    bm25.scores(qtexts[qi], [index.texts[r] for r in rows]),
                    s.fusion,
                    **fuse_kw,
                )
            sess = pool_units(unit_scores, seg, n, s.unit_pool, first)
            sess_tb = session_max(tiebreak, seg, n) if tiebreak is not None else None
        if qid in ranges:
            mask = in_range_mask(ranges[qid][0], [ranges[qid][1].get(sid) for sid in hay])
            boosted += int(mask.sum())
            sess = boost(sess, mask, s.time.boost)
        order = rank_order(sess, sess_tb)[: s.top_k]
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
    if s.time.enabled:
        print(
            f"retrieve: time-aware: {len(ranges)} of {len(qids)} questions name a time; "
            f"{boosted} sessions boosted",
            file=sys.stderr,
        )
    return _frame(out_q, out_rank, out_sid, out_score, out_turns if rounds else None)


def rank_plugin(
    questions: pl.DataFrame,
    embeddings,
    s: RetrievalSettings,
    embedder: EmbedderSettings,
    *,
    encoder: CachedEncoder | None = None,
    plugin=None,
    **_,
) -> pl.DataFrame:
    """A retriever of your own (plugin.py): `plugin` is open_plugin's (retriever, builder)."""
    retriever, builder = plugin
    qids, haystacks = _questions(questions)
    qvecs = None
    if retriever.uses_vectors:
        encoder = encoder or CachedEncoder(embedder)
        qvecs = encoder.encode(questions.get_column("question").to_list(), desc="queries")
    out_q, out_rank, out_sid, out_score, out_turns = [], [], [], [], []
    for qid, ids, scores, turns in plugin_retrieve(
        questions, haystacks, builder, retriever, s.top_k, qvecs
    ):
        for r, (sid, score) in enumerate(zip(ids, scores), start=1):
            out_q.append(qid), out_rank.append(r), out_sid.append(sid), out_score.append(score)
        if turns is not None:
            out_turns.extend(turns)
    rounds = retriever.granularity == "round"
    return _frame(out_q, out_rank, out_sid, out_score, out_turns if rounds else None)


# `retrieval.method` -> (its settings, the code that ranks each question's haystack).
RETRIEVALS = Registry(
    "retrieval",
    "method",
    {
        "dense": Kind(_retrieval_settings, rank_by_scores),
        "bm25": Kind(_retrieval_settings, rank_by_scores),
        "hybrid": Kind(_retrieval_settings, rank_by_scores),
        "m3": Kind(_retrieval_settings, rank_by_scores),
        "oracle": Kind(_retrieval_settings, rank_oracle),
        "plugin": Kind(_retrieval_settings, rank_plugin),
    },
)
METHODS = RETRIEVALS.names


def retrieval_settings(cfg: dict | RetrievalSettings) -> RetrievalSettings:
    """The retrieval group checked once (settings pass through unchanged)."""
    return cfg if isinstance(cfg, RetrievalSettings) else RETRIEVALS.settings(cfg)


def check_pairing(s: RetrievalSettings, embedder: EmbedderSettings) -> None:
    """What the retrieval settings ask of the embedder's."""
    if s.kind == "m3":
        check_m3_embedder(embedder)
    if (
        s.unit_pool == "blend"
        and embedder.granularity == "round"
        and s.kind in ("dense", "bm25", "hybrid", "m3")
    ):
        raise ConfigError(
            "retrieval.unit_pool",
            s.unit_pool,
            hint=(
                "blend pools a session's whole key with its best unit: it needs "
                "embedder.granularity=passage or sentence (rounds have no whole-session unit)"
            ),
        )


def retrieve(
    questions: pl.DataFrame,
    embeddings: pl.DataFrame | None,
    retrieval: dict | RetrievalSettings,
    embedder: dict | EmbedderSettings,
    *,
    encoder: CachedEncoder | None = None,
    source: str = "embeddings",
    plugin=None,
    vectors: np.ndarray | None = None,
) -> pl.DataFrame:
    """Candidates: question_id, rank (1-based), session_id, score [+ turn_indices for rounds],
    sorted by (question_id, rank). `plugin`: (PluginRetriever, HaystackBuilder) for
    method=plugin. `vectors`: the embeddings' vector column read apart (UnitIndex)."""
    s, embedding = retrieval_settings(retrieval), embedder_settings(embedder)
    check_pairing(s, embedding)
    return RETRIEVALS.run(s.kind)(
        questions,
        embeddings,
        s,
        embedding,
        encoder=encoder,
        source=source,
        plugin=plugin,
        vectors=vectors,
    )


def _frame(q, rank, sid, score, turns) -> pl.DataFrame:
    fields, cols = list(CANDIDATES), [q, rank, sid, score]
    if turns is not None:
        fields.append(TURN_INDICES)
        cols.append(turns)
    # built by polars: pa.table over Python lists would import pandas (a third of a second)
    dtypes = polars_dtypes(pa.schema(fields))
    return pl.DataFrame(dict(zip(dtypes, cols)), schema=dtypes).sort("question_id", "rank")


def run_retrieve(
    retrieval_cfg: dict,
    embedder_cfg: dict,
    *,
    questions: str,
    embeddings: str,
    out: str,
    extra_inputs=(),
    sessions: str | None = None,
    turns: str | None = None,
) -> pl.DataFrame:
    # Both groups checked once, before any work; the metadata records the groups as given.
    settings, embedding = retrieval_settings(retrieval_cfg), embedder_settings(embedder_cfg)
    check_pairing(settings, embedding)
    qdf = read_table(questions, table="questions")
    method = settings.kind
    params = {
        "retrieval": result_params(identity(retrieval_cfg)),
        "embedder": identity(embedder_cfg),
    }
    plugin, inputs, vectors = None, [questions] + list(extra_inputs), None
    if method == "plugin":
        plugin, plugin_params, plugin_inputs = open_plugin(
            settings.plugin, qdf, sessions=sessions, turns=turns, embeddings=embeddings
        )
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
    cands = retrieve(
        qdf, emb, settings, embedding, source=str(embeddings), plugin=plugin, vectors=vectors
    )
    write_table(cands, out, table="candidates", stage="retrieve", params=params, input_files=inputs)
    return cands
