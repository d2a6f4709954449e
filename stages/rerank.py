"""rerank: re-score the retrieved candidates with a cross-encoder (or pass through); keep top_k."""

import _bootstrap  # noqa: F401
from memrecall import paths
from memrecall.config import load_params, section
from memrecall.retrieval.rerank import run_rerank
from memrecall.stage import run_stage


def main():
    params = load_params()
    run_rerank(
        section(params, "reranker"),
        questions=paths.QUESTIONS,
        turns=paths.TURNS,
        candidates=paths.CANDIDATES_RETRIEVE,
        out=paths.CANDIDATES_RERANK,
    )


if __name__ == "__main__":
    run_stage(main)
