"""Writing a test's questions, sessions and turns tables as the download stage does: with the
benchmark's name in their metadata (benchmarks.META_KEY), which every later stage reads back."""

from __future__ import annotations

from memrecall import benchmarks
from memrecall.artifacts import write_table


def write_downloaded(
    df, path, *, table: str, benchmark: str = "longmemeval", stage: str = "download", **kw
):
    """write_table of a download-stage table that records `benchmark` (as the stage does)."""
    meta = {benchmarks.META_KEY: benchmark, **kw.pop("extra_meta", {})}
    return write_table(df, path, table=table, stage=stage, extra_meta=meta, **kw)


def write_one_session_run(root, qids, types, questions, answers) -> dict:
    """A read stage's inputs under root/artifacts: the questions given (qids with their types,
    texts and gold answers), all over one haystack session ("I live in Berlin."), each ranking
    it first; {"questions", "sessions", "turns", "candidates", "out": answers.parquet}."""
    import polars as pl

    art = root / "artifacts"
    n = len(qids)
    q = pl.DataFrame(
        {
            "question_id": qids,
            "question_type": types,
            "is_abstention": [False] * n,
            "question": questions,
            "answer": answers,
            "question_date": ["2023/04/01 (Sat) 08:00"] * n,
            "haystack_session_ids": [["a"]] * n,
            "answer_session_ids": [["a"]] * n,
        }
    )
    s = pl.DataFrame(
        {"session_id": ["a"], "date": ["2023/01/05 (Thu) 10:00"], "content_hash": ["x"]}
    )
    t = pl.DataFrame(
        {
            "session_id": ["a"],
            "turn_index": [0],
            "role": ["user"],
            "content": ["I live in Berlin."],
            "has_answer": [False],
        }
    )
    c = pl.DataFrame(
        {"question_id": qids, "rank": [1] * n, "session_id": ["a"] * n, "score": [1.0] * n}
    )
    paths = {
        name: str(write_downloaded(df, art / f"{name}.parquet", table=name))
        for name, df in (("questions", q), ("sessions", s), ("turns", t))
    }
    paths["candidates"] = str(
        write_table(c, art / "candidates.parquet", table="candidates", stage="retrieve")
    )
    paths["out"] = str(art / "answers.parquet")
    return paths
