"""Config groups for tests, composed from conf/ (so tests exercise the shape stages get), with
overrides checked against it: a test cannot set a key that conf/ does not have."""

from __future__ import annotations

import copy
from functools import lru_cache

from conftest import REPO
from memrecall.compose import compose_config


@lru_cache(maxsize=None)
def _composed(overrides: tuple[str, ...]) -> dict:
    return compose_config(list(overrides), root=REPO)


def composed(*overrides: str) -> dict:
    """The whole params.yaml that `memrecall compose OVERRIDES` would write."""
    return copy.deepcopy(_composed(tuple(overrides)))


def group(name: str, option: str | None = None, /, **over) -> dict:
    """conf/<name>/<option>.yaml as composed (the default option if None), with `over` set.
    A key that lives under the group's `runtime` node may be given flat (concurrency=2)."""
    extra = ("dataset.path=unset",) if (name, option) == ("dataset", "local") else ()
    cfg = composed(*((f"{name}={option}",) if option else ()), *extra)[name]
    return set_keys(cfg, name, **over)


def set_keys(cfg: dict, where: str, /, **over) -> dict:
    for key, value in over.items():
        node = cfg
        if key not in node and key in (node.get("runtime") or {}):
            node = node["runtime"]
        if key not in node:
            raise KeyError(f"{where} has no key {key!r} in conf/")
        node[key] = value
    return cfg
