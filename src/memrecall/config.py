"""Reading the composed params (params.yaml) and checking option values with clear errors.

params.yaml is composed from conf/ by DVC's Hydra support (`dvc exp run`) or by
`memrecall compose`; stage scripts read only the keys they declare in dvc.yaml.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from .errors import ConfigError, MemrecallError

PARAMS_FILE = "params.yaml"


def load_yaml(text: str, where: str | Path) -> Any:
    """The one YAML reader of the project: YAML 1.2, as DVC and Hydra read it, so `name: off`
    stays the string "off" (PyYAML's YAML 1.1 would turn it into False)."""
    try:
        return YAML(typ="safe", pure=True).load(text)
    except YAMLError as e:
        raise MemrecallError(f"malformed YAML in {where}: {e}") from None


def load_yaml_file(path: str | Path) -> Any:
    return load_yaml(Path(path).read_text(encoding="utf-8"), path)


def load_params(path: str | Path = PARAMS_FILE) -> dict:
    path = Path(path)
    if not path.exists():
        raise MemrecallError(f"missing {path}: compose it with `memrecall compose` or `dvc exp run`")
    data = load_yaml_file(path) or {}
    if not isinstance(data, dict):
        raise MemrecallError(f"{path} must hold a mapping of config groups")
    return data


def section(params: dict, name: str, path: str | Path = PARAMS_FILE) -> dict:
    """One config group of params.yaml, e.g. section(p, 'reader')."""
    if name not in params or not isinstance(params[name], dict):
        raise MemrecallError(f"{path} lacks the config group '{name}' (field '{name}')")
    return params[name]


def choice(cfg: dict, key: str, choices: Iterable[str], *, group: str) -> str:
    """cfg[key], checked against `choices`; the error names `group.key` and the valid values."""
    choices = list(choices)
    value = cfg.get(key)
    if value not in choices:
        raise ConfigError(f"{group}.{key}", value, choices)
    return value


def check_int(value, key: str, *, minimum: int | None = None, hint: str | None = None) -> int:
    """`value` if it is an integer (a bool is not) of at least `minimum`; else a ConfigError
    naming `key` (e.g. 'reader.top_k_context')."""
    if isinstance(value, bool) or not isinstance(value, int) or (
            minimum is not None and value < minimum):
        raise ConfigError(key, value, hint=hint or (
            "expected an integer" if minimum is None else f"expected an integer >= {minimum}"))
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
