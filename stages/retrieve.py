"""retrieve: rank each question's haystack sessions (dense / bm25 / hybrid / oracle / plugin), keep
top_k."""

import _bootstrap  # noqa: F401
from memrecall import paths
from memrecall.config import load_params, section
from memrecall.retrieval.retrieve import run_retrieve
from memrecall.stage import run_stage


def main():
    params = load_params()
    run_retrieve(
        section(params, "retrieval"),
        section(params, "embedder"),
        questions=paths.QUESTIONS,
        embeddings=paths.EMBEDDINGS,
        out=paths.CANDIDATES_RETRIEVE,
        sessions=paths.SESSIONS,
        turns=paths.TURNS,
    )


if __name__ == "__main__":
    run_stage(main)
