"""dataset=beam: the repository's chat folders at a pinned commit, downloaded file by file into
data/raw/beam/<commit>/chats/<tier folder>/<n>/, resumable, sha256-pinned, and one clear line
when the network cannot be used.

Per chat: probing_questions/probing_questions.json, and chat_trunecated.json when the
repository has one (asked with a HEAD request; the released answerer reads it instead of
chat.json), else chat.json. The sha256 of every file is recorded at its first download in
data/raw/beam/<commit>/pins.json (the files are not published with hashes, and this machine
could not reach them to compute any); afterwards a cached file is used only when it matches
its pin, and a new download of a pinned file must match it. The pin file is the record to
commit or compare. `dataset.url` may point at a mirror of the repository's raw files (a local
HTTP server in the tests).

The 10M tier is not in the repository (its folders hold only generation plans): 10M chats come
from the hub through the released download_dataset.py, then dataset=local.
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from pathlib import Path, PurePosixPath

from ...artifacts import atomic_write_text
from ...data import url as url_download
from ...errors import ConfigError, MemrecallError
from ...hashing import sha256_file
from .formats import CHAT, QUESTIONS, TIERS, TRUNCATED

REPOSITORY = "mohammadtavakoli78/BEAM"
COMMIT = "5a64c992ba05b489b891221b7bcb6b763493dde5"
RAW_BASE = "https://raw.githubusercontent.com"
CHATS_PER_TIER = {"128K": 20, "500K": 35, "1M": 35, "10M": 10}
IN_REPOSITORY = ("128K", "500K", "1M")
ABSENT = "absent"  # the pin of a file the repository does not have (a chat without truncation)


def base_url(cfg: dict) -> str:
    return (cfg["url"] or f"{RAW_BASE}/{REPOSITORY}/{cfg['revision'] or COMMIT}").rstrip("/")


def tier(cfg: dict) -> str:
    value = cfg["tier"]
    if value not in TIERS:
        raise ConfigError("dataset.tier", value, list(TIERS))
    return value


def chats(cfg: dict) -> list[str]:
    """The chat folders asked for: dataset.chats, or all of the tier (1..N)."""
    n = CHATS_PER_TIER[tier(cfg)]
    want = cfg["chats"]
    if want is None:
        return [str(i) for i in range(1, n + 1)]
    if not isinstance(want, (list, tuple)) or not want:
        raise ConfigError("dataset.chats", want, hint="a list of chat numbers, e.g. [1, 2]")
    out = []
    for c in want:
        if isinstance(c, bool) or not str(c).isdigit() or not 1 <= int(c) <= n:
            raise ConfigError("dataset.chats", c, hint=f"the {tier(cfg)} tier has chats 1..{n}")
        out.append(str(int(c)))
    return list(dict.fromkeys(out))


def _hint(cfg: dict) -> str:
    return (
        f"Supply the chats yourself: clone https://github.com/{REPOSITORY} (commit "
        f"{cfg['revision'] or COMMIT}) on a machine with access, then run with "
        f"`dataset=local dataset.path=/path/to/BEAM/chats/{TIERS[tier(cfg)]}`."
    )


def _exists(url: str, hint: str) -> bool:
    """Whether the server has the file (HEAD: 200 yes, 404 no)."""
    req = urllib.request.Request(url, method="HEAD", headers={"User-Agent": "memrecall"})
    try:
        with urllib.request.urlopen(req, timeout=url_download.TIMEOUT_S):
            return True
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return False
        raise MemrecallError(f"HTTP {e.code} for {url}. {hint}") from None
    except (urllib.error.URLError, OSError) as e:
        raise MemrecallError(
            f"cannot reach {url} ({type(e).__name__}: {getattr(e, 'reason', e)}). {hint}"
        ) from None


def _read_pins(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def fetch(cfg: dict, raw_dir: str | Path) -> dict:
    """The tier's chat folders under raw_dir, each file downloaded once and sha256-pinned.
    Returns the download stage's source record: the tier folder and every file's sha256."""
    t = tier(cfg)
    if t not in IN_REPOSITORY:
        raise MemrecallError(
            f"the {t} tier is not in the BEAM repository (its chats are only on the hub, "
            f"Mohammadta/BEAM-10M): run the released download_dataset.py "
            f"(create_10M_conversations) and then `dataset=local dataset.path=<its "
            f"test_chats/10M folder>`."
        )
    rev = cfg["revision"] or COMMIT
    root = Path(raw_dir) / "beam" / rev
    folder = root / "chats" / TIERS[t]
    pins_path = root / "pins.json"
    pins = _read_pins(pins_path)
    base, hint = base_url(cfg), _hint(cfg)
    files: dict[str, str] = {}
    downloaded = 0
    for n in chats(cfg):
        rel_dir = PurePosixPath("chats", TIERS[t], n)
        trunc_key = str(rel_dir / TRUNCATED)
        if trunc_key not in pins:  # first time: ask whether the chat has a truncated version
            _offline_stop(cfg, f"{base}/{trunc_key}", hint)
            if not _exists(f"{base}/{trunc_key}", hint):
                pins[trunc_key] = ABSENT
        chat_name = CHAT if pins.get(trunc_key) == ABSENT else TRUNCATED
        for rel in (rel_dir / QUESTIONS.as_posix(), rel_dir / chat_name):
            key = str(rel)
            dest = root / Path(*rel.parts)
            want = pins.get(key)
            if dest.is_file() and want and sha256_file(dest) == want:
                files[key] = want
                continue
            _offline_stop(cfg, f"{base}/{key}", hint)
            part = url_download.partial_path(
                root, f"{base}/{key}", want or "unpinned", Path(rel.name)
            )
            part.parent.mkdir(parents=True, exist_ok=True)
            url_download.download(f"{base}/{key}", part, hint)
            got = sha256_file(part)
            if want and got != want:
                part.unlink()
                raise MemrecallError(
                    f"sha256 mismatch for {base}/{key}: pinned {want} in "
                    f"{pins_path}, downloaded {got}. The download was deleted. "
                    f"If the file changed upstream on purpose, check it and "
                    f"delete its pin."
                )
            dest.parent.mkdir(parents=True, exist_ok=True)
            part.replace(dest)
            pins[key] = files[key] = got
            downloaded += 1
            atomic_write_text(pins_path, json.dumps(pins, indent=2, sort_keys=True) + "\n")
    atomic_write_text(pins_path, json.dumps(pins, indent=2, sort_keys=True) + "\n")
    if downloaded:
        print(
            f"download: {downloaded} BEAM file(s) of {t} at commit {rev} -> {folder} "
            f"(sha256 recorded in {pins_path})",
            file=sys.stderr,
        )
    return {
        "kind": "release",
        "file": folder,
        "shown": f"{REPOSITORY}@{rev} chats/{TIERS[t]}",
        "sha256": None,
        "verified_by": f"sha256 pins recorded at first download ({pins_path})",
        "commit": rev,
        "url": base,
        "files": files,
        "chats": [str(PurePosixPath("chats", TIERS[t], n)) for n in chats(cfg)],
    }


def _offline_stop(cfg: dict, url: str, hint: str) -> None:
    var = url_download.offline_switch()
    if var:
        raise MemrecallError(
            f"{var} is set, so {url} is not downloaded. Unset it to download, or: {hint}"
        )
