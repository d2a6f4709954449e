"""What bench scripts set before importing memrecall: this checkout's src/ and the tests' helpers
(repo copies, the fake OpenAI server) on sys.path, and the offline switches (no price-map
download, no hub calls). `python bench/x.py` puts bench/ on sys.path, so `import _env` works."""

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src"), str(REPO / "tests")]
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
