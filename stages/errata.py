"""errata: with dataset.errata set, judge again (the run's own judge) every answer whose gold a
correction changed, against the corrected gold (see memrecall/errata/stage.py)."""

import _bootstrap  # noqa: F401
from memrecall import paths
from memrecall.config import load_params, section
from memrecall.errata.stage import run_errata
from memrecall.stage import run_stage


def main():
    params = load_params()
    run_errata(
        section(params, "judge"),
        errata=paths.ERRATA,
        questions=paths.QUESTIONS,
        answers=paths.ANSWERS,
        out=paths.VERDICTS_ERRATA,
    )


if __name__ == "__main__":
    run_stage(main)
