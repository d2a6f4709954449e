"""The content of the files that params name, as a small fingerprint the download stage
depends on; and the errata overlay `dataset.errata` names, checked, for the errata stage
(artifacts/errata.json: errata/stage.py), which download does not read.

DVC reruns a stage when a dep or a declared param changes, but `dataset.path` and
`dataset.question_ids` only name files: editing such a file changes no param. DVC templating
(`${dataset.path}` in deps) cannot take them either: path is null for hub datasets and
question_ids may be null or a list, and DVC rejects both as a dep. So the `sources` stage runs
on every `dvc repro` (always_changed; it only hashes files) and writes their sha256 to
artifacts/sources.json; the file changes, and download reruns, only when a named file's
content does.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..artifacts import atomic_write_text
from ..hashing import sha256_path
from .subset import resolve_path

# dataset keys whose string value names a file the download stage reads.
FILE_KEYS = ("path", "question_ids")


def fingerprint(dataset_cfg: dict) -> dict:
    """{"dataset.<key>": {"path": as configured, "sha256": content hash or null if absent}}
    for every FILE_KEYS value that is a path; list or null values are params already."""
    out = {}
    for key in FILE_KEYS:
        value = dataset_cfg[key]
        if isinstance(value, str) and value not in ("", "???"):
            file = resolve_path(value)
            out[f"dataset.{key}"] = {
                "path": value,
                "sha256": sha256_path(file) if file.exists() else None,
            }
    return out


def sources_json(dataset_cfg: dict) -> str:
    """The text the stage writes (`memrecall plan` compares it with the file on disk)."""
    return json.dumps(fingerprint(dataset_cfg), sort_keys=True, indent=2) + "\n"


def errata_json(dataset_cfg: dict) -> str:
    """artifacts/errata.json: the overlay `dataset.errata` names, checked, with its sha256."""
    from ..errata.source import overlay_record

    return json.dumps(overlay_record(dataset_cfg), sort_keys=True, indent=1) + "\n"


def run_sources(dataset_cfg: dict, *, out: str | Path, errata: str | Path) -> dict:
    text, overlay = sources_json(dataset_cfg), errata_json(dataset_cfg)
    atomic_write_text(out, text)
    atomic_write_text(errata, overlay)
    return json.loads(text)
