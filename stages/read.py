"""read: answer each question from its final candidate sessions with the configured reader."""

import _bootstrap  # noqa: F401
from memrecall import paths
from memrecall.config import load_params, section
from memrecall.read.stage import run_read
from memrecall.stage import run_stage


def main():
    params = load_params()
    run_read(
        section(params, "reader"),
        questions=paths.QUESTIONS,
        sessions=paths.SESSIONS,
        turns=paths.TURNS,
        candidates=paths.CANDIDATES_REWRITE,
        out=paths.ANSWERS,
        prompts_out=paths.PROMPTS,
    )


if __name__ == "__main__":
    run_stage(main)
