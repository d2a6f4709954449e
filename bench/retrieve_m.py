"""The retrieve stage at LongMemEval-M's size, on a synthetic embeddings artifact.

    python bench/retrieve_m.py [--questions 500] [--haystack 500] [--unique 125000]
                               [--methods dense bm25] [--bm25-questions 50]
                               [--units-per-session 1]

Builds, in a temp folder: questions.parquet (500 questions, each a haystack of 500 session ids
drawn from a pool of --unique sessions: 250,000 session instances) and embeddings.parquet (one
unit per unique session: a random unit vector of MiniLM's 384 dims and a key text of ~2,500
characters of words, about a LongMemEval session's user turns). The question vectors are put in
a temp vector cache, so no model loads: what is measured is the retrieve stage itself
(retrieval.retrieve.run_retrieve, as DVC runs it, in a fresh child process): wall time, peak RSS
(VmHWM) and questions per second. BM25 builds one index per question over its 500 texts, so it
is timed on --bm25-questions questions and extrapolated (printed as such).
`--units-per-session N` (N > 1) gives each session its key and N - 1 sentence-sized units (~100
characters) at `embedder.granularity=sentence`, the default: the retrieve stage then holds N
vectors per session (the dev file averages 8.9 units per session).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

DIM = 384


def configs(method: str, units: int) -> tuple[dict, dict]:
    """(embedder, retrieval) as the pipeline composes them."""
    from retrieval import load_cfg  # bench/retrieval.py

    return (
        load_cfg("embedder", "minilm", {"granularity": "sentence" if units > 1 else "session"}),
        load_cfg("retrieval", method, {}),
    )


def build(tmp: Path, n_q: int, hay: int, unique: int, units: int = 1, seed: int = 0) -> None:
    import numpy as np
    import polars as pl
    import pyarrow as pa

    from memrecall.artifacts import write_table
    from memrecall.hashing import sha256_text
    from memrecall.retrieval.embed import vectors_column
    from memrecall.retrieval.embedders import embedding_space
    from memrecall.retrieval.store import vector_store

    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(20_000)]
    sids = [f"s{i:07d}" for i in range(unique)]
    qids = [f"q{i:04d}" for i in range(n_q)]
    hays = [sorted(rng.choice(unique, size=hay, replace=False).tolist()) for _ in qids]
    questions = pl.DataFrame(
        {
            "question_id": qids,
            "question_type": ["multi-session"] * n_q,
            "is_abstention": [False] * n_q,
            "question": [f"question {q} about w{i}" for i, q in enumerate(qids)],
            "answer": ["x"] * n_q,
            "question_date": ["2023/06/01 (Thu) 10:00"] * n_q,
            "haystack_session_ids": [[sids[j] for j in h] for h in hays],
            "answer_session_ids": [[sids[h[0]]] for h in hays],
            "haystack_dates": [["2023/05/01 (Mon) 10:00"] * hay] * n_q,
        }
    )
    write_table(questions, tmp / "questions.parquet", table="questions", stage="bench")
    vecs = rng.standard_normal((unique, DIM), dtype=np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    pyrng = random.Random(seed)
    texts = [" ".join(pyrng.choices(words, k=400)) for _ in range(unique)]
    unit_ids, unit_sids = sids, sids
    if units > 1:  # the key, then sentence-sized units: rows grouped by session, key first
        unit_ids = [f"{s}_s{j}" for s in sids for j in range(units)]
        unit_sids = [s for s in sids for _ in range(units)]
        texts = [
            t if j == 0 else " ".join(pyrng.choices(words, k=16))
            for t in texts
            for j in range(units)
        ]
        vecs = rng.standard_normal((len(texts), DIM), dtype=np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    tbl = pa.table(
        {
            "unit_id": pa.array(unit_ids),
            "session_id": pa.array(unit_sids),
            "key_hash": pa.array([sha256_text(t) for t in texts]),
            "vector": vectors_column(vecs),
            "text": pa.array(texts),
        }
    )
    write_table(tbl, tmp / "embeddings.parquet", stage="bench")
    cfg, _ = configs("dense", units)
    qv = rng.standard_normal((n_q, DIM), dtype=np.float32)
    qv /= np.linalg.norm(qv, axis=1, keepdims=True)
    vector_store(embedding_space(cfg)).put_many(
        zip([sha256_text(t) for t in questions.get_column("question").to_list()], qv)
    )


def child(tmp: str, method: str, limit: int, units: int) -> None:
    import polars as pl

    from memrecall.artifacts import write_table
    from memrecall.retrieval.retrieve import run_retrieve

    tmp = Path(tmp)
    qpath = tmp / "questions.parquet"
    if limit:
        q = pl.read_parquet(qpath).head(limit)
        qpath = tmp / f"questions_{limit}.parquet"
        write_table(q, qpath, table="questions", stage="bench")
    emb_cfg, ret_cfg = configs(method, units)
    t0, c0 = time.perf_counter(), time.process_time()
    cands = run_retrieve(
        ret_cfg,
        emb_cfg,
        questions=str(qpath),
        embeddings=str(tmp / "embeddings.parquet"),
        out=str(tmp / f"candidates_{method}.parquet"),
    )
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(
        json.dumps(
            {
                "stage_s": dt,
                "stage_cpu_s": cpu,
                "candidates": cands.height,
                "questions": cands.get_column("question_id").n_unique(),
                "peak_rss_mb": _vm_hwm_mb(),
            }
        )
    )


def _vm_hwm_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(tmp: Path, method: str, limit: int, units: int) -> dict:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, __file__, "--child", str(tmp), method, str(limit), str(units)],
        capture_output=True,
        text=True,
        env=os.environ,
    )
    if proc.returncode:
        raise SystemExit(f"child failed ({method}):\n{proc.stderr[-3000:]}")
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    res["wall_s"] = time.perf_counter() - t0
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=int, default=500)
    ap.add_argument("--haystack", type=int, default=500)
    ap.add_argument("--unique", type=int, default=125_000)
    ap.add_argument("--methods", nargs="*", default=["dense", "bm25"])
    ap.add_argument("--bm25-questions", type=int, default=50)
    ap.add_argument("--units-per-session", type=int, default=1, metavar="N")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.child[0], a.child[1], int(a.child[2]), int(a.child[3]))
        return
    with tempfile.TemporaryDirectory(prefix="memrecall_retrieve_m_") as tmp:
        tmp = Path(tmp)
        os.environ["MEMRECALL_CACHE_DIR"] = str(tmp / "cache")
        t0 = time.perf_counter()
        build(tmp, a.questions, a.haystack, a.unique, a.units_per_session)
        size = (tmp / "embeddings.parquet").stat().st_size / 1e6
        print(
            f"synthetic: {a.questions} questions x {a.haystack} sessions = "
            f"{a.questions * a.haystack:,} session instances, {a.unique:,} unique sessions "
            f"x {a.units_per_session} units; "
            f"embeddings.parquet {size:.0f} MB (built in {time.perf_counter() - t0:.0f} s)"
        )
        for method in a.methods:
            limit = a.bm25_questions if method in ("bm25", "hybrid") else 0
            r = measure(tmp, method, limit, a.units_per_session)
            n = r["questions"]
            line = (
                f"{method:<7} {n} questions: stage {r['stage_s']:.1f} s wall, "
                f"{r['stage_cpu_s']:.1f} s CPU ({n / r['stage_cpu_s']:.1f} questions per "
                f"CPU second), process {r['wall_s']:.1f} s, peak RSS "
                f"{r['peak_rss_mb']:.0f} MB"
            )
            if limit and limit < a.questions:
                line += (
                    f"; EXTRAPOLATED to {a.questions}: "
                    f"~{r['stage_cpu_s'] / n * a.questions:.0f} CPU s"
                )
            print(line, flush=True)


if __name__ == "__main__":
    main()
