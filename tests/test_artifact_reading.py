"""Reading artifacts, as every stage process does first: the right rows (vectors decoded from
Arrow's buffer, slices included) and none of the imports that would only slow each stage's
start (pyarrow.dataset and pandas, a third of a second per process)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from memrecall.artifacts import list_matrix
from repo_copy import REPO


def test_list_matrix_reads_the_rows_of_a_slice():
    rows = np.arange(24, dtype=np.float32).reshape(6, 4)
    arr = pa.array(rows.tolist(), type=pa.list_(pa.float32()))
    np.testing.assert_array_equal(list_matrix(arr), rows)
    np.testing.assert_array_equal(list_matrix(arr.slice(2, 3)), rows[2:5])
    chunked = pa.chunked_array([arr.slice(0, 2), arr.slice(4, 2)])
    np.testing.assert_array_equal(list_matrix(chunked), rows[[0, 1, 4, 5]])
    doubles = pa.array(rows.tolist(), type=pa.list_(pa.float64()))  # other types: converted
    got = list_matrix(doubles)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, rows)


READ_ALL = """
import sys
from memrecall.artifacts import read_table, read_vectors
from memrecall.schema import polars_schema
from memrecall.benchmarks import locomo

df = read_table(sys.argv[1])
cols = read_table(sys.argv[1], columns=["question_id", "nope"])
vectors = read_vectors(sys.argv[1])
schemas = [polars_schema(t) for t in ("questions", "answers", "verdicts")]
own = locomo.BENCHMARK.polars_schema("questions")  # with its own columns
assert df.height == 3 and cols.columns == ["question_id"] and vectors.shape == (3, 2), df
heavy = sorted(m for m in ("pandas", "pyarrow.dataset", "torch", "litellm") if m in sys.modules)
print(",".join(heavy) or "none")
"""


def test_reading_artifacts_imports_neither_pandas_nor_pyarrow_dataset(tmp_path):
    path = tmp_path / "t.parquet"
    table = pa.table(
        {
            "question_id": ["a", "b", "c"],
            "vector": pa.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]], pa.list_(pa.float32())),
        }
    )
    pq.write_table(table, path)
    proc = subprocess.run(
        [sys.executable, "-c", READ_ALL, str(path)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": ""},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "none"
