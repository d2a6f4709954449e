"""dataset=beam's download against a local HTTP server serving the repository's raw files (the
hand-written fixtures in the released layout): per-chat files, the truncated chat when the
repository has one, sha256 pins recorded at first download and enforced after, resume, and the
offline error."""

from __future__ import annotations

import json
import socket
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from local_http import LocalServer, allow_downloads
from memrecall.benchmarks.beam import source
from memrecall.errors import ConfigError, MemrecallError

FIX = Path(__file__).parent / "fixtures" / "beam"
COMMIT = source.COMMIT


class RepoServer(LocalServer):
    """Serves FIX as https://raw.githubusercontent.com/<repo>/<commit>/ would: GET (with
    Range) and HEAD, 404 for files the repository lacks."""

    def __init__(self):
        self.requests: list[tuple[str, str]] = []
        self.cut: dict[str, int] = {}  # path -> bytes to send before dropping the line
        srv = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _file(self):
                rel = self.path.removeprefix(f"/{COMMIT}/")
                f = FIX / rel
                return f if rel != self.path and f.is_file() else None

            def do_HEAD(self):
                srv.requests.append(("HEAD", self.path))
                f = self._file()
                if f is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(f.stat().st_size))
                self.end_headers()

            def do_GET(self):
                srv.requests.append(("GET", self.path))
                f = self._file()
                if f is None:
                    self.send_error(404)
                    return
                body = f.read_bytes()
                rng = self.headers.get("Range")
                start = int(rng.split("=")[1].rstrip("-")) if rng else 0
                part = body[start:]
                self.send_response(206 if start else 200)
                self.send_header("Content-Length", str(len(part)))
                self.end_headers()
                cut = srv.cut.pop(self.path, None)
                if cut is not None:
                    self.wfile.write(part[:cut])
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.wfile.write(part)

        super().__init__(Handler)
        self.url = f"{self.origin}/{COMMIT}"


@pytest.fixture
def server(monkeypatch):
    allow_downloads(monkeypatch)
    s = RepoServer()
    yield s
    s.close()


def cfg(url, **kw):
    from confs import group

    return group("dataset", "beam", **{"chats": [1, 2], "url": url, **kw})


def test_downloads_each_chats_files_pins_them_and_prefers_the_truncated_chat(server, tmp_path):
    got = source.fetch(cfg(server.url), tmp_path)
    root = tmp_path / "beam" / COMMIT
    assert got["file"] == root / "chats" / "100K" and got["commit"] == COMMIT
    assert (root / "chats/100K/1/chat.json").read_bytes() == (
        FIX / "chats/100K/1/chat.json"
    ).read_bytes()
    assert (root / "chats/100K/2/chat_trunecated.json").is_file()
    assert not (root / "chats/100K/2/chat.json").exists()  # the released answerer never reads it
    pins = json.loads((root / "pins.json").read_text())
    assert pins["chats/100K/1/chat_trunecated.json"] == source.ABSENT
    assert len(pins["chats/100K/2/chat_trunecated.json"]) == 64
    assert set(got["files"]) == {
        "chats/100K/1/probing_questions/probing_questions.json",
        "chats/100K/1/chat.json",
        "chats/100K/2/probing_questions/probing_questions.json",
        "chats/100K/2/chat_trunecated.json",
    }
    # a second run is served from disk, without a request
    server.requests.clear()
    again = source.fetch(cfg(server.url), tmp_path)
    assert server.requests == [] and again["files"] == got["files"]


def test_offline_with_a_complete_cache_needs_no_network(server, tmp_path, monkeypatch):
    source.fetch(cfg(server.url), tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert source.fetch(cfg(server.url), tmp_path)["files"]


def test_offline_without_the_files_says_how_to_supply_them(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMRECALL_OFFLINE", "1")
    with pytest.raises(MemrecallError, match="MEMRECALL_OFFLINE is set.*dataset=local"):
        source.fetch(cfg("http://127.0.0.1:9"), tmp_path)
    assert not (tmp_path / "beam" / COMMIT / "chats").exists()


def test_a_changed_file_is_refused_against_its_pin(server, tmp_path):
    source.fetch(cfg(server.url), tmp_path)
    local = tmp_path / "beam" / COMMIT / "chats/100K/1/chat.json"
    local.write_text("[]")  # damaged on disk: downloaded again, must match the pin
    source.fetch(cfg(server.url), tmp_path)
    assert local.read_bytes() == (FIX / "chats/100K/1/chat.json").read_bytes()
    pins_file = tmp_path / "beam" / COMMIT / "pins.json"
    pins = json.loads(pins_file.read_text())
    pins["chats/100K/1/chat.json"] = "0" * 64  # upstream "changed": the pin no longer matches
    pins_file.write_text(json.dumps(pins))
    local.unlink()
    with pytest.raises(MemrecallError, match="sha256 mismatch"):
        source.fetch(cfg(server.url), tmp_path)
    assert not local.exists()


def test_a_cut_download_resumes(server, tmp_path):
    path = f"/{COMMIT}/chats/100K/1/chat.json"
    server.cut[path] = 1000
    with pytest.raises(MemrecallError, match="rerun to resume"):
        source.fetch(cfg(server.url, chats=[1]), tmp_path)
    source.fetch(cfg(server.url, chats=[1]), tmp_path)
    gets = [p for m, p in server.requests if m == "GET" and p == path]
    assert len(gets) == 2
    assert (tmp_path / "beam" / COMMIT / "chats/100K/1/chat.json").read_bytes() == (
        FIX / "chats/100K/1/chat.json"
    ).read_bytes()


def test_bad_config_and_the_ten_million_tier(tmp_path):
    with pytest.raises(ConfigError, match="dataset.tier"):
        source.fetch(cfg(None, tier="2M"), tmp_path)
    with pytest.raises(ConfigError, match="dataset.chats"):
        source.fetch(cfg(None, chats=[21]), tmp_path)
    with pytest.raises(MemrecallError, match="not in the BEAM repository.*dataset=local"):
        source.fetch(cfg(None, tier="10M", chats=None), tmp_path)


def test_the_download_stage_with_dataset_beam(server, tmp_path):
    from memrecall.artifacts import read_meta, read_table
    from memrecall.data.prepare import run_download

    out = tmp_path / "artifacts"
    summary = run_download(
        cfg(server.url, chats=[2]),
        questions=out / "q.parquet",
        sessions=out / "s.parquet",
        turns=out / "t.parquet",
        card_path=tmp_path / "card.md",
        raw_dir=tmp_path / "raw",
    )
    assert summary["n_questions"] == 20 and summary["sessions_unique"] == 6  # truncated chat
    assert read_meta(out / "q.parquet")["benchmark"] == "beam"
    assert read_table(out / "q.parquet", "questions")["tier"].unique().to_list() == ["128K"]
    card = (tmp_path / "card.md").read_text()
    assert COMMIT in card and "chat_trunecated.json" in card and "pins.json" in card
    # a later run of another subset reads only its own chats, though both are on disk now
    summary = run_download(
        cfg(server.url, chats=[1]),
        questions=out / "q.parquet",
        sessions=out / "s.parquet",
        turns=out / "t.parquet",
        card_path=tmp_path / "card.md",
        raw_dir=tmp_path / "raw",
    )
    assert summary["n_questions"] == 20 and summary["sessions_unique"] == 8
