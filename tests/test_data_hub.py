"""Hub download through the real code path (huggingface_hub's HEAD + GET), against a local HTTP
server that answers like the Hugging Face hub:

  HEAD {endpoint}/datasets/{repo}/resolve/{revision}/{file}
    plain file: 200 + X-Repo-Commit, ETag (git blob sha1), Content-Length
    LFS file:   302 to a CDN host + X-Repo-Commit, X-Linked-Etag (the file's sha256),
                X-Linked-Size (the way the hub serves LongMemEval's files)
  GET  the resolve url or the CDN url, honouring `Range: bytes=N-` (206).
HF_ENDPOINT is set per test: our code reads it at call time (huggingface_hub.constants reads
it once, at import). The "CDN" is the same server reached as `localhost` instead of
`127.0.0.1`: another origin, as a real CDN is, so huggingface_hub stops at the redirect.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml

from confs import group
from conftest import ORACLE_FILE, REPO, shared_file
from memrecall.data import hub
from memrecall.data.hub import fetch
from memrecall.errors import MemrecallError
from test_data_longmemeval import make_record, run

COMMIT = "0123456789abcdef0123456789abcdef01234567"
REPO_ID = "someone/longmemeval-test"


class FakeHub:
    def __init__(self):
        self.files: dict[tuple[str, str], bytes] = {}
        self.lfs = False  # serve like an LFS file (redirect to CDN, sha256 ETag)
        self.serve_bytes = None  # if set: what GET actually sends (a corrupted transfer)
        self.requests: list[tuple[str, str, str | None]] = []
        hubself = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _find(self):
                parts = unquote(self.path).lstrip("/").split("/")
                if parts[0] == "cdn":
                    return next(
                        (
                            k
                            for k, v in hubself.files.items()
                            if hashlib.sha256(v).hexdigest() == parts[1]
                        ),
                        None,
                    ), True
                # datasets/<owner>/<name>/resolve/<revision>/<filename>
                if (
                    len(parts) >= 6
                    and parts[0] == "datasets"
                    and parts[3] == "resolve"
                    and parts[4] in ("main", COMMIT)
                ):
                    key = (f"{parts[1]}/{parts[2]}", "/".join(parts[5:]))
                    return (key if key in hubself.files else None), False
                return None, False

            def _head_or_get(self, body: bool):
                hubself.requests.append((self.command, self.path, self.headers.get("Range")))
                key, cdn = self._find()
                if key is None:
                    self.send_response(404)
                    self.send_header("X-Error-Code", "EntryNotFound")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                data = hubself.files[key]
                sha = hashlib.sha256(data).hexdigest()
                if not cdn and hubself.lfs:
                    self.send_response(302)
                    self.send_header("Location", f"http://localhost:{hubself.port}/cdn/{sha}")
                    self.send_header("X-Repo-Commit", COMMIT)
                    self.send_header("X-Linked-Etag", f'"{sha}"')
                    self.send_header("X-Linked-Size", str(len(data)))
                    self.send_header("ETag", '"redirect-etag"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                payload = hubself.serve_bytes if hubself.serve_bytes is not None else data
                start = 0
                rng = self.headers.get("Range")
                if rng and body:
                    start = int(rng.split("=")[1].split("-")[0])
                    self.send_response(206)
                    self.send_header(
                        "Content-Range", f"bytes {start}-{len(payload) - 1}/{len(payload)}"
                    )
                else:
                    self.send_response(200)
                self.send_header("X-Repo-Commit", COMMIT)
                self.send_header("ETag", f'"{hashlib.sha1(data).hexdigest()}"')
                self.send_header("Content-Length", str(len(payload) - start))
                self.end_headers()
                if body:
                    self.wfile.write(payload[start:])

            def do_HEAD(self):
                self._head_or_get(False)

            def do_GET(self):
                self._head_or_get(True)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def gets(self):
        return [r for r in self.requests if r[0] == "GET"]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake_hub(monkeypatch):
    import huggingface_hub.constants as hfc

    server = FakeHub()
    monkeypatch.setenv("HF_ENDPOINT", server.url)
    # conftest (and the Makefile) set HF_HUB_OFFLINE=1, read by huggingface_hub at import.
    monkeypatch.setattr(hfc, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    yield server
    server.close()


def cfg(filename="data.json", sha256=None, revision="main"):
    return group(
        "dataset",
        "longmemeval_s_cleaned",
        name="t",
        repo_id=REPO_ID,
        filename=filename,
        revision=revision,
        sha256=sha256,
    )


def files_under(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*") if p.is_file()) if path.exists() else []


PAYLOAD = json.dumps([make_record("q1"), make_record("q2_abs")]).encode()
SHA = hashlib.sha256(PAYLOAD).hexdigest()


@pytest.mark.parametrize("lfs", [False, True])
def test_download_pinned_then_cached(fake_hub, tmp_path, lfs):
    fake_hub.lfs = lfs
    fake_hub.files[(REPO_ID, "data.json")] = PAYLOAD
    got = fetch(cfg(sha256=SHA), tmp_path / "raw")
    assert got.path == tmp_path / "raw" / REPO_ID / "data.json"
    assert got.path.read_bytes() == PAYLOAD and got.sha256 == SHA
    assert got.commit == COMMIT and got.downloaded and got.verified_by == "config"
    pin = json.loads((got.path.parent / "data.json.pin.json").read_text())
    assert pin["commit"] == COMMIT and pin["sha256"] == SHA and pin["revision"] == "main"
    assert files_under(tmp_path / "raw") == [got.path, got.path.parent / "data.json.pin.json"]
    methods = [m for m, _, _ in fake_hub.requests]
    assert methods == ["HEAD", "GET"]
    if lfs:  # the GET went to the CDN location the HEAD pointed at
        assert fake_hub.gets()[0][1].startswith("/cdn/")
    # A rerun (by revision or by the commit it resolved to) contacts nobody.
    n = len(fake_hub.requests)
    again = fetch(cfg(sha256=SHA), tmp_path / "raw")
    by_commit = fetch(cfg(sha256=SHA, revision=COMMIT), tmp_path / "raw")
    assert len(fake_hub.requests) == n
    assert not again.downloaded and again.sha256 == SHA and by_commit.commit == COMMIT


def test_sha256_mismatch_fails_with_nothing_written(fake_hub, tmp_path):
    fake_hub.files[(REPO_ID, "data.json")] = PAYLOAD
    with pytest.raises(MemrecallError, match="sha256 mismatch") as e:
        fetch(cfg(sha256="f" * 64), tmp_path / "raw")
    assert "nothing was written" in str(e.value) and SHA in str(e.value)
    assert len(fake_hub.gets()) == 1  # it did download, then refused the bytes
    assert files_under(tmp_path / "raw") == []


def test_sha256_mismatch_through_the_stage_leaves_no_artifacts(fake_hub, tmp_path):
    fake_hub.files[(REPO_ID, "data.json")] = PAYLOAD
    with pytest.raises(MemrecallError, match="sha256 mismatch"):
        run(tmp_path, cfg(sha256="e" * 64))
    assert files_under(tmp_path / "raw") == [] and not (tmp_path / "out").exists()


def test_lfs_etag_disagreeing_with_pin_fails_before_downloading(fake_hub, tmp_path):
    fake_hub.lfs = True
    fake_hub.files[(REPO_ID, "data.json")] = PAYLOAD
    with pytest.raises(MemrecallError, match=f"the hub reports {SHA}, dataset.sha256 pins fff"):
        fetch(cfg(sha256="f" * 64), tmp_path / "raw")
    assert fake_hub.gets() == [] and files_under(tmp_path / "raw") == []


def test_unpinned_download_is_checked_against_the_lfs_etag(fake_hub, tmp_path, capsys):
    fake_hub.lfs = True
    fake_hub.files[(REPO_ID, "data.json")] = PAYLOAD
    fake_hub.serve_bytes = PAYLOAD.replace(b"blue", b"BLUE")  # corrupted on the way
    with pytest.raises(MemrecallError, match=r"expected .* \(the hub's ETag\)"):
        fetch(cfg(), tmp_path / "raw")
    assert files_under(tmp_path / "raw") == []
    fake_hub.serve_bytes = None
    got = fetch(cfg(), tmp_path / "raw")
    assert got.verified_by == "hub" and got.sha256 == SHA
    out = capsys.readouterr().out
    assert f"sha256 {SHA} (matches the hub ETag)" in out and f"revision: {COMMIT}" in out


def test_first_download_pins_then_pin_is_enforced(fake_hub, tmp_path):
    fake_hub.files[(REPO_ID, "data.json")] = PAYLOAD
    got = fetch(cfg(), tmp_path / "raw")  # plain file: no sha256 from the hub
    assert got.verified_by == "first-download"
    assert fetch(cfg(), tmp_path / "raw").verified_by == "pin"
    got.path.write_bytes(PAYLOAD + b" ")  # tampered on disk: fetched again and replaced
    again = fetch(cfg(), tmp_path / "raw")
    assert again.downloaded and again.path.read_bytes() == PAYLOAD


def test_resumes_a_partial_download(fake_hub, tmp_path):
    fake_hub.files[(REPO_ID, "data.json")] = PAYLOAD
    etag = hashlib.sha1(PAYLOAD).hexdigest()
    part = hub.partial_path(tmp_path / "raw", REPO_ID, "data.json", etag)
    part.parent.mkdir(parents=True)
    part.write_bytes(PAYLOAD[:100])  # what an interrupted run left behind
    got = fetch(cfg(sha256=SHA), tmp_path / "raw")
    assert got.path.read_bytes() == PAYLOAD
    assert fake_hub.gets()[0][2] == "bytes=100-"
    assert not part.exists() and not part.parent.exists()


def test_not_found_and_unreachable_and_offline_say_how_to_supply_the_file(
    fake_hub, tmp_path, monkeypatch
):
    with pytest.raises(MemrecallError, match="has no such file") as e:
        fetch(cfg(filename="missing.json"), tmp_path / "raw")
    assert "dataset=local dataset.path=" in str(e.value)

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{closed}")
    with pytest.raises(MemrecallError, match="cannot reach the Hugging Face hub") as e:
        fetch(cfg(), tmp_path / "raw")
    assert "`dataset=local dataset.path=/path/to/data.json`" in str(e.value)

    import huggingface_hub.constants as hfc

    monkeypatch.setattr(hfc, "HF_HUB_OFFLINE", True)
    with pytest.raises(MemrecallError, match="HF_HUB_OFFLINE is set") as e:
        fetch(cfg(), tmp_path / "raw")
    assert "dataset=local dataset.path=" in str(e.value)
    assert files_under(tmp_path / "raw") == []


def test_unreachable_hub_in_the_stage_prints_one_line_no_traceback(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    params = {"dataset": cfg()}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    env = {**os.environ, "HF_ENDPOINT": f"http://127.0.0.1:{closed}", "HF_HUB_OFFLINE": "0"}
    env.pop("DVC_ROOT", None)
    proc = subprocess.run(
        [sys.executable, str(REPO / "stages" / "download.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: cannot reach the Hugging Face hub")
    assert "dataset=local dataset.path=" in lines[0]
    assert not (tmp_path / "artifacts").exists()


def test_oracle_option_end_to_end_with_its_pinned_sha256(fake_hub, tmp_path):
    """conf/dataset/longmemeval_oracle.yaml as shipped: repo, file and sha256 pin, served
    LFS-style."""
    conf = group("dataset", "longmemeval_oracle")
    fake_hub.lfs = True
    fake_hub.files[(conf["repo_id"], conf["filename"])] = shared_file(ORACLE_FILE).read_bytes()
    summ = run(tmp_path, conf)
    assert summ["n_questions"] == 500 and summ["n_abstention"] == 30
    card = (tmp_path / "out" / "data_card.md").read_text()
    assert conf["sha256"] in card and COMMIT in card and "xiaowu0162/longmemeval-cleaned" in card
    assert "sha256 checked against | dataset.sha256" in card
    from memrecall.artifacts import read_table

    q = read_table(tmp_path / "out" / "questions.parquet", "questions")
    # Oracle haystacks are the evidence sessions, so retrieval=oracle can pass them straight on.
    assert all(
        sorted(h) == sorted(e)
        for h, e in q.select("haystack_session_ids", "answer_session_ids").iter_rows()
    )
