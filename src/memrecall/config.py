"""Reading the composed params (params.yaml) and checking option values with clear errors.

params.yaml is composed from conf/ by DVC's Hydra support (`dvc exp run`) or by
`memrecall compose`; stage scripts read only the keys they declare in dvc.yaml.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from .errors import ConfigError, MemrecallError

PARAMS_FILE = "params.yaml"

# The one rule of what is a result: every key of a config group is part of the results (a DVC
# param of the stages that read the group, and hashed into their artifacts' metadata) except the
# keys under a `runtime:` node, which only say how work is done (concurrency, timeouts, retries,
# endpoint, batch size, device) and must not change any artifact (docs/configuration.md,
# "What is a result").
RUNTIME = "runtime"


def load_yaml(text: str, where: str | Path) -> Any:
    """The one YAML reader of the project: YAML 1.2, as DVC and Hydra read it, so `name: off`
    stays the string "off" (PyYAML's YAML 1.1 would turn it into False). ruamel's C parser where
    installed (requirements.txt), as DVC's loads use it: 5x faster, the same values."""
    try:
        return YAML(typ="safe").load(text)
    except YAMLError as e:
        raise MemrecallError(f"malformed YAML in {where}: {e}") from None


def load_yaml_file(path: str | Path) -> Any:
    return load_yaml(Path(path).read_text(encoding="utf-8"), path)


def load_params(path: str | Path = PARAMS_FILE) -> dict:
    path = Path(path)
    if not path.exists():
        raise MemrecallError(
            f"missing {path}: compose it with `memrecall compose` or `dvc exp run`"
        )
    data = load_yaml_file(path) or {}
    if not isinstance(data, dict):
        raise MemrecallError(f"{path} must hold a mapping of config groups")
    return data


class ConfigGroup(dict):
    """A config group (or a node of one) as stages get it. Code reads keys by index, because
    conf/ holds every default; a key params.yaml lacks (written by hand, or composed before conf/
    gained the key) is then a clear error naming it, not a KeyError traceback."""

    def __init__(self, data: dict, where: str):
        super().__init__(
            {
                k: ConfigGroup(v, f"{where}.{k}") if isinstance(v, dict) else v
                for k, v in data.items()
            }
        )
        self.where = where

    def __missing__(self, key):
        raise MemrecallError(
            f"params lack the key '{self.where}.{key}': recompose params.yaml "
            f"from conf/ (`memrecall compose` or `dvc exp run`)"
        )


def section(params: dict, name: str, path: str | Path = PARAMS_FILE) -> dict:
    """One config group of params.yaml, e.g. section(p, 'reader')."""
    if name not in params or not isinstance(params[name], dict):
        raise MemrecallError(f"{path} lacks the config group '{name}' (field '{name}')")
    return ConfigGroup(params[name], name)


def choice(cfg: dict, key: str, choices: Iterable[str], *, group: str) -> str:
    """cfg[key], checked against `choices`; the error names `group.key` and the valid values."""
    choices = list(choices)
    value = cfg[key] if key in cfg else "(missing)"
    if value not in choices:
        raise ConfigError(f"{group}.{key}", value, choices)
    return value


def check_int(value, key: str, *, minimum: int | None = None, hint: str | None = None) -> int:
    """`value` if it is an integer (a bool is not) of at least `minimum`; else a ConfigError
    naming `key` (e.g. 'reader.top_k_context')."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or (minimum is not None and value < minimum)
    ):
        raise ConfigError(
            key,
            value,
            hint=hint
            or ("expected an integer" if minimum is None else f"expected an integer >= {minimum}"),
        )
    return value


def get(cfg: dict, dotted: str, default: Any = None) -> Any:
    cur: Any = cfg
    for part in dotted.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return default
        cur = cur[part]
    return cur


def flatten(cfg: dict, prefix: str = "") -> dict:
    """The inverse of `get`: {'a': {'b': 1}} -> {'a.b': 1}; lists (and empty dicts) stay values.
    The one flattener of params and metrics (sweep table, MLflow, paper export)."""
    out: dict = {}
    for key, value in (cfg or {}).items():
        dotted = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict) and value:
            out.update(flatten(value, dotted))
        else:
            out[dotted] = value
    return out


def identity(cfg: Any) -> Any:
    """`cfg` without its `runtime` nodes (at any depth): what an artifact's metadata records."""
    if isinstance(cfg, dict):
        return {k: identity(v) for k, v in cfg.items() if k != RUNTIME}
    return cfg


def _holds_runtime(cfg: dict) -> bool:
    return RUNTIME in cfg or any(isinstance(v, dict) and _holds_runtime(v) for v in cfg.values())


def identity_keys(cfg: dict, prefix: str) -> list[str]:
    """The dotted params a stage reading group `prefix` declares in dvc.yaml: every key but the
    runtime ones; a node that holds a runtime node (an LLM block) is listed key by key."""
    out = []
    for k, v in cfg.items():
        if k == RUNTIME:
            continue
        if isinstance(v, dict) and _holds_runtime(v):
            out += identity_keys(v, f"{prefix}.{k}")
        else:
            out.append(f"{prefix}.{k}")
    return out


def runtime(cfg: dict, where: str) -> dict:
    """The `runtime` node of a group (how work is done, not what it computes)."""
    rt = cfg.get(RUNTIME)
    if not isinstance(rt, dict):
        raise MemrecallError(
            f"params lack the mapping {where}.{RUNTIME} "
            f"(recompose params.yaml: `memrecall compose` or `dvc exp run`)"
        )
    return rt


@dataclass(frozen=True)
class Kind:
    """One kind of a config group: `settings` turns the group's node into typed settings
    (checking every key, raising ConfigError), `run` is the code that uses them."""

    settings: Callable[[dict], Any]
    run: Callable[..., Any]


class Registry:
    """One config group's kinds, chosen by one key (e.g. `retrieval.method`): kind -> Kind.
    A stage validates its group once, at its start (`settings`), and passes the settings down;
    an unknown kind is a ConfigError naming the key and listing the valid kinds. Adding a kind
    is one entry here and a module holding its settings and run."""

    def __init__(self, group: str, key: str, kinds: dict[str, Kind]):
        self.group, self.key, self.kinds = group, key, dict(kinds)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.kinds)

    def kind(self, cfg: dict) -> str:
        """The group's kind, checked against the registered ones."""
        return choice(cfg, self.key, self.names, group=self.group)

    def settings(self, cfg: dict) -> Any:
        return self.kinds[self.kind(cfg)].settings(cfg)

    def run(self, kind: str) -> Callable[..., Any]:
        """The code of a kind whose settings were built by `settings`."""
        return self.kinds[kind].run
