"""How far the graph rerank's CO_OCCUR expansion reaches: for the first N questions of a
LongMemEval-format file, the entity graph of each whole haystack (offline extractor, the default
reranker.graph settings), and the share of its entities and sessions that the question's
entities reach at 0, 1 and 2 hops.

    nice python bench/graph_reach.py --data FILE [--n 20]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

import numpy as np  # noqa: E402

from memrecall.benchmarks.longmemeval.data import load_records, normalise  # noqa: E402
from memrecall.compose import compose_config  # noqa: E402
from memrecall.retrieval.graph.entities import EntityExtractor  # noqa: E402
from memrecall.retrieval.graph.rerank import graph_settings  # noqa: E402
from memrecall.retrieval.graph.store import SessionGraph  # noqa: E402
from memrecall.retrieval.rerank import session_passages  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", required=True)
    ap.add_argument("--n", type=int, default=20)
    args = ap.parse_args(argv)
    cfg = compose_config(["reranker=graph"], root=REPO)["reranker"]
    s = graph_settings(cfg)
    ds = normalise(load_records(args.data), args.data)
    extractor = EntityExtractor("offline", s["max_entities"])
    ents, sess = {h: [] for h in (0, 1, 2)}, {h: [] for h in (0, 1, 2)}
    for row in ds.questions.head(args.n).iter_rows(named=True):
        sids = row["haystack_session_ids"]
        passages = session_passages(ds.turns, set(sids), cfg["key"], cfg["max_chars"])
        graph = SessionGraph(
            dict(zip(sorted(passages), extractor.entities([passages[k] for k in sorted(passages)])))
        )
        q = extractor.entities([row["question"]])[0]
        for h in (0, 1, 2):
            reached = graph.reached(q, h)
            ents[h].append(len(reached) / max(graph.n_entities, 1))
            scored = graph.session_scores(reached, s["decay"])
            sess[h].append(sum(1 for v in scored.values() if v > 0) / len(sids))
    print(
        f"{args.n} questions, whole haystacks, offline extractor, max_entities {s['max_entities']}:"
    )
    for h in (0, 1, 2):
        print(
            f"  hops {h}: entities reached {np.mean(ents[h]):.1%} of the graph, sessions "
            f"with a graph score {np.mean(sess[h]):.1%}"
        )


if __name__ == "__main__":
    main()
