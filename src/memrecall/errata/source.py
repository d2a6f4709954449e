"""Where an errata overlay named by `dataset.errata` lives, and the record of it the sources
stage writes to artifacts/errata.json (the errata and aggregate stages read the overlay from
there, so what DVC watched is what is applied): a name is `errata/<name>.json` (or .yaml / .yml)
in the project; a value with a `/` or a file suffix is a path (relative to the project, or
absolute). The pipeline's use of it: errata/stage.py."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import ConfigError, InputError
from .overlay import Errata, load_errata, parse_errata

ERRATA_DIR = "errata"  # the project's overlays: errata/<name>.json
SUFFIXES = (".json", ".yaml", ".yml")


def overlay_file(name) -> str:
    """The overlay file `dataset.errata` names, as given or under errata/ (module docstring)."""
    from ..data.subset import resolve_path

    if not isinstance(name, str) or not name.strip():
        raise ConfigError(
            "dataset.errata",
            name,
            hint=f"a name of {ERRATA_DIR}/<name>.json, a path to an errata file, or null",
        )
    if "/" in name or Path(name).suffix in SUFFIXES:
        return name
    for suffix in SUFFIXES:
        candidate = f"{ERRATA_DIR}/{name}{suffix}"
        if resolve_path(candidate).is_file():
            return candidate
    return f"{ERRATA_DIR}/{name}.json"


def overlay_record(dataset_cfg: dict) -> dict:
    """artifacts/errata.json, as the sources stage writes it: {"errata": null} without an
    overlay, else its name, file, sha256 and checked content."""
    from ..data.subset import resolve_path
    from ..hashing import sha256_file

    name = dataset_cfg["errata"]
    if name is None:
        return {"errata": None}
    file = overlay_file(name)
    path = resolve_path(file)
    if not path.is_file():
        raise InputError(
            f"no errata overlay here: put it in {ERRATA_DIR}/<name>.json or give its path "
            "(`memrecall errata --help` makes overlays)",
            file=file,
            field="dataset.errata",
        )
    overlay = load_errata(path)
    return {
        "errata": name,
        "file": file,
        "sha256": sha256_file(path),
        "overlay": overlay.to_dict(),
    }


def read_record(path: str | Path) -> tuple[dict, Errata | None]:
    """(artifacts/errata.json's record, its overlay or None)."""
    rec = json.loads(Path(path).read_text(encoding="utf-8"))
    if rec["errata"] is None:
        return rec, None
    return rec, parse_errata(rec["overlay"], rec["file"])
