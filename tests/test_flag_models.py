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

loaded = {name: flag_class(name) for name in ("FlagModel", "FlagReranker")}
heavy = sorted(m for m in ("peft", "datasets", "FlagEmbedding.finetune") if m in sys.modules)
print(",".join(heavy) or "none")
# BGE-M3's own module imports its fine-tuning code: nothing to spare there, but the same class.
loaded["BGEM3FlagModel"] = flag_class("BGEM3FlagModel")
import FlagEmbedding  # the real package, after the shells are gone

assert loaded.keys() == FLAG_CLASSES.keys()
print(all(getattr(FlagEmbedding, n) is c for n, c in loaded.items()))
"""


def test_model_classes_load_without_the_fine_tuning_imports_and_are_the_exported_ones():
    # Before flag_models, `from FlagEmbedding import FlagModel` imported peft and datasets.
    proc = subprocess.run(
        [sys.executable, "-c", CHECK],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": "", "HF_HUB_OFFLINE": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["none", "True"]
