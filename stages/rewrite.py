"""rewrite: query variants (and optional time ranges) re-score the configured question types'
candidates; every other question's reranked candidates pass through unchanged."""

import _bootstrap  # noqa: F401
from memrecall import paths
from memrecall.config import load_params, section
from memrecall.rewrite.rewriter import run_rewrite
from memrecall.stage import run_stage


def main():
    params = load_params()
    run_rewrite(
        section(params, "rewrite"),
        section(params, "embedder"),
        section(params, "reranker"),
        questions=paths.QUESTIONS,
        sessions=paths.SESSIONS,
        turns=paths.TURNS,
        candidates_rerank=paths.CANDIDATES_RERANK,
        candidates_retrieve=paths.CANDIDATES_RETRIEVE,
        embeddings=paths.EMBEDDINGS,
        out=paths.CANDIDATES_REWRITE,
        out_rewrites=paths.REWRITES,
        retrieval_cfg=section(params, "retrieval"),
    )


if __name__ == "__main__":
    run_stage(main)
