"""judge=panel: several judges label the same answers in one run (LLM members through the cached
client, so a second run pays nothing); each judge's accuracy, the band, Cohen's kappa and flips
worked out by hand; `memrecall rejudge` re-scores a committed experiment's answers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import polars as pl
import pytest

from confs import group
from conftest import REPO
from fake_openai_server import FakeOpenAIServer
from memrecall import benchmarks
from memrecall.artifacts import read_meta, write_table
from memrecall.errors import ConfigError
from memrecall.eval.agreement import length_band
from memrecall.eval.panel import panel_labels, panel_markdown, panel_stats
from memrecall.judge.panel import member_configs, member_specs
from memrecall.judge.stage import run_judge
from memrecall.schema import polars_schema

T, F, N = True, False, None


def test_stats_by_hand():
    labels = pl.DataFrame(
        {
            "question_id": ["a", "b", "c", "d", "e"],
            "question_type": ["multi-session"] * 3 + ["knowledge-update"] * 2,
            "strict": [T, F, F, T, N],  # e: a judge error
            "lenient": [T, T, T, T, T],
            "middle": [T, F, T, T, F],
        }
    )
    s = panel_stats(labels, ["strict", "lenient", "middle"])
    assert s["n_common"] == 4 and s["accuracy"]["strict"] == {"n": 4, "value": 0.5}
    assert s["accuracy"]["middle"]["value"] == pytest.approx(0.6)
    assert s["accuracy_common"] == {"strict": 0.5, "lenient": 1.0, "middle": 0.75}
    assert s["band"] == {
        "low": 0.5,
        "high": 1.0,
        "width": 0.5,
        "lowest": "strict",
        "highest": "lenient",
    }
    ms = s["by_type"]["multi-session"]
    assert ms["n"] == 3 and ms["band"]["low"] == pytest.approx(1 / 3) and ms["band"]["high"] == 1
    pair = {(p["a"], p["b"]): p for p in s["pairs"]}
    sl = pair[("strict", "lenient")]
    assert (sl["n"], sl["flips_yes_to_no"], sl["flips_no_to_yes"]) == (4, 0, 2)
    assert sl["flip_rate"] == 0.5 and sl["kappa"] == 0.0  # lenient is constant: p_e = pa
    sm = pair[("strict", "middle")]
    # strict yes: a, d; middle yes: a, c, d (on a-d): one flip; kappa (0.75 - 0.5) / 0.5 = 0.5
    assert sm["flips_no_to_yes"] == 1 and sm["kappa"] == pytest.approx(0.5)
    md = panel_markdown(s)
    assert "**Band: 50.0–100.0%**" in md and "| strict → middle | 4 | 0.750 | 0.500 | 0 | 1 |" in md
    with pytest.raises(ValueError):
        panel_stats(labels, ["strict"])


def test_length_band_names_the_band_a_response_falls_in():
    bands = [length_band(n) for n in (0, 40, 41, 100, 101, 250, 251, 4000)]
    assert bands == ["<=40", "<=40", "41-100", "41-100", "101-250", "101-250", ">250", ">250"]


def test_panel_by_response_length_from_the_answers_words():
    ids = ["a", "b", "c", "d", "e", "f"]
    verdicts = pl.DataFrame(
        {
            "question_id": ids,
            "question_type": ["multi-session"] * 6,
            "label:strict": [T, F, T, F, F, N],  # f: a judge error, on no band
            "label:lenient": [T, F, T, T, T, T],
        }
    )
    long = " ".join(["word"] * 300)
    answers = pl.DataFrame(
        {
            "question_id": ids,
            # a-b short; c a line-broken 41 words (str.split() counts them so); d-f long
            "hypothesis": ["Paris", "No.", "w\n" * 41, long, long + "\tmore", long],
        }
    )
    labels, judges = panel_labels(verdicts, answers)
    assert labels["words"].to_list() == [1, 1, 41, 300, 301, 300]
    s = panel_stats(labels, judges)
    assert list(s["by_length"]) == ["<=40", "41-100", ">250"]  # bands with answers, in order
    short, mid, over = (s["by_length"][k] for k in ("<=40", "41-100", ">250"))
    assert short["n"] == 2 and short["band"]["width"] == 0
    assert short["pairs"] == [{"a": "strict", "b": "lenient", "agreement": 1.0, "kappa": 1.0}]
    assert mid["n"] == 1 and mid["accuracy"] == {"strict": 1.0, "lenient": 1.0}
    # the long answers part them: strict rejects both, lenient accepts both
    assert over["n"] == 2 and over["accuracy"] == {"strict": 0.0, "lenient": 1.0}
    assert over["band"]["width"] == 1.0 and over["pairs"][0]["agreement"] == 0.0
    md = panel_markdown(s)
    assert "## By response length (words)" in md
    assert "| >250 | 2 | 0.0 | 100.0 | 0.0–100.0 | strict / lenient: 0.000 |" in md
    # without the answers no length is known, and none is reported
    bare = panel_stats(*panel_labels(verdicts))
    assert "by_length" not in bare and "By response length" not in panel_markdown(bare)


def test_members_are_checked():
    for bad in (
        None,
        ["rule"],
        "rule,gpt4o",
        ["rule", ""],
        ["rule", "gpt4o judge.runtime.api_base=http://x"],
    ):
        with pytest.raises(ConfigError, match="judge.members"):
            member_specs(bad)
    with pytest.raises(ConfigError, match="judge.runtime.per_member.rule"):
        member_configs(["rule", "gpt4o"], runtime_overrides={"rule": {"api_base": "x"}})
    with pytest.raises(ConfigError, match="judge.runtime.per_member.nope"):
        member_configs(["rule", "gpt4o"], runtime_overrides={"nope": {}})
    m = member_configs(["rule", "gpt4o judge.max_tokens=5", "gpt4o"])
    assert list(m) == ["rule", "gpt4o", "gpt4o-2"] and m["gpt4o"]["max_tokens"] == 5


ITEMS = [
    ("q1", "multi-session", "How many plants do I have?", "5", "You have 5."),
    ("q2", "multi-session", "How many books did I read?", "12", "You read 9."),
    ("q3", "knowledge-update", "Where do I work now?", "Acme", "At Acme."),
    ("q4", "knowledge-update", "What is my cat called?", "Luna", "Milo"),
]


def _write_tables(tmp_path, items=ITEMS):
    q = pl.DataFrame(
        [
            {
                "question_id": i,
                "question_type": t,
                "is_abstention": False,
                "question": qq,
                "answer": a,
                "question_date": "2023/05/30 (Tue) 10:00",
                "haystack_session_ids": [],
                "answer_session_ids": [],
            }
            for i, t, qq, a, _ in items
        ],
        schema=polars_schema("questions"),
    )
    a = pl.DataFrame(
        [
            {
                **{k: None for k in polars_schema("answers")},
                "question_id": i,
                "hypothesis": h,
                "model": "m",
                "prompt_id": "p",
                "input_tokens": 0,
                "output_tokens": 0,
                "reasoning_tokens": 0,
                "cost_usd": 0.0,
                "latency_s": 0.0,
                "refused": False,
            }
            for i, _, _, _, h in items
        ],
        schema=polars_schema("answers"),
    )
    qp, ap = tmp_path / "questions.parquet", tmp_path / "answers.parquet"
    write_table(
        q, qp, table="questions", stage="download", extra_meta={benchmarks.META_KEY: "longmemeval"}
    )
    write_table(a, ap, table="answers", stage="read")
    return qp, ap


def test_panel_judges_the_same_answers_once(tmp_path, fresh_cache, fake_key):
    qp, ap = _write_tables(tmp_path)
    with FakeOpenAIServer(answer=lambda m: "yes") as srv:
        cfg = group("judge", "panel", members=["rule", "gpt4o"])
        cfg["runtime"]["per_member"] = {"gpt4o": srv.runtime()}
        v = run_judge(cfg, questions=qp, answers=ap, out=tmp_path / "verdicts.parquet")
        sent = srv.total_requests
        run_judge(cfg, questions=qp, answers=ap, out=tmp_path / "verdicts2.parquet")
        assert srv.total_requests == sent == len(ITEMS)  # the second panel paid nothing
    assert v["label"].to_list() == [T, F, T, F]  # the first member's
    assert v["label:rule"].to_list() == [T, F, T, F] and v["label:gpt4o"].to_list() == [T] * 4
    meta = read_meta(tmp_path / "verdicts.parquet")
    assert set(meta["members"]) == {"rule", "gpt4o"}
    assert meta["members"]["gpt4o"]["provenance"]["endpoints"] == {"127.0.0.1": 4}
    assert "runtime" not in json.dumps(meta["params"])  # not part of the result
    assert (tmp_path / "verdicts.parquet").read_bytes() == (
        tmp_path / "verdicts2.parquet"
    ).read_bytes()
    labels, judges = panel_labels(v)
    s = panel_stats(labels, judges)
    assert s["band"]["low"] == 0.5 and s["band"]["high"] == 1.0
    assert s["pairs"][0]["flips_no_to_yes"] == 2


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_rejudge_a_committed_run(tmp_path, capsys):
    from memrecall.rejudge import rejudge

    repo = tmp_path / "repo"
    (repo / "artifacts").mkdir(parents=True)
    shutil.copytree(REPO / "conf", repo / "conf")
    qp, ap = _write_tables(repo / "artifacts")
    # its own judge accepted everything: the rule judge says 2 of 4
    v = pl.DataFrame(
        {
            "question_id": [i for i, *_ in ITEMS],
            "label": [T] * 4,
            "judge_model": ["lenient"] * 4,
            "raw": ["yes"] * 4,
            "error": [None] * 4,
        },
        schema_overrides={"error": pl.String},
    )
    write_table(v, repo / "artifacts" / "verdicts.parquet", table="verdicts", stage="judge")
    (repo / "reports").mkdir()
    (repo / "reports" / "metrics.json").write_text('{"qa": {"overall": 1.0}}')
    (repo / "params.yaml").write_text("judge:\n  name: lenient\n")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    env.pop("DVC_ROOT", None)
    for cmd in (
        ["git", "init", "-q"],
        [sys.executable, "-m", "dvc", "init", "-q"],
        ["git", "add", "-A"],
        ["git", "commit", "-qm", "run"],
    ):
        subprocess.run(cmd, cwd=repo, env=env, check=True, capture_output=True)
    out = rejudge(["rule"], root=repo, out_dir=tmp_path / "panel")
    ((name, s),) = out.items()
    assert s["judges"] == ["rule", "lenient (recorded)"]
    assert s["accuracy_common"] == {"rule": 0.5, "lenient (recorded)": 1.0}
    assert (tmp_path / "panel").glob("*.md")
    assert "band 50.0-100.0%" in capsys.readouterr().out
