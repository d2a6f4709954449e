"""Planning: from Hydra overrides (and a named sweep of conf/sweep/) to the list of DVC
experiments to run, each with a git-ref-safe name and the overrides DVC will compose with.

Every experiment of a named sweep also records which sweep, variant and ladder it belongs to in
its params (`meta.sweep`, `meta.variant`, `meta.ladder`; conf/config.yaml holds them as nulls
and no stage depends on them), so reports group runs by what they recorded, never by parsing
experiment names (which `sweep.prefix` and the hashing of long names change).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Iterable

from ..config import RUNTIME
from ..errors import ConfigError, MemrecallError
from ..hashing import sha256_text

DRIVER_KEY = "sweep"  # the driver's own config node: never passed on to DVC
META_KEY = "meta"  # what a run belongs to, recorded in its params
SPEC_KEYS = ("name", "description", "overrides", "variants", "grid")
DEFAULT_METRICS = (
    "qa.overall",
    "qa.task_averaged",
    "qa.abstention",
    "retrieval.session.recall_any@5",
    "retrieval.session.ndcg_any@10",
    "cost_usd",
    "refusal_rate",
    "judge_errors",
)
EXECUTE = ("auto", "queue", "inline")
ON_EXISTS = ("replace", "skip", "error")
MAX_NAME = 96


@dataclass
class SweepOptions:
    """The driver's knobs, set in a named sweep file or as `++sweep.KEY=VALUE` (`--jobs N`)."""

    jobs: int = 2  # parallel DVC queue workers
    execute: str = "auto"  # queue | inline (dvc exp run --temp in each Hydra job) | auto
    on_exists: str = "replace"  # an experiment of that name exists at HEAD: replace|skip|error
    waves: bool = True  # schedule so shared upstream stages are computed once
    track: bool = True  # sync the finished experiments into MLflow
    metrics: tuple = DEFAULT_METRICS  # metrics.json keys shown in the table
    prefix: str = ""  # prepended to every experiment name
    poll_s: float = 3.0
    timeout_s: float | None = None
    plan: bool = False  # print what every experiment would run and cost; run nothing
    max_cost_usd: float | None = None  # refuse a sweep whose plan costs more; cap its spend

    @classmethod
    def from_cfg(cls, cfg: dict | None) -> "SweepOptions":
        cfg = dict(cfg or {})
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(cfg) - known - set(SPEC_KEYS))
        if unknown:
            raise ConfigError(
                f"{DRIVER_KEY}.{unknown[0]}", "override", sorted(known | set(SPEC_KEYS))
            )
        opts = cls(**{k: v for k, v in cfg.items() if k in known})
        if not isinstance(opts.jobs, int) or isinstance(opts.jobs, bool) or opts.jobs < 1:
            raise ConfigError(f"{DRIVER_KEY}.jobs", opts.jobs, hint="a positive integer")
        if opts.execute not in EXECUTE:
            raise ConfigError(f"{DRIVER_KEY}.execute", opts.execute, EXECUTE)
        if opts.on_exists not in ON_EXISTS:
            raise ConfigError(f"{DRIVER_KEY}.on_exists", opts.on_exists, ON_EXISTS)
        if isinstance(opts.metrics, str):
            opts.metrics = (opts.metrics,)
        opts.metrics = tuple(opts.metrics)
        opts.prefix = slug_text(opts.prefix) if opts.prefix else ""
        if opts.max_cost_usd is not None and (
            isinstance(opts.max_cost_usd, bool)
            or not isinstance(opts.max_cost_usd, (int, float))
            or opts.max_cost_usd < 0
        ):
            raise ConfigError(
                f"{DRIVER_KEY}.max_cost_usd",
                opts.max_cost_usd,
                hint="a number of USD >= 0, or null",
            )
        return opts


@dataclass(frozen=True)
class ExpSpec:
    name: str
    overrides: tuple[str, ...]
    meta: tuple[tuple[str, str], ...] = ()  # (key, value) recorded under meta.* in params

    @property
    def dvc_overrides(self) -> tuple[str, ...]:
        """What `dvc exp run -S` gets: the config overrides, then the meta.* record."""
        return (*self.overrides, *(f"++{META_KEY}.{k}={hydra_quote(v)}" for k, v in self.meta))


def hydra_quote(value: str) -> str:
    """A Hydra override value that stays a string, whatever it looks like ('1', 'null')."""
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


# ---------------------------------------------------------------- overrides and names


def override_key(override: str) -> str:
    """The key an override sets: '+reader.top_k=3' -> 'reader.top_k', '~rewrite' -> 'rewrite'."""
    key = override.split("=", 1)[0].strip()
    return key.lstrip("~+")


def is_driver_override(override: str) -> bool:
    key = override_key(override)
    return key == DRIVER_KEY or key.startswith(DRIVER_KEY + ".")


def merge_overrides(*groups: Iterable[str]) -> tuple[str, ...]:
    """Concatenate override lists; a later override of the same key replaces the earlier one."""
    out: dict[str, str] = {}
    for group in groups:
        for ov in group:
            key = override_key(ov)
            out.pop(key, None)
            out[key] = ov
    return tuple(out.values())


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def slug_text(text: str) -> str:
    """A git-ref-safe piece of a name (DVC experiment names are git refs)."""
    s = _UNSAFE.sub("-", str(text))
    s = re.sub(r"[-.]*-[-.]*", "-", s)  # a run of separators with a dash in it: one dash
    s = re.sub(r"\.{2,}", ".", s)
    return s.strip("-._")


def is_runtime_override(override: str) -> bool:
    """An override of a `runtime` node (api_base, concurrency, ...): how a run is made, never
    what it computes, so it never names an experiment or a ladder (a server URL would)."""
    return f".{RUNTIME}." in f".{override_key(override)}."


def slug(overrides: Iterable[str]) -> str:
    """reader=deepseek reader.top_k_context=15 -> 'reader-deepseek_reader.top_k_context-15'.
    Runtime overrides are left out (is_runtime_override)."""
    parts = []
    for ov in overrides:
        if is_runtime_override(ov):
            continue
        key = override_key(ov)
        value = ov.split("=", 1)[1] if "=" in ov else ""
        piece = f"{key}-{value}" if value != "" else key
        parts.append(("no-" if ov.lstrip().startswith("~") else "") + slug_text(piece))
    return "_".join(p for p in parts if p)


def experiment_name(*parts: str) -> str:
    name = "_".join(p for p in (slug_text(p) for p in parts) if p) or "default"
    if name.endswith(".lock"):
        name = name[: -len(".lock")] + "-lock"
    if len(name) > MAX_NAME:  # keep it readable and unique
        name = f"{name[: MAX_NAME - 9].rstrip('-._')}-{sha256_text(name)[:8]}"
    return name


# ---------------------------------------------------------------- named sweeps


def _as_override_list(value, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise ConfigError(where, value, hint="expected a list of overrides like [reader=deepseek]")
    bad = [v for v in value if not isinstance(v, str) or ("=" not in v and not v.startswith("~"))]
    if bad:
        raise ConfigError(where, bad[0], hint="each override reads KEY=VALUE (or ~KEY)")
    return list(value)


def _hydra_value(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def expand_named_sweep(spec: dict) -> list[tuple[str, tuple[str, ...]]]:
    """A conf/sweep/<name>.yaml node -> [(variant name, overrides)], in file order.

    `overrides` apply to every variant; `variants` maps a name to its extra overrides; `grid`
    maps a config key to a list of values (cartesian product, like Hydra's `a=1,2 b=x,y`).
    With both, every variant is crossed with every grid point.
    """
    name = spec.get("name") or "sweep"
    where = f"conf/sweep/{name}.yaml"
    unknown = sorted(set(spec) - set(SPEC_KEYS) - set(SweepOptions.__dataclass_fields__))
    if unknown:
        raise ConfigError(f"{DRIVER_KEY}.{unknown[0]}", "override", SPEC_KEYS, hint=f"in {where}")
    common = _as_override_list(spec.get("overrides"), f"{DRIVER_KEY}.overrides ({where})")
    variants = spec.get("variants")
    grid = spec.get("grid")
    if not variants and not grid:
        raise ConfigError(
            f"{DRIVER_KEY}.variants",
            variants,
            hint=f"{where} needs `variants` (name -> overrides) or `grid`",
        )
    if variants is not None and not isinstance(variants, dict):
        raise ConfigError(
            f"{DRIVER_KEY}.variants",
            variants,
            hint=f"{where}: a mapping of variant name to a list of overrides",
        )
    var_list = [
        (str(v), _as_override_list(o, f"{DRIVER_KEY}.variants.{v} ({where})"))
        for v, o in (variants or {"": []}).items()
    ]
    grid_list: list[tuple[str, list[str]]] = [("", [])]
    if grid:
        if not isinstance(grid, dict) or not all(
            isinstance(v, (list, tuple)) and v for v in grid.values()
        ):
            raise ConfigError(
                f"{DRIVER_KEY}.grid",
                grid,
                hint=f"{where}: a mapping of config key to a non-empty list",
            )
        axes = [[f"{k}={_hydra_value(v)}" for v in values] for k, values in grid.items()]
        single = len(grid) == 1
        grid_list = [
            (slug_text(combo[0].split("=", 1)[1]) if single else slug(combo), list(combo))
            for combo in itertools.product(*axes)
        ]
    out = []
    for (vname, vovs), (gname, govs) in itertools.product(var_list, grid_list):
        out.append(
            (
                "_".join(p for p in (slug_text(vname), gname) if p),
                merge_overrides(common, vovs, govs),
            )
        )
    names = [n for n, _ in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ConfigError(f"{DRIVER_KEY}.variants", dupes[0], hint=f"{where}: names must be unique")
    return out


def plan_experiments(
    task_overrides: Iterable[str], sweep_cfg: dict | None = None, prefix: str = ""
) -> list[ExpSpec]:
    """The experiments one Hydra job stands for: its own overrides, crossed with the variants of
    a named sweep when `+sweep=NAME` was given. Driver overrides (`sweep.*`) never reach DVC;
    a named sweep's runs record sweep, variant and ladder (the prefix and the command-line
    overrides the variant leaves in place) under meta.*."""
    job = [o for o in task_overrides if not is_driver_override(o)]
    sweep_cfg = sweep_cfg or {}
    if not (sweep_cfg.get("variants") or sweep_cfg.get("grid")):
        return [ExpSpec(experiment_name(prefix, slug(job)), merge_overrides(job))]
    sweep_name = sweep_cfg.get("name") or "sweep"
    specs = []
    for vname, vovs in expand_named_sweep(sweep_cfg):
        # name only the command-line overrides the variant does not replace
        own = [o for o in job if override_key(o) not in {override_key(v) for v in vovs}]
        ladder = "_".join(p for p in (prefix, slug(own)) if p)
        meta = (
            ("sweep", str(sweep_name)),
            ("variant", vname),
            *((("ladder", ladder),) if ladder else ()),
        )
        specs.append(
            ExpSpec(
                experiment_name(prefix, sweep_name, vname, slug(own)),
                merge_overrides(job, vovs),
                meta,
            )
        )
    return specs


def check_unique(specs: list[ExpSpec]) -> None:
    seen: dict[str, ExpSpec] = {}
    for s in specs:
        if s.name in seen and seen[s.name].overrides != s.overrides:
            raise MemrecallError(
                f"two experiments of this sweep would share the name "
                f"'{s.name}': {list(seen[s.name].overrides)} and "
                f"{list(s.overrides)}; set {DRIVER_KEY}.prefix or rename a "
                f"variant"
            )
        seen[s.name] = s
