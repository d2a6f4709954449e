"""An artifact records what determines its result: `runtime` nodes (concurrency, budgets,
endpoints, batch sizes) are stripped at any depth by the writer itself, so no stage can leak one
into an artifact's params or its inputs hash."""

from __future__ import annotations

import json

import polars as pl

from memrecall.artifacts import inputs_hash, read_meta, write_table


def test_runtime_nodes_never_reach_an_artifact(tmp_path):
    df = pl.DataFrame({"x": [1, 2]})
    base = {"reader": {"model": "m", "llm": {"temperature": 0.0}}}
    noisy = {
        "reader": {
            "model": "m",
            "runtime": {"concurrency": 8, "max_cost_usd": 1.0},
            "llm": {"temperature": 0.0, "runtime": {"api_base": "http://x"}},
        }
    }
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    write_table(df, a, stage="t", params=base)
    write_table(df, b, stage="t", params=noisy)
    assert a.read_bytes() == b.read_bytes()
    assert json.loads(json.dumps(read_meta(b)["params"])) == base
    assert inputs_hash(noisy) == inputs_hash(base) != inputs_hash({"reader": {"model": "n"}})
