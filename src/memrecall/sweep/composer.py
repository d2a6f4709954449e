"""Child process of DvcProject.compose_all: compose params.yaml for several override lists with
DVC's own composer (what `dvc exp run -S` runs), in a process of its own so that it never meets
the Hydra app that started the sweep.

stdin: {"conf_dir", "config_name", "plugins_path", "overrides": [[...], ...]}
stdout: [{"params": {...}} or {"error": "..."}, ...], one per override list.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path


def compose(request: dict) -> list[dict]:
    from dvc.utils.hydra import compose_and_dump
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from ..config import load_yaml

    out = []
    with tempfile.TemporaryDirectory(prefix="memrecall-compose-") as tmp:
        path = Path(tmp, "params.yaml")
        for overrides in request["overrides"]:
            try:
                compose_and_dump(
                    str(path),
                    request["conf_dir"],
                    None,
                    request["config_name"],
                    request["plugins_path"],
                    list(overrides),
                )
            except (HydraException, OmegaConfBaseException) as e:
                out.append({"error": str(e)})
                continue
            out.append({"params": load_yaml(path.read_text(encoding="utf-8"), path) or {}})
    return out


if __name__ == "__main__":
    json.dump(compose(json.loads(sys.stdin.read())), sys.stdout)
