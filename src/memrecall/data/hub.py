"""Download a LongMemEval file from the Hugging Face hub into data/raw/, pinned and verified.

Built on huggingface_hub's own pieces (hf_hub_url, get_hf_file_metadata, http_get: the same
HEAD/GET requests, headers, retries and progress bar as hf_hub_download) rather than
hf_hub_download itself, because in huggingface_hub 2.x hf_hub_download deletes a partial
download when the process stops, so a 277 MB (or 2.7 GB) transfer could not resume on the next
run; and because nothing may land in data/raw/ before its sha256 is checked.

Layout: data/raw/<repo_id>/<filename> plus <filename>.pin.json (repo, requested revision, the
commit it resolved to, sha256, size). Partial downloads sit in data/raw/.partial/ and resume.
A cached file whose pin matches the config is used without contacting the hub.

A dataset of several files (`dataset.filename` a list, `dataset.sha256` null or a mapping
{filename: sha256}) is fetched file by file the same way (`fetch_files`); the benchmark then
reads the folder data/raw/<repo_id>/.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from ..artifacts import atomic_write_text
from ..errors import ConfigError, MemrecallError
from ..hashing import sha256_file

log = logging.getLogger(__name__)

SHA256_RE = re.compile(r"[0-9a-f]{64}")
RAW_DIR = Path("data/raw")


@dataclass
class Fetched:
    path: Path
    sha256: str
    revision: str  # as configured (a branch, tag or commit)
    commit: str | None  # the commit it resolved to
    downloaded: bool  # False: served from data/raw without contacting the hub
    verified_by: str  # "config" (dataset.sha256), "hub" (LFS ETag), "pin" or "first-download"


def endpoint() -> str:
    """HF_ENDPOINT read now, not at import time (huggingface_hub.constants reads it on import)."""
    from huggingface_hub import constants

    return (os.environ.get("HF_ENDPOINT") or constants.ENDPOINT).rstrip("/")


def local_hint(repo_id: str, filename: str, revision: str) -> str:
    return (
        f"Supply the file yourself: fetch {endpoint()}/datasets/{repo_id}/resolve/{revision}/"
        f"{filename} on a machine with access, then run with "
        f"`dataset=local dataset.path=/path/to/{filename}` "
        f"(e.g. `dvc exp run -S dataset=local -S dataset.path=/path/to/{filename}`)."
    )


def _spec(cfg: dict) -> tuple[str, str, str, str | None]:
    repo_id, filename = cfg["repo_id"], cfg["filename"]
    if not isinstance(repo_id, str) or repo_id.count("/") != 1:
        raise ConfigError("dataset.repo_id", repo_id, hint="expected 'owner/name' of a hub dataset")
    if (
        not isinstance(filename, str)
        or not filename
        or filename.startswith("/")
        or ".." in Path(filename).parts
    ):
        raise ConfigError("dataset.filename", filename, hint="expected a file name in the repo")
    revision = cfg["revision"] or "main"
    sha = cfg["sha256"]
    if sha is not None and (not isinstance(sha, str) or not SHA256_RE.fullmatch(sha.lower())):
        raise ConfigError("dataset.sha256", sha, hint="expected 64 hex digits or null")
    return repo_id, filename, str(revision), sha.lower() if sha else None


def _read_pin(pin_path: Path) -> dict | None:
    try:
        return json.loads(pin_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _cached(dest: Path, pin: dict | None, repo_id, filename, revision, want: str | None):
    """The verified cached file, or None when it must be (re)downloaded."""
    if (
        not dest.is_file()
        or not pin
        or pin.get("repo_id") != repo_id
        or pin.get("filename") != filename
        or revision not in (pin.get("revision"), pin.get("commit"))
    ):
        return None
    if want and want != pin.get("sha256"):
        return None  # the config now pins another file: fetch it (verified before it replaces)
    actual = sha256_file(dest)
    if actual != pin.get("sha256"):
        log.warning("%s changed on disk since it was downloaded; downloading it again", dest)
        return None
    return Fetched(dest, actual, revision, pin.get("commit"), False, "config" if want else "pin")


def partial_path(raw_dir: Path, repo_id: str, filename: str, etag: str) -> Path:
    """Where a partial download resumes from: keyed by the remote file's ETag, so bytes of an
    older version of the file are never continued with a newer one."""
    key = hashlib.sha256(f"{repo_id}/{filename}@{etag}".encode()).hexdigest()[:16]
    return Path(raw_dir) / ".partial" / f"{Path(filename).name}.{key}.part"


def fetch(cfg: dict, raw_dir: str | Path = RAW_DIR, *, hint: str | None = None) -> Fetched:
    """The configured hub file under raw_dir, downloaded (resuming) and sha256-verified.
    `hint`: how to supply the data by hand, said when the hub cannot be used (default: this
    one file with dataset=local)."""
    repo_id, filename, revision, want = _spec(cfg)
    raw_dir = Path(raw_dir)
    dest = raw_dir / repo_id / filename
    pin_path = dest.with_name(dest.name + ".pin.json")
    hit = _cached(dest, _read_pin(pin_path), repo_id, filename, revision, want)
    if hit is not None:
        return hit

    # Imported here: only hub datasets pay for importing huggingface_hub.
    import httpx2
    from huggingface_hub import constants, get_hf_file_metadata, hf_hub_url
    from huggingface_hub.errors import (
        GatedRepoError,
        HfHubHTTPError,
        OfflineModeIsEnabled,
        RemoteEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )
    from huggingface_hub.file_download import http_get
    from huggingface_hub.utils import build_hf_headers

    what = f"{repo_id}/{filename} (revision {revision})"
    hint = hint or local_hint(repo_id, filename, revision)
    if constants.is_offline_mode():
        raise MemrecallError(
            f"HF_HUB_OFFLINE is set (the Makefile sets it for the offline demo), "
            f"so the hub is not contacted for {what}. Unset it to download, "
            f"or: {hint}"
        )
    ep = endpoint()
    url = hf_hub_url(repo_id, filename, repo_type="dataset", revision=revision, endpoint=ep)
    headers = build_hf_headers()  # a token only from HF_TOKEN / the saved login, never params
    try:
        meta = get_hf_file_metadata(url, headers=headers, endpoint=ep)
    except OfflineModeIsEnabled:
        raise MemrecallError(
            f"HF_HUB_OFFLINE is set, so the hub is not contacted for {what}. {hint}"
        ) from None
    except (
        RepositoryNotFoundError,
        GatedRepoError,
        RevisionNotFoundError,
        RemoteEntryNotFoundError,
    ) as e:
        kind = {
            RepositoryNotFoundError: "dataset repo (or it is private/gated)",
            GatedRepoError: "access to this gated repo",
            RevisionNotFoundError: "such revision",
            RemoteEntryNotFoundError: "such file",
        }
        name = next(v for k, v in kind.items() if isinstance(e, k))
        raise MemrecallError(
            f"the hub at {ep} has no {name} for {what}. Check dataset.repo_id, "
            f"dataset.filename and dataset.revision. {hint}"
        ) from None
    except HfHubHTTPError as e:
        status = e.response.status_code if e.response is not None else "?"
        raise MemrecallError(f"the hub at {ep} answered HTTP {status} for {what}. {hint}") from None
    except (httpx2.HTTPError, OSError) as e:
        raise MemrecallError(
            f"cannot reach the Hugging Face hub at {ep} to download {what} "
            f"({type(e).__name__}). {hint}"
        ) from None
    if not meta.commit_hash or not meta.etag:
        raise MemrecallError(
            f"{ep} did not answer like a Hugging Face hub for {what} (no "
            f"X-Repo-Commit/ETag header): check HF_ENDPOINT. {hint}"
        )

    # For LFS/Xet files (all LongMemEval files) the hub's ETag is the file's sha256.
    hub_sha = meta.etag if SHA256_RE.fullmatch(meta.etag) else None
    if want and hub_sha and hub_sha != want:
        raise MemrecallError(
            f"sha256 mismatch for {what} at commit {meta.commit_hash}: the hub "
            f"reports {hub_sha}, dataset.sha256 pins {want}. Nothing was "
            f"downloaded. Pin the revision that has this file, or update "
            f"dataset.sha256 if the upstream file changed on purpose."
        )
    expected = want or hub_sha

    part = partial_path(raw_dir, repo_id, filename, meta.etag)
    part_dir = part.parent
    part_dir.mkdir(parents=True, exist_ok=True)
    resume = part.stat().st_size if part.exists() else 0
    if meta.size is not None and resume > meta.size:
        part.unlink()
        resume = 0
    if resume:
        print(f"download: resuming {what} at {resume:,} bytes")
    dl_headers = dict(headers)
    if urlparse(meta.location).netloc != urlparse(ep).netloc:
        dl_headers.pop("authorization", None)  # signed CDN url: the token stays on the hub
    try:
        with open(part, "ab") as f:
            http_get(
                meta.location,
                f,
                resume_size=resume,
                headers=dl_headers,
                expected_size=meta.size,
                displayed_filename=filename,
            )
    except (httpx2.HTTPError, OSError) as e:
        raise MemrecallError(
            f"download of {what} stopped ({type(e).__name__}: {e}); rerun to "
            f"resume from {part}. {hint}"
        ) from None

    actual = sha256_file(part)
    if expected and actual != expected:
        part.unlink()
        _rmdir_if_empty(part_dir)
        src = "dataset.sha256" if want else "the hub's ETag"
        raise MemrecallError(
            f"sha256 mismatch for {what} at commit {meta.commit_hash}: expected "
            f"{expected} ({src}), downloaded {actual}. The download was deleted; "
            f"nothing was written to {raw_dir}."
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.replace(part, dest)
    _rmdir_if_empty(part_dir)
    pin = {
        "repo_id": repo_id,
        "filename": filename,
        "revision": revision,
        "commit": meta.commit_hash,
        "sha256": actual,
        "size": dest.stat().st_size,
        "etag": meta.etag,
    }
    atomic_write_text(pin_path, json.dumps(pin, indent=2, sort_keys=True) + "\n")
    verified = "config" if want else ("hub" if hub_sha else "first-download")
    if not want:
        print(
            f"download: pinned {what}: commit {meta.commit_hash}, sha256 {actual}"
            f"{' (matches the hub ETag)' if hub_sha else ''}. Recorded in {pin_path}; to pin it "
            f"in the config set `revision: {meta.commit_hash}` and `sha256: {actual}` in "
            f"conf/dataset/<this option>.yaml."
        )
    return Fetched(dest, actual, revision, meta.commit_hash, True, verified)


# How a file's sha256 was checked, weakest first: a set of files is as verified as its weakest.
_VERIFIED_ORDER = ("first-download", "pin", "hub", "config")


def fetch_files(cfg: dict, raw_dir: str | Path = RAW_DIR) -> Fetched:
    """Every file of `dataset.filename` (a list), each fetched as `fetch` does it; the result
    is their folder data/raw/<repo_id>/ with the sha256 of their {filename: sha256}."""
    from ..hashing import sha256_json

    names, shas = cfg["filename"], cfg["sha256"]
    if not isinstance(names, list) or not names or len(set(map(str, names))) != len(names):
        raise ConfigError("dataset.filename", names, hint="expected a list of distinct files")
    if shas is not None and (not isinstance(shas, dict) or set(shas) - set(names)):
        raise ConfigError(
            "dataset.sha256",
            shas,
            hint="with several files: null or a mapping {filename: sha256} of listed files",
        )
    revision = str(cfg["revision"] or "main")
    hint = (
        f"Supply the files yourself: fetch {', '.join(map(str, names))} from "
        f"{endpoint()}/datasets/{cfg['repo_id']}/resolve/{revision}/ on a machine with "
        f"access into one folder, keeping their paths, then run with "
        f"`dataset=local dataset.path=/path/to/that/folder`."
    )
    got = [
        fetch({**cfg, "filename": name, "sha256": (shas or {}).get(name)}, raw_dir, hint=hint)
        for name in names
    ]
    commits = {g.commit for g in got if g.commit}
    if len(commits) > 1:
        raise MemrecallError(
            f"the files of {cfg['repo_id']} resolved to different commits "
            f"({', '.join(sorted(commits))}): pin dataset.revision to one commit"
        )
    sha = sha256_json({name: g.sha256 for name, g in zip(names, got)})
    verified = min((g.verified_by for g in got), key=_VERIFIED_ORDER.index)
    return Fetched(
        Path(raw_dir) / cfg["repo_id"],
        sha,
        got[0].revision,
        commits.pop() if commits else None,
        any(g.downloaded for g in got),
        verified,
    )


def _rmdir_if_empty(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass
