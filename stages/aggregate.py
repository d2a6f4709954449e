"""aggregate: every number of the run (QA accuracy with CIs, retrieval, cost) into reports/."""
import _bootstrap  # noqa: F401
from memrecall import layout
from memrecall.config import load_params, section
from memrecall.report.aggregate import run_aggregate
from memrecall.stage import run_stage


def main():
    params = load_params()
    run_aggregate(section(params, "report"), questions=layout.QUESTIONS, turns=layout.TURNS,
                  candidates={"retrieve": layout.CANDIDATES_RETRIEVE,
                              "rerank": layout.CANDIDATES_RERANK,
                              "rewrite": layout.CANDIDATES_REWRITE},
                  answers=layout.ANSWERS, verdicts=layout.VERDICTS, rewrites=layout.REWRITES,
                  out_dir=layout.REPORTS)


if __name__ == "__main__":
    run_stage(main)
