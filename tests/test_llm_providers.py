"""Provider mapping: the thinking budget reaches each provider in the parameter it accepts
(docs/tools.md), bare model names get their provider prefix, keys come from the right env var,
and the shipped conf/reader and conf/judge options are valid and uniform."""

from __future__ import annotations

from pathlib import Path

import pytest

from confs import group
from fake_openai_server import FakeOpenAIServer
from memrecall.errors import ConfigError, MemrecallError
from memrecall.llm import LLMClient
from memrecall.llm.providers import call_spec, effort_for_budget, read_api_key, thinking_kwargs

CONF = Path(__file__).resolve().parents[1] / "conf"
READERS = ["local", "deepseek", "kimi", "glm", "minimax", "gemini", "gpt4o", "ark"]
JUDGES = ["gpt4o", "deepseek", "kimi", "glm", "minimax", "gemini", "ark", "local"]


def llm(model, provider, **over) -> dict:
    """An LLM block as conf/llm/base.yaml shapes it."""
    return group(
        "reader",
        "gpt4o",
        **{"model": model, "provider": provider, "api_key_env": None, "max_tokens": None, **over},
    )


LLM_KEYS = {
    "provider",
    "model",
    "temperature",
    "max_tokens",
    "thinking_budget",
    "input_cost_per_mtok",
    "output_cost_per_mtok",
    "runtime",
}


@pytest.mark.parametrize(
    "provider,model,budget,expected",
    [
        ("deepseek", "deepseek/deepseek-chat", 2048, {"reasoning_effort": "medium"}),
        ("deepseek", "deepseek/deepseek-chat", 0, {"reasoning_effort": "none"}),
        ("moonshot", "moonshot/kimi-k2.5", 16000, {"reasoning_effort": "high"}),
        ("openai", "openai/o3-mini", 512, {"reasoning_effort": "low"}),
        ("zai", "zai/glm-4.6", 4096, {"thinking": {"type": "enabled", "budget_tokens": 4096}}),
        ("zai", "zai/glm-4.6", 0, {"thinking": {"type": "disabled"}}),
        (
            "minimax",
            "minimax/MiniMax-M2",
            1000,
            {"thinking": {"type": "enabled", "budget_tokens": 1000}},
        ),
        (
            "volcengine",
            "volcengine/deepseek-v3-1-250821",
            8192,
            {"thinking": {"type": "enabled", "budget_tokens": 8192}},
        ),
        (
            "gemini",
            "gemini/gemini-2.5-flash",
            3000,
            {"thinking": {"type": "enabled", "budget_tokens": 3000}},
        ),
        (
            "gemini",
            "gemini/gemini-2.5-flash",
            0,
            {"thinking": {"type": "enabled", "budget_tokens": 0}},
        ),
        ("gemini", "gemini/gemini-3-pro-preview", 3000, {"reasoning_effort": "high"}),
        ("zai", "zai/glm-4.6", None, {}),
    ],
)
def test_thinking_budget_per_provider(provider, model, budget, expected):
    assert thinking_kwargs(provider, model, budget) == expected


def test_effort_levels_follow_litellm_budgets():
    assert [effort_for_budget(b) for b in (0, 1, 1024, 1025, 2048, 2049, 10**6)] == [
        "none",
        "low",
        "low",
        "medium",
        "medium",
        "high",
        "high",
    ]


@pytest.mark.parametrize("budget", [-1, 1.5, "high", True])
def test_bad_budget_is_a_config_error(budget):
    with pytest.raises(ConfigError, match=r"reader\.thinking_budget"):
        thinking_kwargs("zai", "zai/glm-4.6", budget, where="reader")


def test_local_has_no_thinking_control():
    with pytest.raises(ConfigError, match="no thinking control"):
        call_spec(llm("memrecall-local/smollm2-135m", "local", thinking_budget=100))


def test_call_spec_prefix_aliases_and_key_env():
    s = call_spec(llm("gpt-4o-2024-08-06", "openai", temperature=0, max_tokens=10))
    assert s.litellm_model == "openai/gpt-4o-2024-08-06"
    assert s.kwargs == {"temperature": 0, "max_tokens": 10} and s.key_env == "OPENAI_API_KEY"
    s = call_spec(llm("glm-4.6", "glm", thinking_budget=0))
    assert (s.provider, s.litellm_model, s.key_env) == ("zai", "zai/glm-4.6", "ZAI_API_KEY")
    s = call_spec(llm("ep-20250101-abc", "ark", api_key_env="MY_ARK"))
    assert (s.provider, s.litellm_model, s.key_env) == (
        "volcengine",
        "volcengine/ep-20250101-abc",
        "MY_ARK",
    )
    assert call_spec(llm("deepseek/deepseek-chat", None)).provider == "deepseek"  # inferred
    with pytest.raises(ConfigError, match="provider 'local' serves only"):
        call_spec(llm("openai/gpt-4o", "local"))


def test_read_api_key_names_the_variable_not_the_value(monkeypatch):
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    with pytest.raises(MemrecallError, match="DEEPSEEK_API_KEY"):
        read_api_key(llm("deepseek/deepseek-chat", None), "deepseek", "reader")
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-x")
    assert read_api_key(llm("deepseek/deepseek-chat", None), "deepseek") == "sk-x"
    assert read_api_key(llm("memrecall-local/smollm2-135m", None), "local") is None


@pytest.mark.parametrize(
    "provider,model,budget,field,value",
    [
        ("deepseek", "deepseek/deepseek-chat", 4096, "thinking", {"type": "enabled"}),
        ("deepseek", "deepseek/deepseek-chat", 0, "thinking", {"type": "disabled"}),
        ("moonshot", "moonshot/kimi-k2.5", 1024, "reasoning_effort", "low"),
        ("zai", "zai/glm-4.6", 2048, "thinking", {"type": "enabled", "budget_tokens": 2048}),
        ("zai", "zai/glm-4.6", 0, "thinking", {"type": "disabled"}),
        (
            "minimax",
            "minimax/MiniMax-M2",
            2048,
            "thinking",
            {"type": "enabled", "budget_tokens": 2048},
        ),
        (
            "volcengine",
            "volcengine/deepseek-v3-1-250821",
            2048,
            "thinking",
            {"type": "enabled", "budget_tokens": 2048},
        ),
    ],
)
def test_thinking_reaches_the_wire(provider, model, budget, field, value, fresh_cache, fake_key):
    """Through litellm to a real HTTP server: the request body carries what the provider takes
    (Gemini speaks its own protocol, so it is covered by the mapping test only)."""
    with FakeOpenAIServer() as srv:
        cfg = llm(
            model,
            provider,
            max_tokens=64,
            thinking_budget=budget,
            **srv.runtime(timeout_s=5),
        )
        r = LLMClient(cfg, "read", progress=False).complete([{"role": "user", "content": "q"}])
        assert r.ok, r.error
        body = srv.bodies[-1]
    assert body[field] == value
    assert body["model"] == model.split("/", 1)[1] and body["max_tokens"] == 64
    if field == "thinking":
        assert "reasoning_effort" not in body or provider == "deepseek"


def _load(name, option):
    return group(name, option)  # composed: the option with the bases it extends


def test_reader_options_share_keys_and_are_valid():
    keys = set(_load("reader", "local"))
    assert keys >= LLM_KEYS | {
        "name",
        "provider",
        "prompt",
        "history_format",
        "reading",
        "top_k_context",
        "max_chars_per_session",
    }
    for name in READERS:
        c = _load("reader", name)
        assert set(c) == keys, name
        assert c["name"] == name
        spec = call_spec(c, "reader")
        LLMClient(c, "read")  # every numeric knob passes validation
        assert spec.key_env is None if name == "local" else spec.key_env.endswith("_API_KEY")


def test_judge_options_are_valid_and_gpt4o_is_the_official_judge():
    for name in JUDGES:
        c = _load("judge", name)
        assert c["name"] == name and c["kind"] == "llm" and set(c) >= LLM_KEYS | {"provider"}
        assert c["temperature"] == 0
        LLMClient(c, "judge")
    g = _load("judge", "gpt4o")
    assert (g["model"], g["temperature"], g["max_tokens"]) == ("gpt-4o-2024-08-06", 0, 10)
    assert _load("judge", "rule")["kind"] == "rule"


def test_temperature_spelled_0_or_0_0_is_the_same_request():
    from memrecall.llm import request_hash
    from memrecall.llm.providers import gen_params

    msgs = [{"role": "user", "content": "hi"}]
    a = request_hash(
        "openai/gpt-4o",
        msgs,
        gen_params({"temperature": 0, "max_tokens": 8, "thinking_budget": None}),
    )
    b = request_hash(
        "openai/gpt-4o",
        msgs,
        gen_params({"temperature": 0.0, "max_tokens": 8, "thinking_budget": None}),
    )
    c = request_hash(
        "openai/gpt-4o",
        msgs,
        gen_params({"temperature": 0.5, "max_tokens": 8, "thinking_budget": None}),
    )
    assert a == b != c
