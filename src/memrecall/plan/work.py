"""The work items of a plan and their figures: the calls of one model within one stage
(LLMWork), texts an encoder would embed (TextWork), one stage (StagePlan), the plan (Plan)."""

from __future__ import annotations

from dataclasses import dataclass, field

ASSUMED_LATENCY_S = 5.0  # per call, when no call of that model and stage was ever cached
ASSUMED_OUTPUT_TOKENS = 1024  # when max_tokens is unset and nothing was cached
# The one measured CPU figure we have (docs/performance.md, "Embedding on CPU"): MiniLM on
# session keys, max_length 256, two threads.
CPU_TEXTS_PER_S = 16.9


@dataclass
class LLMWork:
    """The calls of one model within one stage."""

    label: str
    stage: str
    model: str
    litellm_model: str
    provider: str
    cfg: dict
    concurrency: int
    rpm: float | None
    requests: int = 0  # rendered requests (duplicates included)
    cached: set = field(default_factory=set)
    new: dict = field(default_factory=dict)  # hash -> input tokens (unique new requests)
    estimated_calls: int = 0  # calls that could not be rendered yet
    estimated_input_tokens: float = 0.0
    notes: list = field(default_factory=list)
    rendered: list = field(default_factory=list, repr=False)  # (hash, messages, cached)
    unknown: bool = False  # calls could not even be estimated
    _seen: dict | None = None

    @classmethod
    def for_config(cls, client, stage: str, label: str) -> "LLMWork":
        return cls(
            label=label,
            stage=stage,
            model=client.model,
            litellm_model=client.spec.litellm_model,
            provider=client.spec.provider,
            cfg=client.cfg,
            concurrency=client.concurrency,
            rpm=client.rpm,
            _seen=client.cache.seen(client.model, stage),
        )

    @classmethod
    def from_dry_run(cls, dry, label: str | None = None) -> "LLMWork":
        """The work of the requests a DryRunClient (llm/dryrun.py) was asked for."""
        w = cls.for_config(dry.client, dry.stage, label or dry.stage)
        for h, m, cached in dry.requests:
            w.add(h, m, cached)
        w.rendered = list(dry.requests)
        return w

    def add(self, h: str, messages: list[dict], cached: bool) -> None:
        from ..llm.pricing import count_tokens

        self.requests += 1
        if cached:
            self.cached.add(h)
        elif h not in self.new:
            self.new[h] = count_tokens(self.litellm_model, messages)

    def calls_unknown(self, why: str) -> "LLMWork":
        """Nothing can be counted yet (why: what is missing): the plan names this work as not
        counted rather than guess. Returns the work, to append as it is."""
        self.unknown = True
        self.notes.append(f"calls unknown: {why}")
        return self

    def estimate(self, calls: int, input_tokens_each: float, why: str) -> None:
        if calls <= 0:
            return
        self.estimated_calls += calls
        self.estimated_input_tokens += calls * input_tokens_each
        self.notes.append(f"{calls} call(s) estimated: {why}")

    # -- derived figures
    @property
    def new_calls(self) -> int:
        return len(self.new) + self.estimated_calls

    @property
    def input_tokens(self) -> float:
        return sum(self.new.values()) + self.estimated_input_tokens

    def output_per_call(self) -> tuple[float, str]:
        seen = self._seen or {}
        if seen.get("calls"):
            return float(seen["output_tokens"]), (
                f"mean of {seen['calls']} cached {self.stage} calls of this model"
            )
        if self.cfg.get("max_tokens") is not None:
            return float(self.cfg["max_tokens"]), "max_tokens (no cached calls of this model)"
        return float(ASSUMED_OUTPUT_TOKENS), (
            f"assumed {ASSUMED_OUTPUT_TOKENS} (no max_tokens, no cached calls)"
        )

    @property
    def output_tokens(self) -> float:
        return self.new_calls * self.output_per_call()[0]

    @property
    def prices(self):
        from ..llm.pricing import prices_for

        return prices_for(self.cfg, self.provider, self.litellm_model)

    def cost_of(self, input_tokens: float, calls: int = 1) -> float | None:
        return self.prices.cost(input_tokens, calls * self.output_per_call()[0])

    @property
    def cost_usd(self) -> float | None:
        return self.prices.cost(self.input_tokens, self.output_tokens)

    def latency(self) -> tuple[float, str]:
        seen = self._seen or {}
        if seen.get("calls") and seen.get("latency_s") is not None:
            return float(seen["latency_s"]), f"mean latency of {seen['calls']} cached calls"
        return ASSUMED_LATENCY_S, f"assumed {ASSUMED_LATENCY_S:g} s per call (none seen)"

    @property
    def wall_s(self) -> float:
        lat, _ = self.latency()
        t = self.new_calls * lat / max(1, self.concurrency)
        if self.rpm:
            t = max(t, self.new_calls * 60.0 / self.rpm)
        return t

    def to_dict(self) -> dict:
        from ..llm.pricing import tokenizer_name

        out_each, out_basis = self.output_per_call()
        lat, lat_basis = self.latency()
        p = self.prices
        return {
            "label": self.label,
            "model": self.model,
            "requests": self.requests,
            "cached": len(self.cached),
            "new_calls": self.new_calls,
            "rendered_new": len(self.new),
            "estimated_calls": self.estimated_calls,
            "input_tokens": round(self.input_tokens),
            "output_tokens": round(self.output_tokens),
            "output_tokens_per_call": out_each,
            "output_basis": out_basis,
            "tokenizer": tokenizer_name(self.litellm_model) if self.new_calls else None,
            "prices": {
                "input_per_mtok": p.input_per_mtok,
                "output_per_mtok": p.output_per_mtok,
                "source": p.source,
            },
            "cost_usd": self.cost_usd,
            "wall_s": self.wall_s,
            "latency_s": lat,
            "latency_basis": lat_basis,
            "concurrency": self.concurrency,
            "rpm": self.rpm,
            "unknown": self.unknown,
            "notes": list(self.notes),
        }


@dataclass
class TextWork:
    """Texts an encoder would embed."""

    label: str
    total: int = 0
    cached: int = 0
    new: int = 0
    estimated: bool = False

    def to_dict(self) -> dict:
        return {
            "label": self.label,
            "texts": self.total,
            "cached": self.cached,
            "new": self.new,
            "estimated": self.estimated,
            "cpu_s": self.new / CPU_TEXTS_PER_S,
        }


@dataclass
class StagePlan:
    stage: str
    runs: bool
    why: list
    llm: list = field(default_factory=list)
    texts: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    not_counted: list = field(default_factory=list)  # calls not made by our client, and why
    # What the run would write as far as the cache knows it, for the planners downstream
    # (read: {"answers": the answers table}).
    output: dict = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict:
        return {
            "stage": self.stage,
            "runs": self.runs,
            "why": self.why,
            "llm": [w.to_dict() for w in self.llm],
            "texts": [t.to_dict() for t in self.texts],
            "notes": self.notes,
            "not_counted": self.not_counted,
        }


@dataclass
class Plan:
    title: str
    stages: list

    def works(self) -> list[LLMWork]:
        return [w for s in self.stages for w in s.llm]

    def stage(self, name: str) -> StagePlan:
        return next(s for s in self.stages if s.stage == name)

    @property
    def new_calls(self) -> int:
        return sum(w.new_calls for w in self.works())

    @property
    def cost_usd(self) -> float | None:
        costs = [w.cost_usd for w in self.works() if w.new_calls]
        return None if any(c is None for c in costs) else sum(costs)

    @property
    def unknown(self) -> list[str]:
        return [w.label for w in self.works() if w.unknown]

    @property
    def not_counted(self) -> list[str]:
        """Calls a run makes outside our LLM client (a plug-in's own model): never priced."""
        return [f"{s.stage}: {n}" for s in self.stages if s.runs for n in s.not_counted]

    def to_dict(self) -> dict:
        return {
            "title": self.title,
            "stages": [s.to_dict() for s in self.stages],
            "new_calls": self.new_calls,
            "cost_usd": self.cost_usd,
            "wall_s": sum(w.wall_s for w in self.works()),
            "not_counted": self.not_counted,
        }
