"""sources: the sha256 of every file that params name (dataset.path, a dataset.question_ids
file), so that editing such a file reruns download, and the errata overlay dataset.errata names,
for the errata stage (see memrecall/data/sources.py)."""

import _bootstrap  # noqa: F401
from memrecall import paths
from memrecall.config import load_params, section
from memrecall.data.sources import run_sources
from memrecall.stage import run_stage


def main():
    params = load_params()
    run_sources(section(params, "dataset"), out=paths.SOURCES, errata=paths.ERRATA)


if __name__ == "__main__":
    run_stage(main)
