"""The bundled SmolLM2-135M-Instruct reached through litellm as the provider "memrecall-local":
real model, real client path, price 0, deterministic, converted once. Answer quality is not
asserted (the model is weak; docs/tools.md)."""

from __future__ import annotations

import time

import pytest

from confs import group
from memrecall.llm import LLMClient
from memrecall.llm.cache import read_journal


def local_cfg(**over) -> dict:
    return group("reader", "local", **{"max_tokens": 6, **over})


@pytest.mark.slow
def test_local_reader_through_litellm(fresh_cache):
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
