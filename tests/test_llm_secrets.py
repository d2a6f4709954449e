"""An API key set in the environment reaches the provider and nothing else: not the call cache,
not calls.jsonl, not error messages, not log output. (The lead extends the scan to params.yaml,
dvc.lock, Parquet, reports and MLflow in the pipeline test.)"""

from __future__ import annotations

import logging

from confs import group
from fake_openai_server import FakeOpenAIServer
from memrecall.llm import LLMClient

SECRET = "fake-key-memrecall-SECRET-0123456789abcdef"  # not a real key


def test_api_key_is_used_but_never_written(tmp_path, fresh_cache, monkeypatch, caplog, capfd):
    monkeypatch.setenv("MEMRECALL_SECRET_KEY", SECRET)
    caplog.set_level(logging.DEBUG)  # everything any logger emits is captured and scanned
    with FakeOpenAIServer() as srv:
        # A careless server that quotes the Authorization header back in its error message.
        srv.plan("echo", ["echo401"])
        srv.plan("flaky", ["500", "hang"])
        cfg = group(
            "reader",
            "gpt4o",
            model="openai/gpt-4o-2024-08-06",
            api_base=srv.url,
            api_key_env="MEMRECALL_SECRET_KEY",
            max_tokens=8,
            concurrency=2,
            timeout_s=0.5,
            num_retries=2,
            backoff_s=0.01,
        )
        client = LLMClient(cfg, "read", progress=True)
        res = client.complete_many(
            [[{"role": "user", "content": t}] for t in ("hello", "echo", "flaky")], desc="read"
        )
        assert srv.auth_headers == {f"Bearer {SECRET}"}  # the key was really sent
    assert res[0].ok and res[2].ok
    assert res[1].error and "HTTP 401" in res[1].error and SECRET not in res[1].error
    assert "***" in res[1].error

    files = [p for p in fresh_cache.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"calls.sqlite", "calls.jsonl"}
    for p in files:  # sqlite db, its WAL, the journal
        assert SECRET.encode() not in p.read_bytes(), p
    out, err = capfd.readouterr()
    assert SECRET not in out and SECRET not in err
    assert SECRET not in caplog.text
    assert all(SECRET not in str(r) for r in res)
    assert SECRET not in repr(client.__dict__)  # the key is not even kept on the client


def test_key_cut_by_error_truncation_is_still_masked(fresh_cache, monkeypatch):
    """Error text is cut to a few hundred characters: a key straddling the cut must not leave
    its first characters behind (the mask has to be applied before the cut)."""
    monkeypatch.setenv("MEMRECALL_SECRET_KEY", SECRET)

    class EchoAuthError(Exception):
        status_code = 401

    async def attempt(self, messages, api_key):
        raise EchoAuthError("x" * 260 + f" Authorization: Bearer {api_key} rejected")

    monkeypatch.setattr(LLMClient, "_attempt", attempt)
    cfg = group(
        "reader",
        "gpt4o",
        model="openai/gpt-4o-2024-08-06",
        api_base="http://127.0.0.1:9/v1",
        api_key_env="MEMRECALL_SECRET_KEY",
        num_retries=0,
    )
    res = LLMClient(cfg, "read", progress=False).complete([{"role": "user", "content": "hi"}])
    assert res.error and "HTTP 401" in res.error
    assert SECRET[:8] not in res.error, res.error
