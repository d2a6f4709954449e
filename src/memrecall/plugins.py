"""Plug-ins: a retriever or a reader of your own, named in the config as `callable:
"package.module:name"` with keyword `options`.

- `load_plugin` imports the module (the working directory first on sys.path, as `python -m`
  does, so `examples.memesh_fts5:MeMeshRetriever` works from the project root and inside a
  queued experiment's clone), looks the name up and calls it with `**options`.
- `plugin_identity` says which code that is without running it: the sha256 of the module's
  source (of every .py file of its package when the module sits in a regular package that is
  not installed), or the distribution's name and version when it is installed in site-packages.
  With `options` it goes into the params metadata of the stage's artifact; DVC watches the
  file or folder the option's `code` names (a dep in dvc.yaml), so a code change reruns that
  stage.
- `PluginError` is the one error for a misbehaving plug-in: it names the plug-in, the params
  key, the question (when there is one) and what was expected.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import inspect
import sys
import sysconfig
from pathlib import Path

from .errors import MemrecallError
from .hashing import sha256_file, sha256_json


class PluginError(MemrecallError):
    def __init__(
        self,
        spec,
        message: str,
        *,
        where: str,
        question_id: str | None = None,
        expected: str | None = None,
    ):
        self.spec, self.where, self.question_id = spec, where, question_id
        text = f"plug-in {spec!r} ({where}.callable)"
        if question_id is not None:
            text += f", question {question_id!r}"
        text += f": {message}"
        if expected:
            text += f"; expected {expected}"
        super().__init__(text)


# Config keys of the plug-in machinery. `code` is the path DVC watches, not what the results
# depend on (the identity below is), so it never enters an artifact's params.
PLUGIN_KEYS = ("callable", "options", "code")


def result_params(cfg: dict, identity: dict | None = None) -> dict:
    """The params an artifact records: without the plug-in keys (a built-in method ignores
    them, so a sweep override of `retrieval.callable` leaves its output byte-identical), plus
    the plug-in's identity when there is one."""
    out = {k: v for k, v in cfg.items() if k not in PLUGIN_KEYS}
    return {**out, "plugin": identity} if identity is not None else out


def parse_spec(spec, where: str) -> tuple[str, str]:
    """'package.module:name' -> ('package.module', 'name')."""
    if not isinstance(spec, str) or spec.count(":") != 1:
        raise PluginError(
            spec,
            "not of the form 'package.module:name'",
            where=where,
            expected='e.g. "examples.memesh_fts5:MeMeshRetriever"',
        )
    module, name = (p.strip() for p in spec.split(":"))
    if (
        not module
        or not name
        or not all(p.isidentifier() for p in module.split(".") + name.split("."))
    ):
        raise PluginError(
            spec,
            "not of the form 'package.module:name'",
            where=where,
            expected="dotted Python identifiers on both sides of the ':'",
        )
    return module, name


def plugin_options(cfg: dict, where: str) -> dict:
    options = cfg["options"]
    if options is None:
        return {}
    if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
        raise PluginError(
            cfg["callable"],
            f"options {options!r} are not a mapping",
            where=where,
            expected=f"{where}.options: a mapping of keyword arguments",
        )
    return dict(options)


def _importable_from_cwd() -> None:
    cwd = str(Path.cwd())
    if cwd not in sys.path:
        sys.path.insert(0, cwd)


def _find_module(module: str, spec: str, where: str):
    _importable_from_cwd()
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError) as e:
        found, err = None, e
    else:
        err = None
    if found is None:
        raise PluginError(
            spec,
            f"module {module!r} cannot be found"
            + (f" ({type(err).__name__}: {err})" if err else ""),
            where=where,
            expected="an importable module (installed, or a path from the project "
            "root such as examples.memesh_fts5)",
        )
    return found


def _site_dirs() -> list[Path]:
    paths = {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
    return [Path(p).resolve() for p in paths]


def _distribution(module: str) -> tuple[str, str] | None:
    top = module.split(".")[0]
    for dist in importlib.metadata.packages_distributions().get(top, []):
        try:
            return dist, importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def _package_root(path: Path) -> Path | None:
    """The top-most folder above `path` that is a regular package (has __init__.py)."""
    root = None
    for parent in path.parents:
        if (parent / "__init__.py").is_file():
            root = parent
        else:
            break
    return root


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def module_file(spec: str, where: str) -> Path:
    """The source file of the plug-in's module, found without running it."""
    module, _ = parse_spec(spec, where)
    found = _find_module(module, spec, where)
    origin = Path(found.origin).resolve() if found.origin and found.has_location else None
    if origin is None or not origin.is_file():
        raise PluginError(
            spec,
            f"module {module!r} has no source file to fingerprint",
            where=where,
            expected="a module defined in a .py file",
        )
    return origin


def code_identity(spec: str, where: str) -> dict:
    """Which code `spec` names, found without running it (see the module docstring)."""
    module, _ = parse_spec(spec, where)
    origin = module_file(spec, where)
    if any(origin.is_relative_to(d) for d in _site_dirs()):
        dist = _distribution(module)
        if dist is not None:
            return {"distribution": dist[0], "version": dist[1]}
    root = _package_root(origin)
    if root is None:
        return {"file": _rel(origin), "sha256": sha256_file(origin)}
    files = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    return {
        "package": _rel(root),
        "sha256": sha256_json({str(p.relative_to(root)): sha256_file(p) for p in files}),
    }


def plugin_identity(cfg: dict, where: str) -> dict:
    """{callable, code, options}: what makes a plug-in's results what they are. Also checks
    that `<where>.code`, the path dvc.yaml lists as the stage's dep, holds the plug-in's module,
    or DVC would not rerun the stage when that code changes."""
    spec = cfg["callable"]
    origin, watched = module_file(spec, where), cfg["code"]
    base = Path(watched).expanduser() if isinstance(watched, str) and watched else None
    base = base if base is None or base.is_absolute() else Path.cwd() / base
    if (
        base is None
        or not base.exists()
        or not (origin == base.resolve() or origin.is_relative_to(base.resolve()))
    ):
        raise PluginError(
            spec,
            f"{where}.code is {watched!r}, which does not hold the plug-in's "
            f"module file {_rel(origin)}, so DVC would not notice a change to it",
            where=where,
            expected=f"{where}.code={_rel(origin)} (or a folder above it)",
        )
    return {
        "callable": spec,
        "code": code_identity(spec, where),
        "options": plugin_options(cfg, where),
    }


def load_plugin(cfg: dict, where: str, *, methods: tuple[str, ...] = ()):
    """Import `cfg['callable']`, call it with `**cfg['options']`, check it has `methods`."""
    spec = cfg["callable"]
    module_name, name = parse_spec(spec, where)
    options = plugin_options(cfg, where)
    _find_module(module_name, spec, where)
    try:
        module = importlib.import_module(module_name)
    except Exception as e:  # the plug-in's own import error, shown as such
        raise PluginError(
            spec, f"importing {module_name!r} failed: {type(e).__name__}: {e}", where=where
        ) from e
    obj = module
    for part in name.split("."):
        if not hasattr(obj, part):
            raise PluginError(
                spec,
                f"module {module_name!r} has no attribute {name!r}",
                where=where,
                expected="a class or factory function of that name",
            )
        obj = getattr(obj, part)
    if not callable(obj):
        raise PluginError(
            spec,
            f"{name!r} is a {type(obj).__name__}, not callable",
            where=where,
            expected="a class or factory function",
        )
    try:
        instance = obj(**options)
    except TypeError as e:
        try:
            inspect.signature(obj).bind(**options)
        except TypeError:
            raise PluginError(
                spec,
                f"options {sorted(options)} do not fit {name}{_signature(obj)}: {e}",
                where=where,
                expected=f"{where}.options matching its keyword arguments",
            ) from e
        raise
    for m in methods:
        if not callable(getattr(instance, m, None)):
            raise PluginError(
                spec,
                f"the object {name}(**options) returned "
                f"({type(instance).__name__}) has no method {m}()",
                where=where,
                expected=f"a {m}() method (see docs/plugins.md)",
            )
    return instance


def _signature(obj) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"
