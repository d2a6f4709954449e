"""read: answer each question from its final candidate sessions with the configured reader."""
import _bootstrap  # noqa: F401
from memrecall import layout
from memrecall.config import load_params, section
from memrecall.read.reader import run_read
from memrecall.stage import run_stage


def main():
    params = load_params()
    run_read(section(params, "reader"), questions=layout.QUESTIONS, sessions=layout.SESSIONS,
             turns=layout.TURNS, candidates=layout.CANDIDATES_REWRITE, out=layout.ANSWERS,
             prompts_out=layout.PROMPTS)


if __name__ == "__main__":
    run_stage(main)
