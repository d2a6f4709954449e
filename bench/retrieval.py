"""Retrieval benchmark on a LongMemEval-format file with the bundled models.

    python bench/retrieval.py --data FILE [--methods bm25 dense hybrid_rrf ...] [--json OUT]
                              [--embedder-set key=value ...] [--retrieval-set key=value ...]

For each method (bm25, dense = MiniLM, hybrid_rrf / hybrid_max / hybrid_weighted, and the
retrieval=plugin example examples/memesh_fts5.py as memesh_rrf / _max / _weighted / _fts5) it
prints the
session-level recall_any@1/5/10, recall_all@5/10, ndcg_any@5/10 (official LongMemEval
definitions, abstention excluded; see memrecall.eval.retrieval_metrics) overall and by type,
with 95% bootstrap intervals for recall_any@5 and recall_all@10 (and, paired over the same
questions, for each method's difference from dense), plus recall_any@5 under the
protocol of the published figures (every evidence session counts as gold;
single-session-assistant included), which are printed beside it. Also: the embedding work (tokens
the encoder reads, against plain session keys), the encoder's throughput (the bare model on a
fixed sample of keys, and the run's own cache misses), unique vs total texts, how many questions
the time-aware boost fires on, and the wall time of a second, fully cached run: the real embed
and retrieve stage scripts, each a fresh process, as DVC runs them.

Configs start from conf/embedder/minilm.yaml and conf/retrieval/hybrid.yaml; `--embedder-set`
and `--retrieval-set` override fields (e.g. granularity=session, time_aware=false). Embeddings go
to the content-addressed cache that every stage uses (MEMRECALL_CACHE_DIR, else the project's
.memrecall/cache, found from any working folder), so the second run meets the cache as a user's
`dvc repro` would. The first run on a 2-core CPU embeds ~8,000 passages of the dev file
(minutes); later runs reuse them.
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

from memrecall import benchmarks, paths  # noqa: E402
from memrecall.artifacts import write_table  # noqa: E402
from memrecall.benchmarks.longmemeval import BENCHMARK  # noqa: E402
from memrecall.benchmarks.longmemeval.data import load_records, normalise, validate_records  # noqa: E402
from memrecall.eval.retrieval_metrics import TABLE_METRICS as SHOWN  # noqa: E402
from memrecall.eval.retrieval_metrics import retrieval_metrics  # noqa: E402
from memrecall.eval.stats import bootstrap_ci  # noqa: E402
from memrecall.hashing import sha256_text  # noqa: E402
from memrecall.retrieval.embed import build_embeddings  # noqa: E402
from memrecall.retrieval.embedders import CachedEncoder  # noqa: E402
from memrecall.retrieval.keys import session_keys  # noqa: E402
from memrecall.retrieval.retrieve import retrieve  # noqa: E402
from memrecall.retrieval.timeaware import question_time_ranges, time_settings  # noqa: E402

METHODS = {
    "bm25": ("bm25", "rrf"),
    "dense": ("dense", "rrf"),
    "hybrid_rrf": ("hybrid", "rrf"),
    "hybrid_max": ("hybrid", "max"),
    "hybrid_weighted": ("hybrid", "weighted"),
    # retrieval=plugin with the MeMesh-style example (examples/memesh_fts5.py)
    "memesh_rrf": ("plugin", "rrf"),
    "memesh_max": ("plugin", "max"),
    "memesh_weighted": ("plugin", "weighted"),
    "memesh_fts5": ("plugin", "fts5"),
}
MEMESH = {"callable": "examples.memesh_fts5:MeMeshRetriever", "code": "examples/memesh_fts5.py"}
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


def write_downloaded(folder: Path, questions, sessions, turns) -> None:
    """The three tables the stages start from, as the download stage writes them: recording
    their benchmark, which every later stage reads back."""
    folder.mkdir(parents=True, exist_ok=True)
    for df, name in ((questions, "questions"), (sessions, "sessions"), (turns, "turns")):
        write_table(
            df,
            folder / f"{name}.parquet",
            table=name,
            stage="bench",
            extra_meta={benchmarks.META_KEY: BENCHMARK.name},
        )


def cached_rerun(tmp: Path, embedder_cfg: dict, retrieval_cfgs: dict[str, dict]) -> dict:
    """Wall seconds of the real embed and retrieve stage scripts, each a fresh process (imports
    included), run as DVC runs them: from a project folder holding params.yaml and artifacts/.
    The folder is a temporary one, so the caches are found as any stage finds them
    (MEMRECALL_CACHE_DIR, else the project's .memrecall/cache: paths.project_root). Returns
    {step: seconds} and the number of texts the embed stage had to embed (0 when the cache
    held them all, as it must after the first pass)."""
    import re

    times, embedded = {}, None
    for step, rcfg in [("embed", next(iter(retrieval_cfgs.values())))] + list(
        retrieval_cfgs.items()
    ):
        (tmp / "params.yaml").write_text(
            yaml.safe_dump({"embedder": embedder_cfg, "retrieval": rcfg})
        )
        script = REPO / "stages" / ("embed.py" if step == "embed" else "retrieve.py")
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, str(script)], cwd=tmp, capture_output=True, text=True
        )
        times[step] = time.perf_counter() - t0
        if proc.returncode != 0:
            raise SystemExit(
                f"cached rerun: {script.name} ({step}) failed with exit code "
                f"{proc.returncode}:\n{proc.stderr[-3000:]}"
            )
        if step == "embed":
            m = re.search(r"(\d+) embedded, (\d+) from cache", proc.stderr)
            embedded = int(m.group(1)) if m else None
    return {"times": times, "embedded": embedded}


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
    print(
        f"encoder throughput, bare model: {len(texts) / took:.1f} texts/s ({len(texts)} keys, "
        f"mean {mean_chars:.0f} chars, max_length {embedder_cfg['max_length']}, "
        f"{embedder_cfg['runtime']['device']}, torch threads {_threads()})"
    )
    return len(texts) / took


def measure_cost_ratio(embedder_cfg: dict, sessions, turns, n: int, repeats: int = 2) -> dict:
    """Wall time to embed the units of n sessions (a fixed sample, by session id hash) at this
    config's granularity against their plain session keys, with the bare model (no cache), in
    one process, alternating the two `repeats` times (this machine is noisy): the embedding
    time ratio the issue budgets (at most 2x)."""
    from memrecall.retrieval.embedders import FlagEncoder

    ids = sorted(sessions["session_id"].to_list(), key=sha256_text)[:n]
    pick = sessions.filter(sessions["session_id"].is_in(ids))
    sub = turns.filter(turns["session_id"].is_in(ids))
    units = list(dict.fromkeys(session_keys(pick, sub, embedder_cfg)["text"].to_list()))
    keys = list(
        dict.fromkeys(
            session_keys(pick, sub, {**embedder_cfg, "granularity": "session"})["text"].to_list()
        )
    )
    model = FlagEncoder(embedder_cfg)
    model.encode(keys[:8])  # warm-up
    took = {"session": 0.0, "config": 0.0}
    for _ in range(repeats):
        for name, texts in (("session", keys), ("config", units)):
            t0 = time.perf_counter()
            model.encode(texts)
            took[name] += time.perf_counter() - t0
    ratio = took["config"] / took["session"]
    print(
        f"embedding time, bare model, {len(ids)} sessions x {repeats} alternating runs: session "
        f"keys {len(keys)} texts {took['session'] / repeats:.1f}s, granularity="
        f"{embedder_cfg['granularity']} {len(units)} texts {took['config'] / repeats:.1f}s: "
        f"{ratio:.2f}x (batch_size {embedder_cfg['runtime']['batch_size']})"
    )
    return {
        "sessions": len(ids),
        "session_texts": len(keys),
        "texts": len(units),
        "session_s": took["session"] / repeats,
        "config_s": took["config"] / repeats,
        "ratio": ratio,
    }


def memesh_plugin(rcfg, questions, sessions, turns, embeddings):
    """(PluginRetriever, HaystackBuilder) as the retrieve stage builds them (from the repo root,
    where `examples.memesh_fts5` imports)."""
    from memrecall.haystack import HaystackBuilder
    from memrecall.retrieval.plugin import PluginRetriever
    from memrecall.retrieval.units import UnitIndex

    os.chdir(REPO)
    retriever = PluginRetriever(rcfg)
    units = UnitIndex(embeddings, need_vectors=True) if retriever.uses_vectors else None
    return retriever, HaystackBuilder(questions, sessions, turns, units)


def encoder_tokens(embedder_cfg: dict, embeddings, sessions, turns) -> dict:
    """Tokens the encoder reads (each unique text up to max_length - 2), the machine-independent
    measure of embedding work, for this config and for plain session keys."""
    from memrecall.retrieval.embedders import resolve_model
    from memrecall.retrieval.passages import model_tokenizer

    tok = model_tokenizer(resolve_model(embedder_cfg["model"])[0])
    cap = int(embedder_cfg["max_length"]) - 2

    def count(texts):
        texts = list(dict.fromkeys(texts))
        return len(texts), sum(
            min(len(e.ids), cap) for e in tok.encode_batch(texts, add_special_tokens=False)
        )

    n, t = count(embeddings["text"].to_list())
    base = session_keys(sessions, turns, {**embedder_cfg, "granularity": "session"})
    n0, t0 = count(base["text"].to_list())
    return {"texts": n, "tokens": t, "session_texts": n0, "session_tokens": t0}


def scale_haystacks(questions, sessions, scale: int, seed: int):
    """Each question's haystack grown to `scale` times its size with distractors: sessions of the
    other questions' haystacks (other simulated users; their evidence sessions included, as S's
    haystacks include them), drawn without replacement by a seeded generator, appended after the
    question's own sessions with their own session dates. Gold is unchanged. A harder proxy of
    the benchmark's questions: at S size the dev file sits at the ceiling (hybrid any@5 1.000),
    where no change can show a gain; at M-like sizes (scale 10, ~500 sessions) misses appear."""
    import numpy as np
    import polars as pl

    if scale <= 1:
        return questions
    date_of = dict(zip(sessions["session_id"].to_list(), sessions["date"].to_list()))
    pool = sorted(date_of)
    rng = np.random.default_rng(seed)
    ids_out, dates_out = [], []
    for ids, dates in questions.select("haystack_session_ids", "haystack_dates").iter_rows():
        own = set(ids)
        want = (scale - 1) * len(ids)
        picks = [pool[i] for i in rng.permutation(len(pool)) if pool[i] not in own][:want]
        ids_out.append(list(ids) + picks)
        dates_out.append(list(dates) + [date_of[s] for s in picks])
    return questions.with_columns(
        pl.Series("haystack_session_ids", ids_out), pl.Series("haystack_dates", dates_out)
    )


BOOT = 2000
CI_METRICS = ("recall_any@5", "recall_all@10")


def intervals(per_question) -> dict:
    """{metric: {"overall" | type: [mean, low, high]}} by percentile bootstrap."""
    out = {}
    for metric in CI_METRICS:
        groups = {"overall": [v[metric] for _, _, v in per_question]}
        for _, t, v in per_question:
            groups.setdefault(t, []).append(v[metric])
        out[metric] = {}
        for g, vals in groups.items():
            ci = bootstrap_ci(vals, n_resamples=BOOT, seed=0)
            mean = sum(vals) / len(vals)
            out[metric][g] = [mean, *(ci if ci else (mean, mean))]
    return out


def paired_vs(per_q: dict, base: dict) -> dict:
    """{metric: [mean, low, high]} of per-question differences (this method - base) over the
    same questions, percentile bootstrap: paired, so the shared hard questions cancel."""
    out = {}
    for i, metric in enumerate(CI_METRICS):
        diffs = [per_q[q][i] - base[q][i] for q in per_q]
        mean = sum(diffs) / len(diffs)
        ci = bootstrap_ci(diffs, n_resamples=BOOT, seed=0) if any(diffs) else None
        out[metric] = [mean, *(ci if ci else (mean, mean))]
    return out


def _ci(cell) -> str:
    return "–" if cell is None else f"{cell[0]:.3f} [{cell[1]:.2f},{cell[2]:.2f}]"


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
    ap.add_argument(
        "--throughput-sample",
        type=int,
        default=256,
        metavar="N",
        help="also time the bare model on N session keys, cache or not (0: skip)",
    )
    ap.add_argument(
        "--haystack-scale",
        type=int,
        default=1,
        metavar="K",
        help="grow each haystack K-fold with other questions' sessions (a harder "
        "proxy: scale_haystacks); 1 = the file's own haystacks",
    )
    ap.add_argument("--scale-seed", type=int, default=0)
    ap.add_argument(
        "--cost-sample",
        type=int,
        default=0,
        metavar="N",
        help="time the bare model on N sessions' units vs their session keys, "
        "side by side (measure_cost_ratio; 0: skip)",
    )
    args = ap.parse_args(argv)

    embedder_cfg = load_cfg("embedder", "minilm", _overrides(args.embedder_set))
    base_retrieval = load_cfg("retrieval", "hybrid", _overrides(args.retrieval_set))

    t0 = time.perf_counter()
    records = load_records(args.data)
    validate_records(records, str(args.data))
    ds = normalise(records, str(args.data))
    questions, sessions, turns = ds.questions, ds.sessions, ds.turns
    print(
        f"data: {args.data}: {questions.height} questions "
        f"({int(questions['is_abstention'].sum())} abstention), {sessions.height} unique "
        f"sessions, {turns.height} turns; loaded in {time.perf_counter() - t0:.1f}s"
    )
    if args.haystack_scale > 1:
        questions = scale_haystacks(questions, sessions, args.haystack_scale, args.scale_seed)
        sizes = [len(h) for h in questions["haystack_session_ids"].to_list()]
        print(
            f"haystacks grown {args.haystack_scale}x with other questions' sessions (seed "
            f"{args.scale_seed}): {min(sizes)}-{max(sizes)} sessions per question"
        )
    print(
        f"embedder: {embedder_cfg['model']} granularity={embedder_cfg['granularity']} "
        f"key={embedder_cfg['key']} max_chars={embedder_cfg['max_chars']} "
        f"max_length={embedder_cfg['max_length']}"
    )

    # Embed once (the cache makes every later pass free).
    keys = session_keys(sessions, turns, embedder_cfg)
    units_per_session = keys.group_by("session_id").len()
    per_q_total = (
        sum(
            int(units_per_session.filter(units_per_session["session_id"].is_in(h))["len"].sum())
            for h in questions["haystack_session_ids"].to_list()
        )
        + questions.height
    )
    encoder = CachedEncoder(embedder_cfg)
    t0 = time.perf_counter()
    embeddings = build_embeddings(sessions, turns, embedder_cfg, encoder)
    encoder.encode(questions["question"].to_list(), desc="queries")
    embed_wall = time.perf_counter() - t0
    s = encoder.stats
    uniq = embeddings["key_hash"].n_unique() + questions["question"].n_unique()
    rate = s["encoded"] / s["encode_s"] if s["encoded"] else float("nan")
    print(
        f"texts: {per_q_total} embedded by a per-question pipeline vs {uniq} unique "
        f"({per_q_total / max(uniq, 1):.1f}x fewer); this run: {s['encoded']} encoded, "
        f"{s['cached']} from cache, {embed_wall:.1f}s"
    )
    if s["encoded"]:
        print(
            f"encoder throughput, this run: {rate:.1f} texts/s ({s['encoded']} texts in "
            f"{s['encode_s']:.1f}s)"
        )
    cost = encoder_tokens(embedder_cfg, embeddings, sessions, turns)
    print(
        f"encoder reads {cost['tokens']:,} tokens over {cost['texts']:,} unique key texts; "
        f"session keys (granularity=session, max_chars={embedder_cfg['max_chars']}) read "
        f"{cost['session_tokens']:,} over {cost['session_texts']:,}: "
        f"{cost['tokens'] / max(cost['session_tokens'], 1):.2f}x the embedding work"
    )
    if args.throughput_sample:
        rate = measure_throughput(embedder_cfg, embeddings, args.throughput_sample)
    cost_ratio = (
        measure_cost_ratio(embedder_cfg, sessions, turns, args.cost_sample)
        if args.cost_sample
        else None
    )
    timing = time_settings(base_retrieval)
    fired = question_time_ranges(questions, timing) if timing.enabled else {}
    qtype = dict(zip(questions["question_id"].to_list(), questions["question_type"].to_list()))
    fired_by_type = {}
    for qid in fired:
        fired_by_type[qtype[qid]] = fired_by_type.get(qtype[qid], 0) + 1
    print(
        f"time-aware (time_aware={timing.enabled}, boost={timing.boost}, "
        f"pad={timing.pad_days}d): {len(fired)} of {questions.height} questions name a time "
        f"{dict(sorted(fired_by_type.items()))}"
    )

    results, by_type, retrieval_cfgs = {}, {}, {}
    for name in args.methods:
        method, fusion = METHODS[name]
        plugin = None
        t0 = time.perf_counter()
        if method == "plugin":
            rcfg = {
                "method": "plugin",
                "top_k": base_retrieval["top_k"],
                **MEMESH,
                "options": {"fusion": fusion},
            }
            plugin = memesh_plugin(rcfg, questions, sessions, turns, embeddings)
        else:
            rcfg = {**base_retrieval, "method": method, "fusion": fusion}
            retrieval_cfgs[name] = rcfg  # (the cached-rerun timing covers the built-in methods)
        cands = retrieve(questions, embeddings, rcfg, embedder_cfg, encoder=encoder, plugin=plugin)
        took = time.perf_counter() - t0
        m = retrieval_metrics(questions, turns, cands, per_question=True)
        pub = retrieval_metrics(questions, turns, cands, gold="answer_sessions")
        results[name] = {
            **m["session"],
            "turn": m["turn"],
            "n": m["n"],
            "published_protocol_recall_any@5": pub["session"]["recall_any@5"],
            "published_protocol_n": pub["n"],
            "by_type": {t: v["session"] for t, v in m["by_type"].items()},
            "retrieve_s": round(took, 2),
            "ci": intervals(m["per_question"]),
            "per_question": {
                q: [v["recall_any@5"], v["recall_all@10"]] for q, _, v in m["per_question"]
            },
            "time_aware_fired": len(fired),
            "time_aware_by_type": fired_by_type,
        }
        by_type[name] = m["by_type"]
        n, n_abs, n_ng = m["n"], m["n_abstention"], m["n_no_gold"]

    print(
        f"\nSession level, official definitions: {n} questions scored ({n_abs} abstention "
        f"excluded, {n_ng} without a user has_answer evidence turn excluded)"
    )
    print(f"{'method':16} " + " ".join(f"{c:>13}" for c in SHOWN) + "   R@5 pub.prot.  published")
    for name, r in results.items():
        print(
            f"{name:16} "
            + " ".join(f"{fmt(r[c]):>13}" for c in SHOWN)
            + f"   {fmt(r['published_protocol_recall_any@5']):>13}  {PUBLISHED[name]}"
        )
    types = sorted({t for bt in by_type.values() for t in bt})
    print("\nrecall_any@5 by type (n)")
    print(f"{'method':16} " + " ".join(f"{t[:22]:>23}" for t in types))
    counts = by_type[args.methods[0]]
    print(f"{'':16} " + " ".join(f"{'n=' + str(counts.get(t, {}).get('n', 0)):>23}" for t in types))
    for metric in ("recall_any@5", "recall_all@10"):
        if metric != "recall_any@5":
            print(f"\n{metric} by type")
        for name in results:
            cells = [
                fmt(by_type[name][t]["session"][metric]) if t in by_type[name] else "–"
                for t in types
            ]
            print(f"{name:16} " + " ".join(f"{c:>23}" for c in cells))
    print(f"\n95% bootstrap intervals (percentile, {BOOT} resamples, seed 0), overall and by type")
    for metric in CI_METRICS:
        print(f"{metric}")
        for name, r in results.items():
            cells = [_ci(r["ci"][metric].get(t)) for t in ("overall", *types)]
            print(f"{name:16} " + " ".join(f"{c:>23}" for c in cells))
    if "dense" in results:
        print(
            "\nDifference from dense (the default), same questions: mean and 95% paired "
            "bootstrap interval"
        )
        for name, r in results.items():
            if name == "dense":
                continue
            r["vs_dense"] = paired_vs(r["per_question"], results["dense"]["per_question"])
            print(
                f"{name:16} "
                + "   ".join(
                    f"{m} {v[0]:+.3f} [{v[1]:+.3f},{v[2]:+.3f}]" for m, v in r["vs_dense"].items()
                )
            )
    n_pub = results[args.methods[0]]["published_protocol_n"]
    print(
        f"\nPublished figures use LongMemEval-S (500 q) and count every evidence session as "
        f"gold;\n'R@5 pub.prot.' applies that protocol here ({n_pub} questions)."
    )

    if not args.no_rerun:
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            write_downloaded(tmp / "artifacts", questions, sessions, turns)
            rerun = cached_rerun(tmp, embedder_cfg, retrieval_cfgs)
        times = rerun["times"]
        print(
            f"\nSecond, fully cached run (the stage scripts, each a fresh process, imports "
            f"included; cache {paths.cache_dir('embeddings')}):"
        )
        if rerun["embedded"]:
            print(
                f"  WARNING: the embed stage embedded {rerun['embedded']} texts: the cache "
                f"above did not hold what this run just stored (is MEMRECALL_CACHE_DIR set "
                f"differently for the stages?), so these times are not a cached rerun"
            )
        for name in retrieval_cfgs:
            results[name]["cached_rerun_s"] = round(times["embed"] + times[name], 2)
            results[name]["cached_rerun_embedded"] = rerun["embedded"]
            print(
                f"  embed {times['embed']:.1f}s + retrieve {name} {times[name]:.1f}s = "
                f"{times['embed'] + times[name]:.1f}s"
            )
    for r in results.values():
        r["encoder_texts_per_s"] = None if rate != rate else round(rate, 1)
        r["unique_texts"], r["total_texts"] = uniq, per_q_total
        r["encoder_tokens"], r["session_tokens"] = cost["tokens"], cost["session_tokens"]
        r["embedding_time_ratio"] = cost_ratio

    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, sort_keys=True))
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
