"""`memrecall plan [overrides...]`: what `dvc repro` (no overrides: params.yaml as it is) or
`dvc exp run -S ...` (overrides: composed from conf/ as DVC does) would run, and what it would
cost, without paying anything.

Per stage: whether DVC would run it (dvc.lock's params against the planned ones, `dvc status` for
files, and whether a stage upstream would run first). For embed: the key texts to embed and those
already in the vector cache. For the LLM stages (rewrite, read, judge, and embed's fact
expansion): the stages' own request-building code renders the real requests (through
DryRunClient, which answers from the LLM cache only) and the requests whose hash is not cached
are the calls a run would pay for. Where a request cannot be rendered yet (an upstream stage
would run first, or a judge request needs an answer not yet paid for) the call is counted as an
*estimate* and flagged as such.

For the new calls: input tokens (pricing.count_tokens, the tokenizer named), output tokens (the
mean of cached calls of the same model and stage, else max_tokens), cost (pricing.prices_for:
config prices, else litellm's map) and wall time (calls x latency / concurrency, or the rpm
bound; latency is the mean seen in cached calls of that model and stage, else an assumed value).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from . import paths
from .artifacts import read_table
from .config import get as get_dotted
from .errors import MemrecallError

PLANNED = "not in the LLM cache (plan: not sent)"
ASSUMED_LATENCY_S = 5.0   # per call, when no call of that model and stage was ever cached
ASSUMED_OUTPUT_TOKENS = 1024  # when max_tokens is unset and nothing was cached
# The one measured CPU figure we have (docs/tools.md): MiniLM, max_length 256, two threads.
CPU_TEXTS_PER_S = 20.0
LLM_STAGES = ("rewrite", "read", "judge")
DEFAULT_STAGES = ("download", "embed", "retrieve", "rerank", "rewrite", "read", "judge",
                  "aggregate")


# ---------------------------------------------------------------- the dry-run client

class DryRunClient:
    """LLMClient.complete_many's interface without sending anything: cached requests come back
    as their cached results, the others as failed results whose error is PLANNED. Every request
    asked for is recorded in `requests` as (hash, messages, cached)."""

    def __init__(self, llm_cfg: dict, stage: str, *, where: str | None = None, cache=None):
        from .llm import LLMClient

        self.client = LLMClient(llm_cfg, stage, where=where, cache=cache, progress=False)
        self.cfg, self.stage = dict(llm_cfg), stage
        self.model = self.client.model
        self.requests: list[tuple[str, list[dict], bool]] = []
        self.stats = {"calls": 0, "cached": 0, "failed": 0}

    def complete_many(self, messages_list, desc=None):
        from .llm import CallResult

        hashes = [self.client.request_hash(m) for m in messages_list]
        hits = self.client.cache.get_many(hashes) if hashes else {}
        out = []
        for m, h in zip(messages_list, hashes):
            if h in hits:
                out.append(self.client._from_row(h, hits[h]))
                self.stats["cached"] += 1
            else:
                out.append(CallResult(text=None, model=self.model, request_hash=h, error=PLANNED))
            self.requests.append((h, m, h in hits))
        return out

    def work(self, label: str | None = None) -> "LLMWork":
        w = LLMWork.for_config(self.client, self.stage, label or self.stage)
        for h, m, cached in self.requests:
            w.add(h, m, cached)
        w.rendered = list(self.requests)
        return w


# ---------------------------------------------------------------- work items

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
    requests: int = 0                       # rendered requests (duplicates included)
    cached: set = field(default_factory=set)
    new: dict = field(default_factory=dict)  # hash -> input tokens (unique new requests)
    estimated_calls: int = 0                 # calls that could not be rendered yet
    estimated_input_tokens: float = 0.0
    notes: list = field(default_factory=list)
    rendered: list = field(default_factory=list, repr=False)  # (hash, messages, cached)
    unknown: bool = False                    # calls could not even be estimated
    _seen: dict | None = None

    @classmethod
    def for_config(cls, client, stage: str, label: str) -> "LLMWork":
        return cls(label=label, stage=stage, model=client.model,
                   litellm_model=client.spec.litellm_model, provider=client.spec.provider,
                   cfg=client.cfg, concurrency=client.concurrency, rpm=client.rpm,
                   _seen=client.cache.seen(client.model, stage))

    def add(self, h: str, messages: list[dict], cached: bool) -> None:
        from .llm.pricing import count_tokens

        self.requests += 1
        if cached:
            self.cached.add(h)
        elif h not in self.new:
            self.new[h] = count_tokens(self.litellm_model, messages)

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
            return float(seen["output_tokens"]), (f"mean of {seen['calls']} cached {self.stage} "
                                                  f"calls of this model")
        if self.cfg.get("max_tokens") is not None:
            return float(self.cfg["max_tokens"]), "max_tokens (no cached calls of this model)"
        return float(ASSUMED_OUTPUT_TOKENS), (f"assumed {ASSUMED_OUTPUT_TOKENS} (no max_tokens, "
                                              f"no cached calls)")

    @property
    def output_tokens(self) -> float:
        return self.new_calls * self.output_per_call()[0]

    @property
    def prices(self):
        from .llm.pricing import prices_for

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
        from .llm.pricing import tokenizer_name

        out_each, out_basis = self.output_per_call()
        lat, lat_basis = self.latency()
        p = self.prices
        return {"label": self.label, "model": self.model, "requests": self.requests,
                "cached": len(self.cached), "new_calls": self.new_calls,
                "rendered_new": len(self.new), "estimated_calls": self.estimated_calls,
                "input_tokens": round(self.input_tokens), "output_tokens": round(self.output_tokens),
                "output_tokens_per_call": out_each, "output_basis": out_basis,
                "tokenizer": tokenizer_name(self.litellm_model) if self.new_calls else None,
                "prices": {"input_per_mtok": p.input_per_mtok, "output_per_mtok": p.output_per_mtok,
                           "source": p.source},
                "cost_usd": self.cost_usd, "wall_s": self.wall_s, "latency_s": lat,
                "latency_basis": lat_basis, "concurrency": self.concurrency, "rpm": self.rpm,
                "unknown": self.unknown, "notes": list(self.notes)}


@dataclass
class TextWork:
    """Texts an encoder would embed."""
    label: str
    total: int = 0
    cached: int = 0
    new: int = 0
    estimated: bool = False

    def to_dict(self) -> dict:
        return {"label": self.label, "texts": self.total, "cached": self.cached, "new": self.new,
                "estimated": self.estimated, "cpu_s": self.new / CPU_TEXTS_PER_S}


@dataclass
class StagePlan:
    stage: str
    runs: bool
    why: list
    llm: list = field(default_factory=list)
    texts: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"stage": self.stage, "runs": self.runs, "why": self.why,
                "llm": [w.to_dict() for w in self.llm], "texts": [t.to_dict() for t in self.texts],
                "notes": self.notes}


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

    def to_dict(self) -> dict:
        return {"title": self.title, "stages": [s.to_dict() for s in self.stages],
                "new_calls": self.new_calls, "cost_usd": self.cost_usd,
                "wall_s": sum(w.wall_s for w in self.works())}


# ---------------------------------------------------------------- what DVC would run

def _diff_keys(new, old, prefix: str) -> list[str]:
    if isinstance(new, dict) and isinstance(old, dict):
        out = []
        for k in sorted(set(new) | set(old), key=str):
            out += _diff_keys(new.get(k), old.get(k), f"{prefix}.{k}")
        return out
    return [] if new == old else [prefix]


def dvc_status(root: Path):
    """(stages, names of those the workspace holds up to date) from DVC's index and `dvc
    status` (sweep.scheduling.load_stages: params.yaml value changes do not count there, they
    are compared below), or ({}, why it failed)."""
    from .sweep import load_stages

    try:
        return load_stages(root)
    except Exception as e:  # noqa: BLE001 - not a DVC project: nothing can be said up to date
        return {}, f"not a DVC project ({type(e).__name__})"


def stage_status(root: Path, params: dict, status: tuple | None = None
                 ) -> dict[str, list[str]]:
    """{stage: reasons it would run} ([] = up to date). Params are compared with dvc.lock by
    value (so the planned params need not be in params.yaml); files by `dvc status`
    (`status`: dvc_status(root), computed once for a sweep); a stage after one that runs runs
    too (if its inputs change)."""
    from .sweep.scheduling import PARAMS_FILE

    stages, up_to_date = status if status is not None else dvc_status(root)
    if not stages:
        return {s: [f"unknown: {up_to_date}"] for s in DEFAULT_STAGES}
    out: dict[str, list[str]] = {}

    def reasons(name: str) -> list[str]:
        if name in out:
            return out[name]
        out[name] = []  # cycle guard
        st = stages[name]
        why = []
        locked = st.locked.get(PARAMS_FILE, {})
        if st.params and not any(st.locked.values()):
            why.append("never run (not in dvc.lock)")
        else:
            keys = st.params.get(PARAMS_FILE) or tuple(locked)
            changed = [k for key in keys for k in _diff_keys(get_dotted(params, key),
                                                             locked.get(key), key)]
            if changed:
                more = f" (+{len(changed) - 4} more)" if len(changed) > 4 else ""
                why.append(f"params changed: {', '.join(changed[:4])}{more}")
        running = [u for u in st.upstream if reasons(u)]
        if name not in up_to_date and not running and not why:
            why.append("dependencies or outputs changed (`dvc status`)")
        if running:
            why.append(f"after {', '.join(running)} (if its outputs change)")
        out[name] = why
        return why

    order = [s for s in DEFAULT_STAGES if s in stages] + sorted(set(stages) - set(DEFAULT_STAGES))
    for name in order:
        reasons(name)
    return {name: out[name] for name in order}


# ---------------------------------------------------------------- per-stage planning

def _art(root: Path, rel: str) -> Path:
    return root / rel


def _have(root: Path, *rels: str) -> bool:
    return all(_art(root, r).exists() for r in rels)


def question_count(params: dict, root: Path) -> tuple[int | None, str]:
    """(questions the dataset config selects, how we know) before the download stage has run:
    a bundled or local file is scanned (stream.scan: one parse, nothing kept); a hub file is
    counted only if it is already downloaded."""
    from .data.stream import scan
    from .data.subset import resolve_path, select

    cfg = params.get("dataset") or {}
    path = cfg.get("path")
    if cfg.get("source") == "hub":
        from .data import hub

        cand = root / hub.RAW_DIR / str(cfg.get("repo_id")) / str(cfg.get("filename"))
        path = str(cand) if cand.exists() else None
    if not path or path == "???" or not resolve_path(path).exists():
        return None, "dataset file not available before the download stage"
    sc = scan(resolve_path(path))
    chosen, _ = select(sc.light, cfg, str(path))
    return len(chosen), f"{len(chosen)} questions selected from {path} (scanned)"


def plan_embed(root: Path, params: dict, fresh: bool, cache=None) -> StagePlan:
    from .retrieval.embedders import embedding_space
    from .retrieval.expansion import session_facts
    from .retrieval.keys import session_keys
    from .retrieval.store import vector_store
    from .hashing import sha256_text

    sp = StagePlan("embed", True, [])
    cfg = params.get("embedder") or {}
    if not (fresh and _have(root, paths.SESSIONS, paths.TURNS)):
        sp.notes.append("sessions/turns not computed for this config yet (download runs first): "
                        "texts unknown")
        return sp
    sessions, turns = read_table(_art(root, paths.SESSIONS)), read_table(_art(root, paths.TURNS))
    facts = {}
    if (cfg.get("expansion") or "none") != "none":
        from .retrieval.expansion import DEFAULT_LLM

        dry = DryRunClient({**DEFAULT_LLM, **(cfg.get("expansion_llm") or {})}, "embed",
                           where="embedder.expansion_llm", cache=cache)
        facts = session_facts(sessions, turns, cfg, client=dry)
        work = dry.work("embed (fact expansion)")
        sp.llm.append(work)
        if work.new:
            sp.notes.append(f"{len(work.new)} session key(s) depend on fact calls not yet made: "
                            f"their texts are counted as new")
    keys = session_keys(sessions, turns, cfg, facts=facts)
    hashes = list(dict.fromkeys(sha256_text(t) for t in keys.get_column("text").to_list()))
    found, missing = vector_store(embedding_space(cfg)).lookup(hashes)
    sp.texts.append(TextWork("key texts", len(hashes), len(found), len(missing),
                             estimated=bool(facts and sp.llm and sp.llm[0].new)))
    return sp


def plan_queries(root: Path, params: dict, fresh: bool) -> TextWork | None:
    """The question texts the retrieve stage embeds (dense and hybrid retrieval)."""
    from .hashing import sha256_text
    from .retrieval.embedders import embedding_space
    from .retrieval.store import vector_store

    if (params.get("retrieval") or {}).get("method") not in ("dense", "hybrid"):
        return None
    if not (fresh and _have(root, paths.QUESTIONS)):
        return TextWork("query texts", estimated=True)
    q = read_table(_art(root, paths.QUESTIONS), "questions")
    hashes = list(dict.fromkeys(sha256_text(t) for t in q.get_column("question").to_list()))
    found, missing = vector_store(embedding_space(params.get("embedder") or {})).lookup(hashes)
    return TextWork("query texts", len(hashes), len(found), len(missing))


def plan_rewrite(root: Path, params: dict, fresh: bool, cache=None) -> list[LLMWork]:
    from .rewrite.rewriter import llm_requests, rewrite_settings

    cfg = params.get("rewrite") or {}
    settings = rewrite_settings(cfg)
    if settings.mode == "off" or not (settings.n_variants > 0 or settings.time_aware):
        return []
    dry = DryRunClient(cfg.get("llm") or {}, "rewrite", where="rewrite.llm", cache=cache)
    if not (fresh and _have(root, paths.QUESTIONS)):
        w = dry.work("rewrite")
        w.unknown = True
        w.notes.append("questions not computed for this config yet: calls unknown (at most "
                       "one or two per question of the rewrite types)")
        return [w]
    qs = read_table(_art(root, paths.QUESTIONS), "questions")
    rows = {r["question_id"]: r for r in qs.iter_rows(named=True)}
    for kind, (_, msgs) in llm_requests(settings, rows).items():
        dry.complete_many(msgs)
    return [dry.work("rewrite")]


def plan_read(root: Path, params: dict, fresh: bool, cache=None, data_fresh: bool = True
              ) -> tuple[list[LLMWork], pl.DataFrame | None, str]:
    """(work, the answers table the run would write as far as the cache knows it, mode).
    fresh: the stage's input artifacts are this config's; data_fresh: at least the dataset
    tables are (an upstream retrieval stage may still change the candidates)."""
    from .llm.pricing import count_tokens
    from .read.reader import (ReaderSettings, answer_messages, answer_questions,
                              build_contexts, reader_settings)

    cfg = params.get("reader") or {}
    settings: ReaderSettings = reader_settings(cfg)
    dry = DryRunClient(cfg, "read", cache=cache)
    inputs = (paths.QUESTIONS, paths.SESSIONS, paths.TURNS, paths.CANDIDATES_REWRITE)
    per_q = 1 + (settings.top_k_context if settings.reading == "con" else 0)
    if not (data_fresh and _have(root, *inputs)):
        w = dry.work("read")
        n_q, how = ((read_table(_art(root, paths.QUESTIONS)).height, "questions.parquet")
                    if data_fresh and _have(root, paths.QUESTIONS)
                    else question_count(params, root))
        if n_q is None:
            w.unknown = True
            w.notes.append(f"calls unknown: {how}")
        else:
            prompt_chars = settings.top_k_context * settings.max_chars_per_session + 2000
            w.estimate(n_q * per_q, prompt_chars / 4 / per_q,
                       f"{n_q} questions x {per_q} call(s), ~4 chars/token, candidates not "
                       f"computed yet")
        return [w], None, "estimate"
    contexts = build_contexts(settings, *(read_table(_art(root, p)) for p in inputs),
                              str(_art(root, paths.CANDIDATES_REWRITE)))
    answers, _ = answer_questions(cfg, settings, contexts, dry)
    w = dry.work("read")
    # reading=con: an answer whose notes are not cached cannot be rendered: one call each,
    # its prompt rendered with notes as long as the expected note output.
    waiting = set(answers.filter(pl.col("error").str.starts_with("reading notes:"))
                  .get_column("question_id").to_list())
    answer_tok = 0
    if waiting:
        out_each, _ = w.output_per_call()
        ctx = next(c for c in contexts if c.question_id in waiting)
        answer_tok = count_tokens(w.litellm_model, answer_messages(
            settings, ctx, ["x " * int(out_each)] * len(ctx.sessions)))
    if not fresh:
        # Upstream would change the candidates: every request is new; tokens as rendered now.
        tokens = [count_tokens(w.litellm_model, m) for _, m, _ in dry.requests]
        tokens += [answer_tok] * len(waiting)
        w.new.clear(), w.cached.clear()
        w.estimate(len(tokens), sum(tokens) / max(1, len(tokens)), "an upstream stage would "
                   "run first: requests rendered from the current candidates, all counted as new")
        return [w], None, "estimate"
    w.estimate(len(waiting), answer_tok, "reading=con answers whose notes are not cached yet")
    return [w], answers, "rendered"


def plan_judge(root: Path, params: dict, answers: pl.DataFrame | None, read_mode: str,
               cache=None, data_fresh: bool = True,
               answer_tokens: float | None = None) -> list[LLMWork]:
    """answer_tokens: the read plan's expected output per call, the length assumed for
    answers not known yet."""
    from .judge import judge_answers, judge_kind

    cfg = params.get("judge") or {}
    if judge_kind(cfg) == "rule":
        return []
    dry = DryRunClient(cfg, "judge", cache=cache)
    have_q = data_fresh and _have(root, paths.QUESTIONS)
    if answers is None or not have_q:
        w = dry.work("judge")
        if have_q:
            q = read_table(_art(root, paths.QUESTIONS), "questions")
            tok = _judge_tokens(w, q, params.get("reader"), answer_tokens)
            w.estimate(q.height, tok, "one per question; answers not known yet")
        else:
            n_q, how = question_count(params, root)
            if n_q is None:
                w.unknown = True
                w.notes.append(f"calls unknown: {how}")
            else:
                w.estimate(n_q, 200 + int((params.get("reader") or {}).get("max_tokens") or 64),
                           f"one per question ({how}); prompt ~200 tokens + the answer")
        return [w]
    questions = read_table(_art(root, paths.QUESTIONS), "questions")
    verdicts = judge_answers(questions, answers, cfg, client=dry)
    w = dry.work("judge")
    pending = verdicts.filter(pl.col("reader_failed") & pl.col("error").str.contains(PLANNED,
                                                                                    literal=True))
    if pending.height:
        tok = _judge_tokens(w, questions.filter(pl.col("question_id").is_in(
            pending.get_column("question_id").implode())), params.get("reader"), answer_tokens)
        w.estimate(pending.height, tok, "answers the read stage has not paid for yet (assumed "
                   "to succeed)")
    return [w]


def _judge_tokens(w: LLMWork, questions: pl.DataFrame, reader_cfg: dict | None,
                  answer_tokens: float | None = None) -> float:
    """Mean input tokens of judge prompts for these questions, with a hypothesis as long as the
    reader's expected output (else its max_tokens, at most 64)."""
    from .judge.llm_judge import build_prompt
    from .llm.pricing import count_tokens

    n = answer_tokens or min(int((reader_cfg or {}).get("max_tokens") or 64), 64)
    hyp = "x " * max(1, int(round(n)))
    rows = questions.head(50).iter_rows(named=True)
    toks = [count_tokens(w.litellm_model, build_prompt(r["question_type"], r["question"],
                                                       r["answer"], hyp,
                                                       is_abstention=r["is_abstention"]).messages)
            for r in rows]
    return sum(toks) / len(toks) if toks else 0.0


# ---------------------------------------------------------------- the whole plan

def plan_params(params: dict, root: Path | None = None, *, title: str = "",
                status: dict[str, list[str]] | None = None, cache=None) -> Plan:
    """The plan for `params` (a composed params.yaml) against the project at `root`."""
    from .paths import project_root

    root = Path(root or project_root())
    status = stage_status(root, params) if status is None else status
    order = list(status) or list(DEFAULT_STAGES)
    runs = {s: bool(status.get(s)) for s in order}

    def fresh(*upstream: str) -> bool:  # the artifacts these stages wrote are this config's
        return not any(runs.get(u) for u in upstream)

    plans: dict[str, StagePlan] = {s: StagePlan(s, runs[s], status.get(s, [])) for s in order}
    if "embed" in plans and runs["embed"]:
        e = plan_embed(root, params, fresh("download"), cache)
        plans["embed"].llm, plans["embed"].texts, plans["embed"].notes = e.llm, e.texts, e.notes
    if "retrieve" in plans and runs["retrieve"]:
        tw = plan_queries(root, params, fresh("download"))
        if tw is not None:
            plans["retrieve"].texts.append(tw)
    if "rerank" in plans and runs["rerank"] and (params.get("reranker") or {}).get(
            "name") not in (None, "none"):
        plans["rerank"].notes.append("cross-encoder pairs are not planned (local model, no fee)")
    if "rewrite" in plans and runs["rewrite"]:
        plans["rewrite"].llm = plan_rewrite(root, params, fresh("download"), cache)
    answers, read_mode = None, "skip"
    if "read" in plans:
        if runs["read"]:
            plans["read"].llm, answers, read_mode = plan_read(
                root, params, fresh("download", "embed", "retrieve", "rerank", "rewrite"), cache,
                data_fresh=fresh("download"))
        elif _have(root, paths.ANSWERS):
            answers, read_mode = read_table(_art(root, paths.ANSWERS)), "artifact"
    if "judge" in plans and runs["judge"]:
        read_out = (plans["read"].llm[0].output_per_call()[0]
                    if "read" in plans and plans["read"].llm else None)
        plans["judge"].llm = plan_judge(root, params, answers, read_mode, cache,
                                        answer_tokens=read_out,
                                        data_fresh=fresh("download"))
    return Plan(title, list(plans.values()))


def plan_overrides(overrides: list[str], root: Path | None = None) -> Plan:
    """`memrecall plan`: params.yaml as it is (what `dvc repro` runs) without overrides; with
    overrides, composed from conf/ as `dvc exp run -S ...` composes them."""
    import tempfile

    from .compose import compose_params
    from .config import load_params
    from .paths import project_root

    root = Path(root or project_root())
    if not overrides:
        return plan_params(load_params(root / "params.yaml"), root,
                           title="dvc repro (params.yaml as it is)")
    with tempfile.TemporaryDirectory(prefix="memrecall-plan-") as tmp:
        out = compose_params(overrides, root=root, output=str(Path(tmp) / "params.yaml"))
        params = load_params(out)
    return plan_params(params, root, title=f"dvc exp run -S {' -S '.join(overrides)}")


# ---------------------------------------------------------------- printing

def _tok(n: float) -> str:
    return f"{n / 1e6:.2f}M" if n >= 1e6 else f"{n / 1e3:.1f}k" if n >= 1e3 else f"{n:.0f}"


def _dur(s: float) -> str:
    return f"{s / 3600:.1f} h" if s >= 3600 else f"{s / 60:.1f} min" if s >= 60 else f"{s:.0f} s"


def _usd(c: float | None) -> str:
    return "unknown" if c is None else f"${c:,.4f}" if c < 1 else f"${c:,.2f}"


def format_plan(plan: Plan) -> str:
    lines = [f"plan: {plan.title}", ""]
    assumptions: dict[str, None] = {}
    for sp in plan.stages:
        head = f"{sp.stage:<10}" + ("would run: " + "; ".join(sp.why) if sp.runs
                                    else "up to date (nothing to do)")
        lines.append(head)
        for t in sp.texts:
            if t.estimated and not t.total:
                lines.append(f"{'':<12}{t.label}: unknown until upstream runs")
            else:
                lines.append(f"{'':<12}{t.label}: {t.total:,} unique, {t.cached:,} cached, "
                             f"{t.new:,} to embed{' (estimate)' if t.estimated else ''}"
                             f" (~{_dur(t.new / CPU_TEXTS_PER_S)} on 2 CPU threads)")
                assumptions[f"embedding time at {CPU_TEXTS_PER_S:g} texts/s: MiniLM at "
                            f"max_length 256 on two CPU threads (docs/tools.md); a GPU is far "
                            f"faster"] = None
        for w in sp.llm:
            d = w.to_dict()
            est = f" ({w.estimated_calls:,} estimated)" if w.estimated_calls else ""
            lines.append(f"{'':<12}{w.label} [{w.model}]: {w.requests:,} requests rendered, "
                         f"{len(w.cached):,} cached; {w.new_calls:,} new calls{est}")
            if w.new_calls:
                lines.append(f"{'':<14}tokens in {_tok(w.input_tokens)}, out "
                             f"~{_tok(w.output_tokens)}; cost {_usd(w.cost_usd)}; wall "
                             f"~{_dur(w.wall_s)} ({w.concurrency} in flight"
                             f"{f', {w.rpm:g} rpm' if w.rpm else ''})")
                assumptions[f"{w.model}: input tokens by {d['tokenizer']}"] = None
                assumptions[f"{w.model} ({w.stage}): output tokens per call "
                            f"{d['output_tokens_per_call']:.0f} = {d['output_basis']}"] = None
                p = d["prices"]
                assumptions[f"{w.model}: prices {p['source']}" + (
                    f" (${p['input_per_mtok']:g} in / ${p['output_per_mtok']:g} out per Mtok)"
                    if p["input_per_mtok"] is not None else "")] = None
                assumptions[f"{w.model} ({w.stage}): latency {d['latency_s']:.2f} s = "
                            f"{d['latency_basis']}; no retries counted"] = None
            for n in w.notes:
                lines.append(f"{'':<14}{n}")
        for n in sp.notes:
            lines.append(f"{'':<12}{n}")
    cost = plan.cost_usd
    lines += ["", f"total: {plan.new_calls:,} new LLM calls, cost {_usd(cost)}, wall "
                  f"~{_dur(sum(w.wall_s for w in plan.works()))} (stages one after another)"]
    if plan.unknown:
        lines.append(f"       not counted: {', '.join(plan.unknown)} (calls unknown, see above)")
    if assumptions:
        lines += ["", "assumptions:"] + [f"  - {a}" for a in assumptions]
    lines.append("The plan sends nothing and pays nothing.")
    return "\n".join(lines)


def sweep_total(plans: list[Plan]) -> dict:
    """Totals over a sweep's experiments; a request shared by experiments (same hash) is paid
    once, so it is counted once. Estimated calls have no hash and are summed."""
    seen: dict[str, float] = {}
    unknown_cost = False
    est_calls, est_cost = 0, 0.0
    for p in plans:
        for w in p.works():
            out_each, _ = w.output_per_call()
            for h, tok in w.new.items():
                c = w.prices.cost(tok, out_each)
                unknown_cost |= c is None
                seen.setdefault(h, c or 0.0)
            if w.estimated_calls:
                est_calls += w.estimated_calls
                c = w.prices.cost(w.estimated_input_tokens, w.estimated_calls * out_each)
                unknown_cost |= c is None
                est_cost += c or 0.0
    unknown = [f"{p.title}: {u}" for p in plans for u in p.unknown]
    return {"experiments": len(plans), "new_calls": len(seen) + est_calls, "unknown": unknown,
            "shared_calls_counted_once": sum(w.new_calls for p in plans for w in p.works())
            - len(seen) - est_calls, "estimated_calls": est_calls,
            "cost_usd": None if unknown_cost else sum(seen.values()) + est_cost}


def format_sweep(plans: list[Plan], total: dict) -> str:
    parts = [format_plan(p) for p in plans]
    parts.append(f"sweep total: {total['experiments']} experiment(s), {total['new_calls']:,} new "
                 f"LLM calls ({total['shared_calls_counted_once']:,} shared between experiments "
                 f"counted once, {total['estimated_calls']:,} estimated), cost "
                 f"{_usd(total['cost_usd'])}")
    return ("\n\n" + "=" * 78 + "\n").join(parts)


def plan_sweep(project, specs) -> tuple[list[Plan], dict]:
    """A plan per experiment (params as DVC composes them for it) and the sweep's total."""
    plans = []
    files = dvc_status(project.root)  # once: file changes are the same for every experiment
    for spec, params in zip(specs, project.compose_all(specs)):  # one composer process
        plans.append(plan_params(params, project.root, title=f"experiment {spec.name} "
                                 f"({' '.join(spec.overrides) or 'no overrides'})",
                                 status=stage_status(project.root, params, files)))
    return plans, sweep_total(plans)


def sweep_gate(project, specs, opts) -> bool:
    """Before a sweep starts: with `sweep.plan` print the plan and say not to run (False); with
    `sweep.max_cost_usd` refuse a sweep whose plan is over (or cannot be priced), and hand the
    limit to every process of the sweep (budget.py's shared ledger) through the environment."""
    import os
    import uuid

    from .llm.budget import SWEEP_ID_ENV, SWEEP_LIMIT_ENV

    limit = getattr(opts, "max_cost_usd", None)
    if not (getattr(opts, "plan", False) or limit is not None):
        return True
    plans, total = plan_sweep(project, specs)
    print(format_sweep(plans, total))
    if getattr(opts, "plan", False):
        return False
    cost = total["cost_usd"]
    if total["unknown"]:
        raise MemrecallError(f"sweep.max_cost_usd={limit:g}: the calls of "
                             f"{total['unknown'][0]} cannot be counted before upstream stages "
                             f"run (e.g. `dvc repro download`); not started")
    if cost is None:
        raise MemrecallError(f"sweep.max_cost_usd={limit:g}: the sweep's cost cannot be "
                             f"estimated (a model has no known price; set its "
                             f"input_cost_per_mtok / output_cost_per_mtok); not started")
    if cost > limit:
        raise MemrecallError(f"sweep.max_cost_usd={limit:g}: the plan costs ${cost:.4f} "
                             f"({total['new_calls']:,} new calls); the sweep was not started. "
                             f"Raise the limit or narrow the sweep.")
    os.environ[SWEEP_LIMIT_ENV] = repr(float(limit))
    os.environ[SWEEP_ID_ENV] = uuid.uuid4().hex
    return True


def main(overrides: list[str], as_json: bool = False) -> Plan:
    plan = plan_overrides(overrides)
    if as_json:
        import json

        print(json.dumps(plan.to_dict(), indent=1, default=str))
    else:
        print(format_plan(plan))
    return plan


if __name__ == "__main__":  # pragma: no cover
    try:
        main(sys.argv[1:])
    except MemrecallError as e:
        raise SystemExit(f"error: {e}")
