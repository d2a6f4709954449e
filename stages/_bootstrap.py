"""Put this checkout's src/ first on sys.path, so a queued DVC experiment (run in a temp clone)
runs the clone's code, not whatever copy of memrecall is installed."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
