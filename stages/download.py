"""download: fetch (hub) or find (bundled/local) the dataset file, validate it, take the
configured subset and normalise it into questions / sessions / turns Parquet + the data card."""

import _bootstrap  # noqa: F401
from memrecall import paths
from memrecall.config import load_params, section
from memrecall.data.prepare import run_download
from memrecall.stage import run_stage


def main():
    params = load_params()
    run_download(
        section(params, "dataset"),
        questions=paths.QUESTIONS,
        sessions=paths.SESSIONS,
        turns=paths.TURNS,
        card_path=paths.DATA_CARD,
    )


if __name__ == "__main__":
    run_stage(main)
