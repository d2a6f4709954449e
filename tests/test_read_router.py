"""reader=router: question types go to the reader options their routes name, each route composed
from conf/, cached and costed apart; the answers carry the route, the reports show it."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from confs import group
from fake_openai_server import KEY_ENV, FakeOpenAIServer
from memrecall.artifacts import read_meta, read_table
from memrecall.errors import ConfigError
from memrecall.read.router import assign, routes_of
from memrecall.read.stage import run_read
from memrecall.report.routes import route_metrics, routes_markdown
from tables import write_one_session_run

TYPES = ["single-session-user", "knowledge-update", "single-session-preference", "multi-session"]


def write_inputs(root: Path) -> dict:
    qids = [f"q{i}" for i in range(len(TYPES))]
    return write_one_session_run(
        root, qids, TYPES, [f"question {i}" for i in range(len(TYPES))], ["x"] * len(TYPES)
    )


def router_cfg(server) -> dict:
    cfg = group("reader", "router")
    common = [
        f"runtime.api_base={server.url}",
        f"runtime.api_key_env={KEY_ENV}",
        "max_tokens=16",
        "input_cost_per_mtok=1.0",
        "output_cost_per_mtok=2.0",
        "top_k_context=1",
    ]
    cfg["routes"] = {
        "recall": {
            "types": ["knowledge-update", "single-session-preference"],
            "reader": "gpt4o",
            "overrides": ["model=openai/model-a", *common],
        },
        "rest": {
            "types": None,
            "reader": "gpt4o",
            "overrides": ["model=openai/model-b", "prompt=preference", *common],
        },
    }
    return cfg


def test_types_go_to_their_routes_each_cached_and_costed(tmp_path, fresh_cache, fake_key):
    env = write_inputs(tmp_path)
    with FakeOpenAIServer(answer=lambda m: "Berlin") as srv:
        cfg = router_cfg(srv)
        df = run_read(
            cfg,
            questions=env["questions"],
            sessions=env["sessions"],
            turns=env["turns"],
            candidates=env["candidates"],
            out=env["out"],
        )
        models = sorted(b["model"] for b in srv.bodies)
        assert models == ["model-a", "model-a", "model-b", "model-b"]
        again = run_read(
            cfg,
            questions=env["questions"],
            sessions=env["sessions"],
            turns=env["turns"],
            candidates=env["candidates"],
            out=env["out"],
        )
        assert srv.total_requests == 4  # each route's calls cached
    assert df.equals(again)
    by_q = dict(df.select("question_id", "route").iter_rows())
    assert by_q == {"q0": "rest", "q1": "recall", "q2": "recall", "q3": "rest"}
    assert set(df.filter(pl.col("route") == "recall")["model"]) == {"openai/model-a"}
    assert df.filter(pl.col("route") == "rest")["prompt_id"].str.starts_with("preference").all()
    assert (df["cost_usd"] > 0).all()
    meta = read_meta(env["out"])
    routes = meta["routes"]
    routes = json.loads(routes) if isinstance(routes, str) else routes
    assert routes["recall"]["model"] == "openai/model-a" and "runtime" not in routes["recall"]

    pq = pl.DataFrame(
        {"question_id": ["q0", "q1", "q2", "q3"], "correct": [True, False, True, None]}
    )
    m = route_metrics(read_table(env["out"], "answers"), pq)
    assert m["recall"]["n"] == 2 and m["recall"]["accuracy"] == 0.5
    assert m["rest"]["accuracy"] == 1.0 and m["rest"]["n_judged"] == 1
    assert m["rest"]["cost_usd"] == pytest.approx(
        df.filter(pl.col("route") == "rest")["cost_usd"].sum()
    )
    md = routes_markdown(m)
    assert "| recall | openai/model-a | 2 | 50.0 |" in md
    assert route_metrics(read_table(env["out"], "answers").drop("route"), pq) is None


def test_route_config_errors_name_the_route():
    never = lambda name, spec, inherited: {}  # noqa: E731 - composition is not what is tested here
    base = group("reader", "router")
    both_rest = {
        **base,
        "routes": {"a": {"types": None, "reader": "x"}, "b": {"types": None, "reader": "y"}},
    }
    with pytest.raises(ConfigError, match="reader.routes.b.types"):
        routes_of(both_rest, compose=never)
    twice = {
        **base,
        "routes": {"a": {"types": ["t"], "reader": "x"}, "b": {"types": ["t"], "reader": "y"}},
    }
    with pytest.raises(ConfigError, match="routed already by a"):
        routes_of(twice, compose=never)
    with pytest.raises(ConfigError, match="reader.routes.a.reader"):
        routes_of({**base, "routes": {"a": {"types": None, "reader": "router"}}})
    only = routes_of({**base, "routes": {"a": {"types": ["t"], "reader": "x"}}}, compose=never)
    q = pl.DataFrame({"question_id": ["q1"], "question_type": ["other"]})
    with pytest.raises(ConfigError, match="no route takes question type 'other'"):
        assign(q, only)


def test_the_bundled_router_composes_its_routes():
    routes = {r.name: r for r in routes_of(group("reader", "router"))}
    assert routes["recall"].cfg["model"] == "minimax/MiniMax-M2"
    assert routes["recall"].types == ("single-session-preference", "knowledge-update")
    assert routes["rest"].types is None and routes["rest"].cfg["name"] == "deepseek"
    # the router's reading settings reach every route unless a route sets its own
    cfg = group("reader", "router", prompt="type_aware", top_k_context=15)
    cfg["routes"]["rest"]["overrides"] = ["prompt=recency"]
    routes = {r.name: r for r in routes_of(cfg)}
    assert routes["recall"].cfg["prompt"] == "type_aware"
    assert routes["rest"].cfg["prompt"] == "recency"
    assert routes["rest"].cfg["top_k_context"] == 15 == routes["recall"].cfg["top_k_context"]


def test_plan_prices_each_route_on_its_own_questions(tmp_path, fresh_cache, fake_key):
    """The plan's per-route pricing (plan/read.py): nothing sent; each route's requests
    rendered for its questions with its own model; a paid route shows as cached."""
    from memrecall.plan.build import plan_params
    from test_plan import status

    env = write_inputs(tmp_path)
    root = tmp_path
    (root / "artifacts" / "candidates.parquet").rename(
        root / "artifacts" / "candidates_rewrite.parquet"
    )
    env["candidates"] = str(root / "artifacts" / "candidates_rewrite.parquet")
    with FakeOpenAIServer(answer=lambda m: "Berlin") as srv:
        params = {
            "reader": router_cfg(srv),
            "rewrite": group("rewrite", "off"),
            "judge": group("judge", "rule"),
        }

        def works(**running):
            return plan_params(params, root, status=status(**running)).stage("read").llm

        got = works(read=True)
        assert srv.total_requests == 0
        by = {w.label: w for w in got}
        assert set(by) == {"read (route recall: gpt4o)", "read (route rest: gpt4o)"}
        assert [(w.model, w.requests, w.new_calls) for w in got] == [
            ("openai/model-a", 2, 2),
            ("openai/model-b", 2, 2),
        ]
        assert all(w.cost_usd > 0 for w in got)
        run_read(
            params["reader"],
            questions=env["questions"],
            sessions=env["sessions"],
            turns=env["turns"],
            candidates=env["candidates"],
            out=str(root / "artifacts" / "answers.parquet"),
        )
        assert [w.new_calls for w in works(read=True)] == [0, 0]  # paid: the plan sees the cache
        # upstream would change the candidates first: each route's requests, all counted new
        assert [w.estimated_calls for w in works(rewrite=True, read=True)] == [2, 2]
