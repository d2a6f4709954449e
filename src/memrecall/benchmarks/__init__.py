"""The benchmarks, by name: the one place that lists them.

Built-in benchmarks are named below; a package outside this repository registers its own under
the entry-point group `memrecall.benchmarks` (`name = "pkg.module:BENCHMARK"`, an instance of
memrecall.benchmarks.base.Benchmark). `dataset.format` names one; null asks every registered
benchmark whether it recognises the file (`recognise`). The download stage records the name in
its tables' metadata (META_KEY) and later stages read it back (`of_artifact`).
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from importlib.metadata import entry_points
from pathlib import Path

from ..errors import ConfigError, InputError, MemrecallError
from .base import Benchmark

ENTRY_POINT_GROUP = "memrecall.benchmarks"
META_KEY = "benchmark"  # artifact metadata: the benchmark's name
BUILTIN = {
    "longmemeval": "memrecall.benchmarks.longmemeval:BENCHMARK",
    "locomo": "memrecall.benchmarks.locomo:BENCHMARK",
    "beam": "memrecall.benchmarks.beam:BENCHMARK",
    "evermembench": "memrecall.benchmarks.evermembench:BENCHMARK",
}


def _load(target: str) -> Benchmark:
    module, _, attr = target.partition(":")
    obj = getattr(importlib.import_module(module), attr)
    if not isinstance(obj, Benchmark):
        raise MemrecallError(
            f"benchmark {target} is a {type(obj).__name__}, not a "
            f"memrecall.benchmarks.base.Benchmark"
        )
    return obj


@lru_cache(maxsize=None)
def _targets() -> dict[str, str]:
    """name -> "module:attribute": the built-in ones, then those of installed packages."""
    out = dict(BUILTIN)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in out and out[ep.name] != ep.value:
            raise MemrecallError(
                f"two benchmarks are registered as {ep.name!r}: {out[ep.name]} "
                f"and {ep.value} (entry-point group {ENTRY_POINT_GROUP})"
            )
        out[ep.name] = ep.value
    return out


def names() -> list[str]:
    return list(_targets())


@lru_cache(maxsize=None)
def get(name: str) -> Benchmark:
    """The benchmark registered as `name`; an unknown name lists the registered ones."""
    target = _targets().get(name)
    if target is None:
        raise ConfigError("dataset.format", name, names())
    bench = _load(target)
    if bench.name != name:
        raise MemrecallError(
            f"benchmark {target} calls itself {bench.name!r}, registered as {name!r}"
        )
    return bench


def recognise(path: str | Path) -> Benchmark:
    """The one registered benchmark that recognises `path`'s format. When none does, the first
    reason a benchmark gave (a missing or malformed file: its InputError names the file) is
    the error, else one that lists the registered benchmarks."""
    path = Path(path)
    found, reasons = [], []
    for bench in map(get, names()):
        try:
            if bench.recognises(path):
                found.append(bench)
        except InputError as e:  # not readable as this benchmark's kind of file
            reasons.append(e)
    if len(found) == 1:
        return found[0]
    if not found:
        if reasons:
            raise reasons[0]
        raise MemrecallError(
            f"{path}: no registered benchmark recognises this dataset "
            f"({', '.join(names())}); set dataset.format to one of them"
        )
    raise MemrecallError(
        f"{path}: several benchmarks recognise this dataset "
        f"({', '.join(b.name for b in found)}); set dataset.format to one"
    )


def of_artifact(path: str | Path) -> Benchmark:
    """The benchmark a table of the download stage was written for (its metadata)."""
    from ..artifacts import read_meta

    if not Path(path).exists():
        raise MemrecallError(f"missing artifact {path}: run the upstream stage first (dvc repro)")
    name = read_meta(path).get(META_KEY)
    if not name:
        raise MemrecallError(
            f"{path} does not record its benchmark: rerun the download stage (dvc repro)"
        )
    return get(str(name))
