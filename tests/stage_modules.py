"""The memrecall modules a stage can run, read with `ast`: the code whose edit must rerun it.

A lazy import inside a function runs only when the function is called, so a function's imports
count only once something the stage can run names it: a call `f(...)`, an attribute `x.f` (a
benchmark's `bench.judge_prompt`), or a string `"f"` (a getattr). Module-level code always runs;
`if TYPE_CHECKING:` blocks never do; a string "memrecall.pkg.module:NAME" (a registry entry,
loaded with importlib) imports that module and names NAME. Importing a module runs each package
__init__ above it. Dunder methods count as named, since Python calls them. This is what lets a
rule-judge edit leave download → read alone: their benchmark methods never call the judging
ones, which import the rules.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

TARGET = re.compile(r"(memrecall(?:\.\w+)+)(?::(\w+))?")


@dataclass(frozen=True)
class _Code:
    imports: frozenset[Path]  # the module files this code imports
    names: frozenset[str]  # the names it mentions (calls, attributes, identifier strings)


@dataclass(frozen=True)
class _Module:
    always: _Code  # module level: runs on import
    functions: tuple[tuple[str, _Code], ...]  # (name, body) of each def and method


def _resolve(src: Path, dotted: str) -> list[Path]:
    """The files importing `dotted` runs: the module, and first each package above it."""
    parts = dotted.split(".")
    packages = [src.joinpath(*parts[:n], "__init__.py") for n in range(1, len(parts) + 1)]
    return [c for c in (*packages, src.joinpath(*parts).with_suffix(".py")) if c.exists()]


def _code(nodes: list[ast.AST], src: Path, package: tuple[str, ...]) -> _Code:
    imports, names = [], set()
    for node in nodes:
        dotted = []
        if isinstance(node, ast.Import):
            dotted = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            dotted = [module] + [f"{module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            target = TARGET.fullmatch(node.value)
            if target:
                dotted = [target.group(1)]
                if target.group(2):  # the object the registry entry names
                    names.add(target.group(2))
            elif node.value.isidentifier():
                names.add(node.value)
        for d in dotted:
            if d.startswith("memrecall"):
                imports += _resolve(src, d)
    return _Code(frozenset(imports), frozenset(names))


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


@functools.lru_cache(maxsize=None)
def _module(path: Path, src: Path) -> _Module:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = path.relative_to(src).with_suffix("").parts[:-1] if path.is_relative_to(src) else ()
    inside: set[int] = set()  # nodes that run only when their function is called, or never

    def skip(statements) -> list[ast.AST]:
        nodes = [n for s in statements for n in ast.walk(s)]
        inside.update(map(id, nodes))
        return nodes

    functions = []
    top = [n for n in tree.body]
    top += [n for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for n in c.body]
    for node in top:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not _is_dunder(node.name):
            # its decorators and defaults run at definition; its body when called
            functions.append((node.name, skip(node.body)))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip(node.body)
    always = [n for n in ast.walk(tree) if id(n) not in inside]
    return _Module(
        _code(always, src, package),
        tuple((name, _code(body, src, package)) for name, body in functions),
    )


def stage_modules(start: Path, src: Path) -> set[Path]:
    """Every memrecall module file under `src` that `start` (a stage script) can run, itself
    excluded: the fixpoint of module-level imports and the imports of functions named by code
    already included."""
    modules, names = {start}, set()
    grew = True
    while grew:
        grew = False
        for path in list(modules):
            mod = _module(path, src)
            for code in [mod.always, *(code for name, code in mod.functions if name in names)]:
                if not (code.imports <= modules and code.names <= names):
                    modules |= code.imports
                    names |= code.names
                    grew = True
    return modules - {start}
