"""The plan renders the stages' real requests and counts the calls a run then pays, exactly:
against a real local HTTP server, on a three-question slice, with part of the work cached."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memrecall import paths
from memrecall.llm import LLMClient
from memrecall.llm.cache import read_journal
from memrecall.plan import DryRunClient, format_plan, plan_params, sweep_total
from memrecall.read.reader import answer_messages, build_contexts, reader_settings, run_read
from memrecall.artifacts import read_table
from memrecall.judge.stage import run_judge

from fake_openai_server import FakeOpenAIServer
from test_read_stage import answer, cfg, write_inputs
from confs import group

STAGES = ["download", "embed", "retrieve", "rerank", "rewrite", "read", "judge", "aggregate"]


@pytest.fixture
def server():
    def reply(messages):
        text = messages[-1]["content"]
        return "yes" if "Is the response correct?" in text else answer(messages)

    with FakeOpenAIServer(answer=reply) as srv:
        yield srv


@pytest.fixture
def project(tmp_path, fresh_cache, monkeypatch):
    monkeypatch.setenv("MEMRECALL_FAKE_KEY", "sk-test-not-a-real-key")
    files = write_inputs(tmp_path)
    shutil.move(files["candidates"], tmp_path / paths.CANDIDATES_REWRITE)
    return tmp_path


def params(server, **reader_over):
    judge = group("judge", "gpt4o", **{
        "name": "fake-judge", "model": "openai/fake-judge", "api_base": server.url,
        "api_key_env": "MEMRECALL_FAKE_KEY", "max_tokens": 5, "concurrency": 2, "timeout_s": 10,
        "num_retries": 1, "backoff_s": 0.01, "input_cost_per_mtok": 2.0,
        "output_cost_per_mtok": 8.0})
    return {"rewrite": group("rewrite", "off"), "judge": judge,
            "reader": cfg(server, input_cost_per_mtok=1.0, output_cost_per_mtok=4.0,
                          **reader_over)}


def status(**runs):
    return {s: (["test"] if runs.get(s) else []) for s in STAGES}


def paid(stage: str, since: int) -> list[dict]:
    return [r for r in read_journal()[since:] if r["stage"] == stage and r["ok"]]


def run_stage_read(root: Path, p: dict):
    return run_read(p["reader"], questions=root / paths.QUESTIONS,
                    sessions=root / paths.SESSIONS, turns=root / paths.TURNS,
                    candidates=root / paths.CANDIDATES_REWRITE, out=root / paths.ANSWERS)


def test_plan_counts_match_what_the_run_pays(server, project):
    p = params(server)
    plan = plan_params(p, project, status=status(read=True, judge=True))
    read, judge = plan.stage("read").llm[0], plan.stage("judge").llm[0]
    assert (read.requests, len(read.cached), read.new_calls, read.estimated_calls) == (3, 0, 3, 0)
    # No answer is known yet: the judge's calls are an estimate, one per question.
    assert (judge.new_calls, judge.estimated_calls) == (3, 3)
    assert server.total_requests == 0  # the plan sent nothing

    # Pay for one reader request by hand: the plan now renders it as cached, and can render the
    # judge request for that answer exactly.
    settings = reader_settings(p["reader"])
    ctx = build_contexts(settings, *(read_table(project / f) for f in (
        paths.QUESTIONS, paths.SESSIONS, paths.TURNS, paths.CANDIDATES_REWRITE)))
    LLMClient(p["reader"], stage="read", progress=False).complete(
        answer_messages(settings, ctx[1]))
    plan = plan_params(p, project, status=status(read=True, judge=True))
    read, judge = plan.stage("read").llm[0], plan.stage("judge").llm[0]
    assert (len(read.cached), read.new_calls) == (1, 2)
    assert (len(judge.new), judge.estimated_calls) == (1, 2)
    assert read.input_tokens > 0 and read.cost_usd > 0 and read.wall_s > 0
    text = format_plan(plan)
    assert "2 new calls" in text and "config prices" in text and "estimated" in text

    n0 = len(read_journal())
    run_stage_read(project, p)
    assert len(paid("read", n0)) == read.new_calls == 2

    # After the read stage, the judge's requests are all rendered: no estimate left.
    plan = plan_params(p, project, status=status(judge=True))
    judge = plan.stage("judge").llm[0]
    assert (judge.new_calls, judge.estimated_calls, len(judge.cached)) == (3, 0, 0)
    n1 = len(read_journal())
    run_judge(p["judge"], questions=project / paths.QUESTIONS, answers=project / paths.ANSWERS,
              out=project / paths.VERDICTS)
    assert len(paid("judge", n1)) == judge.new_calls == 3
    # Nothing left: the next plan pays for nothing.
    plan = plan_params(p, project, status=status(read=True, judge=True))
    assert plan.new_calls == 0


def test_con_reading_counts_notes_and_estimates_answers(server, project):
    p = params(server, reading="con")
    plan = plan_params(p, project, status=status(read=True))
    read = plan.stage("read").llm[0]
    # 2 + 2 + 2 note calls rendered; the three answers need the notes first: estimated.
    assert (len(read.new), read.estimated_calls) == (6, 3)
    n0 = len(read_journal())
    run_stage_read(project, p)
    assert len(paid("read", n0)) == read.new_calls == 9


def test_sweep_total_counts_shared_calls_once(server, project):
    a = plan_params(params(server), project, status=status(read=True))
    b = plan_params(params(server), project, status=status(read=True))
    c = plan_params(params(server, prompt="con"), project, status=status(read=True))
    total = sweep_total([a, b, c])
    assert total["new_calls"] == 3 + 3
    assert total["shared_calls_counted_once"] == 3
    assert total["cost_usd"] == pytest.approx(a.cost_usd + c.cost_usd)


def test_dry_run_client_never_sends(server, project):
    dry = DryRunClient(params(server)["reader"], "read")
    res = dry.complete_many([[{"role": "user", "content": "hello"}]])
    assert res[0].error and res[0].text is None
    assert server.total_requests == 0


class FakeProject:
    """What sweep_gate needs of sweep.DvcProject: a root and DVC's composed params per spec."""

    def __init__(self, root: Path, params_by_name: dict):
        self.root, self.params = root, params_by_name

    def compose_all(self, specs):
        return [self.params[s.name] for s in specs]


def test_sweep_gate_plans_and_refuses_an_over_budget_sweep(server, project, monkeypatch, capsys):
    from memrecall.errors import MemrecallError
    from memrecall.llm.budget import SWEEP_ID_ENV, SWEEP_LIMIT_ENV
    from memrecall.plan import sweep_gate
    from memrecall.sweep import ExpSpec, SweepOptions, hydra_argv

    shutil.copy(Path(__file__).resolve().parents[1] / "dvc.yaml", project / "dvc.yaml")
    for var in (SWEEP_LIMIT_ENV, SWEEP_ID_ENV):  # restored after the test: the gate sets them
        monkeypatch.setenv(var, "")
        monkeypatch.delenv(var)
    specs = [ExpSpec("a", ("reader.prompt=default",)), ExpSpec("b", ("reader.prompt=con",))]
    proj = FakeProject(project, {"a": params(server), "b": params(server, prompt="con")})
    assert sweep_gate(proj, specs, SweepOptions.from_cfg({})) is True  # no plan, no budget

    assert sweep_gate(proj, specs, SweepOptions.from_cfg({"plan": True})) is False
    out = capsys.readouterr().out
    assert "experiment a" in out and "experiment b" in out and "sweep total: 2 experiment" in out
    assert server.total_requests == 0

    # Not a DVC project and no dataset: nothing upstream is computed, calls cannot be counted.
    with pytest.raises(MemrecallError, match="cannot be counted .* not started"):
        sweep_gate(proj, specs, SweepOptions.from_cfg({"max_cost_usd": 100}))
    import memrecall.plan as planmod

    monkeypatch.setattr(planmod, "dvc_status", lambda root: ({}, None))
    monkeypatch.setattr(planmod, "stage_status",
                        lambda root, params, files=None: status(read=True, judge=True))
    with pytest.raises(MemrecallError, match="the sweep was not started"):
        sweep_gate(proj, specs, SweepOptions.from_cfg({"max_cost_usd": 1e-9}))
    import os

    assert SWEEP_LIMIT_ENV not in os.environ
    assert sweep_gate(proj, specs, SweepOptions.from_cfg({"max_cost_usd": 100})) is True
    assert float(os.environ[SWEEP_LIMIT_ENV]) == 100 and os.environ[SWEEP_ID_ENV]
    assert "++sweep.plan=true" in hydra_argv(["sweep.py", "-m", "reader=a,b", "--plan"])


def test_stage_status_compares_params_with_dvc_lock():
    import memrecall.plan as planmod
    from memrecall.sweep.scheduling import Stage

    groups = {"download": ["dataset"], "embed": ["embedder"], "retrieve": ["retrieval", "embedder"],
              "read": ["reader"], "judge": ["judge"]}
    ups = {"download": (), "embed": ("download",), "retrieve": ("download", "embed"),
           "read": ("retrieve",), "judge": ("read",)}
    params = {g: {"name": g, "x": 1} for keys in groups.values() for g in keys}
    stages = {n: Stage(n, f"python stages/{n}.py", {"params.yaml": tuple(keys)}, ups[n],
                       {"params.yaml": {k: params[k] for k in keys}})
              for n, keys in groups.items()}
    everything = set(stages)
    assert all(not why for why in planmod.stage_status(
        Path("."), params, (stages, everything)).values())

    changed = {**params, "reader": {"name": "reader", "x": 2}}
    st = planmod.stage_status(Path("."), changed, (stages, everything))
    assert st["read"] == ["params changed: reader.x"]
    assert st["judge"] == ["after read (if its outputs change)"]
    assert st["download"] == [] and st["embed"] == [] and st["retrieve"] == []
    # A stage `dvc status` does not hold up to date (its files changed) runs, and what follows.
    st = planmod.stage_status(Path("."), params, (stages, everything - {"embed", "retrieve",
                                                                        "read", "judge"}))
    assert st["embed"] == ["dependencies or outputs changed (`dvc status`)"]
    assert st["retrieve"] == ["after embed (if its outputs change)"]
    assert st["download"] == []
    # Never run: no dvc.lock entry.
    stages["read"] = Stage("read", "x", {"params.yaml": ("reader",)}, ("retrieve",), {})
    assert planmod.stage_status(Path("."), params, (stages, everything))["read"] == [
        "never run (not in dvc.lock)"]
