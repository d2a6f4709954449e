"""A dataset file at a pinned URL (a released file on GitHub, say), downloaded the way
hub.py downloads hub files: resumable, sha256-verified before it is moved into data/raw/, and
one clear line when the network cannot be used.

The sha256 is required: a URL's content can change under it, and nothing else identifies the
file. Layout: data/raw/<dataset.filename or the URL's file name>; partial downloads sit in
data/raw/.partial/ (keyed by URL and sha256, so bytes of another file are never continued) and
resume with an HTTP Range request. A cached file whose sha256 matches is used without contacting
the network. `HF_HUB_OFFLINE` (the project's offline switch, set by the Makefile's demo) and
`MEMRECALL_OFFLINE` stop before any request.

Standard library only (urllib): no client library is needed for one GET.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import urlparse

from tqdm import tqdm

from ..errors import ConfigError, MemrecallError
from ..hashing import sha256_file
from .hub import RAW_DIR, SHA256_RE

CHUNK = 1 << 16
TIMEOUT_S = 60
_OFFLINE_VARS = ("MEMRECALL_OFFLINE", "HF_HUB_OFFLINE")


@dataclass
class Fetched:
    path: Path
    sha256: str
    url: str
    downloaded: bool  # False: served from data/raw without contacting the network


def _spec(cfg: dict) -> tuple[str, str, Path]:
    url = cfg["url"]
    if (
        not isinstance(url, str)
        or urlparse(url).scheme not in ("http", "https")
        or not urlparse(url).netloc
    ):
        raise ConfigError("dataset.url", url, hint="expected an http(s) URL")
    sha = cfg["sha256"]
    if not isinstance(sha, str) or not SHA256_RE.fullmatch(sha.lower()):
        raise ConfigError(
            "dataset.sha256",
            sha,
            hint="a URL download needs its 64-hex-digit sha256 pinned (dataset.sha256)",
        )
    name = cfg["filename"] or PurePosixPath(urlparse(url).path).name
    rel = PurePosixPath(str(name))
    if not rel.parts or rel.is_absolute() or ".." in rel.parts:
        raise ConfigError("dataset.filename", name, hint="expected a relative file name")
    return url, sha.lower(), Path(*rel.parts)


def local_hint(url: str, name: Path) -> str:
    return (
        f"Supply the file yourself: fetch {url} on a machine with access, then run with "
        f"`dataset=local dataset.path=/path/to/{name.name}` (e.g. `dvc exp run -S "
        f"dataset=local -S dataset.path=/path/to/{name.name}`)."
    )


def offline_switch() -> str | None:
    """The offline variable that is set, if any (nothing may be downloaded)."""
    return next(
        (
            v
            for v in _OFFLINE_VARS
            if os.environ.get(v, "").strip().lower() not in ("", "0", "false", "no")
        ),
        None,
    )


def partial_path(raw_dir: Path, url: str, sha: str, name: Path) -> Path:
    key = hashlib.sha256(f"{url}@{sha}".encode()).hexdigest()[:16]
    return raw_dir / ".partial" / f"{name.name}.{key}.part"


def fetch(cfg: dict, raw_dir: str | Path = RAW_DIR) -> Fetched:
    """The configured URL's file under raw_dir, downloaded (resuming) and sha256-verified."""
    url, want, name = _spec(cfg)
    raw_dir = Path(raw_dir)
    dest = raw_dir / name
    if dest.is_file():
        if sha256_file(dest) == want:
            return Fetched(dest, want, url, False)
        print(
            f"download: {dest} does not match dataset.sha256; downloading it again", file=sys.stderr
        )
    hint = local_hint(url, name)
    var = offline_switch()
    if var:
        raise MemrecallError(
            f"{var} is set, so {url} is not downloaded. Unset it to download, or: {hint}"
        )
    part = partial_path(raw_dir, url, want, name)
    part.parent.mkdir(parents=True, exist_ok=True)
    download(url, part, hint)
    actual = sha256_file(part)
    if actual != want:
        part.unlink()
        _rmdir_if_empty(part.parent)
        raise MemrecallError(
            f"sha256 mismatch for {url}: expected {want} (dataset.sha256), "
            f"downloaded {actual}. The download was deleted; nothing was "
            f"written to {raw_dir}. If the file changed upstream on purpose, "
            f"check it and update dataset.sha256."
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.replace(part, dest)
    _rmdir_if_empty(part.parent)
    print(f"download: {url} -> {dest} (sha256 verified)", file=sys.stderr)
    return Fetched(dest, actual, url, True)


def download(url: str, part: Path, hint: str, *, retry_416: bool = True) -> None:
    """Append the rest of `url` to `part` (resuming from its size)."""
    resume = part.stat().st_size if part.exists() else 0
    req = urllib.request.Request(
        url,
        headers={"User-Agent": "memrecall", **({"Range": f"bytes={resume}-"} if resume else {})},
    )
    try:
        resp = urllib.request.urlopen(req, timeout=TIMEOUT_S)
    except urllib.error.HTTPError as e:
        if e.code == 416 and resume and retry_416:  # stale partial (longer than the file)
            part.unlink()
            return download(url, part, hint, retry_416=False)
        raise MemrecallError(
            f"{urlparse(url).netloc} answered HTTP {e.code} for {url}. {hint}"
        ) from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        host = urlparse(url).netloc  # none for a mirror on this machine (file://)
        failed = f"cannot reach {host} to download {url}" if host else f"cannot read {url}"
        raise MemrecallError(f"{failed} ({type(e).__name__}: {reason}). {hint}") from None
    with resp:
        if resume and resp.status != 206:  # the server ignored the Range: start over
            resume = 0
        elif resume:
            print(f"download: resuming {url} at {resume:,} bytes", file=sys.stderr)
        length = resp.headers.get("Content-Length")
        total = resume + int(length) if length and length.isdigit() else None
        try:
            with (
                open(part, "ab" if resume else "wb") as f,
                tqdm(
                    total=total,
                    initial=resume,
                    unit="B",
                    unit_scale=True,
                    desc=f"download {PurePosixPath(urlparse(url).path).name}",
                    file=sys.stderr,
                ) as bar,
            ):
                while block := resp.read(CHUNK):
                    f.write(block)
                    bar.update(len(block))
        except (OSError, http.client.HTTPException) as e:
            raise MemrecallError(
                f"download of {url} stopped ({type(e).__name__}: {e}); rerun "
                f"to resume from {part}. {hint}"
            ) from None
        if total is not None and part.stat().st_size < total:
            raise MemrecallError(
                f"download of {url} stopped at {part.stat().st_size:,} of "
                f"{total:,} bytes; rerun to resume from {part}. {hint}"
            )


def _rmdir_if_empty(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass
