"""judge=lenient: each benchmark's generous own-wording prompts (never the strict ones) go out
through the cached client, labels parse, the panel and the leniency audit report it beside the
strict judge, and metrics.json says why it is never comparable."""

from __future__ import annotations

import polars as pl
import pytest

from confs import group
from fake_openai_server import FakeOpenAIServer, last_user
from memrecall import benchmarks
from memrecall.artifacts import read_meta
from memrecall.audit.leniency import audit_judges
from memrecall.audit.planting import WRONG
from memrecall.errors import ConfigError
from memrecall.eval.panel import panel_labels, panel_stats
from memrecall.judge.llm_judge import LENIENT_NOT_COMPARABLE, template_hash
from memrecall.judge.panel import member_configs
from memrecall.judge.stage import judge_answers, run_judge
from memrecall.report.aggregate import judge_info
from test_judge_panel import ITEMS, _write_tables

LME = benchmarks.get("longmemeval")
LOCOMO = benchmarks.get("locomo")
GENEROUS = "Be generous."  # only the lenient templates say it


def generous_yes(messages) -> str:
    """A judge that follows its prompt: generous prompts say yes, strict ones no."""
    return "Yes." if GENEROUS in last_user(messages) else "no"


def _item(qid, qtype, question, answer, hyp, abstention=False):
    return {
        "question_id": qid,
        "question_type": qtype,
        "is_abstention": abstention,
        "question": question,
        "answer": answer,
        "hypothesis": hyp,
    }


def test_each_benchmark_has_its_own_lenient_wording():
    it = _item("q", "temporal-reasoning", "How many days?", "18 days", "About 20 days")
    strict, lenient = LME.judge_prompt(it), LME.judge_prompt(it, "lenient")
    assert GENEROUS in lenient.messages[0]["content"]
    assert GENEROUS not in strict.messages[0]["content"]
    assert lenient.prompt_hash != strict.prompt_hash and lenient.kind == "lenient"
    assert lenient.prompt_hash == template_hash(LME.judge_templates("lenient")["lenient"])
    for kind, extra in (("lenient-abstention", True), ("lenient-preference", False)):
        qtype = "single-session-preference" if kind.endswith("preference") else "multi-session"
        p = LME.judge_prompt(_item("q", qtype, "Q?", "rubric", "x", abstention=extra), "lenient")
        assert p.kind == kind
    loc = {**it, "category": 2, "adversarial_answer": None}
    assert LOCOMO.judge_prompt(loc, "lenient").kind == "locomo-lenient"
    adv = LOCOMO.judge_prompt({**loc, "category": 5, "adversarial_answer": "Paris"}, "lenient")
    assert adv.kind == "locomo-adversarial-lenient" and "Paris" in adv.messages[0]["content"]
    assert LOCOMO.judge_prompt(loc).prompt_hash != LOCOMO.judge_prompt(loc, "lenient").prompt_hash
    ever = benchmarks.get("evermembench")
    assert ever.judge_prompt(it, "lenient").kind == "evermembench-lenient"
    # every own-wording template has its own hash: no wording reuses another's text
    hashes = [
        template_hash(t)
        for b in (LME, LOCOMO, ever)
        for w in ("strict", "lenient")
        for t in b.judge_templates(w).values()
    ]
    assert len(hashes) == len(set(hashes))


def test_a_benchmark_without_a_lenient_wording_says_so():
    with pytest.raises(ConfigError, match="no lenient wording"):
        benchmarks.get("beam").judge_templates("lenient")
    with pytest.raises(ConfigError, match="judge.wording"):
        LME.judge_templates("kind")


def test_lenient_prompts_are_what_is_sent_and_labels_parse(fresh_cache, fake_key):
    q = pl.DataFrame([_item(i, t, qq, a, None) for i, t, qq, a, _ in ITEMS]).drop("hypothesis")
    a = pl.DataFrame(
        {"question_id": [i for i, *_ in ITEMS], "hypothesis": [h for *_, h in ITEMS]}
    ).with_columns(pl.lit(None, dtype=pl.String).alias("error"))
    with FakeOpenAIServer(answer=generous_yes) as srv:
        cfg = group("judge", "lenient", **srv.runtime())
        v = judge_answers(LME, q, a, cfg)
        sent = [b["messages"][0]["content"] for b in srv.bodies]
        strict = judge_answers(LME, q, a, group("judge", "gpt4o", **srv.runtime()))
    items = [_item(i, t, qq, ans, h) for i, t, qq, ans, h in ITEMS]
    assert sorted(sent) == sorted(
        LME.judge_prompt(it, "lenient").messages[0]["content"] for it in items
    )
    assert v["label"].to_list() == [True] * 4 and v["error"].null_count() == 4
    assert strict["label"].to_list() == [False] * 4
    assert set(v["prompt_hash"]).isdisjoint(set(strict["prompt_hash"]))
    assert cfg["model"] == group("judge", "gpt4o")["model"]  # same model: only the wording differs


def test_the_panel_and_the_audit_report_the_lenient_judge(tmp_path, fresh_cache, fake_key):
    qp, ap = _write_tables(tmp_path)
    with FakeOpenAIServer(answer=generous_yes) as srv:
        cfg = group("judge", "panel", members=["rule", "gpt4o", "lenient"])
        fake = srv.runtime()
        cfg["runtime"]["per_member"] = {"gpt4o": fake, "lenient": fake}
        v = run_judge(cfg, questions=qp, answers=ap, out=tmp_path / "verdicts.parquet")
        members = member_configs(
            ["gpt4o", "lenient"], runtime_overrides=cfg["runtime"]["per_member"]
        )
        q = pl.read_parquet(qp)
        audit = audit_judges(LME, q, members)
    assert v["label:lenient"].to_list() == [True] * 4
    assert v["label:gpt4o"].to_list() == [False] * 4
    meta = read_meta(tmp_path / "verdicts.parquet")
    assert meta["members"]["lenient"]["params"]["wording"] == "lenient"
    s = panel_stats(*panel_labels(v))
    assert s["judges"] == ["rule", "gpt4o", "lenient"]
    assert s["band"] == {
        "low": 0.0,
        "high": 1.0,
        "width": 1.0,
        "lowest": "gpt4o",
        "highest": "lenient",
    }
    # the audit: the generous judge accepts every planted wrong answer, the strict one none
    lenient, strict = (audit["judges"][j]["classes"] for j in ("lenient", "gpt4o"))
    wrong = [k for k in WRONG if k in lenient and lenient[k]["judged"]]
    assert wrong and all(lenient[k]["rate"] == 1.0 for k in wrong)
    assert all(strict[k]["rate"] == 0.0 for k in wrong)


def test_a_lenient_run_says_why_it_is_never_comparable(tmp_path, fresh_cache, fake_key):
    qp, ap = _write_tables(tmp_path)
    with FakeOpenAIServer(answer=generous_yes) as srv:
        cfg = group("judge", "lenient", **srv.runtime())
        out = tmp_path / "verdicts.parquet"
        v = run_judge(cfg, questions=qp, answers=ap, out=out)
    info = judge_info(out, v, LME)
    assert info["name"] == "lenient" and info["comparable_to_published"] is False
    assert info["comparability"] == LENIENT_NOT_COMPARABLE


def test_wording_belongs_to_own_wording_llm_judges(tmp_path):
    qp, ap = _write_tables(tmp_path)
    for option, hint in (("rule", "calls no model"), ("official", "official prompts")):
        cfg = group("judge", option, wording="lenient")
        with pytest.raises(ConfigError, match=hint):
            run_judge(cfg, questions=qp, answers=ap, out=tmp_path / "v.parquet")
