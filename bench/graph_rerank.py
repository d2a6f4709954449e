"""Graph entity rerank (reranker=graph) against no reranker, on a LongMemEval-format file.

    nice python bench/graph_rerank.py --data FILE [--weights 0.3 ...] [--hops 2 ...]
                                      [--extractor offline] [--json OUT] [--qa-per-type K]
                                      [--haystack-scale K]

Retrieval is the bundled default (conf/config.yaml: MiniLM, sentence units, dense top 50); the
baseline passes each question's top 15 through (reranker=none); each graph variant re-scores the
same top 50 (reranker.pool) with the entity graph and keeps 15. Prints session recall_any@5/10,
recall_all@5/10 and ndcg_any@5/10 (official definitions, abstention excluded) overall and per
type, and each variant's paired difference from the baseline with a 95% percentile-bootstrap
interval over the same questions, plus the graph sizes and the time the rerank took.
Embeddings come from the shared content-addressed cache (MEMRECALL_CACHE_DIR).

--haystack-scale K: grow each haystack K-fold with other questions' sessions (bench/retrieval.py
scale_haystacks), a harder proxy for larger haystacks, off the 1x file's ceiling.

--qa-per-type K: also compare QA through the bundled reader (conf/reader/local.yaml:
SmolLM2-135M, top 3 sessions) and the rule judge between the baseline and the first graph
variant, on a stratified subset (K questions per type, seed 0; K < 0: every question). Only the
questions whose reader context differs are answered (qa_delta); prints the paired accuracy
difference with its interval. Reader calls are cached (the LLM cache).
"""

from __future__ import annotations

import argparse
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

from memrecall.benchmarks.longmemeval.data import load_records, normalise, validate_records  # noqa: E402
from memrecall.compose import compose_config  # noqa: E402
from memrecall.eval.retrieval_metrics import retrieval_metrics  # noqa: E402
from memrecall.eval.stats import paired_bootstrap_delta  # noqa: E402
from memrecall.retrieval.embed import build_embeddings  # noqa: E402
from memrecall.retrieval.embedders import CachedEncoder  # noqa: E402
from memrecall.retrieval.rerank import rerank  # noqa: E402
from memrecall.retrieval.retrieve import retrieve  # noqa: E402

SHOWN = (
    "recall_any@5",
    "recall_any@10",
    "recall_all@5",
    "recall_all@10",
    "ndcg_any@5",
    "ndcg_any@10",
)
DELTAS = ("recall_any@5", "recall_all@10", "ndcg_any@10")


def per_question(questions, turns, cands) -> dict:
    m = retrieval_metrics(questions, turns, cands, per_question=True)
    return {
        "summary": m["session"],
        "n": m["n"],
        "by_type": {t: v["session"] for t, v in m["by_type"].items()},
        "per_q": {qid: (qtype, vals) for qid, qtype, vals in m["per_question"]},
    }


def qa_delta(questions, sessions, turns, runs: dict, variant: str, per_type: int) -> dict:
    """Paired QA difference between `none` and `variant` through the bundled reader. A question
    whose reader context (the top_k_context sessions, shown in date order) is the same set under
    both sends the same prompt, so gets the same cached answer and verdict: its difference is 0
    by construction, and only the questions whose context differs are answered (twice)."""
    from memrecall.benchmarks.longmemeval import BENCHMARK as LME
    from memrecall.data.subset import stratified
    from memrecall.judge.stage import judge_answers
    from memrecall.llm import LLMClient
    from memrecall.read.reader import answer_questions, build_contexts, reader_settings

    pool = questions.select("question_id", "question_type", "is_abstention").to_dicts()
    ids = {
        r["question_id"]
        for r in (stratified(pool, {"per_type": per_type, "seed": 0}) if per_type > 0 else pool)
    }
    qs = questions.filter(pl.col("question_id").is_in(list(ids)))
    params = compose_config([], root=REPO)
    reader_cfg, judge_cfg = params["reader"], params["judge"]
    settings = reader_settings(reader_cfg, LME)
    ctx = {
        name: {
            c.question_id: c
            for c in build_contexts(
                settings,
                qs,
                sessions,
                turns,
                runs[name].filter(pl.col("question_id").is_in(list(ids))),
            )
        }
        for name in ("none", variant)
    }
    differ = sorted(
        q
        for q in ids
        if {s.session_id for s in ctx["none"][q].sessions}
        != {s.session_id for s in ctx[variant][q].sessions}
    )
    print(
        f"\nQA, bundled reader ({reader_cfg['model']}, top {reader_cfg['top_k_context']}), rule "
        f"judge, {len(ids)} questions: {len(differ)} get a different context under {variant}"
    )
    client = LLMClient(reader_cfg, stage="read")
    correct = {}
    sub = qs.filter(pl.col("question_id").is_in(differ))
    for name in ("none", variant):
        if not differ:
            break
        answers, _ = answer_questions(reader_cfg, settings, [ctx[name][q] for q in differ], client)
        verdicts = judge_answers(LME, sub, answers, judge_cfg)
        correct[name] = {
            q: float(bool(v)) for q, v in verdicts.select("question_id", "label").iter_rows()
        }
    order = sorted(ids)
    a = [correct["none"][q] if q in differ else 0.0 for q in order]
    b = [correct[variant][q] if q in differ else 0.0 for q in order]
    d = paired_bootstrap_delta(a, b)
    won = sum(1 for x, y in zip(a, b) if y > x)
    lost = sum(1 for x, y in zip(a, b) if y < x)
    lo = "–" if d["ci_low"] is None else f"{d['ci_low']:+.3f}"
    hi = "–" if d["ci_high"] is None else f"{d['ci_high']:+.3f}"
    print(
        f"  accuracy difference {variant} - none over {len(order)} questions: "
        f"{d['delta']:+.3f} [{lo}, {hi}]; of the {len(differ)} answered twice: {won} right "
        f"only with the graph, {lost} right only without"
    )
    return {"n": len(order), "differ": len(differ), "won": won, "lost": lost, "delta": d}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", required=True)
    ap.add_argument("--weights", type=float, nargs="+", default=[0.3])
    ap.add_argument("--hops", type=int, nargs="+", default=[2])
    ap.add_argument("--extractor", default="offline", choices=["offline", "llm"])
    ap.add_argument("--json")
    ap.add_argument("--qa-per-type", type=int, default=0, metavar="K")
    ap.add_argument("--haystack-scale", type=int, default=1, metavar="K")
    args = ap.parse_args(argv)

    params = compose_config([], root=REPO)
    embedder_cfg, retrieval_cfg = params["embedder"], params["retrieval"]
    records = load_records(args.data)
    validate_records(records, str(args.data))
    ds = normalise(records, str(args.data))
    questions, sessions, turns = ds.questions, ds.sessions, ds.turns
    if args.haystack_scale > 1:
        sys.path.insert(0, str(REPO / "bench"))
        from retrieval import scale_haystacks

        questions = scale_haystacks(questions, sessions, args.haystack_scale, 0)
        print(f"haystacks grown {args.haystack_scale}x with other questions' sessions (seed 0)")
    print(
        f"data: {args.data}: {questions.height} questions; retrieval {retrieval_cfg['method']} "
        f"top {retrieval_cfg['top_k']}, {embedder_cfg['name']} {embedder_cfg['granularity']}"
    )
    encoder = CachedEncoder(embedder_cfg)
    embeddings = build_embeddings(sessions, turns, embedder_cfg, encoder)
    cands = retrieve(questions, embeddings, retrieval_cfg, embedder_cfg, encoder=encoder)

    base_cfg = compose_config(["reranker=none"], root=REPO)["reranker"]
    runs = {"none": rerank(questions, turns, cands, base_cfg)}
    took = {}
    for hops in args.hops:
        for w in args.weights:
            cfg = compose_config(
                [
                    "reranker=graph",
                    f"reranker.graph.weight={w}",
                    f"reranker.graph.hops={hops}",
                    f"reranker.graph.extractor={args.extractor}",
                ],
                root=REPO,
            )["reranker"]
            name = f"graph w={w:g} hops={hops}"
            t0 = time.perf_counter()
            runs[name] = rerank(questions, turns, cands, cfg)
            took[name] = time.perf_counter() - t0

    scored = {name: per_question(questions, turns, c) for name, c in runs.items()}
    base = scored["none"]
    n = base["n"]
    print(f"\nsession-level retrieval, {n} questions scored (abstention excluded)")
    print(f"{'method':24s} " + " ".join(f"{k:>14s}" for k in SHOWN))
    for name, s in scored.items():
        print(
            f"{name:24s} "
            + " ".join(f"{s['summary'][k]:14.3f}" for k in SHOWN)
            + (f"   ({took[name]:.0f}s)" if name in took else "")
        )
    out = {"n": n, "methods": {}}
    if args.qa_per_type:
        out["qa"] = qa_delta(questions, sessions, turns, runs, list(runs)[1], args.qa_per_type)
    qids = sorted(base["per_q"])
    for name, s in scored.items():
        entry = {"summary": s["summary"], "by_type": s["by_type"], "deltas": {}}
        if name != "none":
            print(f"\n{name} minus none (paired bootstrap 95% CI):")
            for k in DELTAS:
                a = [base["per_q"][q][1][k] for q in qids]
                b = [s["per_q"][q][1][k] for q in qids]
                d = paired_bootstrap_delta(a, b)
                entry["deltas"][k] = d
                lo = "–" if d["ci_low"] is None else f"{d['ci_low']:+.3f}"
                hi = "–" if d["ci_high"] is None else f"{d['ci_high']:+.3f}"
                print(f"  {k:14s} {d['delta']:+.3f} [{lo}, {hi}]")
            print("  by type, recall_any@5 (none -> graph, n):")
            for t in sorted(s["by_type"]):
                nt = sum(1 for q in qids if base["per_q"][q][0] == t)
                print(
                    f"    {t:28s} {base['by_type'][t]['recall_any@5']:.3f} -> "
                    f"{s['by_type'][t]['recall_any@5']:.3f}  (n={nt})"
                )
        out["methods"][name] = entry
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
