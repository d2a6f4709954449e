"""judge=routed: the rule judge decides what it can be trusted with, an LLM judge what it refers
(a preference rubric, a response that turns or corrects itself); the referee is asked about the
referred answers only, once; its failures stay judge errors; the run says who judged what."""

from __future__ import annotations

import json

import polars as pl
import pytest

from confs import group
from fake_openai_server import FakeOpenAIServer
from memrecall import benchmarks
from memrecall.artifacts import read_meta
from memrecall.errors import ConfigError
from memrecall.judge.panel import member_configs
from memrecall.judge.routed import check_members
from memrecall.judge.rules.referral import (
    CANNOT_JUDGE,
    READINGS_DIFFER,
    RUBRIC,
    referral,
    turns_or_corrects,
)
from memrecall.judge.stage import run_judge
from memrecall.report.aggregate import judge_info
from memrecall.report.tables import referral_line
from test_judge_panel import _write_tables

T, F = True, False
ITEMS = [
    ("q1", "multi-session", "How many plants do I have?", "5", "You have 5."),  # kept: right
    ("q2", "multi-session", "How many books did I read?", "12", "You read 9."),  # kept: wrong
    # names the reference, then corrects itself in words the rules do not read: they accept it,
    # and refer it
    ("q3", "knowledge-update", "Where do I work now?", "Acme", "Acme. Sorry, rereading: Initech."),
    ("q4", "knowledge-update", "What is my cat called?", "Luna", "Luna, but maybe Milo."),
]


@pytest.mark.parametrize(
    "question_type, hypothesis, label, why",
    [
        ("multi-session", "You have 5.", T, None),
        ("multi-session", "You have 5.", None, CANNOT_JUDGE),
        ("single-session-preference", "Try the Sony lens.", T, RUBRIC),
        ("temporal-reasoning", "It was May, but I'm not sure.", T, "('but')"),
        ("multi-session", "Five. Actually, make that six.", T, "('Actually')"),
        ("multi-session", "Five. Scratch that.", F, "('Scratch that')"),
        ("multi-session", "Five; I misremembered the rest.", T, "('misremembered')"),
        # the model's thinking is not the response: its turns refer nothing
        ("multi-session", "<think>Six, but maybe five.</think>Five.", T, None),
        # a word that holds a marker is not one ("butter", "rathermore", "waiting")
        ("multi-session", "Five sticks of butter while waiting.", T, None),
    ],
)
def test_what_the_rules_refer(question_type, hypothesis, label, why):
    item = {"question_type": question_type, "question": "How many?", "answer": "5"}
    got = referral({**item, "hypothesis": hypothesis}, label)
    assert got == why if why is None or not why.startswith("(") else why in got


@pytest.mark.parametrize(
    "hypothesis, why",
    [
        # the reasoning states the reference whole, the labelled answer shortens it: the rules
        # reject the answer and would accept the reasoning
        (
            "On May 27 you said you repainted your bedroom walls a lighter shade of gray.\n\n"
            "Answer: lighter gray",
            READINGS_DIFFER,
        ),
        # the reasoning names the reference and sets it aside, the answer names another
        (
            "Blue was the old color; you repainted them a lighter shade of gray.\n\nAnswer: blue",
            READINGS_DIFFER,
        ),
        # both readings agree: kept
        ("You repainted them a lighter shade of gray.\n\nAnswer: a lighter shade of gray", None),
        ("You repainted them blue.\n\nAnswer: blue", None),
        # no labelled answer, or nothing before it: one reading
        ("You repainted them a lighter shade of gray.", None),
        ("Answer: lighter gray", None),
    ],
)
def test_a_labelled_answer_the_rules_read_otherwise_than_its_reasoning_is_referred(hypothesis, why):
    lme = benchmarks.get("longmemeval")
    item = {
        "question_type": "single-session-user",
        "question": "What color did I repaint my bedroom walls?",
        "answer": "a lighter shade of gray",
        "hypothesis": hypothesis,
        "is_abstention": False,
    }
    label = lme.rule_verdict(item).label
    assert lme.rule_referral(item, label) == why


def test_a_benchmark_without_its_own_policy_refers_turns_and_what_the_rules_cannot_judge():
    locomo = benchmarks.get("locomo")
    assert locomo.rule_referral({"hypothesis": "Paris."}, None) == CANNOT_JUDGE
    assert locomo.rule_referral({"hypothesis": "Paris."}, True) is None
    assert locomo.rule_referral({"hypothesis": "Paris, though not Lyon."}, True) == (
        turns_or_corrects("Paris, though not Lyon.")
    )


def test_members_are_a_rule_judge_then_an_llm_judge():
    for specs, match in (
        (["rule", "gpt4o", "official"], "two members"),
        (["gpt4o", "rule"], "first member"),
        (["rule", "rule"], "second member"),
        (["rule", "file judge.path=x.jsonl"], "second member"),
    ):
        with pytest.raises(ConfigError, match=match):
            check_members(member_configs(specs))


def _run(tmp_path, srv, name="verdicts.parquet"):
    qp, ap = _write_tables(tmp_path, ITEMS)
    cfg = group("judge", "routed")
    cfg["runtime"]["per_member"] = {"gpt4o": srv.runtime()}
    out = tmp_path / name
    return run_judge(cfg, questions=qp, answers=ap, out=out), out


def test_the_referee_judges_only_what_the_rules_refer_and_never_twice(
    tmp_path, fresh_cache, fake_key, capsys
):
    with FakeOpenAIServer(answer=lambda m: "no") as srv:
        v, out = _run(tmp_path, srv)
        assert srv.total_requests == 2  # q3 and q4
        assert srv.requests_for("Initech") == 1 and srv.requests_for("Milo") == 1
        v2, out2 = _run(tmp_path, srv, "verdicts2.parquet")
        assert srv.total_requests == 2  # the second run paid nothing
    assert "the rules (rule) judged 2, gpt4o the 2 they referred" in capsys.readouterr().out
    assert out.read_bytes() == out2.read_bytes()
    assert v["label"].to_list() == [T, F, F, F]  # the referee said no to q3 and q4
    assert v["rule_label"].to_list() == [T, F, T, T]
    referred = v["referred"].to_list()
    assert referred[:2] == [None, None] and "('Sorry')" in referred[2] and "('but')" in referred[3]
    models = v["judge_model"].to_list()
    assert models[:2] == ["rule-v1"] * 2 and models[2:] == ["gpt-4o-2024-08-06"] * 2
    assert v["raw"].to_list()[2:] == ["no", "no"]  # the referee's reply, not the rules' reason

    meta = read_meta(out)
    assert meta["routed"] == {
        "rules": "rule",
        "referee": "gpt4o",
        "referee_model": "gpt-4o-2024-08-06",
        "judged": 4,
        "referred": 2,
        "reasons": {"the response turns or corrects itself": 2},
    }
    assert meta["provenance"]["endpoints"] == {"127.0.0.1": 2}
    assert "runtime" not in json.dumps(meta["params"])  # not part of the result
    info = judge_info(out, v, benchmarks.get("longmemeval"))
    assert info["kind"] == "routed" and not info["comparable_to_published"]
    assert info["model"] == "gpt-4o-2024-08-06, rule-v1" and info["routed"]["referred"] == 2
    line = referral_line(info)[0]
    assert "judged 2 of 4 answers, `gpt4o` the 2 they referred" in line


def test_a_rule_judge_says_how_many_verdicts_a_routed_judge_would_refer(tmp_path, capsys):
    qp, ap = _write_tables(tmp_path, ITEMS)
    out = tmp_path / "verdicts.parquet"
    v = run_judge(group("judge", "rule"), questions=qp, answers=ap, out=out)
    # the rules' own labels, the same as the routed judge's rules gave them
    assert v["label"].to_list() == [T, F, T, T]
    assert "; 2 of 4 in doubt (judge=routed would refer them)" in capsys.readouterr().out
    doubt = {"judged": 4, "referred": 2, "reasons": {"the response turns or corrects itself": 2}}
    assert read_meta(out)["in_doubt"] == doubt
    info = judge_info(out, v, benchmarks.get("longmemeval"))
    assert info["kind"] == "rule" and info["in_doubt"] == doubt
    assert referral_line(info) == [
        "In doubt: 2 of the 4 rule verdicts (50%) are on answers `judge=routed` would send to "
        "an LLM judge (the response turns or corrects itself: 2)."
    ]
    # an LLM judge's run has no such line
    assert referral_line({"kind": "llm"}) == []


def test_a_referee_that_fails_leaves_a_judge_error_not_the_rules_label(
    tmp_path, fresh_cache, fake_key
):
    with FakeOpenAIServer(rates={"500": 1.0}) as srv:
        v, _ = _run(tmp_path, srv)
    referred = v.filter(pl.col("referred").is_not_null())
    assert referred.height == 2 and referred["label"].null_count() == 2
    assert referred["error"].null_count() == 0 and referred["rule_label"].to_list() == [T, T]
    kept = v.filter(pl.col("referred").is_null())
    assert kept["label"].to_list() == [T, F] and kept["error"].null_count() == 2


def test_a_panel_measures_a_routed_judge_against_its_referee_without_paying_twice(
    tmp_path, fresh_cache, fake_key
):
    """judge=panel with members [routed, gpt4o]: the routed judge's agreement with the LLM judge
    it refers to, on the same answers; its referee's calls are the panel member's, paid once."""
    qp, ap = _write_tables(tmp_path, ITEMS)
    with FakeOpenAIServer(answer=lambda m: "no") as srv:
        cfg = group("judge", "panel", members=["routed", "gpt4o"])
        cfg["runtime"]["per_member"] = {
            "routed": {"per_member": {"gpt4o": srv.runtime()}},
            "gpt4o": srv.runtime(),
        }
        v = run_judge(cfg, questions=qp, answers=ap, out=tmp_path / "verdicts.parquet")
        assert srv.total_requests == len(ITEMS)  # the referee's two were the member's
    assert v["label:routed"].to_list() == [T, F, F, F] and v["label:gpt4o"].to_list() == [F] * 4
