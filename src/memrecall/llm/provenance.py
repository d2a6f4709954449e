"""Where an LLM answer came from: the endpoint's host and the model id the response names.

A result may be compared with published numbers only when its calls went to the official
provider and were answered by the pinned model snapshot. The config cannot tell: `api_base` is a
runtime knob (not part of a result's identity), litellm also takes a base URL from the
environment (OPENAI_BASE_URL, DEEPSEEK_API_BASE, ...), and a cached answer was paid for under
whatever endpoint was set at the time. So each call records its own provenance, the cache keeps
it with the answer, and a stage writes a summary of its calls into its artifact's metadata
(beside, not inside, the hashed params).

Only a host name is ever kept: never a path, a query, a port's credentials or a key.
"""

from __future__ import annotations

import os
from collections import Counter
from urllib.parse import urlsplit

# provider -> (environment variables litellm reads for a base URL, in its order; the host it
# calls when none is set). litellm 1.110: main.py (openai), get_llm_provider_logic.py and each
# provider's transformation.py.
ENDPOINTS: dict[str, tuple[tuple[str, ...], str]] = {
    "openai": (("OPENAI_BASE_URL", "OPENAI_API_BASE"), "api.openai.com"),
    "deepseek": (("DEEPSEEK_API_BASE",), "api.deepseek.com"),
    "moonshot": (("MOONSHOT_API_BASE",), "api.moonshot.ai"),
    "zai": (("ZAI_API_BASE",), "api.z.ai"),
    "minimax": (("MINIMAX_API_BASE",), "api.minimax.io"),
    "volcengine": (("VOLCENGINE_API_BASE", "ARK_API_BASE"), "ark.cn-beijing.volces.com"),
    "gemini": (("GEMINI_API_BASE",), "generativelanguage.googleapis.com"),
    "local": ((), "in-process"),
}
UNRECORDED = "unrecorded"  # a cached answer paid for before provenance was kept


def url_host(url: str) -> str:
    """The host name of a base URL, lower-cased; credentials, port, path and query dropped."""
    raw = str(url).strip()
    parts = urlsplit(raw if "//" in raw else "//" + raw)
    host = parts.hostname
    if not host:
        return "unparsed-endpoint"  # never echo a string that could hold a secret
    return host.lower()


def endpoint_host(provider: str, api_base: str | None) -> str:
    """The host a call of this provider goes to: the configured api_base, else the base URL
    litellm reads from the environment, else the provider's own endpoint."""
    envs, default = ENDPOINTS.get(provider, ((), None))
    if api_base:
        return url_host(api_base)
    for env in envs:
        if os.environ.get(env):
            return url_host(os.environ[env])
    return default or UNRECORDED


def official_host(provider: str) -> str:
    """The provider's own endpoint (what comparability with published numbers requires)."""
    return ENDPOINTS[provider][1]


class ProvenanceLog:
    """Counts (host, response model) over the answers a client returned, cached or fresh."""

    def __init__(self):
        self.counts: Counter = Counter()

    def add(self, host: str | None, response_model: str | None) -> None:
        self.counts[(host or UNRECORDED, response_model or UNRECORDED)] += 1

    def summary(self) -> dict:
        return summarise(self.counts)


def summarise(counts: Counter) -> dict:
    """{"answers", "endpoints": {host: n}, "response_models": {model: n}} (sorted keys)."""
    hosts: Counter = Counter()
    models: Counter = Counter()
    for (h, m), n in counts.items():
        hosts[h] += n
        models[m] += n
    return {
        "answers": sum(counts.values()),
        "endpoints": dict(sorted(hosts.items())),
        "response_models": dict(sorted(models.items())),
    }


def merge(*summaries: dict | None) -> dict | None:
    """One summary for several (e.g. a reader's notes and answer calls)."""
    present = [s for s in summaries if s]
    if not present:
        return None
    hosts: Counter = Counter()
    models: Counter = Counter()
    for s in present:
        hosts.update(s.get("endpoints") or {})
        models.update(s.get("response_models") or {})
    return {
        "answers": sum(int(s.get("answers") or 0) for s in present),
        "endpoints": dict(sorted(hosts.items())),
        "response_models": dict(sorted(models.items())),
    }


def problems(summary: dict | None, *, host: str, model: str) -> list[str]:
    """Why these calls are not all the official host answering with the pinned model ([] when
    they are). Every answer must be accounted for: none unrecorded, none elsewhere."""
    if not summary or not summary.get("answers"):
        return ["no record of where the answers came from (the artifact predates provenance)"]
    out = []
    n = int(summary["answers"])
    for h, k in sorted((summary.get("endpoints") or {}).items()):
        if h == UNRECORDED:
            out.append(
                f"{k} of {n} answers came from cached calls made before endpoints were recorded"
            )
        elif h != host:
            out.append(f"{k} of {n} answers came from {h}, not {host}")
    for m, k in sorted((summary.get("response_models") or {}).items()):
        if m == UNRECORDED:
            if not any(h == UNRECORDED for h in summary.get("endpoints") or {}):
                out.append(f"{k} of {n} responses named no model")
        elif m != model:
            out.append(f"{k} of {n} responses were answered by {m}, not {model}")
    return out
