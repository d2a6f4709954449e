"""The bundled SmolLM2-135M-Instruct as the model "memrecall-local/smollm2-135m", in process:
real model, real client path, price 0, deterministic, converted once. Answer quality is not
asserted (the model is weak; docs/tools.md)."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from confs import group
from conftest import REPO
from memrecall.llm import LLMClient
from memrecall.llm.cache import read_journal


def local_cfg(**over) -> dict:
    return group("reader", "local", **{"max_tokens": 6, **over})


@pytest.mark.slow
def test_local_reader_through_the_client(fresh_cache):
    convs = [
        [{"role": "user", "content": "What is the capital of France? One word."}],
        [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "Name a fruit that is red."},
        ],
        [{"role": "user", "content": "remember this: " + "blah " * 9000}],
    ]  # > 8k tokens
    client = LLMClient(local_cfg(), "read", progress=False)
    res = client.complete_many(convs)
    for r in res[:2]:
        assert r.ok and isinstance(r.text, str)
        assert r.model == "memrecall-local/smollm2-135m" and r.cost_usd == 0.0
        assert r.input_tokens > 5 and 0 < r.output_tokens <= 6 and r.reasoning_tokens == 0
    # Too long for the 8k window: recorded like a provider's context-length error, not retried.
    assert res[2].text is None and "exceeds the local model's 8192-token window" in res[2].error
    journal = read_journal(fresh_cache / "llm")
    assert sorted((j["ok"], j["attempts"]) for j in journal) == [(False, 1), (True, 1), (True, 1)]
    # Rerun: the answered ones come from the cache, byte-identical.
    again = LLMClient(local_cfg(), "read", progress=False).complete_many(convs[:2])
    assert [(r.text, r.latency_s, r.cached) for r in again] == [
        (r.text, r.latency_s, True) for r in res[:2]
    ]


@pytest.mark.slow
def test_local_model_is_deterministic_and_converted_once():
    from memrecall.llm import local

    model = local.get_model()
    folder = local.converted_dir()
    assert (folder / local.CONVERTED_MARK).exists() and (folder / "config.json").exists()
    msgs = [{"role": "user", "content": "Say hello."}]
    a = model.generate(msgs, 5)
    b = model.generate(msgs, 5)
    assert a == b and a[2] <= 5
    t0 = time.perf_counter()
    reloaded = local.LocalModel()
    assert time.perf_counter() - t0 < 15  # from the converted folder, not the GGUF (~20-40 s)
    assert reloaded.generate(msgs, 5) == a


# In a fresh interpreter, the model stood in by a stub: what matters is what the client imports.
WITHOUT_LITELLM = """
import json, sys
from memrecall.llm import LLMClient, local

class Stub:
    def generate(self, messages, max_new_tokens):
        return f"{len(messages)} messages, at most {max_new_tokens} tokens", 7, 3

local.get_model = lambda name="smollm2-135m": Stub()
cfg = json.loads(sys.argv[1])
(r,) = LLMClient(cfg, "read", progress=False).complete_many([[{"role": "user", "content": "hi"}]])
print(json.dumps([r.text, r.input_tokens, r.output_tokens, r.response_model, r.cost_usd]))
print("litellm" in sys.modules)
"""


def test_the_local_model_is_called_without_importing_litellm(fresh_cache):
    """The bundled model runs in this process: litellm (7 to 9 s of CPU to import) is never
    loaded for it, and its answer, token counts and model name reach the result as a remote
    model's do."""
    proc = subprocess.run(
        [sys.executable, "-c", WITHOUT_LITELLM, json.dumps(local_cfg())],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": "", "MEMRECALL_CACHE_DIR": str(fresh_cache)},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result, imported = proc.stdout.splitlines()
    assert json.loads(result) == [
        "1 messages, at most 6 tokens",
        7,
        3,
        "memrecall-local/smollm2-135m",
        0.0,
    ]
    assert imported == "False"
