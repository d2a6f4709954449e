"""reader=plugin: the openai example against a real local HTTP server, concurrency, failures
recorded and retried on the next run, answers never asked twice, usage in the answers table,
and clear errors for answers of the wrong shape."""

from __future__ import annotations

import re
import time

import polars as pl
import pytest

from confs import group
from conftest import REPO
from fake_openai_server import FakeOpenAIServer, last_user
from memrecall.artifacts import read_meta, write_table
from memrecall.hashing import sha256_file
from memrecall.plugins import PluginError
from memrecall.read.stage import run_read
from test_plugin_retrieval import write_plugin

SESSIONS = {
    f"s{i}": [("user", f"My favourite number is {i}.", True), ("assistant", f"Noted: {i}.", False)]
    for i in range(4)
}
N_QUESTIONS = 6


@pytest.fixture
def tables(tmp_path):
    q = pl.DataFrame(
        [
            (
                f"q{i}",
                "single-session-user",
                False,
                f"What is number {i}?",
                str(i),
                "2023/06/01 (Thu) 10:00",
                ["s0", "s1", "s2", "s3"],
                ["s0"],
                [f"2023/05/0{j + 1} (Mon) 10:00" for j in range(4)],
            )
            for i in range(N_QUESTIONS)
        ],
        schema={
            "question_id": pl.String,
            "question_type": pl.String,
            "is_abstention": pl.Boolean,
            "question": pl.String,
            "answer": pl.String,
            "question_date": pl.String,
            "haystack_session_ids": pl.List(pl.String),
            "answer_session_ids": pl.List(pl.String),
            "haystack_dates": pl.List(pl.String),
        },
        orient="row",
    )
    s = pl.DataFrame(
        {
            "session_id": sorted(SESSIONS),
            "date": ["2023/01/01 (Sun) 10:00"] * 4,
            "content_hash": ["h"] * 4,
        }
    )
    t = pl.DataFrame(
        [
            (sid, i, r, c, a)
            for sid in sorted(SESSIONS)
            for i, (r, c, a) in enumerate(SESSIONS[sid])
        ],
        schema={
            "session_id": pl.String,
            "turn_index": pl.Int32,
            "role": pl.String,
            "content": pl.String,
            "has_answer": pl.Boolean,
        },
        orient="row",
    )
    # Candidates best first: s3, s1, s0, s2 for every question.
    c = pl.DataFrame(
        [
            (f"q{i}", r, sid, 1.0 / r)
            for i in range(N_QUESTIONS)
            for r, sid in enumerate(["s3", "s1", "s0", "s2"], 1)
        ],
        schema={
            "question_id": pl.String,
            "rank": pl.Int32,
            "session_id": pl.String,
            "score": pl.Float64,
        },
        orient="row",
    )
    files = {n: tmp_path / f"{n}.parquet" for n in ("questions", "sessions", "turns", "candidates")}
    for (name, df), table in zip(
        [("questions", q), ("sessions", s), ("turns", t), ("candidates", c)],
        ["questions", "sessions", "turns", "candidates"],
    ):
        write_table(df, files[name], table=table, stage="test")
    return {k: str(v) for k, v in files.items()} | {"out": str(tmp_path / "answers.parquet")}


def read(tables, cfg):
    # the shape conf/ gives a stage (runtime knobs given flat); no options unless the test sets them
    cfg = group("reader", "plugin", **{"options": {}, **cfg})
    return run_read(
        cfg,
        questions=tables["questions"],
        sessions=tables["sessions"],
        turns=tables["turns"],
        candidates=tables["candidates"],
        out=tables["out"],
    )


def answer_question(messages) -> str:
    m = re.search(r"Question: (.*)\n", last_user(messages))
    return f"answer to <{m.group(1)}>" if m else "no question found"


OPENAI_CFG = {
    "name": "plugin",
    "callable": "examples.openai_reader:OpenAIReader",
    "options": {"model": "local-model", "input_cost_per_mtok": 2.0, "output_cost_per_mtok": 8.0},
    "code": "examples/openai_reader.py",
    "top_k_context": 3,
    "concurrency": 3,
    "timeout_s": 30,
    "num_retries": 1,
    "backoff_s": 0.01,
}


def test_openai_example_against_a_local_server(tables, fresh_cache, monkeypatch):
    monkeypatch.chdir(REPO)
    with FakeOpenAIServer(latency=(0.2, 0.2), answer=answer_question) as srv:
        monkeypatch.setenv("LOCAL_OPENAI_BASE_URL", srv.url)
        df = read(tables, OPENAI_CFG)
        assert srv.total_requests == N_QUESTIONS
        assert srv.max_in_flight == 3  # reader concurrency honoured by the async plug-in
        body = srv.bodies[0]
        assert body["model"] == "local-model" and body["max_tokens"] == 256
        prompt = last_user(body["messages"])
        # The top 3 candidates (s3, s1, s0), shown in date order with this question's dates.
        assert [int(x) for x in re.findall(r"My favourite number is (\d)", prompt)] == [0, 1, 3]
        assert "(date: 2023/05/04 (Mon) 10:00)" in prompt
        first = open(tables["out"], "rb").read()

        assert df["hypothesis"].to_list() == [
            f"answer to <What is number {i}?>" for i in range(N_QUESTIONS)
        ]
        assert df["error"].null_count() == N_QUESTIONS and not df["refused"].any()
        assert df["context_session_ids"].to_list() == [["s3", "s1", "s0"]] * N_QUESTIONS
        sent = srv.stats()["usage_sent"]  # the server's usage, as reported back
        assert df["input_tokens"].sum() == sent["prompt_tokens"] > 0
        assert df["output_tokens"].sum() == sent["completion_tokens"] == 6 * N_QUESTIONS
        expected_cost = (df["input_tokens"] * 2.0 + df["output_tokens"] * 8.0) / 1e6
        assert df["cost_usd"].to_list() == pytest.approx(expected_cost.to_list())
        assert set(df["model"]) == {"local-model"}
        assert df["prompt_id"].str.starts_with("plugin:").all()
        meta = read_meta(tables["out"])["params"]
        assert meta["plugin"]["code"] == {
            "file": "examples/openai_reader.py",
            "sha256": sha256_file(REPO / "examples/openai_reader.py"),
        }
        assert "concurrency" not in meta and "timeout_s" not in meta  # operational knobs

        # A rerun asks nothing (answers are cached as they come) and writes the same bytes,
        # even with other operational knobs.
        read(tables, {**OPENAI_CFG, "concurrency": 1})
        assert srv.total_requests == N_QUESTIONS
        assert open(tables["out"], "rb").read() == first


def test_failures_are_recorded_and_retried_next_run(tables, fresh_cache, monkeypatch):
    monkeypatch.chdir(REPO)
    with FakeOpenAIServer(answer=answer_question) as srv:
        monkeypatch.setenv("LOCAL_OPENAI_BASE_URL", srv.url)
        srv.plan("What is number 2?", ["500", "503"])  # both attempts fail (num_retries 1)
        df = read(tables, OPENAI_CFG)
        bad = df.filter(pl.col("question_id") == "q2").row(0, named=True)
        assert bad["hypothesis"] is None and not bad["refused"]
        assert re.search(r"plug-in failed: InternalServerError: .*after 2 attempts", bad["error"])
        assert df["error"].null_count() == N_QUESTIONS - 1
        assert srv.total_requests == N_QUESTIONS + 1
        # Next run: only the failed question is asked again, and now it is answered.
        df2 = read(tables, OPENAI_CFG)
        assert srv.total_requests == N_QUESTIONS + 2
        assert df2["error"].null_count() == N_QUESTIONS
        assert df2.filter(pl.col("question_id") == "q2")["hypothesis"].to_list() == [
            "answer to <What is number 2?>"
        ]


def test_a_missing_server_address_is_a_recorded_failure(tables, fresh_cache, monkeypatch):
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("LOCAL_OPENAI_BASE_URL", raising=False)
    df = read(tables, {**OPENAI_CFG, "num_retries": 0})
    assert df["hypothesis"].null_count() == N_QUESTIONS
    assert df["error"].str.contains(r"set \$LOCAL_OPENAI_BASE_URL").all()


SYNC_READER = """
    import threading, time
    LOCK = threading.Lock()
    STATE = {"now": 0, "max": 0, "asked": []}
    class Reader:
        def __init__(self, prefix="A"):
            self.prefix = prefix
        def answer(self, q):
            with LOCK:
                STATE["now"] += 1
                STATE["max"] = max(STATE["max"], STATE["now"])
                STATE["asked"].append((q.question_id, q.question_type, q.question_date,
                                       [(s.session_id, s.date, len(s.turns)) for s in q.sessions]))
            time.sleep(0.15)
            with LOCK:
                STATE["now"] -= 1
            return {"text": self.prefix + q.question_id, "input_tokens": 7, "cost_usd": 0.5}
"""


def test_sync_plugin_runs_in_threads_up_to_concurrency(tables, fresh_cache, tmp_path, monkeypatch):
    import sys

    name = write_plugin(tmp_path, monkeypatch, SYNC_READER)
    cfg = {
        "name": "plugin",
        "callable": f"{name}:Reader",
        "options": {},
        "code": f"{name}.py",
        "top_k_context": None,
        "concurrency": 2,
    }
    df = read(tables, cfg)
    state = sys.modules[name].STATE
    assert state["max"] == 2
    assert sorted(state["asked"])[0] == (
        "q0",
        "single-session-user",
        "2023/06/01 (Thu) 10:00",
        [
            ("s3", "2023/05/04 (Mon) 10:00", 2),
            ("s1", "2023/05/02 (Mon) 10:00", 2),
            ("s0", "2023/05/01 (Mon) 10:00", 2),
            ("s2", "2023/05/03 (Mon) 10:00", 2),
        ],
    )
    assert df["hypothesis"].to_list() == [f"Aq{i}" for i in range(N_QUESTIONS)]
    assert df["cost_usd"].sum() == pytest.approx(0.5 * N_QUESTIONS)
    assert set(df["model"]) == {f"{name}:Reader"}
    # New options are a new identity: every question is asked again.
    read(tables, {**cfg, "options": {"prefix": "B"}})
    assert len(state["asked"]) == 2 * N_QUESTIONS


@pytest.mark.parametrize(
    "ret, pattern",
    [
        ("42", r"answer\(\) returned a int: 42"),
        ("{'answer': 'x'}", r"a dict with unknown keys \['answer'\]"),
        ("{'text': None}", r"text None \(not a str\)"),
        ("{'text': 'x', 'input_tokens': -1}", r"input_tokens=-1 \(not a non-negative int\)"),
        ("{'text': 'x', 'cost_usd': float('inf')}", r"cost_usd=inf"),
    ],
)
def test_wrong_answer_shapes_stop_the_stage(
    ret, pattern, tables, fresh_cache, tmp_path, monkeypatch
):
    name = write_plugin(
        tmp_path, monkeypatch, f"class R:\n    def answer(self, q):\n        return {ret}\n"
    )
    cfg = {"name": "plugin", "callable": f"{name}:R", "code": f"{name}.py", "concurrency": 1}
    with pytest.raises(PluginError, match=pattern) as e:
        read(tables, cfg)
    msg = str(e.value)
    assert f"plug-in '{name}:R' (reader.callable), question 'q0'" in msg
    assert "expected a str, an Answer(text" in msg
    assert not (tmp_path / "answers.parquet").exists()  # nothing half-written
    with pytest.raises(PluginError, match=r"has no method answer\(\)"):
        name2 = write_plugin(tmp_path, monkeypatch, "class R:\n    pass\n")
        read(tables, {**cfg, "callable": f"{name2}:R", "code": f"{name2}.py"})


def test_async_timeout_is_a_recorded_failure(tables, fresh_cache, tmp_path, monkeypatch):
    name = write_plugin(
        tmp_path,
        monkeypatch,
        """
        import asyncio
        class R:
            async def answer(self, q):
                if q.question_id == "q1":
                    await asyncio.sleep(5)
                return q.question_id
    """,
    )
    cfg = {
        "name": "plugin",
        "callable": f"{name}:R",
        "code": f"{name}.py",
        "concurrency": 6,
        "timeout_s": 0.3,
        "num_retries": 0,
    }
    t0 = time.perf_counter()
    df = read(tables, cfg)
    assert time.perf_counter() - t0 < 4
    assert df.filter(pl.col("error").is_not_null())["question_id"].to_list() == ["q1"]
    assert "no answer within 0.3 s" in df["error"][1]
