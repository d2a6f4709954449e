"""The streaming normaliser (data/stream.py, what the download stage runs) writes the same
Parquet bytes as the in-memory one (longmemeval.normalise) on the bundled sample and the dev
file; with many spill files and small row groups the tables are still equal."""

from __future__ import annotations

import gzip
import json

import polars as pl
import pytest

from confs import group
from conftest import DEV_FILE, SAMPLE_FILE
from memrecall import artifacts, benchmarks
from memrecall.artifacts import read_table, write_table
from memrecall.benchmarks.longmemeval import BENCHMARK as LME
from memrecall.benchmarks.longmemeval import stream
from memrecall.benchmarks.longmemeval.categories import is_abstention_id
from memrecall.benchmarks.longmemeval.data import load_records, normalise, summary, validate_records
from memrecall.data.prepare import recorded_params, run_download
from memrecall.data.subset import select
from memrecall.errors import InputError
from memrecall.hashing import sha256_file

TABLES = ("questions", "sessions", "turns")


def in_memory(path, cfg, out):
    """The download stage as it was before streaming: whole file, normalise(), write_table."""
    records = load_records(path)
    validate_records(records, str(path))
    # The subset is chosen on the light records the benchmark hands to select (abstention by
    # LongMemEval's id rule), then the full records of the chosen ids are normalised.
    light = [
        {
            "question_id": r["question_id"],
            "question_type": r["question_type"],
            "is_abstention": is_abstention_id(r["question_id"]),
        }
        for r in records
    ]
    chosen, _ = select(light, cfg, str(path), types=LME.categories)
    ids = {r["question_id"] for r in chosen}
    ds = normalise([r for r in records if r["question_id"] in ids], str(path))
    kw = dict(
        stage="download",
        params=recorded_params(cfg),
        input_files=[str(path)],
        extra_meta={
            "source_sha256": sha256_file(path),
            "source_commit": None,
            "release": cfg.get("release"),
            benchmarks.META_KEY: LME.name,
        },
    )
    for name in TABLES:
        write_table(getattr(ds, name), out / f"{name}.parquet", table=name, **kw)
    return summary(ds)


def streamed(path, cfg, out, tmp_path):
    return run_download(
        cfg,
        **{n: out / f"{n}.parquet" for n in TABLES},
        card_path=out / "card.md",
        raw_dir=tmp_path / "raw",
    )


@pytest.mark.parametrize(
    "path,subset",
    [
        (SAMPLE_FILE, {}),
        (DEV_FILE, {}),
        (DEV_FILE, {"stratified": {"n": 30, "seed": 1}}),
    ],
)
def test_streaming_is_byte_identical(tmp_path, path, subset):
    if not path.exists():
        pytest.skip(f"{path} not available")
    cfg = group("dataset", "local", path=str(path), release="cleaned", **subset)
    want = in_memory(path, cfg, tmp_path / "a")
    got = streamed(path, cfg, tmp_path / "b", tmp_path)
    for name in TABLES:
        assert sha256_file(tmp_path / "a" / f"{name}.parquet") == sha256_file(
            tmp_path / "b" / f"{name}.parquet"
        ), name
    assert got == want  # the data card's figures too


def test_many_spill_files_and_row_groups(tmp_path, monkeypatch):
    cfg = group("dataset", "local", path=str(SAMPLE_FILE), release=None)
    in_memory(SAMPLE_FILE, cfg, tmp_path / "a")
    monkeypatch.setattr(stream, "SPILL_BYTES", 20_000)
    monkeypatch.setattr(stream, "FLUSH_ROWS", 7)
    monkeypatch.setattr(artifacts, "ROW_GROUP_ROWS", 50)
    streamed(SAMPLE_FILE, cfg, tmp_path / "b", tmp_path)
    import pyarrow.parquet as pq

    assert pq.ParquetFile(tmp_path / "b" / "turns.parquet").metadata.num_row_groups > 3
    for name in TABLES:
        a, b = (
            read_table(tmp_path / "a" / f"{name}.parquet"),
            read_table(tmp_path / "b" / f"{name}.parquet"),
        )
        assert a.equals(b), name


def test_shared_sessions_merge_and_conflicts(tmp_path):
    def rec(qid, sids, dates, flags):
        return {
            "question_id": qid,
            "question_type": "multi-session",
            "question": "q?",
            "answer": 3,
            "question_date": "2023/06/01 (Thu) 10:00",
            "haystack_session_ids": sids,
            "haystack_dates": dates,
            "haystack_sessions": [
                [{"role": "user", "content": f"text {s}", "has_answer": f}]
                for s, f in zip(sids, flags)
            ],
            "answer_session_ids": [sids[0]],
        }

    recs = [
        rec(
            "q2", ["s1", "s2"], ["2023/05/02 (Tue) 10:00", "2023/05/03 (Wed) 10:00"], [True, False]
        ),
        rec(
            "q1",
            ["s2", "s1", "s2"],
            ["2023/05/01 (Mon) 10:00", "2023/05/02 (Tue) 10:00", "2023/05/01 (Mon) 10:00"],
            [True, False, False],
        ),
    ]
    f = tmp_path / "d.json.gz"
    f.write_bytes(gzip.compress(json.dumps(recs).encode(), mtime=0))
    cfg = group("dataset", "local", path=str(f), release=None)
    want = in_memory(f, cfg, tmp_path / "a")
    got = streamed(f, cfg, tmp_path / "b", tmp_path)
    assert got == want and got["duplicates_in_haystack"] == 1 and got["has_answer_merged"] == 2
    for name in TABLES:
        assert sha256_file(tmp_path / "a" / f"{name}.parquet") == sha256_file(
            tmp_path / "b" / f"{name}.parquet"
        ), name
    s = read_table(tmp_path / "b" / "sessions.parquet")
    assert s.filter(pl.col("session_id") == "s2")["date"].item() == "2023/05/01 (Mon) 10:00"

    recs[1]["haystack_sessions"][1][0]["content"] = "changed"
    f.write_bytes(gzip.compress(json.dumps(recs).encode(), mtime=0))
    with pytest.raises(InputError, match="different content") as e:
        streamed(f, cfg, tmp_path / "c", tmp_path)
    assert e.value.field.startswith("haystack_sessions[") and e.value.question_id == "q2"
    assert not (tmp_path / "c").exists()
