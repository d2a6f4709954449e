"""reader.runtime.max_refusal_rate: a read stage whose answers fall into a refusal cascade stops
with a message naming the rate and the window, keeps every answer paid so far (cache), writes no
artifact, and a rerun pays only for the rest. Against a real local OpenAI-protocol server."""

from __future__ import annotations

from pathlib import Path

import pytest

from confs import group
from fake_openai_server import FakeOpenAIServer, fake_runtime, last_user
from memrecall.artifacts import read_table
from memrecall.errors import ConfigError, MemrecallError
from memrecall.llm import CallResult, LLMClient
from memrecall.llm.client import GuardStop
from memrecall.read.refusal_guard import RefusalGuard, refusal_guard
from memrecall.read.stage import run_read
from tables import write_one_session_run

N = 30
REFUSE = "I can't help with that."


def _result(text, error=None):
    return CallResult(text=text, model="m", request_hash="h", error=error)


def test_rolling_window_needs_min_count_and_forgets_old_answers():
    guard = RefusalGuard(0.5, window=4, min_count=3)
    assert guard(_result(REFUSE)) is None and guard(_result(REFUSE)) is None  # 2 < min_count
    msg = guard(_result("Berlin"))  # 2 of 3 refused: 67% > 50%
    assert msg and "2 of the last 3" in msg and "window 4" in msg and "67%" in msg
    g = RefusalGuard(0.5, window=4, min_count=3)
    for text in (REFUSE, "a", "b", "c", REFUSE, REFUSE):  # window: b c R R -> 50%, not above
        assert g(_result(text)) is None
    assert g.rate() == 0.5 and g(_result(REFUSE)) is not None  # c R R R -> 75%


def test_guard_config_is_checked_and_off_by_default():
    cfg = group("reader", "deepseek")
    assert refusal_guard(cfg, str) is None
    for key, bad in (("max_refusal_rate", 1.5), ("refusal_window", 0), ("refusal_min_count", 0)):
        c = group("reader", "deepseek", **{"max_refusal_rate": 0.3, key: bad})
        with pytest.raises(ConfigError, match=f"reader.runtime.{key}"):
            refusal_guard(c, str)
    with pytest.raises(ConfigError, match="refusal_min_count"):
        refusal_guard(
            group(
                "reader", "deepseek", max_refusal_rate=0.3, refusal_window=5, refusal_min_count=6
            ),
            str,
        )


def answer(messages) -> str:
    return REFUSE if "Question: refuse" in last_user(messages) else "Berlin"


def write_inputs(root: Path, refuse_from: int) -> dict:
    """N questions; from question `refuse_from` on the model refuses (the cascade)."""
    return write_one_session_run(
        root,
        [f"q{i:02d}" for i in range(N)],
        ["single-session-user"] * N,
        [("refuse " if i >= refuse_from else "where ") + str(i) for i in range(N)],
        ["Berlin"] * N,
    )


def reader_cfg(server, **over):
    return group(
        "reader",
        "gpt4o",
        **{
            "name": "fake",
            "model": "openai/fake-reader",
            **fake_runtime(server.url),
            "max_tokens": 32,
            "concurrency": 1,
            "prompt": "default",
            "top_k_context": 1,
            "max_refusal_rate": 0.5,
            "refusal_window": 10,
            "refusal_min_count": 5,
            **over,
        },
    )


def run(env, cfg):
    return run_read(
        cfg,
        questions=env["questions"],
        sessions=env["sessions"],
        turns=env["turns"],
        candidates=env["candidates"],
        out=env["out"],
    )


def test_cascade_stops_the_stage_keeps_answers_and_a_rerun_resumes(tmp_path, fresh_cache, fake_key):
    env = write_inputs(tmp_path, refuse_from=10)
    with FakeOpenAIServer(answer=answer) as srv:
        with pytest.raises(
            MemrecallError,
            match=r"refusal cascade: 6 of the last 10 answers "
            r"refused \(60% > .*0\.5; window 10",
        ):
            run(env, reader_cfg(srv))
        paid = srv.total_requests
        # questions 0-9 answer, 10-15 refuse: the window (10) passes 50% at the 16th answer;
        # with one call in flight nothing more was sent
        assert paid == 16
        assert not Path(env["out"]).exists()  # no half-made artifact
        # Same limit: the cached answers trip the guard again before anything is paid.
        with pytest.raises(GuardStop):
            run(env, reader_cfg(srv))
        assert srv.total_requests == paid
        # Guard off: resumes, paying only for the 14 questions never answered.
        df = run(env, reader_cfg(srv, max_refusal_rate=None))
        assert srv.total_requests == N and len(srv.requests) == N  # nothing sent twice
    assert df.height == N and df["refused"].sum() == N - 10
    assert read_table(env["out"], "answers").height == N


def test_guard_is_no_part_of_the_result(tmp_path, fresh_cache, fake_key):
    """A run under a guard that never trips writes the same bytes as one without it."""
    env = write_inputs(tmp_path, refuse_from=N)
    with FakeOpenAIServer(answer=answer) as srv:
        run(env, reader_cfg(srv))
        first = Path(env["out"]).read_bytes()
        run(env, reader_cfg(srv, max_refusal_rate=None, concurrency=4))
    assert Path(env["out"]).read_bytes() == first


def test_failed_calls_are_not_refusals(fresh_cache, fake_key):
    with FakeOpenAIServer(answer=answer) as srv:
        for i in range(6):
            srv.plan(f"fail{i}", ["500"])
        cfg = reader_cfg(srv, refusal_min_count=3, refusal_window=3)
        client = LLMClient(cfg, "read", progress=False)
        client.stop_check = refusal_guard(cfg, str)
        res = client.complete_many([[{"role": "user", "content": f"fail{i}"}] for i in range(6)])
    assert all(r.error for r in res)  # six faults, no refusal counted, no stop
