"""One atomic-write helper (artifacts.py) for every output: temp file next to the target, then
rename; the published file has the umask-based mode of a plain open(), whoever writes it."""

from __future__ import annotations

import os
import stat

import polars as pl
import pytest

from memrecall.artifacts import atomic_dir, atomic_path, atomic_write_text, write_table
from memrecall.benchmarks.longmemeval.sample import write_gzip_json
from memrecall.report.figures import by_type_bars


@pytest.fixture
def umask_002():
    old = os.umask(0o002)  # not the usual 022, so a hard-coded 0644 shows too
    yield 0o664
    os.umask(old)


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_every_writer_gives_the_umask_mode(tmp_path, umask_002):
    outs = [
        atomic_write_text(tmp_path / "r" / "metrics.json", "{}\n"),
        by_type_bars(
            [{"name": "run", "by_type": {"multi-session": 0.5}, "ci": {}}],
            tmp_path / "r" / "figures" / "by_type.png",
        ),  # was 0600
        write_gzip_json([{"question_id": "q1"}], tmp_path / "sample.json.gz"),  # was 0644
        write_table(pl.DataFrame({"a": [1]}), tmp_path / "a" / "t.parquet", stage="test"),
    ]
    for p in outs:
        assert _mode(p) == umask_002, (p, oct(_mode(p)))
    assert _leftovers(tmp_path / "r") == [] and _leftovers(tmp_path / "a") == []


def test_a_failed_write_leaves_the_old_file_and_no_temp(tmp_path):
    target = atomic_write_text(tmp_path / "by_type.md", "good\n")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("crash mid-write")
    assert target.read_text() == "good\n"
    assert _leftovers(tmp_path) == []


def test_atomic_dir_publishes_once_and_keeps_a_finished_one(tmp_path, umask_002):
    target = tmp_path / "models" / "m"
    done = lambda p: (p / "done").exists()  # noqa: E731
    with atomic_dir(target, complete=done) as tmp:
        (tmp / "weights").write_text("first")
        (tmp / "done").write_text("")
    assert (target / "weights").read_text() == "first"
    assert _mode(target) == 0o775  # not mkdtemp's 0700
    # A second writer that finishes later keeps the first, complete, folder.
    with atomic_dir(target, complete=done) as tmp:
        (tmp / "weights").write_text("second")
        (tmp / "done").write_text("")
    assert (target / "weights").read_text() == "first"
    # An incomplete leftover (a crash before the mark was written) is replaced.
    (target / "done").unlink()
    with atomic_dir(target, complete=done) as tmp:
        (tmp / "weights").write_text("third")
        (tmp / "done").write_text("")
    assert (target / "weights").read_text() == "third"
    assert sorted(p.name for p in target.parent.iterdir()) == ["m"]
