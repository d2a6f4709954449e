"""litellm, imported lazily: a fully cached rerun never pays its ~4 s import. The client and
the price/token counting (pricing.py) both load it from here."""

from __future__ import annotations

import logging
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no price-list download on import
os.environ.setdefault("LITELLM_LOG", "ERROR")

_litellm_mod = None


def litellm():
    """The litellm module, imported on first use, with its loggers and banners quiet."""
    global _litellm_mod
    if _litellm_mod is None:
        import litellm as mod

        mod.suppress_debug_info = True  # no "Give Feedback / Get Help" banners in errors
        for name in (
            "LiteLLM",
            "LiteLLM Router",
            "LiteLLM Proxy",
            "litellm",
            "httpx",
            "httpcore",
            "openai",
            "aiohttp",
        ):
            logging.getLogger(name).setLevel(logging.ERROR)
        _litellm_mod = mod
    return _litellm_mod
