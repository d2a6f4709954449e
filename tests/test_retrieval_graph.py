"""reranker=graph: entities, the Cypher graph (ladybug), 2-hop scoring, the blend with the current
scores, the stage branch, and the LLM extractor through the cached client."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from confs import group
from fake_openai_server import FakeOpenAIServer
from memrecall.errors import ConfigError
from memrecall.llm.cache import read_journal
from memrecall.retrieval.graph.entities import (
    EntityExtractor,
    normal_form,
    offline_entities,
    parse_entities,
    top_entities,
)
from memrecall.retrieval.graph.rerank import blend, graph_rerank, graph_settings, minmax
from memrecall.retrieval.graph.store import SessionGraph
from memrecall.retrieval.rerank import rerank


def test_offline_entities_are_names_content_words_and_numbers():
    text = "The dogs and I visited Golden Gate Park with Dr Smith. We paid 1,200 dollars."
    ents = top_entities(offline_entities(text), 40)
    assert "golden gate park" in ents and "dr smith" in ents and "1200 dollar" in ents
    assert "dog" in ents and "visit" in ents
    # capitalised function words and stopwords are no entities
    assert not {"the", "i", "we", "and", "with"} & set(ents)
    assert normal_form("Dogs") == normal_form("dog") == "dog"


def test_top_entities_keeps_the_most_frequent_first_seen_on_ties():
    assert top_entities(["b", "apple", "Apple", "cherry", "banana"], 2) == ["appl", "b"]
    assert top_entities(["zeta", "alpha"], 5) == ["zeta", "alpha"]


def test_parse_entities_reads_a_list_and_none():
    assert parse_entities("1. Golden Gate Park\n- Emma\n* 3 cats\n") == [
        "Golden Gate Park",
        "Emma",
        "3 cats",
    ]
    assert parse_entities("NONE") == [] and parse_entities(None) == []


def _chain():
    # a-b in s1, b-c in s2, c-d in s3, x alone in s4: a chain of CO_OCCUR edges
    return SessionGraph(
        {"s1": ["a", "b"], "s2": ["b", "c"], "s3": ["c", "d"], "s4": ["x"], "s5": []}
    )


def test_two_hop_neighbourhood_by_cypher():
    g = _chain()
    assert g.n_entities == 5 and g.n_edges == 3
    assert g.reached(["a", "unknown"], 2) == {"a": 0, "b": 1, "c": 2}
    assert g.reached(["a"], 1) == {"a": 0, "b": 1}
    assert g.reached(["a"], 0) == {"a": 0}
    assert g.reached(["unknown"], 2) == {}


def test_session_scores_weigh_idf_and_distance():
    g = _chain()
    scores = g.session_scores({"a": 0, "b": 1, "c": 2}, decay=0.5)
    idf1, idf2 = math.log(1 + 5 / 1), math.log(1 + 5 / 2)  # 5 sessions; a in 1, b and c in 2
    assert scores["s1"] == pytest.approx(idf1 + 0.5 * idf2)
    assert scores["s2"] == pytest.approx(0.5 * idf2 + 0.25 * idf2)
    assert scores["s3"] == pytest.approx(0.25 * idf2)
    assert "s4" not in scores and g.session_scores({}, 0.5) == {}


def test_blend_scales_both_terms_to_the_pool():
    cur = np.array([10.0, 8.0, 6.0, -np.inf])
    assert minmax(cur).tolist() == [1.0, 0.5, 0.0, 0.0]
    assert minmax(np.array([3.0, 3.0])).tolist() == [0.0, 0.0]
    out = blend(cur, np.array([0.0, 0.0, 4.0, 0.0]), 0.5)
    assert out.tolist() == [0.5, 0.25, 0.5, 0.0]
    assert blend(cur, np.zeros(4), 0.5).tolist() == (0.5 * minmax(cur)).tolist()


QUESTIONS = pl.DataFrame(
    {
        "question_id": ["q1", "q2"],
        "question": ["Which breed is the puppy I adopted?", "Nothing here matches zzz?"],
    }
)
PASSAGES = {
    "s1": "I cooked pasta for dinner. The pasta was great.",
    "s2": "I went hiking in the mountains with my friend Emma.",
    "s3": "Emma said the puppy is a Labrador retriever from the shelter where we adopted him.",
    "s4": "My car needs new tires.",
}


def _cands(qid, sids, scores):
    return pl.DataFrame(
        {
            "question_id": [qid] * len(sids),
            "rank": list(range(1, len(sids) + 1)),
            "session_id": sids,
            "score": scores,
        },
        schema={
            "question_id": pl.String,
            "rank": pl.Int32,
            "session_id": pl.String,
            "score": pl.Float64,
        },
    )


def test_graph_rerank_promotes_sessions_of_the_questions_entities():
    cfg = group("reranker", "graph")
    cands = pl.concat(
        [
            _cands("q1", ["s1", "s2", "s3", "s4"], [0.9, 0.8, 0.7, 0.6]),
            _cands("q2", ["s1", "s2", "s3", "s4"], [0.9, 0.8, 0.7, 0.6]),
        ]
    )
    cfg["graph"]["weight"] = 0.6
    out = graph_rerank(QUESTIONS, cands, PASSAGES, cfg, top_k=3)
    q1 = out.filter(pl.col("question_id") == "q1")
    assert q1.get_column("session_id").to_list()[0] == "s3"  # names the puppy, adopted, breed
    assert q1.get_column("rank").to_list() == [1, 2, 3]
    # q2 has no entity in the pool: the retriever's order stands
    q2 = out.filter(pl.col("question_id") == "q2")
    assert q2.get_column("session_id").to_list() == ["s1", "s2", "s3"]
    cfg["graph"]["weight"] = 0.0  # weight 0: the retriever's order, whatever the graph says
    out0 = graph_rerank(QUESTIONS, cands, PASSAGES, cfg, top_k=4)
    assert out0.filter(pl.col("question_id") == "q1").get_column("session_id").to_list() == [
        "s1",
        "s2",
        "s3",
        "s4",
    ]


def test_two_hops_reach_a_session_that_shares_only_a_neighbour():
    # The question names "emma" only through s3; s2 shares "emma" with s3: hop 1 from puppy.
    cfg = group("reranker", "graph")
    q = pl.DataFrame({"question_id": ["q"], "question": ["Where did the puppy come from?"]})
    cands = _cands("q", ["s1", "s4", "s2"], [0.9, 0.8, 0.7])
    passages = {
        "s1": PASSAGES["s1"],
        "s4": PASSAGES["s4"],
        "s2": PASSAGES["s2"],
        "s3": PASSAGES["s3"],
    }
    cfg["graph"]["weight"] = 0.9
    for hops, want_first in ((0, "s1"), (2, "s2")):
        cfg["graph"]["hops"] = hops
        # s3 is in the pool's graph only when it is a candidate: add it last
        c = pl.concat(
            [cands, _cands("q", ["s3"], [0.1]).with_columns(pl.lit(4, pl.Int32).alias("rank"))]
        )
        out = graph_rerank(q, c, passages, cfg, top_k=4)
        order = out.get_column("session_id").to_list()
        assert order[0] == "s3"
        assert order[1] == want_first, hops


def test_rerank_stage_dispatches_graph_and_checks_its_keys():
    turns = pl.DataFrame(
        {
            "session_id": list(PASSAGES),
            "turn_index": [0] * 4,
            "role": ["user"] * 4,
            "content": list(PASSAGES.values()),
        }
    )
    cands = _cands("q1", ["s1", "s2", "s3", "s4"], [0.9, 0.8, 0.7, 0.6])
    cfg = group("reranker", "graph")
    cfg["graph"]["weight"] = 0.6
    out = rerank(QUESTIONS, turns, cands, cfg)
    assert out.get_column("session_id").to_list()[0] == "s3" and out.height == 4
    for key, bad in (
        ("extractor", "spacy"),
        ("hops", -1),
        ("weight", 1.5),
        ("decay", "x"),
        ("max_entities", 0),
    ):
        broken = group("reranker", "none")
        broken["graph"][key] = bad
        with pytest.raises(ConfigError, match=f"reranker.graph.{key}"):
            rerank(QUESTIONS, turns, cands, broken)
    assert graph_settings(group("reranker", "graph"))["hops"] == 2


def test_llm_extractor_is_cached_and_counted(fresh_cache, fake_key):

    def answer(messages):
        text = messages[-1]["content"]
        return "Emma\nLabrador\nshelter" if "Labrador" in text else "NONE"

    with FakeOpenAIServer(answer=answer) as srv:
        llm = group("reranker", "graph")["graph"]["llm"]
        llm.update(provider="openai", model="openai/gpt-4o-mini", max_tokens=64)
        llm["runtime"].update(srv.runtime())
        texts = [PASSAGES["s3"], PASSAGES["s4"], "   "]
        ents = EntityExtractor("llm", 40, llm).entities(texts)
        assert ents == [["emma", "labrador", "shelter"], [], []]
        assert srv.total_requests == 2  # the blank text asks nothing
        again = EntityExtractor("llm", 40, llm).entities(texts)
        assert again == ents and srv.total_requests == 2  # cached: never paid twice
    assert {r["stage"] for r in read_journal(fresh_cache / "llm")} == {"rerank"}


def test_plan_prices_the_llm_extractor_and_nothing_for_offline(tmp_path, fresh_cache):
    from memrecall.artifacts import write_table
    from memrecall.plan.graph import plan_graph_rerank

    art = tmp_path / "artifacts"
    write_table(QUESTIONS, art / "questions.parquet", stage="test")
    write_table(
        pl.DataFrame(
            {
                "session_id": list(PASSAGES),
                "turn_index": [0] * 4,
                "role": ["user"] * 4,
                "content": list(PASSAGES.values()),
            }
        ),
        art / "turns.parquet",
        stage="test",
    )
    write_table(
        _cands("q1", ["s1", "s2", "s3", "s4"], [0.9, 0.8, 0.7, 0.6]),
        art / "candidates_retrieve.parquet",
        stage="test",
    )
    from memrecall.plan.context import PlanContext
    from memrecall.plan.work import StagePlan
    from test_plan import status

    def planned(cfg):  # the rerank stage would run; its inputs are this config's
        sp = StagePlan("rerank", True, [])
        plan_graph_rerank(PlanContext(tmp_path, {"reranker": cfg}, status(rerank=True)), sp)
        return sp.llm

    cfg = group("reranker", "graph")
    assert planned(cfg) == []  # offline: free
    cfg["graph"]["extractor"] = "llm"
    cfg["graph"]["llm"].update(
        provider="openai",
        model="openai/gpt-4o-mini",
        input_cost_per_mtok=1.0,
        output_cost_per_mtok=2.0,
    )
    (work,) = planned(cfg)
    assert work.requests == 4 + 2 and work.new_calls == 6  # 4 sessions, 2 questions
    assert work.model == "openai/gpt-4o-mini" and work.cost_usd > 0
