"""From an LLM config (reader / judge / rewrite.llm) to the keyword arguments litellm takes.

The one place that knows provider differences (see docs/tools.md, litellm 1.110):
- a thinking budget becomes `reasoning_effort` for DeepSeek, Moonshot (Kimi) and OpenAI, which
  take an effort level, not a token count; and `thinking={"type": "enabled", "budget_tokens": N}`
  for Z.ai (GLM), MiniMax and Volcengine Ark, which reject `reasoning_effort`. Gemini takes both:
  2.x models get the exact budget, Gemini 3+ only take levels, so they get `reasoning_effort`.
  A budget of 0 asks for thinking off.
- the API key comes only from the environment variable named by `api_key_env` (or the provider's
  usual one). It is read at call time, passed to litellm directly and never stored or logged.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..config import check_int, runtime
from ..errors import ConfigError, MemrecallError

LOCAL_PROVIDER = "memrecall-local"

# provider -> (default key env var, how it takes a thinking budget: "effort" | "budget" | None)
PROVIDERS: dict[str, tuple[str | None, str | None]] = {
    "local": (None, None),
    "openai": ("OPENAI_API_KEY", "effort"),
    "deepseek": ("DEEPSEEK_API_KEY", "effort"),
    "moonshot": ("MOONSHOT_API_KEY", "effort"),
    "zai": ("ZAI_API_KEY", "budget"),
    "minimax": ("MINIMAX_API_KEY", "budget"),
    "volcengine": ("ARK_API_KEY", "budget"),
    "gemini": ("GEMINI_API_KEY", "budget"),
}
# Names people use for the same providers (conf option names, vendor names).
ALIASES = {
    "kimi": "moonshot",
    "glm": "zai",
    "zhipu": "zai",
    "ark": "volcengine",
    "google": "gemini",
    "memrecall-local": "local",
}

# Effort levels and the token budgets litellm itself equates them with (constants.py:
# DEFAULT_REASONING_EFFORT_{LOW,MEDIUM,HIGH}_THINKING_BUDGET); a budget maps to the smallest
# level that covers it.
EFFORT_LEVELS = (("low", 1024), ("medium", 2048), ("high", 4096))

# Generation parameters that change what a model answers: they (not the `runtime` node:
# concurrency, timeouts, the endpoint) go into the request hash. None-valued keys are left out,
# so adding an optional knob later does not change the hash of existing requests.
GEN_KEYS = ("temperature", "max_tokens", "thinking_budget")


def canonical_provider(cfg: dict, where: str = "llm") -> str:
    model = cfg["model"]
    if not isinstance(model, str) or not model.strip():
        raise ConfigError(
            f"{where}.model",
            model,
            hint="set a litellm model name, "
            "e.g. deepseek/deepseek-chat or memrecall-local/smollm2-135m",
        )
    raw = cfg["provider"]
    if raw is None:  # infer from the model's prefix
        raw = (
            "local"
            if model.startswith(LOCAL_PROVIDER + "/")
            else (model.split("/", 1)[0] if "/" in model else "openai")
        )
    name = ALIASES.get(str(raw).lower(), str(raw).lower())
    if name not in PROVIDERS:
        raise ConfigError(f"{where}.provider", raw, sorted(PROVIDERS) + sorted(ALIASES))
    if name == "local" and not model.startswith(LOCAL_PROVIDER + "/"):
        raise ConfigError(
            f"{where}.model",
            model,
            hint=f"provider 'local' serves only {LOCAL_PROVIDER}/... models",
        )
    return name


def effort_for_budget(budget: int) -> str:
    if budget == 0:
        return "none"
    for level, tokens in EFFORT_LEVELS:
        if budget <= tokens:
            return level
    return EFFORT_LEVELS[-1][0]


def thinking_kwargs(provider: str, model: str, budget, where: str = "llm") -> dict:
    """The litellm kwargs that carry `thinking_budget` for this provider ({} when unset)."""
    if budget is None:
        return {}
    check_int(
        budget,
        f"{where}.thinking_budget",
        minimum=0,
        hint="use null (provider default), 0 (thinking off) or a token count",
    )
    style = PROVIDERS[provider][1]
    if provider == "gemini" and re.search(r"gemini-(?:[3-9]|\d\d)", model):
        style = "effort"  # Gemini 3+ takes thinking levels only; litellm drops a token budget
    if style is None:
        raise ConfigError(
            f"{where}.thinking_budget",
            budget,
            hint=f"provider '{provider}' has no thinking control; use null",
        )
    if style == "effort":
        return {"reasoning_effort": effort_for_budget(budget)}
    if budget == 0 and provider != "gemini":
        return {"thinking": {"type": "disabled"}}
    # Gemini 2.x: budget_tokens 0 is how litellm sends thinkingBudget=0 (thinking off).
    return {"thinking": {"type": "enabled", "budget_tokens": budget}}


def litellm_model(provider: str, model: str) -> str:
    """The model string for litellm: a bare name gets the provider prefix."""
    if provider == "local" or "/" in model:
        return model
    return f"{provider}/{model}"


def key_env(cfg: dict, provider: str, where: str = "llm") -> str | None:
    return runtime(cfg, where)["api_key_env"] or PROVIDERS[provider][0]


def read_api_key(cfg: dict, provider: str, where: str = "llm") -> str | None:
    """The key from the environment; a clear error (naming the variable, not any value) if unset."""
    env = key_env(cfg, provider, where)
    if env is None:
        return None
    key = os.environ.get(env)
    if not key:
        raise MemrecallError(
            f"{where}: model {cfg['model']!r} needs an API key in the environment variable "
            f"{env} (it is not set). Keys are read only from the environment, never from params."
        )
    return key


# Written `0` or `0.0`, a temperature is the same request: hash floats as floats, so a
# command-line override spelled differently from the conf file never pays for a call twice.
_FLOAT_KEYS = ("temperature", "top_p")


def gen_params(cfg: dict) -> dict:
    """The generation parameters that go into the request hash (None values dropped)."""

    def norm(k, v):
        return float(v) if k in _FLOAT_KEYS and type(v) is int else v

    return {k: norm(k, cfg[k]) for k in GEN_KEYS if cfg[k] is not None}


@dataclass(frozen=True)
class CallSpec:
    """Everything litellm needs for one config except the messages and the key."""

    provider: str
    model: str  # as configured (what results and hashes carry)
    litellm_model: str  # with provider prefix
    kwargs: dict  # temperature, max_tokens, thinking, api_base, ...
    key_env: str | None


def call_spec(cfg: dict, where: str = "llm") -> CallSpec:
    provider = canonical_provider(cfg, where)
    model = cfg["model"]
    kwargs: dict = {}
    for k in ("temperature", "max_tokens"):
        if cfg[k] is not None:
            kwargs[k] = cfg[k]
    mt = cfg["max_tokens"]
    if mt is not None:
        check_int(mt, f"{where}.max_tokens", minimum=1, hint="must be a positive integer or null")
    t = cfg["temperature"]
    if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or t < 0):
        raise ConfigError(f"{where}.temperature", t, hint="must be a number >= 0 or null")
    kwargs.update(thinking_kwargs(provider, model, cfg["thinking_budget"], where))
    api_base = runtime(cfg, where)["api_base"]
    if api_base:
        kwargs["api_base"] = api_base
    return CallSpec(
        provider=provider,
        model=model,
        litellm_model=litellm_model(provider, model),
        kwargs=kwargs,
        key_env=key_env(cfg, provider, where),
    )
