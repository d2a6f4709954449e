"""dataset=evermembench from the hub: the ten topic files of one pinned revision, fetched file by
file (resumable, sha256-checked, pinned) through the real code path, against the local server
that answers like the Hugging Face hub (test_data_hub.FakeHub); the offline error says how to
supply the folder by hand."""

import hashlib
import json
from pathlib import Path

import pytest

from confs import group
from memrecall.data import hub
from memrecall.errors import ConfigError, MemrecallError
from test_data_hub import COMMIT, fake_hub  # noqa: F401 - the fixture
from test_evermembench_data import run, tables

REPO_ID = "EverMind-AI/EverMemBench-Dynamic"
TOPICS = Path(__file__).parent / "fixtures" / "evermembench" / "topics"
FILES = ["01/dialogue.json", "01/qa_01.json", "02/dialogue.json", "02/qa_02.json"]


def serve(server, lfs=True):
    server.lfs = lfs
    for name in FILES:
        server.files[(REPO_ID, name)] = (TOPICS / name).read_bytes()


def cfg(**kw):
    # the shipped option, pointed at the fixture's four files and the fake hub's commit
    return group("dataset", "evermembench", filename=list(FILES), revision=COMMIT, **kw)


def test_shipped_option_pins_a_revision_and_lists_the_ten_files():
    c = group("dataset", "evermembench")
    assert c["source"] == "hub" and c["format"] == "evermembench" and c["repo_id"] == REPO_ID
    assert len(c["revision"]) == 40 and len(c["filename"]) == 10 and c["parts"] is None
    assert c["filename"][:2] == ["01/dialogue.json", "01/qa_01.json"]


def test_download_then_cached_then_parts(fake_hub, tmp_path):  # noqa: F811
    serve(fake_hub)
    out = run(tmp_path, cfg())
    q, s, _ = tables(out)
    assert q.height == 9 and s.height == 8
    raw = tmp_path / "raw" / REPO_ID
    for name in FILES:
        pin = json.loads((raw / f"{name}.pin.json").read_text())
        assert pin["commit"] == COMMIT
        assert pin["sha256"] == hashlib.sha256((TOPICS / name).read_bytes()).hexdigest()
    card = (out / "data_card.md").read_text()
    assert f"commit `{COMMIT}`" in card and "the hub's ETag" in card
    n = len(fake_hub.requests)
    q2, _, _ = tables(run(tmp_path, cfg(parts=["02"]), "again"))
    assert len(fake_hub.requests) == n  # all from data/raw, nobody contacted
    assert q2["topic"].unique().to_list() == ["02"]


def test_pinned_sha256_per_file_and_a_mismatch(fake_hub, tmp_path):  # noqa: F811
    serve(fake_hub, lfs=False)
    shas = {n: hashlib.sha256((TOPICS / n).read_bytes()).hexdigest() for n in FILES}
    got = hub.fetch_files(cfg(sha256=shas), tmp_path / "raw")
    assert got.path == tmp_path / "raw" / REPO_ID and got.verified_by == "config"
    bad = {**shas, "02/qa_02.json": "0" * 64}
    with pytest.raises(MemrecallError, match="sha256 mismatch"):
        hub.fetch_files(cfg(sha256=bad), tmp_path / "raw2")
    with pytest.raises(ConfigError, match="dataset.sha256"):
        hub.fetch_files(cfg(sha256={"03/qa_03.json": "0" * 64}), tmp_path / "raw3")


def test_resumes_a_partial_file(fake_hub, tmp_path):  # noqa: F811
    serve(fake_hub, lfs=False)
    data = (TOPICS / "01/dialogue.json").read_bytes()
    part = hub.partial_path(
        tmp_path / "raw", REPO_ID, "01/dialogue.json", hashlib.sha1(data).hexdigest()
    )
    part.parent.mkdir(parents=True)
    part.write_bytes(data[:200])
    hub.fetch_files(cfg(), tmp_path / "raw")
    assert (
        "GET",
        f"/datasets/{REPO_ID}/resolve/{COMMIT}/01/dialogue.json",
        "bytes=200-",
    ) in fake_hub.requests
    assert (tmp_path / "raw" / REPO_ID / "01/dialogue.json").read_bytes() == data


def test_offline_says_how_to_supply_the_folder(fake_hub, tmp_path, monkeypatch):  # noqa: F811
    import huggingface_hub.constants as hfc

    monkeypatch.setattr(hfc, "HF_HUB_OFFLINE", True)
    with pytest.raises(MemrecallError, match="HF_HUB_OFFLINE is set") as e:
        run(tmp_path, cfg())
    assert "`dataset=local dataset.path=/path/to/that/folder`" in str(e.value)
    assert "01/dialogue.json, 01/qa_01.json" in str(e.value)
    assert not (tmp_path / "out").exists()
