"""The benchmark registry: names, recognition of a file's format, entry points of other
packages, the benchmark recorded in the download stage's tables, and that shared code never
names a benchmark or sniffs its columns."""

from __future__ import annotations

import json
import re
import sys

import pytest

from conftest import REPO, SAMPLE_FILE, SHARED_DATA, shared_file
from memrecall import benchmarks
from memrecall.artifacts import read_meta, write_table
from memrecall.benchmarks.base import Benchmark
from memrecall.errors import ConfigError, InputError, MemrecallError

LOCOMO_FILE = SHARED_DATA.parent / "locomo" / "locomo_dev2.json"


def test_builtin_benchmarks_by_name():
    assert benchmarks.names()[:2] == ["longmemeval", "locomo"]
    lme = benchmarks.get("longmemeval")
    assert isinstance(lme, Benchmark) and lme.title == "LongMemEval"
    assert "temporal-reasoning" in lme.categories
    assert benchmarks.get("locomo").speaker_column == "speaker"
    with pytest.raises(ConfigError, match=r"dataset\.format.*choose one of: longmemeval, locomo"):
        benchmarks.get("csv")


def test_recognise_asks_every_benchmark(tmp_path):
    assert benchmarks.recognise(SAMPLE_FILE).name == "longmemeval"  # gzipped, first item only
    assert benchmarks.recognise(shared_file(LOCOMO_FILE)).name == "locomo"
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{"id": 1, "text": "a shape nobody registered"}]))
    with pytest.raises(MemrecallError, match="no registered benchmark recognises.*longmemeval"):
        benchmarks.recognise(other)
    # a file no benchmark can read: the reason it could not be read, naming the file
    other.write_text(json.dumps({"not": "a list"}))
    with pytest.raises(InputError, match="expected a JSON list.*other.json"):
        benchmarks.recognise(other)
    with pytest.raises(InputError, match="not found.*missing.json"):
        benchmarks.recognise(tmp_path / "missing.json")


FAKE_MODULE = """
from pathlib import Path
from memrecall.benchmarks.base import Benchmark

class Toy(Benchmark):
    def recognises(self, path):
        return Path(path).suffix == ".toy"

BENCHMARK = Toy(name="toy", title="Toy", categories=("a", "b"))
"""


@pytest.fixture
def toy_package(tmp_path, monkeypatch):
    """An installed package outside this repository that registers a benchmark through the
    entry-point group (a real dist-info folder on sys.path)."""
    (tmp_path / "toybench.py").write_text(FAKE_MODULE)
    info = tmp_path / "toybench-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toybench\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        f"[{benchmarks.ENTRY_POINT_GROUP}]\ntoy = toybench:BENCHMARK\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    benchmarks._targets.cache_clear()
    benchmarks.get.cache_clear()
    yield tmp_path
    sys.modules.pop("toybench", None)
    benchmarks._targets.cache_clear()
    benchmarks.get.cache_clear()


def test_a_package_registers_a_benchmark(toy_package):
    assert "toy" in benchmarks.names()
    toy = benchmarks.get("toy")
    assert toy.title == "Toy" and toy.type_order(["b", "z", "a"]) == ["a", "b", "z"]
    data = toy_package / "data.toy"
    data.write_text("[]")
    assert benchmarks.recognise(data) is toy
    assert benchmarks.recognise(SAMPLE_FILE).name == "longmemeval"


def test_of_artifact_reads_the_download_stages_record(tmp_path):
    import polars as pl

    with pytest.raises(MemrecallError, match="missing artifact"):
        benchmarks.of_artifact(tmp_path / "questions.parquet")
    path = write_table(pl.DataFrame({"x": [1]}), tmp_path / "old.parquet", stage="download")
    with pytest.raises(MemrecallError, match="does not record its benchmark.*rerun"):
        benchmarks.of_artifact(path)
    path = write_table(
        pl.DataFrame({"x": [1]}),
        tmp_path / "new.parquet",
        stage="download",
        extra_meta={benchmarks.META_KEY: "locomo"},
    )
    assert benchmarks.of_artifact(path).name == "locomo"


def test_download_records_the_benchmark_in_every_table(tmp_path):
    from confs import group
    from memrecall.data.prepare import run_download

    for name, file in (("longmemeval", SAMPLE_FILE), ("locomo", shared_file(LOCOMO_FILE))):
        out = tmp_path / name
        cfg = group("dataset", "local", path=str(file), limit=3)
        run_download(
            cfg,
            questions=out / "q.parquet",
            sessions=out / "s.parquet",
            turns=out / "t.parquet",
            card_path=out / "card.md",
            raw_dir=out / "raw",
        )
        for table in ("q", "s", "t"):
            assert read_meta(out / f"{table}.parquet")[benchmarks.META_KEY] == name


# Shared code never asks which benchmark it holds by looking at columns, nor names one.
BENCHMARK_FOLDERS = REPO / "src" / "memrecall" / "benchmarks"
SNIFFING = re.compile(
    r"""["'](category|speaker|answer_turn_ids|turn_id|adversarial_answer)["']"""
    r"""\s+(not\s+)?in\s+\w+\.columns"""
)


def _shared_sources():
    for path in sorted((REPO / "src").rglob("*.py")):
        if BENCHMARK_FOLDERS in path.parents and path.parent != BENCHMARK_FOLDERS:
            continue  # a benchmark's own folder
        yield path, path.read_text(encoding="utf-8")
    for path in sorted((REPO / "stages").glob("*.py")):
        yield path, path.read_text(encoding="utf-8")


def test_shared_code_names_no_benchmark_but_in_the_registry():
    registry = BENCHMARK_FOLDERS / "__init__.py"
    for name in benchmarks.BUILTIN:
        if name == "longmemeval":
            continue  # its metric definitions are the field's: shared code cites them by name
        offenders = [
            str(p.relative_to(REPO))
            for p, text in _shared_sources()
            if p != registry and name in text.lower()
        ]
        assert not offenders, f"'{name}' named outside its folder: {offenders}"


def test_shared_code_sniffs_no_benchmark_columns():
    offenders = [
        f"{p.relative_to(REPO)}: {m.group(0)}"
        for p, text in _shared_sources()
        for m in SNIFFING.finditer(text)
    ]
    assert not offenders, offenders
