"""rewrite: query variants (and optional time ranges) re-score the configured question types'
candidates; every other question's reranked candidates pass through unchanged."""
import _bootstrap  # noqa: F401
from memrecall import layout
from memrecall.config import load_params, section
from memrecall.rewrite import run_rewrite
from memrecall.stage import run_stage


def main():
    params = load_params()
    run_rewrite(section(params, "rewrite"), section(params, "embedder"),
                section(params, "reranker"), questions=layout.QUESTIONS,
                sessions=layout.SESSIONS, turns=layout.TURNS,
                candidates_rerank=layout.CANDIDATES_RERANK,
                candidates_retrieve=layout.CANDIDATES_RETRIEVE, embeddings=layout.EMBEDDINGS,
                out=layout.CANDIDATES_REWRITE, out_rewrites=layout.REWRITES)


if __name__ == "__main__":
    run_stage(main)
