"""The LLM layer: every model call of every stage goes through LLMClient (litellm underneath;
the bundled model in this process, without litellm).

    from memrecall.llm import LLMClient, CallResult, request_hash
    from memrecall.llm.refusal import is_refusal

client.py   bounded async calls, retries, progress, stats
cache.py    the sqlite call cache + calls.jsonl journal (paths.cache_dir("llm"))
providers.py config -> litellm kwargs (thinking budget per provider, API key from env)
local.py    the bundled SmolLM2-135M-Instruct as the in-process provider "memrecall-local"
refusal.py  the documented refusal classifier
lazy.py     litellm, imported on first use (client and pricing load it from here)
dryrun.py   the client's interface answering from the cache only (`memrecall plan`)
provenance.py where each answer came from (endpoint host, response model), for comparability
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # before anything imports litellm

from .cache import CallCache, request_hash  # noqa: E402
from .client import CallResult, LLMClient, usage  # noqa: E402

__all__ = ["LLMClient", "CallResult", "request_hash", "CallCache", "usage"]
