"""Provenance behind comparability: every answer records the endpoint's host and the model id
the response names (never a key or a URL's credentials), the cache keeps it with the answer,
the judge stage writes a summary into the verdicts' metadata, and `comparable_to_published`
holds only when the official provider's endpoint answered as the pinned snapshot."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import polars as pl
import pytest

from confs import group
from fake_openai_server import KEY, FakeOpenAIServer, fake_runtime
from memrecall import benchmarks
from memrecall.artifacts import read_meta, write_table
from memrecall.llm import CallCache, LLMClient
from memrecall.llm.provenance import UNRECORDED, endpoint_host, merge, problems, summarise, url_host
from memrecall.report.aggregate import judge_info

STANDIN = (
    Path(__file__).parent
    / "fixtures"
    / "official_standin"
    / "src"
    / "evaluation"
    / "evaluate_qa.py"
)
LME = benchmarks.get("longmemeval")
OFFICIAL_JUDGE_MODEL = LME.official_judge.pinned_model


def test_host_keeps_only_the_host_name():
    assert url_host("https://user:secret@Proxy.Example.com:8443/v1?key=abc") == "proxy.example.com"
    assert url_host("127.0.0.1:8000/v1") == "127.0.0.1"
    assert "secret" not in url_host("http://:secret@/") and url_host("") == "unparsed-endpoint"


def test_host_follows_api_base_then_environment_then_provider(monkeypatch):
    for env in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "DEEPSEEK_API_BASE"):
        monkeypatch.delenv(env, raising=False)
    assert endpoint_host("openai", None) == "api.openai.com"
    assert endpoint_host("deepseek", None) == "api.deepseek.com"
    # litellm sends an openai call to OPENAI_BASE_URL when no api_base is given.
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:9/v1")
    assert endpoint_host("openai", None) == "localhost"
    assert endpoint_host("openai", "https://relay.example.org/v1") == "relay.example.org"
    assert endpoint_host("local", None) == "in-process"


def test_problems_name_every_answer_that_is_not_official():
    host, model = "api.openai.com", OFFICIAL_JUDGE_MODEL
    ok = summarise({(host, model): 3})
    assert problems(ok, host=host, model=model) == []
    mixed = merge(ok, summarise({("127.0.0.1", model): 2, (UNRECORDED, UNRECORDED): 1}))
    assert problems(mixed, host=host, model=model) == [
        "2 of 6 answers came from 127.0.0.1, not api.openai.com",
        "1 of 6 answers came from cached calls made before endpoints were recorded",
    ]
    other = summarise({(host, "gpt-4o-2024-11-20"): 1})
    assert problems(other, host=host, model=model) == [
        "1 of 1 responses were answered by gpt-4o-2024-11-20, not gpt-4o-2024-08-06"
    ]
    assert problems(None, host=host, model=model)[0].startswith("no record")


def test_client_records_host_and_response_model_and_the_cache_keeps_them(fresh_cache, fake_key):
    with FakeOpenAIServer(answer=lambda m: "yes") as srv:
        cfg = group("judge", "official", official_script=str(STANDIN), **srv.runtime())
        client = LLMClient(cfg, stage="judge", progress=False)
        fresh = client.complete_many([[{"role": "user", "content": "a"}]])[0]
    assert fresh.ok, fresh.error
    assert (fresh.endpoint_host, fresh.response_model) == ("127.0.0.1", OFFICIAL_JUDGE_MODEL)
    # A cached answer keeps the provenance of the call that paid for it, whatever api_base the
    # config names now: pointing the config at the official endpoint does not launder it.
    cfg["runtime"]["api_base"] = None
    again = LLMClient(cfg, stage="judge", progress=False)
    cached = again.complete_many([[{"role": "user", "content": "a"}]])[0]
    assert cached.cached and cached.endpoint_host == "127.0.0.1"
    assert again.provenance.summary() == {
        "answers": 1,
        "endpoints": {"127.0.0.1": 1},
        "response_models": {OFFICIAL_JUDGE_MODEL: 1},
    }
    raw = sqlite3.connect(again.cache.db_path).execute("SELECT * FROM calls").fetchall()
    assert KEY not in repr(raw)


def test_a_cache_from_before_provenance_reads_as_unrecorded(tmp_path):
    db = tmp_path / "calls.sqlite"
    con = sqlite3.connect(db)
    con.execute(
        "CREATE TABLE calls (request_hash TEXT PRIMARY KEY, model TEXT NOT NULL, "
        "text TEXT NOT NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT "
        "NULL, reasoning_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL, latency_s REAL "
        "NOT NULL, stage TEXT, created_unix REAL)"
    )
    con.execute("INSERT INTO calls VALUES ('h', 'm', 'yes', 1, 1, 0, 0.0, 0.1, 'judge', 0)")
    con.commit()
    con.close()
    row = CallCache(tmp_path).get("h")
    assert row["text"] == "yes" and row["endpoint_host"] is None and row["response_model"] is None


def _judge_run(tmp_path, api_base):
    from memrecall.judge.stage import run_judge

    q = pl.DataFrame(
        [
            {
                "question_id": "q1",
                "question_type": "single-session-user",
                "is_abstention": False,
                "question": "Where?",
                "answer": "IKEA",
                "question_date": "2023/05/30 (Tue) 10:00",
                "haystack_session_ids": [],
                "answer_session_ids": [],
            },
            {
                "question_id": "q2",
                "question_type": "multi-session",
                "is_abstention": False,
                "question": "How many?",
                "answer": "5",
                "question_date": "2023/05/30 (Tue) 10:00",
                "haystack_session_ids": [],
                "answer_session_ids": [],
            },
        ],
        schema_overrides={
            "haystack_session_ids": pl.List(pl.String),
            "answer_session_ids": pl.List(pl.String),
        },
    )
    a = pl.DataFrame(
        [
            {
                "question_id": i,
                "hypothesis": "nonsense",
                "model": "m",
                "prompt_id": "p",
                "request_hash": None,
                "input_tokens": 0,
                "output_tokens": 0,
                "reasoning_tokens": 0,
                "cost_usd": 0.0,
                "latency_s": 0.0,
                "refused": False,
                "error": None,
            }
            for i in ("q1", "q2")
        ],
        schema_overrides={"request_hash": pl.String, "error": pl.String},
    )
    qp, ap, vp = (tmp_path / f"{n}.parquet" for n in ("questions", "answers", "verdicts"))
    write_table(
        q, qp, table="questions", stage="download", extra_meta={benchmarks.META_KEY: "longmemeval"}
    )
    write_table(a, ap, table="answers", stage="read")
    cfg = group(
        "judge",
        "official",
        official_script=str(STANDIN),
        **fake_runtime(api_base),
    )
    v = run_judge(cfg, questions=qp, answers=ap, out=vp)
    return vp, v


def test_a_local_server_that_says_yes_is_not_comparable(tmp_path, fresh_cache, fake_key):
    with FakeOpenAIServer(answer=lambda m: "yes") as srv:
        vp, v = _judge_run(tmp_path, srv.url)
    assert v["label"].to_list() == [True, True]
    meta = read_meta(vp)
    assert meta["provenance"] == {
        "answers": 2,
        "endpoints": {"127.0.0.1": 2},
        "response_models": {OFFICIAL_JUDGE_MODEL: 2},
    }
    assert "provenance" not in meta["params"]  # beside the result's identity, not in it
    info = judge_info(vp, v, LME)
    assert info["comparable_to_published"] is False
    assert info["not_comparable_because"] == [
        "2 of 2 answers came from 127.0.0.1, not api.openai.com"
    ]
    assert "127.0.0.1" in info["comparability"] and info["provenance"] == meta["provenance"]


def test_the_official_endpoint_answering_as_the_snapshot_is_comparable(tmp_path, monkeypatch):
    # What a run against api.openai.com records; written by hand (no network in tests).
    v = pl.DataFrame(
        {
            "question_id": ["q1"],
            "label": [True],
            "judge_model": [OFFICIAL_JUDGE_MODEL],
            "raw": ["yes"],
            "error": [None],
        },
        schema_overrides={"error": pl.String},
    )
    params = group("judge", "official", official_script=str(STANDIN))
    vp = tmp_path / "verdicts.parquet"
    prov = summarise({("api.openai.com", OFFICIAL_JUDGE_MODEL): 1})
    write_table(
        v, vp, table="verdicts", stage="judge", params=params, extra_meta={"provenance": prov}
    )
    info = judge_info(vp, v, LME)
    assert info["comparable_to_published"] is True, info
    assert "not_comparable_because" not in info
    write_table(v, vp, table="verdicts", stage="judge", params=params)  # no provenance
    info = judge_info(vp, v, LME)
    assert info["comparable_to_published"] is False
    assert info["not_comparable_because"][0].startswith("no record")


@pytest.mark.parametrize("named", ["gpt-4o-2024-11-20"])
def test_a_different_snapshot_behind_the_official_host_is_not_comparable(tmp_path, named):
    v = pl.DataFrame(
        {
            "question_id": ["q1"],
            "label": [True],
            "judge_model": [OFFICIAL_JUDGE_MODEL],
            "raw": ["yes"],
            "error": [None],
        },
        schema_overrides={"error": pl.String},
    )
    vp = tmp_path / "verdicts.parquet"
    write_table(
        v,
        vp,
        table="verdicts",
        stage="judge",
        params=group("judge", "official", official_script=str(STANDIN)),
        extra_meta={"provenance": summarise({("api.openai.com", named): 1})},
    )
    info = judge_info(vp, v, LME)
    assert not info["comparable_to_published"] and named in info["comparability"]
