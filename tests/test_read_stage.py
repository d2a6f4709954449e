"""The read stage end to end against a real local HTTP server speaking the OpenAI protocol:
exact prompts reach the model, answers.parquet has the contract columns, failures are recorded
(not answered), a rerun pays for nothing and writes the same bytes, and a prompt change re-sends
only the requests whose text changed."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from confs import group
from fake_openai_server import FakeOpenAIServer, fake_runtime, last_user
from memrecall.artifacts import read_meta, read_table, write_table
from memrecall.benchmarks.longmemeval import BENCHMARK as LME
from memrecall.benchmarks.longmemeval.prompts import PROMPTS
from memrecall.hashing import sha256_file
from memrecall.read.prompts import NOTES_HASH
from memrecall.read.reader import answer_messages, build_contexts, reader_settings
from memrecall.read.stage import run_read
from memrecall.schema import ANSWERS, polars_schema
from tables import write_downloaded

QUESTIONS = [  # id, type, question, date
    ("q1", "single-session-user", "Where do I live?", "2023/04/01 (Sat) 08:00"),
    ("q2", "multi-session", "How many dogs do I have?", "2023/05/01 (Mon) 12:00"),
    ("q3", "knowledge-update", "What is my job now?", "2023/06/01 (Thu) 09:00"),
]
SESSIONS = {
    "a": "2023/01/05 (Thu) 10:00",
    "b": "2023/02/01 (Wed) 09:00",
    "c": "2023/03/01 (Wed) 08:00",
}
TURNS = [
    ("a", 0, "user", "I live in Berlin and got a dog."),
    ("a", 1, "assistant", "Nice!"),
    ("b", 0, "user", "I work as a nurse."),
    ("c", 0, "user", "Second dog! I am a doctor now."),
]
RANKS = {"q1": ["a", "b"], "q2": ["c", "a", "b"], "q3": ["c", "b"]}


def write_inputs(root: Path) -> dict:
    art = root / "artifacts"
    q = pl.DataFrame(
        {
            "question_id": [x[0] for x in QUESTIONS],
            "question_type": [x[1] for x in QUESTIONS],
            "is_abstention": [False] * 3,
            "question": [x[2] for x in QUESTIONS],
            "answer": ["Berlin", "2", "doctor"],
            "question_date": [x[3] for x in QUESTIONS],
            "haystack_session_ids": [list(SESSIONS)] * 3,
            "answer_session_ids": [["a"], ["a", "c"], ["c"]],
        }
    )
    s = pl.DataFrame(
        {"session_id": list(SESSIONS), "date": list(SESSIONS.values()), "content_hash": ["x"] * 3}
    )
    t = pl.DataFrame(
        TURNS, schema=["session_id", "turn_index", "role", "content"], orient="row"
    ).with_columns(has_answer=pl.lit(False))
    c = pl.DataFrame(
        [(qid, r, sid, 1.0 / r) for qid, ids in RANKS.items() for r, sid in enumerate(ids, 1)],
        schema=["question_id", "rank", "session_id", "score"],
        orient="row",
    )
    paths = {}
    for name, df in (("questions", q), ("sessions", s), ("turns", t)):
        paths[name] = str(write_downloaded(df, art / f"{name}.parquet", table=name))
    paths["candidates"] = str(
        write_table(c, art / "candidates.parquet", table="candidates", stage="test")
    )
    paths["out"] = str(art / "answers.parquet")
    return paths


def answer(messages) -> str:
    text = last_user(messages)
    if "Reading notes:" in text:
        return "note: " + text.split("Session Content:\n", 1)[1][:40]
    if text.endswith("Notes:"):
        return "Session 1: lives in Berlin\nAnswer: Berlin"
    if "What is my job" in text:
        return "I can't help with that."
    return "Berlin"


@pytest.fixture
def server():
    with FakeOpenAIServer(answer=answer) as srv:
        yield srv


@pytest.fixture
def env(tmp_path, fresh_cache, fake_key):
    return write_inputs(tmp_path)


def cfg(server, **over):
    return group(
        "reader",
        "gpt4o",
        **{
            "name": "fake",
            "model": "openai/fake-reader",
            **fake_runtime(server.url, num_retries=1),
            "max_tokens": 32,
            "concurrency": 2,
            "backoff_s": 0.01,
            "prompt": "default",
            "history_format": "nl",
            "reading": "direct",
            "top_k_context": 2,
            "max_chars_per_session": 200,
            **over,
        },
    )


def calls(cache: Path) -> int:
    log = cache / "llm" / "calls.jsonl"
    return len(log.read_text().splitlines()) if log.exists() else 0


def run(env, reader_cfg):
    return run_read(
        reader_cfg,
        questions=env["questions"],
        sessions=env["sessions"],
        turns=env["turns"],
        candidates=env["candidates"],
        out=env["out"],
        prompts_out=prompts_file(env),
    )


def prompts_file(env) -> Path:
    return Path(env["out"]).parent / "prompts.json"


def test_answers_table_and_exact_requests(server, env, fresh_cache, capsys):
    c = cfg(server)
    df = run(env, c)
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith(f"model calls 3, cached 0, failed 0; prompt {PROMPTS['default'].prompt_id}")
    )
    table = read_table(env["out"], "answers")
    assert table.columns[: len(ANSWERS.names)] == ANSWERS.names
    assert dict(table.schema) == polars_schema("answers")  # every column as schema.py says
    assert table.get_column("question_id").to_list() == ["q1", "q2", "q3"]
    assert table.get_column("hypothesis").to_list() == [
        "Berlin",
        "Berlin",
        "I can't help with that.",
    ]
    assert table.get_column("refused").to_list() == [False, False, True]
    assert table.get_column("error").to_list() == [None] * 3
    assert set(table.get_column("prompt_id")) == {PROMPTS["default"].prompt_id}
    assert table.get_column("model").to_list() == ["openai/fake-reader"] * 3
    assert table.get_column("request_hash").null_count() == 0
    assert (table.get_column("input_tokens") > 0).all()
    assert table.get_column("context_session_ids").to_list() == [["a", "b"], ["a", "c"], ["b", "c"]]
    assert read_meta(env["out"])["stage"] == "read"
    # The server got exactly the prompts assembled from the inputs, one user message each.
    settings = reader_settings(c, LME)
    ctxs = build_contexts(
        settings,
        read_table(env["questions"]),
        read_table(env["sessions"]),
        read_table(env["turns"]),
        read_table(env["candidates"]),
    )
    sent = sorted(json.dumps(b["messages"]) for b in server.bodies)
    assert sent == sorted(json.dumps(answer_messages(settings, x)) for x in ctxs)
    assert (
        "Current Date: 2023/05/01 (Mon) 12:00\nQuestion: How many dogs do I have?"
        in answer_messages(settings, ctxs[1])[0]["content"]
    )
    assert df.height == 3 and calls(fresh_cache) == 3


def test_the_rendered_prompts_are_recorded(server, env, fresh_cache):
    """reports/prompts.json: prompt id -> the template and the exact messages of the first
    answered question, so MLflow can show a run's prompt without re-running old code."""
    run(env, cfg(server, prompt="type_aware"))
    recorded = json.loads(prompts_file(env).read_text())
    pid = PROMPTS["type_aware"].prompt_id
    assert list(recorded) == [pid]
    entry = recorded[pid]
    assert entry["template"] == PROMPTS["type_aware"].template
    assert set(entry["guidance"]) == {"multi-session", "knowledge-update"}
    assert entry["example"]["question_id"] == "q1"
    sent_q1 = [
        b["messages"] for b in server.bodies if "Where do I live?" in b["messages"][0]["content"]
    ]
    assert sent_q1 == [entry["example"]["messages"]]

    run(env, cfg(server, prompt="con", reading="con"))
    recorded = json.loads(prompts_file(env).read_text())
    assert sorted(recorded) == sorted(
        [f"{PROMPTS['con'].prompt_id}+notes:{NOTES_HASH}", f"notes:{NOTES_HASH}"]
    )
    notes = recorded[f"notes:{NOTES_HASH}"]["example"]["messages"][0]["content"]
    assert notes.startswith("I will give you one past chat session") and "Where do I live?" in notes


def test_rerun_is_free_and_byte_identical(server, env, fresh_cache):
    run(env, cfg(server))
    first = sha256_file(env["out"]), sha256_file(prompts_file(env))
    run(env, cfg(server))
    assert (sha256_file(env["out"]), sha256_file(prompts_file(env))) == first
    assert server.total_requests == 3 and calls(fresh_cache) == 3


def test_prompt_change_resends_only_changed_requests(server, env, fresh_cache):
    run(env, cfg(server))
    run(env, cfg(server, prompt="type_aware"))
    # type_aware differs from default only for multi-session (q2) and knowledge-update (q3).
    assert server.total_requests == 5 and calls(fresh_cache) == 5
    ids = read_table(env["out"]).get_column("prompt_id").to_list()
    assert ids == [PROMPTS["type_aware"].prompt_id] * 3


def test_failed_call_is_recorded_not_answered(server, env, fresh_cache):
    server.plan("Where do I live?", ["500"] * 10)
    run(env, cfg(server))
    row = read_table(env["out"]).filter(pl.col("question_id") == "q1").row(0, named=True)
    assert row["hypothesis"] is None and row["refused"] is False
    assert row["error"]  # the failure, recorded for the judge to skip
    ok = read_table(env["out"]).filter(pl.col("question_id") != "q1")
    assert ok.get_column("error").null_count() == 2


def test_chain_of_note_reading(server, env, fresh_cache):
    c = cfg(server, prompt="con", reading="con", history_format="json")
    run(env, c)
    table = read_table(env["out"])
    # 2 context sessions per question -> 2 note calls + 1 answer call each.
    assert server.total_requests == 9 and calls(fresh_cache) == 9
    assert table.get_column("hypothesis").to_list() == ["Berlin"] * 3
    assert table.get_column("raw")[0] == "Session 1: lives in Berlin\nAnswer: Berlin"
    assert set(table.get_column("prompt_id")) == {f"{PROMPTS['con'].prompt_id}+notes:{NOTES_HASH}"}
    final = [
        b["messages"][0]["content"]
        for b in server.bodies
        if b["messages"][0]["content"].endswith("Notes:")
    ]
    assert len(final) == 3
    # Each answer prompt shows the two notes in place of the raw sessions.
    assert all(f.count('{"reading_notes": "note: ') == 2 for f in final)


def test_failed_note_skips_the_answer_call(server, env, fresh_cache):
    server.plan("I work as a nurse", ["500"] * 10)  # session b: in q1's and q3's context
    run(env, cfg(server, reading="con"))
    table = read_table(env["out"])
    errs = dict(zip(table.get_column("question_id"), table.get_column("error")))
    assert errs["q2"] is None
    assert errs["q1"].startswith("reading notes:") and errs["q3"].startswith("reading notes:")
    answered = [b for b in server.bodies if b["messages"][0]["content"].endswith("Answer:")]
    assert len(answered) == 1  # only q2 got its answer call


def test_empty_answer_is_a_refusal_not_an_error(server, env):
    server.plan("How many dogs", ["empty"])
    run(env, cfg(server))
    row = read_table(env["out"]).filter(pl.col("question_id") == "q2").row(0, named=True)
    assert row["hypothesis"] == "" and row["refused"] is True and row["error"] is None
