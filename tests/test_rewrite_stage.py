"""The rewrite stage end to end on hand-made vectors, with the LLM behind a real local HTTP
server: exact re-ranking by max cosine over the union of reranked and retrieved candidates,
time-aware reordering, pass-through of other types, recorded garbage, free byte-identical reruns,
and `rewrite=off`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

from confs import group
from fake_openai_server import FakeOpenAIServer, last_user
from memrecall.artifacts import read_meta, read_table, write_table
from memrecall.errors import InputError
from memrecall.hashing import sha256_file
from memrecall.retrieval.embed import vectors_column
from memrecall.rewrite.rewriter import run_rewrite
from memrecall.schema import polars_schema
from tables import write_downloaded


def unit(*v):
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v)


Q_SSU = "What cocktail did I try last weekend?"
Q_BAD = "Which gym did I join?"
Q_TR = "What did I do in June?"
Q_MS = "How many drinks did I mix?"
TEXT_VECS = {
    Q_SSU: unit(1, 0, 0, 0),
    "gin sour recipe": unit(0, 1, 0, 0),
    "I mixed a drink": unit(0, 0, 1, 0),
    "rum punch": unit(1, 0, 0, 1),
    Q_BAD: unit(0, 0, 0, 1),
}
UNITS = [
    ("s1", unit(0.8, 0.6, 0, 0)),
    ("s2", unit(0.6, 0, 0, 0.8)),
    ("s3", unit(0, 1, 0, 0)),
    ("s4", unit(0, 0, 0, 1)),
    ("s4", unit(0, 0.6, 0.8, 0)),
    ("s5", unit(0, 0, 0, -1)),
    ("s6", unit(1, 1, 1, 1)),
]
DATES = {
    "s1": "2023/07/03 (Mon) 10:00",
    "s2": "2023/06/02 (Fri) 10:00",
    "s3": "2023/03/03 (Fri) 10:00",
    "s4": "2023/04/04 (Tue) 10:00",
    "s5": "2023/01/01 (Sun) 10:00",
    "s6": "2023/05/30 (Tue) 10:00",
}
USER_TEXT = {
    "s1": "we talked about cocktails",
    "s2": "rum punch at the party",
    "s3": "my gin sour recipe",
    "s4": "I mixed a drink for friends",
    "s5": "new gym membership",
    "s6": "planning a trip",
}
QS = [
    ("q_bad", "single-session-user", Q_BAD),
    ("q_ms", "multi-session", Q_MS),
    ("q_ssu", "single-session-user", Q_SSU),
    ("q_tr", "temporal-reasoning", Q_TR),
]
RERANK = {
    "q_ssu": ["s1", "s2"],
    "q_bad": ["s5", "s1"],
    "q_ms": ["s4", "s2", "s1"],
    "q_tr": ["s5", "s2", "s6", "s1"],
}
RETRIEVE = {
    "q_ssu": ["s1", "s2", "s4", "s3", "s5"],
    "q_bad": ["s5", "s1", "s4"],
    "q_ms": ["s4", "s2", "s1", "s3"],
    "q_tr": ["s5", "s2", "s6", "s1", "s3"],
}


def cands(ranked):
    return pl.DataFrame(
        [
            (q, r, s, round(1.0 - r / 10, 3))
            for q, ids in ranked.items()
            for r, s in enumerate(ids, 1)
        ],
        schema=["question_id", "rank", "session_id", "score"],
        orient="row",
    )


def write_inputs(root: Path) -> dict:
    art = root / "artifacts"
    q = pl.DataFrame(
        {
            "question_id": [x[0] for x in QS],
            "question_type": [x[1] for x in QS],
            "is_abstention": [False] * 4,
            "question": [x[2] for x in QS],
            "answer": ["x"] * 4,
            "question_date": ["2023/07/10 (Mon) 09:00"] * 4,
            "haystack_session_ids": [list(DATES)] * 4,
            "answer_session_ids": [["s1"]] * 4,
        }
    )
    s = pl.DataFrame(
        {"session_id": list(DATES), "date": list(DATES.values()), "content_hash": ["h"] * 6}
    )
    t = pl.DataFrame(
        [(sid, 0, "user", text) for sid, text in USER_TEXT.items()]
        + [(sid, 1, "assistant", "ok") for sid in USER_TEXT],
        schema=["session_id", "turn_index", "role", "content"],
        orient="row",
    ).with_columns(has_answer=pl.lit(False))
    emb = pl.from_arrow(
        pa.table(
            {
                "unit_id": [f"{sid}_{i}" for i, (sid, _) in enumerate(UNITS)],
                "session_id": [sid for sid, _ in UNITS],
                "vector": vectors_column(np.stack([v for _, v in UNITS])),
            }
        )
    )
    p = {
        name: str(write_downloaded(df, art / f"{name}.parquet", table=name))
        for name, df in (("questions", q), ("sessions", s), ("turns", t))
    }
    for name, df, table in (
        ("candidates_rerank", cands(RERANK), "candidates"),
        ("candidates_retrieve", cands(RETRIEVE), "candidates"),
        ("embeddings", emb, None),
    ):
        p[name] = str(write_table(df, art / f"{name}.parquet", table=table, stage="test"))
    p["out"] = str(art / "candidates_rewrite.parquet")
    p["out_rewrites"] = str(art / "rewrites.parquet")
    return p


class FakeEncoder:
    """Hand-made vectors for known texts (an unknown text fails the test loudly)."""

    def __init__(self):
        self.stats = {"encoded": 0, "cached": 0}
        self.seen = []

    def encode(self, texts, desc="embed"):
        self.seen += list(texts)
        self.stats["encoded"] += len(texts)
        return np.stack([TEXT_VECS[t] for t in texts])


class WordOverlapReranker:
    """A cross-encoder stand-in: score = number of shared lower-case words."""

    def __init__(self):
        self.pairs = []

    def score(self, pairs):
        self.pairs += pairs
        return np.array(
            [len(set(q.lower().split()) & set(p.lower().split())) for q, p in pairs],
            dtype=np.float64,
        )


def llm_answer(messages):
    text = last_user(messages)
    if text.startswith("Question date:"):
        return '```json\n{"start": "2023/06/01", "end": "2023/06/30"}\n```'
    if Q_SSU in text:
        return "Here are three:\n1. gin sour recipe\n2. I mixed a drink\n3. rum punch"
    return "???"


@pytest.fixture
def server():
    with FakeOpenAIServer(answer=llm_answer) as srv:
        yield srv


@pytest.fixture
def inputs(tmp_path, fresh_cache, fake_key):
    return write_inputs(tmp_path)


def rewrite_cfg(server, **over):
    llm = group(
        "reader",
        "gpt4o",
        model="openai/fake-rewriter",
        provider=None,
        max_tokens=64,
        backoff_s=0.01,
        **server.runtime(concurrency=2, num_retries=1),
    )
    llm = {k: llm[k] for k in group("rewrite", "multiangle")["llm"]}
    return group("rewrite", "multiangle", **{"time_aware": True, "llm": llm, **over})


EMBEDDER = group("embedder", "minilm", name="fake", model="unused")
NO_RERANKER = group("reranker", "none", top_k=4)


def run(p, rcfg, reranker_cfg=NO_RERANKER, encoder=None, reranker=None, retrieval_cfg=None):
    return run_rewrite(
        rcfg,
        EMBEDDER,
        reranker_cfg,
        questions=p["questions"],
        sessions=p["sessions"],
        turns=p["turns"],
        candidates_rerank=p["candidates_rerank"],
        candidates_retrieve=p["candidates_retrieve"],
        embeddings=p["embeddings"],
        out=p["out"],
        out_rewrites=p["out_rewrites"],
        encoder=encoder or FakeEncoder(),
        reranker=reranker,
        retrieval_cfg=retrieval_cfg,
    )


def ranked(df, qid):
    rows = df.filter(pl.col("question_id") == qid).sort("rank")
    assert rows.get_column("rank").to_list() == list(range(1, rows.height + 1))
    return list(zip(rows.get_column("session_id"), rows.get_column("score")))


def calls(cache: Path) -> int:
    log = cache / "llm" / "calls.jsonl"
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_multiangle_rescoring_time_aware_and_pass_through(server, inputs, fresh_cache):
    enc = FakeEncoder()
    run(inputs, rewrite_cfg(server), encoder=enc)
    out = read_table(inputs["out"], "candidates")
    # q_ssu: pool = rerank {s1,s2} ∪ retrieve {s4,s3,s5}; max cosine over question + 3 variants.
    got = ranked(out, "q_ssu")
    assert [s for s, _ in got] == ["s3", "s2", "s1", "s4"]  # s5 (score 0) cut by top_k=4
    # (s1 and s4 tie at 0.8: the pool order, reranked before retrieved, decides)
    assert [x for _, x in got] == pytest.approx([1.0, 1.4 / np.sqrt(2), 0.8, 0.8], abs=1e-6)
    # q_bad: garbage variants -> the original question alone, over the same kind of pool.
    assert ranked(out, "q_bad") == [
        ("s4", pytest.approx(1.0)),
        ("s1", pytest.approx(0.0)),
        ("s5", pytest.approx(-1.0)),
    ]
    # q_tr: June ±2 days (05/30..07/02) moves s2 and s6 to the front; nothing dropped; scores kept.
    assert ranked(out, "q_tr") == [("s2", 0.8), ("s6", 0.7), ("s5", 0.9), ("s1", 0.6)]
    # q_ms: not a rewrite type -> its reranked candidates, unchanged.
    assert ranked(out, "q_ms") == [("s4", 0.9), ("s2", 0.8), ("s1", 0.7)]
    assert sorted(set(enc.seen)) == sorted(
        [Q_SSU, Q_BAD, "gin sour recipe", "I mixed a drink", "rum punch"]
    )

    rw = read_table(inputs["out_rewrites"])
    assert dict(rw.schema) == polars_schema("rewrites")
    assert rw.get_column("question_id").to_list() == ["q_bad", "q_ssu", "q_tr"]
    rec = {r["question_id"]: r for r in rw.iter_rows(named=True)}
    assert rec["q_ssu"]["variants"] == ["gin sour recipe", "I mixed a drink", "rum punch"]
    assert rec["q_ssu"]["error"] is None and rec["q_ssu"]["time_range"] is None
    assert rec["q_bad"]["variants"] == [] and "no usable variant" in rec["q_bad"]["error"]
    assert rec["q_bad"]["raw_variants"] == "???"
    assert rec["q_tr"]["time_range"] == "2023/06/01..2023/06/30" and rec["q_tr"]["error"] is None
    assert server.total_requests == 3 and calls(fresh_cache) == 3
    meta = read_meta(inputs["out"])
    assert meta["stage"] == "rewrite" and set(meta["params"]) == {"rewrite", "embedder", "reranker"}
    # The chat templates sent (placeholders for the question), recorded for MLflow's prompt
    # registry: filled in, each is a request the model received.
    prompts = read_meta(inputs["out_rewrites"])["prompts"]
    assert sorted(p["name"] for p in prompts.values()) == ["multiangle", "time_range"]
    sent = [b["messages"] for b in server.bodies]
    for pid, rec in prompts.items():
        assert rec["stage"] == "rewrite" and pid.startswith(rec["name"] + ":")
        qid, qtext = ("q_ssu", Q_SSU) if rec["name"] == "multiangle" else ("q_tr", Q_TR)
        qdate = read_table(inputs["questions"]).filter(pl.col("question_id") == qid)[
            "question_date"
        ][0]
        filled = [
            {
                **m,
                "content": m["content"]
                .replace("{question_date}", qdate)
                .replace("{question}", qtext),
            }
            for m in rec["messages"]
        ]
        assert filled in sent


def test_variants_pool_units_as_the_retrieve_stage_does(server, inputs):
    # s4 has two units: its key (0,0,0,1) first, then (0,.6,.8,0). Under `max` its best cosine
    # over the variants is 0.8 ("I mixed a drink" on the second unit); under `blend` each
    # variant scores the mean of the key and the best unit, and "rum punch" wins with 1/sqrt(2).
    pools = {}
    for pool in ("max", "blend"):
        run(
            inputs,
            rewrite_cfg(server, time_aware=False),
            retrieval_cfg=group("retrieval", "dense", unit_pool=pool),
        )
        pools[pool] = dict(ranked(read_table(inputs["out"], "candidates"), "q_ssu"))
        assert read_meta(inputs["out"])["params"]["retrieval"] == {"unit_pool": pool}
    assert pools["max"]["s4"] == pytest.approx(0.8)
    assert pools["blend"]["s4"] == pytest.approx(1 / np.sqrt(2))
    assert pools["max"]["s3"] == pools["blend"]["s3"] == pytest.approx(1.0)  # one unit: the same


def test_rerun_is_free_and_byte_identical(server, inputs, fresh_cache):
    run(inputs, rewrite_cfg(server))
    before = sha256_file(inputs["out"]), sha256_file(inputs["out_rewrites"])
    run(inputs, rewrite_cfg(server))
    assert (sha256_file(inputs["out"]), sha256_file(inputs["out_rewrites"])) == before
    assert server.total_requests == 3 and calls(fresh_cache) == 3


def test_reranker_rescores_the_union_by_max_over_queries(server, inputs):
    rr = WordOverlapReranker()
    run(
        inputs,
        rewrite_cfg(server, time_aware=False),
        group("reranker", "bge_reranker_v2_m3", model="unused", top_k=4),
        reranker=rr,
    )
    out = read_table(inputs["out"], "candidates")
    # Overlaps: s4 "i mixed a drink" 4, s3 "gin sour recipe" 3, s2 "rum punch" 2, s1/s5 0.
    assert ranked(out, "q_ssu") == [("s4", 4.0), ("s3", 3.0), ("s2", 2.0), ("s1", 0.0)]
    assert ("I mixed a drink", "I mixed a drink for friends") in rr.pairs
    assert len([p for p in rr.pairs if p[0] == Q_SSU]) == 5  # every pooled session, every query
    assert ranked(out, "q_tr") == [("s5", 0.9), ("s2", 0.8), ("s6", 0.7), ("s1", 0.6)]


def test_a_nan_score_ranks_last_as_in_retrieve_and_rerank(server, inputs):
    """One ranking rule (retrieval/ranking.py): a NaN cross-encoder score is no evidence."""

    class NaNForGin(WordOverlapReranker):
        def score(self, pairs):
            out = super().score(pairs)
            out[[i for i, (_, passage) in enumerate(pairs) if "gin" in passage]] = np.nan
            return out

    run(
        inputs,
        rewrite_cfg(server, time_aware=False),
        group("reranker", "bge_reranker_v2_m3", model="unused", top_k=5),
        reranker=NaNForGin(),
    )
    got = ranked(read_table(inputs["out"], "candidates"), "q_ssu")
    assert [s for s, _ in got] == ["s4", "s2", "s1", "s5", "s3"]  # s1/s5 tie: pool order
    assert np.isnan(got[-1][1])


def test_time_aware_only_with_zero_variants(server, inputs):
    run(inputs, rewrite_cfg(server, n_variants=0))
    out = read_table(inputs["out"], "candidates")
    assert server.total_requests == 1  # the time range; no variant calls
    # Time-aware alone: the rewrite type passes through exactly as reranked (not re-scored).
    assert [s for s, _ in ranked(out, "q_ssu")] == ["s1", "s2"]
    assert [s for s, _ in ranked(out, "q_tr")] == ["s2", "s6", "s5", "s1"]


def test_llm_failure_is_recorded_and_falls_back(server, inputs):
    server.plan(Q_SSU, ["500"] * 10)
    run(inputs, rewrite_cfg(server, time_aware=False))
    rec = {r["question_id"]: r for r in read_table(inputs["out_rewrites"]).iter_rows(named=True)}
    assert rec["q_ssu"]["variants"] == [] and rec["q_ssu"]["error"].startswith("variants: LLM")
    out = read_table(inputs["out"], "candidates")
    assert [s for s, _ in ranked(out, "q_ssu")] == ["s1", "s2", "s4", "s3"]


def test_off_passes_everything_through(server, inputs):
    for n in (3, 5):  # a knob off does not use leaves the file byte-identical
        cands_df, rw = run(inputs, rewrite_cfg(server, name="off", time_aware=False, n_variants=n))
        if n == 3:
            first = sha256_file(inputs["out"])
    assert sha256_file(inputs["out"]) == first
    assert server.total_requests == 0 and rw.height == 0
    out = read_table(inputs["out"], "candidates")
    assert out.equals(
        read_table(inputs["candidates_rerank"], "candidates").sort(["question_id", "rank"])
    )
    assert read_meta(inputs["out"])["params"] == {"rewrite": {"name": "off"}}
    assert "prompts" not in read_meta(inputs["out_rewrites"])  # no prompt was sent
    assert dict(read_table(inputs["out_rewrites"]).schema) == polars_schema("rewrites")


def test_pooled_session_without_key_vector_is_a_clear_error(server, inputs):
    emb = read_table(inputs["embeddings"]).filter(pl.col("session_id") != "s3")
    write_table(emb, inputs["embeddings"], stage="test")
    with pytest.raises(InputError) as e:
        run(inputs, rewrite_cfg(server, time_aware=False))
    msg = str(e.value)
    for part in ("'s3'", "embeddings.parquet", "'q_ssu'", "session_id"):
        assert part in msg
    assert not Path(inputs["out"]).exists()  # nothing half-written


def test_cost_of_rewrite_calls_is_recorded_per_question(server, inputs):
    cfg = rewrite_cfg(server)
    cfg["llm"] = {**cfg["llm"], "input_cost_per_mtok": 1.0, "output_cost_per_mtok": 2.0}
    run(inputs, cfg)
    rw = read_table(inputs["out_rewrites"])
    usage = server.usage_sent  # what the server billed, over its 200-ok answers
    expected = (usage["prompt_tokens"] * 1.0 + usage["completion_tokens"] * 2.0) / 1e6
    assert expected > 0
    assert rw["cost_usd"].sum() == pytest.approx(expected)
    assert (rw["cost_usd"] > 0).all()  # each rewritten question paid its own calls
