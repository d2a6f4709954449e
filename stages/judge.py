"""judge: label each answer correct/incorrect with the configured judge (rule or LLM)."""

import _bootstrap  # noqa: F401
from memrecall import paths
from memrecall.config import load_params, section
from memrecall.judge.stage import run_judge
from memrecall.stage import run_stage


def main():
    params = load_params()
    run_judge(
        section(params, "judge"),
        questions=paths.QUESTIONS,
        answers=paths.ANSWERS,
        out=paths.VERDICTS,
    )


if __name__ == "__main__":
    run_stage(main)
