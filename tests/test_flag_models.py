"""FlagEmbedding's classes loaded without its package imports (retrieval.flag_models): the same
class objects FlagEmbedding exports, without peft or datasets, and the package still importable
afterwards. In a fresh interpreter each: what a stage process has imported is the point."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO

CHECK = """
import sys
from memrecall.retrieval.flag_models import FLAG_CLASSES, flag_class

loaded = {name: flag_class(name) for name in sys.argv[1:]}
heavy = sorted(m for m in ("peft", "datasets", "FlagEmbedding.finetune") if m in sys.modules)
print(",".join(heavy) or "none")
import FlagEmbedding  # the real package, after the shells are gone

assert all(getattr(FlagEmbedding, n) is c for n, c in loaded.items()), loaded
assert all(getattr(FlagEmbedding, n) is flag_class(n) for n in FLAG_CLASSES)
print("same")
"""


def _run(*names: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", CHECK, *names],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": "", "HF_HUB_OFFLINE": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.split()


def test_embedder_and_reranker_classes_load_without_the_fine_tuning_imports():
    # Before flag_models, `from FlagEmbedding import FlagModel` imported both.
    assert _run("FlagModel", "FlagReranker") == ["none", "same"]


def test_bge_m3_class_is_the_one_the_package_exports():
    # M3Embedder's own module imports BGE-M3's fine-tuning code: nothing to spare there.
    assert _run("BGEM3FlagModel")[1] == "same"
