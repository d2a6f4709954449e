"""embed → retrieve → rerank on a tiny LongMemEval-shaped set with the bundled MiniLM:
contract columns, byte-identical reruns, and zero model calls when everything is cached."""

from __future__ import annotations

import polars as pl
import pytest

from confs import group
from memrecall.artifacts import read_table
from memrecall.eval.retrieval_metrics import retrieval_metrics
from memrecall.retrieval.embed import run_embed
from memrecall.retrieval.embedders import CachedEncoder
from memrecall.retrieval.rerank import run_rerank
from memrecall.retrieval.retrieve import run_retrieve
from tables import write_downloaded

EMBEDDER = group("embedder", "minilm", max_length=128, batch_size=8, granularity="session")
RETRIEVAL = group("retrieval", "dense", top_k=3, bm25_stemmer="none")
RERANK_NONE = group("reranker", "none", top_k=2)

SESSIONS = {
    "answer_1": [
        ("user", "I finally bought hiking boots from REI last weekend.", True),
        ("assistant", "Nice! Break them in before long hikes.", False),
    ],
    "answer_2": [
        ("user", "My sister Ana is visiting me in Lisbon in May.", True),
        ("assistant", "Lisbon in May is lovely.", False),
    ],
    "s_pasta": [
        ("user", "Give me a carbonara recipe.", False),
        ("assistant", "Eggs, guanciale, pecorino, pepper.", False),
    ],
    "s_tax": [
        ("user", "How do I file taxes as a freelancer?", False),
        ("assistant", "Keep receipts and file quarterly.", False),
    ],
}
QUESTIONS = [
    (
        "q_boots",
        "single-session-user",
        "Where did I buy my hiking boots?",
        ["s_pasta", "answer_1", "s_tax"],
        ["answer_1"],
    ),
    (
        "q_sister",
        "single-session-user",
        "Who is visiting me in Lisbon?",
        ["answer_2", "s_tax", "s_pasta", "answer_1"],
        ["answer_2"],
    ),
]


@pytest.fixture
def inputs(tmp_path):
    q = pl.DataFrame(
        [
            (qid, t, False, text, "x", "2023/06/01 (Thu) 10:00", hay, ev)
            for qid, t, text, hay, ev in QUESTIONS
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
    s = pl.DataFrame(
        {
            "session_id": sorted(SESSIONS),
            "date": ["2023/05/01 (Mon) 10:00"] * 4,
            "content_hash": ["h"] * 4,
        }
    )
    t = pl.DataFrame(
        [
            (sid, i, r, c, a)
            for sid in sorted(SESSIONS)
            for i, (r, c, a) in enumerate(SESSIONS[sid])
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
    files = {n: tmp_path / f"{n}.parquet" for n in ("questions", "sessions", "turns")}
    for name, df in (("questions", q), ("sessions", s), ("turns", t)):
        write_downloaded(df, files[name], table=name)
    return {k: str(v) for k, v in files.items()} | {
        "dir": tmp_path,
        "questions_df": q,
        "turns_df": t,
    }


PASSAGE = {**EMBEDDER, "granularity": "passage", "passage_tokens": 126, "passage_overlap": 16}


@pytest.mark.parametrize(
    "embedder, retrieval", [(EMBEDDER, RETRIEVAL), (PASSAGE, {**RETRIEVAL, "time_aware": True})]
)
def test_embed_retrieve_rerank_rerun_is_byte_identical(inputs, fresh_cache, embedder, retrieval):
    d = inputs["dir"]
    emb, cand, rr = str(d / "embeddings.parquet"), str(d / "cand.parquet"), str(d / "rr.parquet")

    def run():
        stats = run_embed(embedder, sessions=inputs["sessions"], turns=inputs["turns"], out=emb)
        run_retrieve(retrieval, embedder, questions=inputs["questions"], embeddings=emb, out=cand)
        run_rerank(
            RERANK_NONE,
            questions=inputs["questions"],
            turns=inputs["turns"],
            candidates=cand,
            out=rr,
        )
        return stats, [open(p, "rb").read() for p in (emb, cand, rr)]

    stats1, bytes1 = run()
    assert stats1["encoded"] == 4  # four unique session keys (queries are counted separately)
    stats2, bytes2 = run()
    assert stats2["encoded"] == 0 and stats2["model_calls"] == 0
    assert bytes1 == bytes2

    e = read_table(emb)
    assert e.columns[:4] == ["unit_id", "session_id", "key_hash", "vector"]
    assert e["session_id"].to_list() == sorted(SESSIONS)
    assert e["vector"].list.len().to_list() == [384] * 4
    c = read_table(cand, table="candidates")
    assert c.filter(pl.col("question_id") == "q_sister")["rank"].to_list() == [1, 2, 3]
    # MiniLM finds both evidence sessions first.
    top1 = dict(c.filter(pl.col("rank") == 1).select("question_id", "session_id").iter_rows())
    assert top1 == {"q_boots": "answer_1", "q_sister": "answer_2"}
    m = retrieval_metrics(inputs["questions_df"], inputs["turns_df"], c)
    assert m["session"]["recall_any@1"] == 1.0 and m["n"] == 2
    r = read_table(rr, table="candidates")
    assert r.height == 4 and r["rank"].max() == 2  # reranker none: top_k passed through


def test_embed_caches_the_question_vectors_while_its_model_is_loaded(
    inputs, fresh_cache, monkeypatch
):
    """retrieve then finds every query vector in the cache and never loads the model; when embed
    itself found every key cached (no model loaded) it loads none for the questions either."""
    d = inputs["dir"]
    emb, cand = str(d / "embeddings.parquet"), str(d / "cand.parquet")
    made: list[CachedEncoder] = []

    def recording(settings, model=None):
        made.append(CachedEncoder(settings, model))
        return made[-1]

    monkeypatch.setattr("memrecall.retrieval.embed.CachedEncoder", recording)
    monkeypatch.setattr("memrecall.retrieval.retrieve.CachedEncoder", recording)
    kw = dict(sessions=inputs["sessions"], turns=inputs["turns"], out=emb)
    run_embed(EMBEDDER, questions=inputs["questions"], **kw)
    run_retrieve(RETRIEVAL, EMBEDDER, questions=inputs["questions"], embeddings=emb, out=cand)
    embed_enc, retrieve_enc = made
    assert embed_enc.stats["encoded"] == len(SESSIONS) + len(QUESTIONS)
    assert retrieve_enc.stats["cached"] == len(QUESTIONS)
    assert retrieve_enc.stats["model_calls"] == 0 and retrieve_enc._model is None

    # new questions, every session key cached: embed loads no model for them
    questions = read_table(inputs["questions"], table="questions")
    changed = questions.with_columns(pl.col("question") + " Which shop?")
    write_downloaded(changed, d / "questions2.parquet", table="questions")
    run_embed(EMBEDDER, questions=str(d / "questions2.parquet"), **kw)
    assert made[-1].stats["encoded"] == 0 and made[-1]._model is None
