"""Retrieval benchmark on a LongMemEval-format file with the bundled models.

    python bench/retrieval.py --data FILE [--methods bm25 dense hybrid_rrf ...] [--json OUT]
                              [--embedder-set key=value ...] [--retrieval-set key=value ...]

For each method (bm25, dense = MiniLM, hybrid_rrf / hybrid_max / hybrid_weighted, and the
retrieval=plugin example examples/memesh_fts5.py as memesh_rrf / _max / _weighted / _fts5) it
prints the
session-level recall_any@1/5/10, recall_all@5/10, ndcg_any@5/10 (official LongMemEval
definitions, abstention excluded; see memrecall.eval.retrieval_metrics) overall and by type,
plus recall_any@5 under the protocol of the published figures (every evidence session counts as
gold; single-session-assistant included), which are printed beside it. Also: the encoder's
throughput (the bare model on a fixed sample of session keys, and the run's own cache misses),
unique vs total texts, and the wall time of a second, fully cached run of the embed and retrieve
stages (separate processes, as DVC runs them).

Configs start from conf/embedder/minilm.yaml and conf/retrieval/hybrid.yaml; `--embedder-set`
and `--retrieval-set` override fields (e.g. granularity=round). Embeddings go to the
content-addressed cache (MEMRECALL_CACHE_DIR, else <repo>/.memrecall/cache): the first run on a
2-core CPU embeds ~4,600 sessions of the dev file (minutes), later runs reuse them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import yaml  # noqa: E402

from memrecall.artifacts import write_table  # noqa: E402
from memrecall.data.longmemeval import load_records, normalise, validate_records  # noqa: E402
from memrecall.eval.retrieval_metrics import retrieval_metrics  # noqa: E402
from memrecall.retrieval.embedders import CachedEncoder, build_embeddings  # noqa: E402
from memrecall.retrieval.keys import session_keys  # noqa: E402
from memrecall.retrieval.retrieve import retrieve  # noqa: E402

METHODS = {"bm25": ("bm25", "rrf"), "dense": ("dense", "rrf"), "hybrid_rrf": ("hybrid", "rrf"),
           "hybrid_max": ("hybrid", "max"), "hybrid_weighted": ("hybrid", "weighted"),
           # retrieval=plugin with the MeMesh-style example (examples/memesh_fts5.py)
           "memesh_rrf": ("plugin", "rrf"), "memesh_max": ("plugin", "max"),
           "memesh_weighted": ("plugin", "weighted"), "memesh_fts5": ("plugin", "fts5")}
MEMESH = {"callable": "examples.memesh_fts5:MeMeshRetriever", "code": "examples/memesh_fts5.py"}
SHOWN = ("recall_any@1", "recall_any@5", "recall_any@10", "recall_all@5", "recall_all@10",
         "ndcg_any@5", "ndcg_any@10")
# Published R@5 on LongMemEval-S (500 questions; gold = all evidence sessions, see --help).
PUBLISHED = {
    "bm25": "MeMesh FTS5 95.4%",
    "dense": "memweave 98.0% (MiniLM; tuned heuristics) / MemPalace raw 96.6%",
    "hybrid_rrf": "MemPalace hybrid 98.44%",
    "hybrid_max": "MeMesh FTS5+MiniLM max 95.4%",
    "hybrid_weighted": "MeMesh FTS5+MiniLM 60/40 weighted 82.4%",
    "memesh_rrf": "–",
    "memesh_max": "MeMesh mode B (FTS5+MiniLM max) 95.4%",
    "memesh_weighted": "MeMesh mode C (60/40 weighted) 82.4%",
    "memesh_fts5": "MeMesh mode A (FTS5 alone) 95.4%",
}


def _value(text: str):
    return yaml.safe_load(text)


def _overrides(items) -> dict:
    out = {}
    for item in items or []:
        key, sep, val = item.partition("=")
        if not sep:
            raise SystemExit(f"expected key=value, got {item!r}")
        out[key] = _value(val)
    return out


def load_cfg(group: str, option: str, overrides: dict) -> dict:
    from memrecall.compose import compose_config

    cfg = compose_config([f"{group}={option}"], root=REPO)[group]
    for key, value in overrides.items():  # runtime knobs may be given flat (batch_size=64)
        (cfg["runtime"] if key not in cfg and key in cfg.get("runtime", {}) else cfg)[key] = value
    return cfg


def fmt(x) -> str:
    return "   –  " if x != x else f"{x:6.3f}"


CACHED_RUN = """
import sys, time
sys.path.insert(0, {src!r})
t0 = time.perf_counter()
from memrecall.retrieval.embedders import run_embed
from memrecall.retrieval.retrieve import run_retrieve
import json
cfg = json.loads({cfg!r})
if sys.argv[1] == "embed":
    stats = run_embed(cfg["embedder"], sessions="sessions.parquet", turns="turns.parquet",
                      out="embeddings.parquet")
    assert stats["encoded"] == 0, stats
else:
    run_retrieve(cfg["retrieval"], cfg["embedder"], questions="questions.parquet",
                 embeddings="embeddings.parquet", out="candidates_" + sys.argv[1] + ".parquet")
"""


def cached_rerun(tmp: Path, embedder_cfg: dict, retrieval_cfgs: dict[str, dict]) -> dict:
    """Wall seconds of each stage as its own process (import time included), all from cache."""
    times = {}
    for step, rcfg in [("embed", None)] + list(retrieval_cfgs.items()):
        code = CACHED_RUN.format(src=str(REPO / "src"),
                                 cfg=json.dumps({"embedder": embedder_cfg, "retrieval": rcfg}))
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code, step], cwd=tmp, check=True,
                       stderr=subprocess.DEVNULL)
        times[step] = time.perf_counter() - t0
    return times


def measure_throughput(embedder_cfg: dict, embeddings, n: int) -> float:
    """texts/s of the bare model (no cache) on n session keys, a fixed sample (by key hash)."""
    from memrecall.retrieval.embedders import FlagEncoder

    sample = embeddings.sort("key_hash").unique("key_hash", keep="first", maintain_order=True)
    texts = sample["text"].head(n).to_list()
    model = FlagEncoder(embedder_cfg)
    model.encode(texts[:8])  # warm-up (first-call allocations)
    t0 = time.perf_counter()
    model.encode(texts)
    took = time.perf_counter() - t0
    mean_chars = sum(map(len, texts)) / max(len(texts), 1)
    print(f"encoder throughput, bare model: {len(texts) / took:.1f} texts/s ({len(texts)} keys, "
          f"mean {mean_chars:.0f} chars, max_length {embedder_cfg['max_length']}, "
          f"{embedder_cfg['runtime']['device']}, torch threads {_threads()})")
    return len(texts) / took


def memesh_plugin(rcfg, questions, sessions, turns, embeddings):
    """(PluginRetriever, HaystackBuilder) as the retrieve stage builds them (from the repo root,
    where `examples.memesh_fts5` imports)."""
    from memrecall.haystack import HaystackBuilder
    from memrecall.retrieval.plugin import PluginRetriever
    from memrecall.retrieval.retrieve import UnitIndex

    os.chdir(REPO)
    retriever = PluginRetriever(rcfg)
    units = UnitIndex(embeddings, need_vectors=True) if retriever.uses_vectors else None
    return retriever, HaystackBuilder(questions, sessions, turns, units)


def _threads() -> int:
    import torch

    return torch.get_num_threads()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", required=True, help="LongMemEval-format file (.json or .json.gz)")
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    ap.add_argument("--json", help="write {method: {metric: value}} here")
    ap.add_argument("--embedder-set", nargs="*", default=[], metavar="KEY=VALUE")
    ap.add_argument("--retrieval-set", nargs="*", default=[], metavar="KEY=VALUE")
    ap.add_argument("--no-rerun", action="store_true", help="skip the cached-rerun timing")
    ap.add_argument("--throughput-sample", type=int, default=256, metavar="N",
                    help="also time the bare model on N session keys, cache or not (0: skip)")
    args = ap.parse_args(argv)

    embedder_cfg = load_cfg("embedder", "minilm", _overrides(args.embedder_set))
    base_retrieval = load_cfg("retrieval", "hybrid", _overrides(args.retrieval_set))

    t0 = time.perf_counter()
    records = load_records(args.data)
    validate_records(records, str(args.data))
    ds = normalise(records, str(args.data))
    questions, sessions, turns = ds.questions, ds.sessions, ds.turns
    print(f"data: {args.data}: {questions.height} questions "
          f"({int(questions['is_abstention'].sum())} abstention), {sessions.height} unique "
          f"sessions, {turns.height} turns; loaded in {time.perf_counter() - t0:.1f}s")
    print(f"embedder: {embedder_cfg['model']} granularity={embedder_cfg['granularity']} "
          f"key={embedder_cfg['key']} max_chars={embedder_cfg['max_chars']} "
          f"max_length={embedder_cfg['max_length']}")

    # Embed once (the cache makes every later pass free).
    keys = session_keys(sessions, turns, embedder_cfg)
    units_per_session = keys.group_by("session_id").len()
    per_q_total = sum(
        int(units_per_session.filter(units_per_session["session_id"].is_in(h))["len"].sum())
        for h in questions["haystack_session_ids"].to_list()) + questions.height
    encoder = CachedEncoder(embedder_cfg)
    t0 = time.perf_counter()
    embeddings = build_embeddings(sessions, turns, embedder_cfg, encoder)
    encoder.encode(questions["question"].to_list(), desc="queries")
    embed_wall = time.perf_counter() - t0
    s = encoder.stats
    uniq = embeddings["key_hash"].n_unique() + questions["question"].n_unique()
    rate = s["encoded"] / s["encode_s"] if s["encoded"] else float("nan")
    print(f"texts: {per_q_total} embedded by a per-question pipeline vs {uniq} unique "
          f"({per_q_total / max(uniq, 1):.1f}x fewer); this run: {s['encoded']} encoded, "
          f"{s['cached']} from cache, {embed_wall:.1f}s")
    if s["encoded"]:
        print(f"encoder throughput, this run: {rate:.1f} texts/s ({s['encoded']} texts in "
              f"{s['encode_s']:.1f}s)")
    if args.throughput_sample:
        rate = measure_throughput(embedder_cfg, embeddings, args.throughput_sample)

    results, by_type, retrieval_cfgs = {}, {}, {}
    for name in args.methods:
        method, fusion = METHODS[name]
        plugin = None
        t0 = time.perf_counter()
        if method == "plugin":
            rcfg = {"method": "plugin", "top_k": base_retrieval["top_k"], **MEMESH,
                    "options": {"fusion": fusion}}
            plugin = memesh_plugin(rcfg, questions, sessions, turns, embeddings)
        else:
            rcfg = {**base_retrieval, "method": method, "fusion": fusion}
            retrieval_cfgs[name] = rcfg  # (the cached-rerun timing covers the built-in methods)
        cands = retrieve(questions, embeddings, rcfg, embedder_cfg, encoder=encoder, plugin=plugin)
        took = time.perf_counter() - t0
        m = retrieval_metrics(questions, turns, cands)
        pub = retrieval_metrics(questions, turns, cands, gold="answer_sessions")
        results[name] = {**m["session"], "turn": m["turn"], "n": m["n"],
                         "published_protocol_recall_any@5": pub["session"]["recall_any@5"],
                         "published_protocol_n": pub["n"],
                         "by_type": {t: v["session"] for t, v in m["by_type"].items()},
                         "retrieve_s": round(took, 2)}
        by_type[name] = m["by_type"]
        n, n_abs, n_ng = m["n"], m["n_abstention"], m["n_no_gold"]

    print(f"\nSession level, official definitions: {n} questions scored ({n_abs} abstention "
          f"excluded, {n_ng} without a user has_answer evidence turn excluded)")
    print(f"{'method':16} " + " ".join(f"{c:>13}" for c in SHOWN) + "   R@5 pub.prot.  published")
    for name, r in results.items():
        print(f"{name:16} " + " ".join(f"{fmt(r[c]):>13}" for c in SHOWN)
              + f"   {fmt(r['published_protocol_recall_any@5']):>13}  {PUBLISHED[name]}")
    types = sorted({t for bt in by_type.values() for t in bt})
    print("\nrecall_any@5 by type (n)")
    print(f"{'method':16} " + " ".join(f"{t[:22]:>23}" for t in types))
    counts = by_type[args.methods[0]]
    print(f"{'':16} " + " ".join(f"{'n=' + str(counts.get(t, {}).get('n', 0)):>23}" for t in types))
    for metric in ("recall_any@5", "recall_all@10"):
        if metric != "recall_any@5":
            print(f"\n{metric} by type")
        for name in results:
            cells = [fmt(by_type[name][t]["session"][metric]) if t in by_type[name] else "–"
                     for t in types]
            print(f"{name:16} " + " ".join(f"{c:>23}" for c in cells))
    n_pub = results[args.methods[0]]["published_protocol_n"]
    print(f"\nPublished figures use LongMemEval-S (500 q) and count every evidence session as "
          f"gold;\n'R@5 pub.prot.' applies that protocol here ({n_pub} questions).")

    if not args.no_rerun:
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            for df, name, table in ((questions, "questions", "questions"),
                                    (sessions, "sessions", "sessions"), (turns, "turns", "turns")):
                write_table(df, tmp / f"{name}.parquet", table=table, stage="bench")
            times = cached_rerun(tmp, embedder_cfg, retrieval_cfgs)
        print("\nSecond, fully cached run (each stage a fresh process, imports included):")
        for name in retrieval_cfgs:
            results[name]["cached_rerun_s"] = round(times["embed"] + times[name], 2)
            print(f"  embed {times['embed']:.1f}s + retrieve {name} {times[name]:.1f}s = "
                  f"{times['embed'] + times[name]:.1f}s")
    for r in results.values():
        r["encoder_texts_per_s"] = None if rate != rate else round(rate, 1)
        r["unique_texts"], r["total_texts"] = uniq, per_q_total

    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, sort_keys=True))
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
