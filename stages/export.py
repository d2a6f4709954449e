"""export: paper tables (Markdown, LaTeX, CSV) and figures from the DVC experiments."""

import _bootstrap  # noqa: F401
from memrecall.report.paper import export_paper_tables
from memrecall.stage import run_stage


def main():
    export_paper_tables()


if __name__ == "__main__":
    run_stage(main)
