"""The pinned-URL download (dataset=locomo) against a local HTTP server started here: verified,
resumed with a Range request, nothing unverified in data/raw, one line when offline."""

from __future__ import annotations

import hashlib
import socket
from http.server import BaseHTTPRequestHandler

import pytest

from local_http import LocalServer, allow_downloads
from memrecall.data import url as url_dl
from memrecall.data.prepare import resolve_source
from memrecall.errors import ConfigError, MemrecallError

BODY = b"[" + b",".join(b'{"n": %d}' % i for i in range(5000)) + b"]"
SHA = hashlib.sha256(BODY).hexdigest()


class Server(LocalServer):
    def __init__(self, body: bytes, *, ranges: bool = True):
        self.body, self.ranges = body, ranges
        self.requests: list[tuple[str, str | None]] = []
        self.cut_after: int | None = None  # send only this many bytes, then drop the line
        srv = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                rng = self.headers.get("Range")
                srv.requests.append((self.path, rng))
                if self.path != "/data/locomo10.json":
                    self.send_error(404)
                    return
                start = int(rng.split("=")[1].rstrip("-")) if rng and srv.ranges else 0
                if start > len(srv.body):
                    self.send_error(416)
                    return
                part = srv.body[start:]
                self.send_response(206 if start else 200)
                self.send_header("Content-Length", str(len(part)))
                self.end_headers()
                if srv.cut_after is not None:
                    self.wfile.write(part[: srv.cut_after])
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.wfile.write(part)

        super().__init__(Handler)
        self.url = f"{self.origin}/data/locomo10.json"


@pytest.fixture
def server(monkeypatch):
    allow_downloads(monkeypatch)
    s = Server(BODY)
    yield s
    s.close()


def cfg(url, sha=SHA, **kw):
    return {
        "name": "locomo",
        "source": "url",
        "url": url,
        "sha256": sha,
        "filename": "locomo/locomo10.json",
        **kw,
    }


def test_downloads_verifies_and_then_serves_from_disk(server, tmp_path):
    got = url_dl.fetch(cfg(server.url), tmp_path)
    assert got.downloaded and got.path == tmp_path / "locomo" / "locomo10.json"
    assert got.path.read_bytes() == BODY and got.sha256 == SHA
    assert not (tmp_path / ".partial").exists()
    n = len(server.requests)
    again = url_dl.fetch(cfg(server.url), tmp_path)
    assert not again.downloaded and len(server.requests) == n  # no request at all


def test_resumes_a_partial_download_with_a_range_request(server, tmp_path):
    name = url_dl._spec(cfg(server.url))[2]
    part = url_dl.partial_path(tmp_path, server.url, SHA, name)
    part.parent.mkdir(parents=True)
    part.write_bytes(BODY[:1000])
    got = url_dl.fetch(cfg(server.url), tmp_path)
    assert server.requests == [("/data/locomo10.json", "bytes=1000-")]
    assert got.path.read_bytes() == BODY


def test_an_interrupted_download_resumes_on_the_next_run(server, tmp_path):
    server.cut_after = 3000
    with pytest.raises(MemrecallError, match="rerun to resume"):
        url_dl.fetch(cfg(server.url), tmp_path)
    assert not (tmp_path / "locomo" / "locomo10.json").exists()
    server.cut_after = None
    got = url_dl.fetch(cfg(server.url), tmp_path)
    assert server.requests[-1][1] == "bytes=3000-" and got.path.read_bytes() == BODY


def test_server_ignoring_range_restarts_from_zero(tmp_path, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    s = Server(BODY, ranges=False)
    try:
        name = url_dl._spec(cfg(s.url))[2]
        part = url_dl.partial_path(tmp_path, s.url, SHA, name)
        part.parent.mkdir(parents=True)
        part.write_bytes(b"garbage!")
        assert url_dl.fetch(cfg(s.url), tmp_path).path.read_bytes() == BODY
    finally:
        s.close()


def test_sha256_mismatch_writes_nothing(server, tmp_path):
    with pytest.raises(MemrecallError, match="sha256 mismatch") as e:
        url_dl.fetch(cfg(server.url, sha="0" * 64), tmp_path)
    assert "\n" not in str(e.value)
    assert not (tmp_path / "locomo").exists() and not (tmp_path / ".partial").exists()


def test_a_changed_file_on_disk_is_downloaded_again(server, tmp_path):
    dest = tmp_path / "locomo" / "locomo10.json"
    dest.parent.mkdir(parents=True)
    dest.write_bytes(b"tampered")
    assert url_dl.fetch(cfg(server.url), tmp_path).downloaded
    assert dest.read_bytes() == BODY


@pytest.mark.parametrize("var", ["HF_HUB_OFFLINE", "MEMRECALL_OFFLINE"])
def test_offline_stops_with_one_line_and_the_local_hint(server, tmp_path, monkeypatch, var):
    monkeypatch.setenv(var, "1")
    with pytest.raises(MemrecallError) as e:
        url_dl.fetch(cfg(server.url), tmp_path)
    msg = str(e.value)
    assert var in msg and "dataset=local dataset.path=" in msg and "\n" not in msg
    assert server.requests == []


def test_unreachable_host_and_http_errors(server, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/data/locomo10.json"
    with pytest.raises(MemrecallError, match="cannot reach 127.0.0.1.*dataset=local"):
        url_dl.fetch(cfg(dead), tmp_path)
    with pytest.raises(MemrecallError, match="HTTP 404"):
        url_dl.fetch(cfg(server.url.replace("locomo10", "nope")), tmp_path)


def test_a_missing_file_of_a_local_mirror_is_named_without_a_host(tmp_path):
    missing = (tmp_path / "mirror" / "run.jsonl").as_uri()
    with pytest.raises(MemrecallError, match=r"^cannot read file://\S+/mirror/run\.jsonl \("):
        url_dl.download(missing, tmp_path / "part", "hint")


def test_config_checks(tmp_path):
    with pytest.raises(ConfigError, match="dataset.sha256"):
        url_dl.fetch(cfg("http://x/y.json", sha=None), tmp_path)
    with pytest.raises(ConfigError, match="dataset.url"):
        url_dl.fetch(cfg("ftp://x/y.json"), tmp_path)
    with pytest.raises(ConfigError, match="dataset.filename"):
        url_dl.fetch(cfg("http://x/y.json", filename="../../etc/x"), tmp_path)


def test_download_stage_source_url(server, tmp_path):
    src = resolve_source(cfg(server.url), tmp_path)
    assert src["kind"] == "url" and src["sha256"] == SHA and src["url"] == server.url
    assert src["file"].read_bytes() == BODY
