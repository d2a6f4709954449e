"""Prices and token counts of LLM calls before they are sent (the plan and the budgets).

- Prices: the config's `input_cost_per_mtok` / `output_cost_per_mtok` (USD per million tokens)
  when set, else litellm's price map (offline copy: LITELLM_LOCAL_MODEL_COST_MAP=True), else
  unknown. The bundled local model is free. The client records paid costs the same way, so a
  plan and a run priced from the same table agree.
- Tokens: litellm's `token_counter`, which uses the model's own tokenizer where litellm ships one
  (DeepSeek, Claude, Llama, Cohere) and tiktoken's default encoding otherwise; `tokenizer_name`
  says which, so a plan can state what its counts assume.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .lazy import litellm as _litellm


@dataclass(frozen=True)
class Prices:
    """USD per million input / output tokens; `source` says where they come from."""

    input_per_mtok: float | None
    output_per_mtok: float | None
    source: str

    @property
    def known(self) -> bool:
        return self.input_per_mtok is not None and self.output_per_mtok is not None

    def cost(self, input_tokens: float, output_tokens: float) -> float | None:
        if not self.known:
            return None
        return (self.input_per_mtok * input_tokens + self.output_per_mtok * output_tokens) / 1e6


def prices_for(cfg: dict, provider: str, litellm_model: str) -> Prices:
    """The price table a call of this config is costed with (see module docstring)."""
    if provider == "local":
        return Prices(0.0, 0.0, "local model (free)")
    pin, pout = cfg["input_cost_per_mtok"], cfg["output_cost_per_mtok"]
    if pin is not None or pout is not None:
        return Prices(float(pin or 0.0), float(pout or 0.0), "config prices (per Mtok)")
    try:
        cin, cout = _litellm().cost_per_token(
            model=litellm_model, prompt_tokens=1_000_000, completion_tokens=1_000_000
        )
        return Prices(float(cin), float(cout), "litellm price map")
    except Exception:  # noqa: BLE001 - litellm raises various errors for unknown models
        return Prices(None, None, f"no price known for {litellm_model}")


@lru_cache(maxsize=64)
def tokenizer_name(litellm_model: str) -> str:
    """Which tokenizer litellm's token_counter uses for this model, in words."""
    from litellm import utils

    try:
        kind = utils.huggingface_tokenizer_kind(litellm_model)
    except Exception:  # noqa: BLE001 - older/newer litellm: fall through to the generic answer
        kind = None
    if kind:
        return f"{kind} tokenizer (HuggingFace, bundled with litellm)"
    try:
        sel = utils._select_tokenizer(litellm_model)
        enc = sel.get("tokenizer")
        name = getattr(enc, "name", None) or type(enc).__name__
        if sel.get("type") == "huggingface_tokenizer":
            return f"HuggingFace tokenizer {name}"
        return f"tiktoken {name} (litellm's default: no tokenizer known for this model)"
    except Exception:  # noqa: BLE001
        return "tiktoken (litellm's default)"


def count_tokens(litellm_model: str, messages: list[dict]) -> int:
    """Input tokens of one request, as litellm counts them (chat framing included)."""
    _litellm()
    from litellm import token_counter

    return int(token_counter(model=litellm_model, messages=messages))
