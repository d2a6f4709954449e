"""aggregate: every number of the run (QA accuracy with CIs, retrieval, cost) into reports/."""

import _bootstrap  # noqa: F401
from memrecall import paths
from memrecall.config import load_params, section
from memrecall.report.aggregate import run_aggregate
from memrecall.stage import run_stage


def main():
    params = load_params()
    run_aggregate(
        section(params, "report"),
        questions=paths.QUESTIONS,
        turns=paths.TURNS,
        candidates={
            "retrieve": paths.CANDIDATES_RETRIEVE,
            "rerank": paths.CANDIDATES_RERANK,
            "rewrite": paths.CANDIDATES_REWRITE,
        },
        answers=paths.ANSWERS,
        verdicts=paths.VERDICTS,
        rewrites=paths.REWRITES,
        errata=paths.ERRATA,
        verdicts_errata=paths.VERDICTS_ERRATA,
        out_dir=paths.REPORTS,
    )


if __name__ == "__main__":
    run_stage(main)
