"""embed: key texts of every session (or round) → vectors, through the content-addressed cache
(and the questions' vectors into that cache, for retrieve)."""

import _bootstrap  # noqa: F401
from memrecall import paths
from memrecall.config import load_params, section
from memrecall.retrieval.embed import run_embed
from memrecall.stage import run_stage


def main():
    params = load_params()
    run_embed(
        section(params, "embedder"),
        sessions=paths.SESSIONS,
        turns=paths.TURNS,
        out=paths.EMBEDDINGS,
        questions=paths.QUESTIONS,
    )


if __name__ == "__main__":
    run_stage(main)
