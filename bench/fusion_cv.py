"""Choosing hybrid's dense_weight on a dev file honestly: k-fold cross-validation.

    python bench/fusion_cv.py --data FILE [--weights 0.3 0.4 0.5 0.6 0.7] [--folds 5]
                              [--repeats 20] [--embedder-set key=value ...]
                              [--haystack-scale K]

For every weight of the (small) grid, `retrieval=hybrid retrieval.fusion=weighted` is run once
through the retrieve stage's own code (bundled MiniLM, vectors from the shared cache) and scored
per question (official session-level metrics, abstention excluded). Then, for each of
`--repeats` random splits into `--folds` folds stratified by question type, the weight is
chosen on the other folds and scored on the held-out one: the cross-validated estimate is
what choosing a weight this way is worth on questions it was not chosen on. The in-sample
figure (best weight scored on the questions that chose it) is printed beside it; it is biased
upwards.

Selection rule: the highest mean of recall_any@5 and recall_all@10, ties broken by ndcg_any@10,
then by closeness to 0.5 (no preference for either method without evidence).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "bench"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from memrecall.benchmarks.longmemeval.data import load_records, normalise, validate_records  # noqa: E402
from memrecall.eval.retrieval_metrics import retrieval_metrics  # noqa: E402
from memrecall.eval.stats import bootstrap_ci  # noqa: E402
from memrecall.retrieval.embed import build_embeddings  # noqa: E402
from memrecall.retrieval.embedders import CachedEncoder  # noqa: E402
from memrecall.retrieval.retrieve import retrieve  # noqa: E402
from retrieval import _overrides, load_cfg, scale_haystacks  # noqa: E402  (bench/retrieval.py)

METRICS = ("recall_any@5", "recall_all@10", "ndcg_any@10")


def objective(rows: list[dict]) -> tuple[float, float]:
    n = max(len(rows), 1)
    main = sum((r["recall_any@5"] + r["recall_all@10"]) / 2 for r in rows) / n
    return main, sum(r["ndcg_any@10"] for r in rows) / n


def choose(per_weight: dict[float, dict[str, dict]], qids: list[str]) -> float:
    return max(
        per_weight, key=lambda w: (*objective([per_weight[w][q] for q in qids]), -abs(w - 0.5))
    )


def folds_of(qtype: dict[str, str], k: int, seed: int) -> list[list[str]]:
    """k folds, each question type dealt round-robin after a seeded shuffle."""
    rng = random.Random(seed)
    out: list[list[str]] = [[] for _ in range(k)]
    i = 0
    for t in sorted(set(qtype.values())):
        ids = sorted(q for q, tt in qtype.items() if tt == t)
        rng.shuffle(ids)
        for q in ids:
            out[i % k].append(q)
            i += 1
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", required=True)
    ap.add_argument("--weights", nargs="+", type=float, default=[0.3, 0.4, 0.5, 0.6, 0.7])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--embedder-set", nargs="*", default=[], metavar="KEY=VALUE")
    ap.add_argument("--retrieval-set", nargs="*", default=[], metavar="KEY=VALUE")
    ap.add_argument(
        "--haystack-scale",
        type=int,
        default=1,
        metavar="K",
        help="grow each haystack K-fold (bench/retrieval.py scale_haystacks)",
    )
    ap.add_argument("--scale-seed", type=int, default=0)
    args = ap.parse_args(argv)

    records = load_records(args.data)
    validate_records(records, str(args.data))
    ds = normalise(records, str(args.data))
    questions = scale_haystacks(ds.questions, ds.sessions, args.haystack_scale, args.scale_seed)
    ecfg = load_cfg("embedder", "minilm", _overrides(args.embedder_set))
    rcfg = {**load_cfg("retrieval", "hybrid", _overrides(args.retrieval_set)), "fusion": "weighted"}
    enc = CachedEncoder(ecfg)
    emb = build_embeddings(ds.sessions, ds.turns, ecfg, enc)

    per_weight: dict[float, dict[str, dict]] = {}
    qtype: dict[str, str] = {}
    for w in args.weights:
        cands = retrieve(questions, emb, {**rcfg, "dense_weight": w}, ecfg, encoder=enc)
        m = retrieval_metrics(questions, ds.turns, cands, per_question=True)
        per_weight[w] = {q: v for q, _, v in m["per_question"]}
        qtype = {q: t for q, t, _ in m["per_question"]}
    qids = sorted(qtype)
    print(
        f"{len(qids)} scored questions; haystacks x{args.haystack_scale}; "
        f"granularity={ecfg['granularity']} "
        f"unit_pool={rcfg['unit_pool']}\n"
    )
    print(f"{'dense_weight':>12} " + " ".join(f"{m:>13}" for m in METRICS) + "   (in-sample)")
    for w in args.weights:
        rows = [per_weight[w][q] for q in qids]
        print(
            f"{w:12.2f} "
            + " ".join(f"{sum(r[m] for r in rows) / len(rows):13.3f}" for m in METRICS)
        )
    best = choose(per_weight, qids)

    # Cross-validation: held-out scores of the weight chosen on the other folds.
    held: dict[str, list[float]] = {m: [] for m in METRICS}
    chosen: dict[float, int] = {}
    for rep in range(args.repeats):
        for fold in folds_of(qtype, args.folds, seed=rep):
            train = [q for q in qids if q not in set(fold)]
            w = choose(per_weight, train)
            chosen[w] = chosen.get(w, 0) + 1
            for q in fold:
                for m in METRICS:
                    held[m].append(per_weight[w][q][m])
    print(f"\nin-sample choice: dense_weight {best}")
    print(
        f"chosen on training folds ({args.repeats} x {args.folds}-fold, stratified by type): "
        + ", ".join(f"{w}: {c}x" for w, c in sorted(chosen.items()))
    )
    print("cross-validated estimate (held-out questions, averaged over repeats) vs in-sample:")
    for m in METRICS:
        cv = sum(held[m]) / len(held[m])
        ins = sum(per_weight[best][q][m] for q in qids) / len(qids)
        fixed = (
            sum(per_weight[0.5][q][m] for q in qids) / len(qids)
            if 0.5 in per_weight
            else float("nan")
        )
        ci = bootstrap_ci([per_weight[best][q][m] for q in qids], n_resamples=2000, seed=0)
        ci_text = f"[{ci[0]:.2f},{ci[1]:.2f}]" if ci else "[no CI: under 2 questions]"
        print(f"  {m:14} CV {cv:.3f}   in-sample {ins:.3f} {ci_text}   fixed 0.5 {fixed:.3f}")


if __name__ == "__main__":
    main()
