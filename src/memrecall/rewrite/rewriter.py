"""The rewrite stage: multi-angle query rewriting and time-aware reordering, after reranking.

`rewrite=multiangle`: for questions of the configured types (`rewrite.types`, default
single-session-user) an LLM writes `n_variants` rewrites of the question. The question's pool
is the union of its reranked candidates and its retrieve top-50; each pooled session scores the
max cosine between any of its key vectors (embeddings.parquet) and the original question or a
variant. With a reranker configured, the pool is re-ranked by the max cross-encoder score over
the same queries. The best `reranker.top_k` (15) are kept. Every other question's reranked
candidates pass through unchanged, and `rewrite=off` passes everything through.

`rewrite.time_aware=true` (LongMemEval §5.4) for questions of `rewrite.time_types`: an LLM
infers the date range the question is about, or N/A; sessions dated inside that range widened
by ±2 days move to the front, in their order, and none is dropped (hard filters lose evidence).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from .. import benchmarks
from ..artifacts import read_table, write_table
from ..config import Kind, Registry, check_int, identity
from ..dates import parse_date, question_session_dates
from ..errors import ConfigError, InputError, MemrecallError
from ..retrieval.dense import cosine_scores
from ..retrieval.embed import vectors_matrix
from ..retrieval.embedders import CachedEncoder, EmbedderSettings, embedder_settings
from ..retrieval.plugin import open_plugin, plugin_pool_scores, plugin_queries
from ..retrieval.ranking import first_units, pool_units, top_ranked
from ..retrieval.rerank import (
    CROSS_ENCODERS,
    CachedReranker,
    RerankerSettings,
    reranker_settings,
    session_passages,
)
from ..retrieval.retrieve import RetrievalSettings, retrieval_settings
from ..schema import CANDIDATES, polars_schema
from .prompts import (
    TimeRange,
    get_variant_prompt,
    parse_time_range,
    prompt_records,
    time_range_messages,
)

WIDEN_DAYS = 2
DEFAULT_TOP_K = 15

REWRITES_SCHEMA = polars_schema("rewrites")


# --- config ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RewriteSettings:
    mode: str
    types: tuple[str, ...]
    n_variants: int
    prompt: str
    time_aware: bool
    time_types: tuple[str, ...]
    llm: dict | None = field(default=None, compare=False)  # the LLM layer checks this node


def _types(cfg: dict, key: str) -> tuple[str, ...]:
    """Question types; which ones exist is the benchmark's to say (rewrite_settings)."""
    value = cfg[key]
    value = [value] if isinstance(value, str) else list(value or [])
    return tuple(value)


def _rewrite_settings(cfg: dict) -> RewriteSettings:
    mode = cfg["name"]
    n = cfg["n_variants"]
    check_int(n, "rewrite.n_variants", minimum=0)
    time_aware = cfg["time_aware"]
    if not isinstance(time_aware, bool):
        raise ConfigError("rewrite.time_aware", time_aware, [True, False])
    if mode == "off" and time_aware:
        raise ConfigError(
            "rewrite.time_aware",
            time_aware,
            hint=(
                "time-aware reordering is part of rewrite=multiangle; with rewrite=off everything "
                "passes through (for time-aware alone use rewrite=multiangle rewrite.n_variants=0)"
            ),
        )
    prompt = cfg["prompt"]
    get_variant_prompt(prompt)
    llm = cfg["llm"]
    if not isinstance(llm, dict):
        raise ConfigError("rewrite.llm", llm, hint="expected the LLM settings mapping")
    return RewriteSettings(
        mode, _types(cfg, "types"), n, prompt, time_aware, _types(cfg, "time_types"), llm
    )


def rewrite_settings(cfg: dict | RewriteSettings, question_types=None) -> RewriteSettings:
    """The rewrite group checked once (settings pass through unchanged); `mode` is its kind
    (`rewrite.name`). `question_types`: the benchmark's, which `types` and `time_types` must
    name when the rewrite is on (with rewrite=off they are not used)."""
    settings = cfg if isinstance(cfg, RewriteSettings) else REWRITES.settings(cfg)
    if question_types is not None and settings.mode != "off":
        for key in ("types", "time_types"):
            for t in getattr(settings, key):
                if t not in question_types:
                    raise ConfigError(f"rewrite.{key}", t, question_types)
    return settings


# --- time-aware reordering (pure functions, tested on hand-made inputs) -----------------------


def starts_on_question_date(rng: TimeRange, question_date: str) -> bool:
    """A range that starts on the day the question is asked is a non-answer (the events asked
    about lie before it); LongMemEval's own code drops such ranges too."""
    asked = parse_date(question_date)
    return asked is not None and rng.start == asked.date()


def time_reorder(
    session_ids: list[str],
    dates: dict[str, str],
    rng: TimeRange | None,
    widen_days: int = WIDEN_DAYS,
) -> list[str]:
    """Sessions dated inside rng ±widen_days first, then the rest; order kept within each part;
    nothing dropped."""
    if rng is None:
        return list(session_ids)
    wide = rng.widened(widen_days)
    inside = []
    for sid in session_ids:
        dt = parse_date(dates.get(sid))
        inside.append(dt is not None and wide.contains(dt.date()))
    return [s for s, i in zip(session_ids, inside) if i] + [
        s for s, i in zip(session_ids, inside) if not i
    ]


# --- the stage -------------------------------------------------------------------------------


def _by_question(cands: pl.DataFrame) -> dict[str, list[tuple[str, float]]]:
    out: dict[str, list[tuple[str, float]]] = {}
    for qid, sid, score in (
        cands.sort(["question_id", "rank"]).select("question_id", "session_id", "score").iter_rows()
    ):
        out.setdefault(qid, []).append((sid, float(score) if score is not None else 0.0))
    return out


def _candidates_frame(
    lists: dict[str, list[tuple[str, float]]], *sources: pl.DataFrame
) -> pl.DataFrame:
    """Contract columns from `lists`; extra per-session columns (e.g. retrieve's turn_indices
    at round granularity) carried over from the first source that has the session."""
    rows = [
        (qid, rank, sid, score)
        for qid in sorted(lists)
        for rank, (sid, score) in enumerate(lists[qid], 1)
    ]
    df = pl.DataFrame(rows, schema=polars_schema("candidates"), orient="row")
    keys = ["question_id", "session_id"]
    extra = [c for c in (sources[0].columns if sources else []) if c not in CANDIDATES.names]
    if not extra:
        return df
    found = pl.concat(
        [src.select(keys + extra) for src in sources if all(c in src.columns for c in extra)],
        how="vertical_relaxed",
    )
    found = found.unique(subset=keys, keep="first", maintain_order=True)
    return df.join(found, on=keys, how="left", maintain_order="left").sort(["question_id", "rank"])


def llm_requests(
    settings: RewriteSettings, rows: dict[str, dict]
) -> dict[str, tuple[list[str], list[list[dict]]]]:
    """The stage's LLM requests: {kind: (question ids, messages)} for kind variants and
    time_range; `rows` maps question_id to its questions row. The plan renders these too."""
    # n_variants=0 means time-aware reordering alone: the rewrite types pass through unscored.
    multi = (
        sorted(q for q, r in rows.items() if r["question_type"] in settings.types)
        if settings.mode != "off" and settings.n_variants > 0
        else []
    )
    timed = (
        sorted(q for q, r in rows.items() if r["question_type"] in settings.time_types)
        if settings.mode != "off" and settings.time_aware
        else []
    )
    prompt = get_variant_prompt(settings.prompt)
    return {
        "variants": (
            multi,
            [prompt.messages(rows[q]["question"], settings.n_variants) for q in multi],
        ),
        "time_range": (
            timed,
            [time_range_messages(rows[q]["question"], rows[q]["question_date"]) for q in timed],
        ),
    }


def _ask(client, qids: list[str], messages: list[list[dict]], *, kind: str, records: dict):
    """One LLM call per question; the raw output and any failure go into that question's
    record (a failed call is recorded, never treated as an empty answer); yields (qid, text)
    for the answered calls."""
    desc = f"rewrite ({kind.replace('_', ' ')})"
    for q, res in zip(qids, client.complete_many(messages, desc=desc)):
        records[q][f"raw_{kind}"] = res.text
        records[q]["cost_usd"] += res.cost_usd or 0.0  # as paid when first sent (like read)
        if res.error:
            records[q]["errors"].append(f"{kind}: LLM call failed: {res.error}")
            continue
        yield q, res.text


def run_rewrite(
    rewrite_cfg: dict,
    embedder_cfg: dict,
    reranker_cfg: dict,
    *,
    questions: str | Path,
    sessions: str | Path,
    turns: str | Path,
    candidates_rerank: str | Path,
    candidates_retrieve: str | Path,
    embeddings: str | Path,
    out: str | Path,
    out_rewrites: str | Path,
    encoder=None,
    reranker=None,
    retrieval_cfg: dict | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Write candidates_rewrite.parquet and rewrites.parquet; return both tables.
    `encoder`/`reranker` default to the cached ones built from the configs. With
    retrieval=plugin (`retrieval_cfg`), the plug-in scores the variants, one index per question
    (retrieval/plugin.py)."""
    # Every group checked once, before any work; the metadata records the groups as given.
    settings = rewrite_settings(rewrite_cfg)
    embedding, reranking = embedder_settings(embedder_cfg), reranker_settings(reranker_cfg)
    retrieval = retrieval_settings(retrieval_cfg) if retrieval_cfg is not None else None
    # The types it names are the benchmark's (download records it in the questions table).
    settings = rewrite_settings(settings, benchmarks.of_artifact(questions).categories)
    job = RewriteJob(
        embedder=embedding,
        reranker=reranking,
        retrieval=retrieval,
        groups={
            "rewrite": rewrite_cfg,
            "embedder": embedder_cfg,
            "reranker": reranker_cfg,
            "retrieval": retrieval_cfg,
        },
        questions=questions,
        sessions=sessions,
        turns=turns,
        candidates_rerank=candidates_rerank,
        candidates_retrieve=candidates_retrieve,
        embeddings=embeddings,
        out=out,
        out_rewrites=out_rewrites,
        encoder=encoder,
        reranker_model=reranker,
    )
    return REWRITES.run(settings.mode)(settings, job)


@dataclass(frozen=True)
class RewriteJob:
    """What a rewrite kind works with: the other groups' settings, the groups as given (for the
    metadata), the stage's files, and optional encoder / cross-encoder to use."""

    embedder: EmbedderSettings
    reranker: RerankerSettings
    retrieval: RetrievalSettings | None
    groups: dict
    questions: str | Path
    sessions: str | Path
    turns: str | Path
    candidates_rerank: str | Path
    candidates_retrieve: str | Path
    embeddings: str | Path
    out: str | Path
    out_rewrites: str | Path
    encoder: object = None
    reranker_model: object = None


def pass_through(settings: RewriteSettings, job: RewriteJob) -> tuple[pl.DataFrame, pl.DataFrame]:
    """`off`: every question's reranked candidates, unchanged."""
    read_table(job.questions, "questions")  # checked even here: a bad file fails either way
    rerank_df = read_table(job.candidates_rerank, "candidates")
    # Only the pass-through matters here, so the metadata holds only that: a change to an
    # unused knob (n_variants, the embedder) leaves this file byte-identical.
    cands = _candidates_frame(_by_question(rerank_df), rerank_df)
    write_table(
        cands,
        job.out,
        table="candidates",
        stage="rewrite",
        params={"rewrite": {"name": "off"}},
        input_files=[job.candidates_rerank],
    )
    empty = pl.DataFrame(schema=REWRITES_SCHEMA)
    write_table(
        empty,
        job.out_rewrites,
        stage="rewrite",
        params={"rewrite": {"name": "off"}},
        input_files=[job.candidates_rerank],
    )
    print(
        f"rewrite: off, {cands.get_column('question_id').n_unique()} questions passed through",
        file=sys.stderr,
    )
    return cands, empty


def multiangle(settings: RewriteSettings, job: RewriteJob) -> tuple[pl.DataFrame, pl.DataFrame]:
    """LLM variants re-score the configured types' pools; optional time-aware reordering."""
    questions, sessions, turns = job.questions, job.sessions, job.turns
    candidates_rerank, candidates_retrieve = job.candidates_rerank, job.candidates_retrieve
    embeddings, out, out_rewrites = job.embeddings, job.out, job.out_rewrites
    qs = read_table(questions, "questions")
    rerank_df = read_table(candidates_rerank, "candidates")
    reranked = _by_question(rerank_df)

    rows = {r["question_id"]: r for r in qs.iter_rows(named=True)}
    requests = llm_requests(settings, rows)
    multi, timed = requests["variants"][0], requests["time_range"][0]
    records = {
        q: {
            "question_id": q,
            "question_type": rows[q]["question_type"],
            "variants": [],
            "time_range": None,
            "errors": [],
            "raw_variants": None,
            "raw_time_range": None,
            "cost_usd": 0.0,
        }
        for q in sorted(set(multi) | set(timed))
    }

    client = None
    if multi or timed:
        from ..llm import LLMClient

        client = LLMClient(settings.llm, stage="rewrite")

    if multi:
        prompt = get_variant_prompt(settings.prompt)
        for q, text in _ask(
            client, multi, requests["variants"][1], kind="variants", records=records
        ):
            records[q]["variants"], err = prompt.parse(
                text, rows[q]["question"], settings.n_variants
            )
            if err:
                records[q]["errors"].append(f"variants: {err}; using the original question only")

    ranges: dict[str, TimeRange | None] = {}
    if timed:
        for q, text in _ask(
            client, timed, requests["time_range"][1], kind="time_range", records=records
        ):
            rec = records[q]
            rng, err = parse_time_range(text)
            if err:
                rec["errors"].append(f"time_range: {err}; order left unchanged")
                continue
            if rng is not None and starts_on_question_date(rng, rows[q]["question_date"]):
                rec["time_range"] = f"ignored: {rng} starts on the question date"
                continue
            ranges[q] = rng
            rec["time_range"] = str(rng) if rng else "N/A"

    final = dict(reranked)
    encoder_stats = {}
    retrieve_df = read_table(candidates_retrieve, "candidates") if multi else None
    plugin, retrieval_meta = None, {}
    unit_pool = "max"
    retrieval = job.retrieval
    if multi and retrieval is not None and retrieval.kind == "plugin":
        plugin, retrieval_params, _ = open_plugin(
            retrieval.plugin, qs, sessions=sessions, turns=turns, embeddings=embeddings
        )
        retrieval_meta = {"retrieval": retrieval_params}
    elif retrieval is not None:
        # Sessions score from their units as the retrieve stage scores them (pool_units).
        unit_pool = retrieval.unit_pool
        retrieval_meta = {"retrieval": {"unit_pool": unit_pool}}
    if multi:
        final.update(
            _rescore(
                multi,
                rows,
                records,
                reranked,
                _by_question(retrieve_df),
                embeddings,
                read_table(turns, "turns"),
                job.embedder,
                job.reranker,
                job.encoder,
                job.reranker_model,
                encoder_stats,
                plugin,
                unit_pool,
            )
        )
    if timed:
        dates = question_session_dates(qs, read_table(sessions, "sessions"))
        for q in timed:
            if ranges.get(q) is not None:
                score = dict(final.get(q, []))
                order = time_reorder([s for s, _ in final.get(q, [])], dates.get(q, {}), ranges[q])
                final[q] = [(s, score[s]) for s in order]

    cands = _candidates_frame(final, rerank_df, *([retrieve_df] if multi else []))
    rewrites = pl.DataFrame(
        [
            {
                **{k: v for k, v in rec.items() if k != "errors"},
                "error": "; ".join(rec["errors"]) or None,
            }
            for rec in records.values()
        ],
        schema=REWRITES_SCHEMA,
    )
    params = {
        "rewrite": identity(job.groups["rewrite"]),
        "embedder": identity(job.groups["embedder"]),
        "reranker": identity(job.groups["reranker"]),
        **retrieval_meta,
    }
    inputs = [questions, sessions, turns, candidates_rerank, candidates_retrieve, embeddings]
    write_table(cands, out, table="candidates", stage="rewrite", params=params, input_files=inputs)
    used = prompt_records(settings.prompt if multi else None, settings.n_variants, bool(timed))
    write_table(
        rewrites,
        out_rewrites,
        stage="rewrite",
        params=params,
        input_files=inputs,
        extra_meta={"prompts": used} if used else None,
    )

    s = client.stats if client is not None else {}
    failed = sum(1 for r in records.values() if r["errors"])
    print(
        f"rewrite: {len(multi)} questions rewritten, {len(timed)} time ranges "
        f"({sum(1 for q in timed if ranges.get(q))} used), {failed} with errors; model calls "
        f"{s.get('calls', 0)}, cached {s.get('cached', 0)}, failed {s.get('failed', 0)}; "
        f"embeddings encoded {encoder_stats.get('encoded', 0)}, cached "
        f"{encoder_stats.get('cached', 0)}",
        file=sys.stderr,
    )
    return cands, rewrites


def _rescore(
    qids,
    rows,
    records,
    reranked,
    retrieved,
    emb,
    turns,
    embedder: EmbedderSettings,
    reranking: RerankerSettings,
    encoder,
    reranker,
    encoder_stats,
    plugin=None,
    unit_pool: str = "max",
) -> dict[str, list[tuple[str, float]]]:
    """Max-cosine (then optional cross-encoder) re-ranking of each question's candidate pool."""
    top_k = reranking.top_k
    pools = {
        q: list(
            dict.fromkeys(
                [s for s, _ in reranked.get(q, [])] + [s for s, _ in retrieved.get(q, [])]
            )
        )
        for q in qids
    }
    needed = sorted({s for p in pools.values() for s in p})
    emb_path = emb
    if not Path(emb_path).exists():
        raise MemrecallError(f"missing artifact {emb_path}: run the embed stage first")
    # Only the pooled sessions' key vectors (a large haystack's table need not fit in memory).
    emb = (
        pl.scan_parquet(emb_path)
        .filter(pl.col("session_id").is_in(needed))
        .select("session_id", "vector")
        .collect()
    )
    unit_vecs, unit_sessions = vectors_matrix(emb), emb.get_column("session_id").to_list()
    by_session: dict[str, list[int]] = {}
    for i, sid in enumerate(unit_sessions):
        by_session.setdefault(sid, []).append(i)

    encoder = encoder or CachedEncoder(embedder)
    queries = {q: [rows[q]["question"], *records[q]["variants"]] for q in qids}
    flat = [t for q in qids for t in queries[q]]
    qvecs = encoder.encode(flat, desc="rewrite (embed variants)")
    encoder_stats.update(encoder.stats)

    # Same switch and passages as the rerank stage, so its cached pair scores are reused.
    use_reranker = reranking.kind in CROSS_ENCODERS
    passages = {}
    if use_reranker:
        passages = session_passages(turns, set(needed), reranking.key, reranking.max_chars)
        reranker = reranker or CachedReranker(reranking)

    out, offset = {}, 0
    for q in qids:
        qv = qvecs[offset : offset + len(queries[q])]
        offset += len(queries[q])
        pool = pools[q]
        for s in pool:
            if s not in by_session:
                raise InputError(
                    f"candidate session {s!r} has no embedded unit (rerun embed)",
                    file=str(emb_path),
                    question_id=q,
                    field="session_id",
                )
        if plugin is not None:  # the retriever plug-in's own scores, its index reused
            retriever, builder = plugin
            by_id = plugin_pool_scores(
                retriever,
                builder,
                q,
                list(dict.fromkeys(rows[q]["haystack_session_ids"])),
                plugin_queries(retriever, rows[q], queries[q], qv),
                pool,
            )
            scores = np.asarray([by_id[s] for s in pool], dtype=np.float64)
        else:
            # Each variant scores a session as retrieve does (unit_pool), the best variant wins.
            idx = [i for s in pool for i in by_session[s]]
            seg = np.asarray([pos for pos, s in enumerate(pool) for _ in by_session[s]], np.int64)
            units, first = unit_vecs[idx], first_units(seg)
            scores = np.max(
                [
                    pool_units(cosine_scores(v, units), seg, len(pool), unit_pool, first)
                    for v in np.atleast_2d(qv)
                ],
                axis=0,
            )
        if use_reranker and pool:
            # Re-rank the whole pool by its best cross-encoder score over the same queries.
            pairs = [(text, passages[s]) for text in queries[q] for s in pool]
            scores = (
                np.asarray(reranker.score(pairs), dtype=np.float64)
                .reshape(len(queries[q]), len(pool))
                .max(axis=0)
            )
        out[q] = top_ranked(pool, scores, top_k)  # ties keep the pool order
    return out


# `rewrite.name` -> (its settings, the code that writes the stage's two tables).
REWRITES = Registry(
    "rewrite",
    "name",
    {
        "off": Kind(_rewrite_settings, pass_through),
        "multiangle": Kind(_rewrite_settings, multiangle),
    },
)
MODES = REWRITES.names
