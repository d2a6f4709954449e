"""FlagEmbedding's model classes without FlagEmbedding's package imports.

`from FlagEmbedding import FlagModel` runs the package's `__init__` chain, which imports every
model class it has, and through BGE-M3's fine-tuning code peft and datasets: 7 to 10 s of CPU on
this project's 2-core machine against 4 to 5 s for the one module that defines FlagModel, in
every embed, retrieve and rerank process that loads a model. `flag_class` imports only the
module that defines the class: while it does, the packages above that module stand in
`sys.modules` as empty shells (a submodule import needs only its parent's `__path__`), and they
are taken out again afterwards. A later `import FlagEmbedding` in the same process then runs the
real `__init__`s, which find the modules already loaded and export the same class objects."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types

# The public name -> (its module inside FlagEmbedding, the name it is defined under there), as
# FlagEmbedding's package `__init__`s export them (FlagEmbedding 1.4; tests/test_flag_models.py
# checks that each is the class the package exports).
FLAG_CLASSES = {
    "FlagModel": ("inference.embedder.encoder_only.base", "BaseEmbedder"),
    "BGEM3FlagModel": ("inference.embedder.encoder_only.m3", "M3Embedder"),
    "FlagReranker": ("inference.reranker.encoder_only.base", "BaseReranker"),
}
PACKAGE = "FlagEmbedding"


def _shell(name: str) -> types.ModuleType:
    spec = importlib.util.find_spec(name)  # finds a package without running its __init__
    if spec is None or spec.submodule_search_locations is None:
        raise ModuleNotFoundError(f"no package {name!r}", name=name)
    module = types.ModuleType(name)
    module.__spec__, module.__loader__ = spec, spec.loader
    module.__file__, module.__package__ = spec.origin, name
    module.__path__ = list(spec.submodule_search_locations)
    return module


def flag_class(public_name: str) -> type:
    """FlagEmbedding's class `public_name` (FlagModel, BGEM3FlagModel, FlagReranker)."""
    module_path, defined_as = FLAG_CLASSES[public_name]
    parts = [PACKAGE, *module_path.split(".")]
    shells = []
    try:
        for depth in range(1, len(parts)):
            name = ".".join(parts[:depth])
            if name not in sys.modules:  # a package already imported for real stays as it is
                sys.modules[name] = _shell(name)
                shells.append(name)
        return getattr(importlib.import_module(".".join(parts)), defined_as)
    finally:
        for name in shells:
            del sys.modules[name]
