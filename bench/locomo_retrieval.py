"""Retrieval benchmark on a LoCoMo file with the bundled MiniLM, through the pipeline's own code.

    python bench/locomo_retrieval.py --data ../shared/data/locomo/locomo_dev2.json [--json OUT]
        [--granularities session round sentence] [--methods dense bm25 hybrid]
        [--scale 1 2 4 8]

For each granularity (session: one key per session; round: one key per turn, as LoCoMo's
evidence is single turns; sentence: the session key plus each first-person sentence) and method
(dense, bm25, hybrid = RRF of both), it prints
recall_any@5, recall_any@10, recall_all@10 and ndcg_any@10 at session level (gold: the
evidence's D<n> sessions) and turn level (gold: the evidence dia_ids), category 5 excluded
(adversarial: unanswerable, as abstention is for LongMemEval), per category too with --by-category.

Timing: embedding the sessions once per conversation (cache misses of this run, and the bare
model's throughput on a fixed sample, cache or not), the queries, and retrieval per method.
Growth with the number of conversations (`--scale`): the file's conversations are repeated
under new ids (same texts: embeddings come from the cache, so this times retrieval; embedding
cost is units x 1/throughput, printed per conversation) and retrieval is timed for each size.

Embeddings go to the content-addressed cache (MEMRECALL_CACHE_DIR, else <repo>/.memrecall/cache).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import polars as pl  # noqa: E402

from memrecall.benchmarks.base import Normalised  # noqa: E402
from memrecall.benchmarks.locomo import BENCHMARK  # noqa: E402
from memrecall.benchmarks.locomo import data as locomo  # noqa: E402
from memrecall.benchmarks.locomo.schema import ADVERSARIAL, CATEGORIES  # noqa: E402
from memrecall.data.jsonfile import load_records  # noqa: E402
from memrecall.eval.retrieval_metrics import retrieval_metrics  # noqa: E402
from memrecall.retrieval.embed import build_embeddings  # noqa: E402
from memrecall.retrieval.embedders import CachedEncoder, FlagEncoder  # noqa: E402
from memrecall.retrieval.keys import session_keys  # noqa: E402
from memrecall.retrieval.retrieve import retrieve  # noqa: E402
from retrieval import load_cfg  # noqa: E402  (bench/retrieval.py: configs as composed)

METHODS = {"dense": ("dense", "rrf"), "bm25": ("bm25", "rrf"), "hybrid": ("hybrid", "rrf")}
SHOWN = ("recall_any@5", "recall_any@10", "recall_all@10", "ndcg_any@10")
KS = (5, 10)


SPEAKER = BENCHMARK.speaker_column  # keys say who spoke ("Caroline: ...")


def load(path: str, copies: int = 1) -> Normalised:
    records = load_records(path)
    locomo.validate(records, path)
    if copies > 1:  # the same conversations again under new ids: the scaling runs
        base = records
        records = []
        for i in range(copies):
            for r in base:
                r = copy.deepcopy(r)
                r["sample_id"] = f"{r['sample_id']}#{i}"
                records.append(r)
    return locomo.normalise(records, locomo.flatten(records))


def row(name: str, m: dict, level: str) -> str:
    return f"  {name:<22}" + "".join(f"{m[level][k]:>15.3f}" for k in SHOWN)


def header(title: str) -> str:
    return f"  {title:<22}" + "".join(f"{k:>15}" for k in SHOWN)


def bare_throughput(embedder_cfg: dict, texts: list[str]) -> float:
    model = FlagEncoder(embedder_cfg)
    model.encode(texts[:4])  # warm-up
    t0 = time.perf_counter()
    model.encode(texts)
    return len(texts) / (time.perf_counter() - t0)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", required=True, help="a LoCoMo file (locomo10.json or a slice)")
    ap.add_argument(
        "--granularities",
        nargs="+",
        default=["session", "round", "sentence"],
        choices=["session", "round", "passage", "sentence"],
    )
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    ap.add_argument(
        "--scale",
        nargs="*",
        type=int,
        default=[1, 2, 4, 8],
        help="conversation-count multipliers for the growth timing ([] to skip)",
    )
    ap.add_argument("--throughput-sample", type=int, default=32, metavar="N")
    ap.add_argument("--by-category", action="store_true")
    ap.add_argument("--json", help="write all figures here")
    args = ap.parse_args(argv)

    ds = load(args.data)
    q, turns = ds.questions, ds.turns
    golds = BENCHMARK.gold(q, turns)  # each question's own evidence turns
    n_conv = q["conversation_id"].n_unique()
    print(
        f"data: {args.data}: {n_conv} conversations, {q.height} questions "
        f"({int(q['is_abstention'].sum())} category 5, excluded from retrieval metrics), "
        f"{ds.sessions.height} sessions, {turns.height} turns"
    )
    out: dict = {
        "data": str(args.data),
        "conversations": n_conv,
        "questions": q.height,
        "results": {},
        "timing": {},
        "scaling": {},
    }
    retrieval_base = load_cfg("retrieval", "hybrid", {})
    for gran in args.granularities:
        ecfg = load_cfg("embedder", "minilm", {"granularity": gran})
        keys = session_keys(ds.sessions, turns, ecfg, speaker_column=SPEAKER)
        enc = CachedEncoder(ecfg)
        t0 = time.perf_counter()
        emb = build_embeddings(ds.sessions, turns, ecfg, enc, speaker_column=SPEAKER)
        t_units = time.perf_counter() - t0
        s_units = dict(enc.stats)
        t0 = time.perf_counter()
        enc.encode(q["question"].to_list(), desc="queries")
        t_queries = time.perf_counter() - t0
        rate = (
            bare_throughput(ecfg, keys["text"].head(args.throughput_sample).to_list())
            if args.throughput_sample
            else float("nan")
        )
        units_per_conv = keys.height / n_conv
        print(
            f"\n== granularity {gran}: {keys.height} units ({units_per_conv:.0f} per "
            f"conversation, mean {keys['text'].str.len_chars().mean():.0f} chars), embedded "
            f"once for all {q.height} questions"
        )
        print(
            f"  embed units: {t_units:.1f}s ({s_units.get('encoded', 0)} encoded, "
            f"{s_units.get('cached', 0)} from cache); queries: {t_queries:.1f}s; bare model "
            f"{rate:.1f} units/s -> {units_per_conv / rate:.1f}s per conversation uncached"
        )
        out["timing"][gran] = {
            "units": keys.height,
            "embed_s": t_units,
            "queries_s": t_queries,
            "encoded": s_units.get("encoded", 0),
            "units_per_s_bare": rate,
            "embed_s_per_conversation_uncached": units_per_conv / rate,
        }
        by_level = {"session": [], "turn": []}
        for name in args.methods:
            method, fusion = METHODS[name]
            rcfg = {**retrieval_base, "method": method, "fusion": fusion}
            t0 = time.perf_counter()
            cands = retrieve(q, emb, rcfg, ecfg, encoder=enc)
            took = time.perf_counter() - t0
            m = retrieval_metrics(q, turns, cands, ks=KS, golds=golds)
            out["results"][f"{gran}/{name}"] = {
                "session": m["session"],
                "turn": m["turn"],
                "n": m["n"],
                "n_turn": m["n_turn"],
                "retrieve_s": took,
            }
            for level in by_level:
                by_level[level].append(row(f"{name} ({took:.1f}s)", m, level))
            if args.by_category:
                for cat, name_c in CATEGORIES.items():
                    sub = q.filter(pl.col("category") == cat)
                    if cat == ADVERSARIAL or not sub.height:
                        continue
                    mc = retrieval_metrics(sub, turns, cands, ks=KS, golds=golds)
                    by_level["session"].append(row(f"  {cat} {name_c}", mc, "session"))
                    by_level["turn"].append(row(f"  {cat} {name_c}", mc, "turn"))
        for level, rows in by_level.items():
            print(f"\n{header(f'{level} level')}")
            print("\n".join(rows))

        for k in args.scale:
            big = load(args.data, k)
            enc_k = CachedEncoder(ecfg)
            t0 = time.perf_counter()
            emb_k = build_embeddings(big.sessions, big.turns, ecfg, enc_k, speaker_column=SPEAKER)
            t_emb = time.perf_counter() - t0
            times = {}
            for name in args.methods:
                method, fusion = METHODS[name]
                t0 = time.perf_counter()
                retrieve(
                    big.questions,
                    emb_k,
                    {**retrieval_base, "method": method, "fusion": fusion},
                    ecfg,
                    encoder=enc_k,
                )
                times[name] = time.perf_counter() - t0
            conv = big.questions["conversation_id"].n_unique()
            out["scaling"].setdefault(gran, []).append(
                {
                    "conversations": conv,
                    "questions": big.questions.height,
                    "units": emb_k.height,
                    "embed_cached_s": t_emb,
                    "retrieve_s": times,
                }
            )
            print(
                f"  scale x{k}: {conv} conversations, {big.questions.height} questions, "
                f"{emb_k.height} units; embed (cached) {t_emb:.1f}s; retrieve "
                + ", ".join(f"{n} {t:.1f}s" for n, t in times.items())
            )
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
