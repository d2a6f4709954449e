"""Put this checkout's src/ first on sys.path, so a queued DVC experiment (run in a temp clone)
runs the clone's code, not whatever copy of memrecall is installed.

With MEMRECALL_MODULE_LOG=FILE set, the stage appends to FILE, as it exits, one JSON line naming
the memrecall module files it loaded: what the tests hold against its DVC deps."""

import atexit
import json
import os
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))


def _log_modules(log: str) -> None:
    root = SRC.parent
    paths = [
        Path(m.__file__).resolve()
        for name, m in list(sys.modules.items())
        if name.partition(".")[0] == "memrecall" and getattr(m, "__file__", None)
    ]
    files = sorted(str(p.relative_to(root)) if p.is_relative_to(root) else str(p) for p in paths)
    with open(log, "a", encoding="utf-8") as out:
        out.write(json.dumps({"stage": Path(sys.argv[0]).stem, "modules": files}) + "\n")


if os.environ.get("MEMRECALL_MODULE_LOG"):
    atexit.register(_log_modules, os.environ["MEMRECALL_MODULE_LOG"])
