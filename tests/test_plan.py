"""The plan renders the stages' real requests and counts the calls a run then pays, exactly:
against a real local HTTP server, on a three-question slice, with part of the work cached. And
what DVC would run: the stage graph and status from DVC itself (a temporary DVC project)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from confs import composed, group
from conftest import REPO
from fake_openai_server import FakeOpenAIServer, fake_runtime
from memrecall import paths
from memrecall.artifacts import read_table
from memrecall.benchmarks.longmemeval import BENCHMARK as LME
from memrecall.judge.stage import run_judge
from memrecall.llm import LLMClient
from memrecall.llm.cache import read_journal
from memrecall.llm.dryrun import DryRunClient
from memrecall.pipeline import Pipeline, Stage, read_pipeline
from memrecall.plan.build import plan_params
from memrecall.plan.report import format_plan
from memrecall.plan.status import RunStatus, stage_status
from memrecall.plan.sweep import sweep_total
from memrecall.read.reader import answer_messages, build_contexts, reader_settings
from memrecall.read.stage import run_read
from repo_copy import subprocess_env
from test_read_stage import answer, cfg, write_inputs

# The project's own stage graph, as DVC reads it from dvc.yaml (no status asked).
GRAPH = read_pipeline(REPO, status=False).stages


@pytest.fixture
def server():
    def reply(messages):
        text = messages[-1]["content"]
        return "yes" if "Is the response correct?" in text else answer(messages)

    with FakeOpenAIServer(answer=reply) as srv:
        yield srv


@pytest.fixture
def project(tmp_path, fresh_cache, fake_key):
    files = write_inputs(tmp_path)
    shutil.move(files["candidates"], tmp_path / paths.CANDIDATES_REWRITE)
    return tmp_path


def params(server, **reader_over):
    judge = group(
        "judge",
        "gpt4o",
        **{
            "name": "fake-judge",
            "model": "openai/fake-judge",
            **fake_runtime(server.url, num_retries=1),
            "max_tokens": 5,
            "concurrency": 2,
            "backoff_s": 0.01,
            "input_cost_per_mtok": 2.0,
            "output_cost_per_mtok": 8.0,
        },
    )
    return {
        "rewrite": group("rewrite", "off"),
        "judge": judge,
        "reader": cfg(server, input_cost_per_mtok=1.0, output_cost_per_mtok=4.0, **reader_over),
    }


def status(**runs):
    return RunStatus.assumed(GRAPH, [s for s, r in runs.items() if r], why="test")


def paid(stage: str, since: int) -> list[dict]:
    return [r for r in read_journal()[since:] if r["stage"] == stage and r["ok"]]


def run_stage_read(root: Path, p: dict):
    return run_read(
        p["reader"],
        questions=root / paths.QUESTIONS,
        sessions=root / paths.SESSIONS,
        turns=root / paths.TURNS,
        candidates=root / paths.CANDIDATES_REWRITE,
        out=root / paths.ANSWERS,
    )


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
    settings = reader_settings(p["reader"], LME)
    ctx = build_contexts(
        settings,
        *(
            read_table(project / f)
            for f in (paths.QUESTIONS, paths.SESSIONS, paths.TURNS, paths.CANDIDATES_REWRITE)
        ),
    )
    LLMClient(p["reader"], stage="read", progress=False).complete(answer_messages(settings, ctx[1]))
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
    run_judge(
        p["judge"],
        questions=project / paths.QUESTIONS,
        answers=project / paths.ANSWERS,
        out=project / paths.VERDICTS,
    )
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
    from memrecall.plan.sweep import sweep_gate
    from memrecall.sweep import ExpSpec, SweepOptions, hydra_argv

    for name in ("dvc.yaml", "params.yaml"):  # the graph; no .dvc/: no status
        shutil.copy(REPO / name, project / name)
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

    # Not a DVC project (a graph, no status) and no dataset: calls cannot be counted.
    with pytest.raises(MemrecallError, match="cannot be counted .* not started"):
        sweep_gate(proj, specs, SweepOptions.from_cfg({"max_cost_usd": 100}))
    import memrecall.plan.sweep as plan_sweep

    monkeypatch.setattr(plan_sweep, "read_pipeline", lambda root: Pipeline(GRAPH, {}))
    monkeypatch.setattr(
        plan_sweep, "stage_status", lambda root, params, pipeline: status(read=True, judge=True)
    )
    with pytest.raises(MemrecallError, match="the sweep was not started"):
        sweep_gate(proj, specs, SweepOptions.from_cfg({"max_cost_usd": 1e-9}))
    import os

    assert SWEEP_LIMIT_ENV not in os.environ
    assert sweep_gate(proj, specs, SweepOptions.from_cfg({"max_cost_usd": 100})) is True
    assert float(os.environ[SWEEP_LIMIT_ENV]) == 100 and os.environ[SWEEP_ID_ENV]
    assert "++sweep.plan=true" in hydra_argv(["sweep.py", "-m", "reader=a,b", "--plan"])


def test_stage_status_compares_params_with_dvc_lock():
    groups = {
        "download": ["dataset"],
        "embed": ["embedder"],
        "retrieve": ["retrieval", "embedder"],
        "read": ["reader"],
        "judge": ["judge"],
    }
    ups = {
        "download": (),
        "embed": ("download",),
        "retrieve": ("download", "embed"),
        "read": ("retrieve",),
        "judge": ("read",),
    }
    params = {g: {"name": g, "x": 1} for keys in groups.values() for g in keys}
    stages = {
        n: Stage(
            n,
            f"python stages/{n}.py",
            {"params.yaml": tuple(keys)},
            ups[n],
            {"params.yaml": {k: params[k] for k in keys}},
        )
        for n, keys in groups.items()
    }

    def why(p, changes=None):
        return stage_status(Path("."), p, Pipeline(stages, changes or {})).why

    assert all(not w for w in why(params).values())
    changed = {**params, "reader": {"name": "reader", "x": 2}}
    st = why(changed)
    assert st["read"] == ["params changed: reader.x"]
    assert st["judge"] == ["after read (if its outputs change)"]
    assert st["download"] == [] and st["embed"] == [] and st["retrieve"] == []
    # A stage whose files `dvc status` reports changed runs, and what follows.
    st = why(params, {"embed": [{"changed deps": {"artifacts/turns.parquet": "modified"}}]})
    assert st["embed"] == ["dependencies or outputs changed (`dvc status`)"]
    assert st["retrieve"] == ["after embed (if its outputs change)"]
    assert st["download"] == []
    # Only params.yaml values changed: compared by value above, so not a change by itself.
    assert (
        why(params, {"read": [{"changed deps": {"params.yaml": {"reader.x": "modified"}}}]})["read"]
        == []
    )
    # Never run: no dvc.lock entry.
    stages["read"] = Stage("read", "x", {"params.yaml": ("reader",)}, ("retrieve",), {})
    assert why(params)["read"] == ["never run (not in dvc.lock)"]
    # No status (not a DVC project): every stage is unknown, in the graph's order.
    st = stage_status(Path("."), params, Pipeline(stages, None, "no .dvc/"))
    assert list(st.why) == list(stages) and st.why["judge"] == ["status unknown: no .dvc/"]


def test_fact_expansion_calls_are_planned_from_the_embedders_llm(project):
    """embedder.expansion=fact: one fact call per session with user turns, rendered by the
    embed stage's own code with embedder.expansion_llm; the key texts that depend on facts not
    yet paid for are counted as new (an estimate)."""
    emb = group("embedder", "minilm", expansion="fact")
    plan = plan_params({"embedder": emb}, project, status=status(embed=True))
    sp = plan.stage("embed")
    (facts,) = sp.llm
    n_sessions = (
        read_table(project / paths.TURNS)
        .filter(read_table(project / paths.TURNS)["role"] == "user")["session_id"]
        .n_unique()
    )
    assert (
        facts.label == "embed (fact expansion)"
        and facts.model
        == LLMClient(emb["expansion_llm"], "embed", where="embedder.expansion_llm").model
    )
    assert (facts.requests, facts.new_calls) == (n_sessions, n_sessions)
    (keys,) = sp.texts
    assert keys.estimated and keys.total == keys.new > 0


# ---------------------------------------------------------------- reader kinds


def test_reader_file_costs_nothing_and_the_judge_is_planned_as_usual(server, project):
    """reader=file: no reader model (its model keys are null, as composed), so the read stage
    has no LLM calls; the judge's requests are rendered from the file's answers, exactly."""
    qids = sorted(read_table(project / paths.QUESTIONS)["question_id"].to_list())
    hyps = project / "hypotheses.jsonl"
    hyps.write_text(
        "".join(json.dumps({"question_id": q, "hypothesis": "Berlin"}) + "\n" for q in qids[:2])
    )  # the third question is missing: not judged
    p = {**params(server), "reader": composed("reader=file", f"reader.path={hyps}")["reader"]}
    plan = plan_params(p, project, status=status(read=True, judge=True))
    read, judge = plan.stage("read"), plan.stage("judge").llm[0]
    assert read.llm == [] and "no LLM calls, $0" in " ".join(read.notes)
    assert (judge.requests, judge.new_calls, judge.estimated_calls) == (2, 2, 0)
    assert plan.new_calls == 2 and plan.cost_usd == pytest.approx(judge.cost_usd)
    assert "no LLM calls, $0" in format_plan(plan) and server.total_requests == 0

    run_stage_read(project, p)  # what the run pays: the judge's two calls, nothing for read
    n0 = len(read_journal())
    run_judge(
        p["judge"],
        questions=project / paths.QUESTIONS,
        answers=project / paths.ANSWERS,
        out=project / paths.VERDICTS,
    )
    assert len(paid("judge", n0)) == judge.new_calls == 2 and not paid("read", 0)


def test_a_routed_judge_is_planned_for_the_answers_its_rules_refer(server, project):
    """judge=routed: until the answers are known, one referee call per question is the most it
    can cost; once they are, the plan renders the referee's requests for the answers the rules
    refer, exactly, and the run pays for those."""
    qids = sorted(read_table(project / paths.QUESTIONS)["question_id"].to_list())
    hyps = project / "hypotheses.jsonl"
    said = ["Berlin.", "Berlin, but I'm not sure.", "I can't recall."]
    hyps.write_text(
        "".join(json.dumps({"question_id": q, "hypothesis": h}) + "\n" for q, h in zip(qids, said))
    )
    judge = composed("judge=routed")["judge"]
    judge["runtime"]["per_member"] = {"gpt4o": fake_runtime(server.url)}
    base = params(server)
    plan = plan_params({**base, "judge": judge}, project, status=status(read=True, judge=True))
    first = plan.stage("judge").llm[0]
    assert (first.new_calls, first.estimated_calls) == (3, 3)
    assert "at most" in " ".join(first.notes)
    p = {**base, "judge": judge, "reader": composed("reader=file", f"reader.path={hyps}")["reader"]}
    run_stage_read(project, p)
    plan = plan_params(p, project, status=status(judge=True))
    judged = plan.stage("judge").llm[0]
    assert (judged.requests, judged.new_calls, judged.estimated_calls) == (1, 1, 0)
    n0 = len(read_journal())
    v = run_judge(
        p["judge"],
        questions=project / paths.QUESTIONS,
        answers=project / paths.ANSWERS,
        out=project / paths.VERDICTS,
    )
    assert len(paid("judge", n0)) == judged.new_calls == 1 and server.total_requests == 1
    assert v["referred"].null_count() == 2


def test_reader_plugin_calls_are_named_not_counted(server, project):
    """A reader plug-in calls its own model: the plan neither loads it nor invents its calls;
    it says they are not counted. The judge is estimated (answers not known yet)."""
    reader = composed("reader=plugin", "reader.callable=no_such_module:Reader")["reader"]
    plan = plan_params(
        {**params(server), "reader": reader}, project, status=status(read=True, judge=True)
    )
    read, judge = plan.stage("read"), plan.stage("judge").llm[0]
    assert read.llm == [] and plan.not_counted == [f"read: {read.not_counted[0]}"]
    assert "no_such_module:Reader calls its own model" in read.not_counted[0]
    assert (judge.new_calls, judge.estimated_calls) == (3, 3)
    assert plan.new_calls == 3 and plan.cost_usd == pytest.approx(judge.cost_usd)
    text = format_plan(plan)
    assert "not counted: the reader plug-in no_such_module:Reader" in text
    assert "calls outside our LLM client (read" in text
    total = sweep_total([plan])
    assert total["not_counted"] == [f": {plan.not_counted[0]}"] and total["new_calls"] == 3
    assert server.total_requests == 0


def test_reader_kind_and_callable_are_read(server, project):
    from memrecall.errors import ConfigError

    base = params(server)
    for kind, callable_, match in (
        ("bogus", None, r"reader\.kind.*llm, file, plugin"),
        ("plugin", None, r"reader\.callable"),
        ("llm", "pkg.mod:Reader", r"reader\.callable.*kind=plugin"),
    ):
        reader = {**base["reader"], "kind": kind, "callable": callable_}
        with pytest.raises(ConfigError, match=match):
            plan_params({**base, "reader": reader}, project, status=status(read=True))
    # kind plugin with its callable: as the read stage dispatches it.
    reader = {**base["reader"], "kind": "plugin", "callable": "pkg.mod:Reader"}
    plan = plan_params({**base, "reader": reader}, project, status=status(read=True))
    assert plan.stage("read").llm == [] and plan.stage("read").not_counted


# ---------------------------------------------------------------- a workspace dvc repro left


def _run(cmd: list[str], cwd: Path) -> None:
    subprocess.run(cmd, cwd=cwd, env=subprocess_env(), check=True, capture_output=True)


def test_after_dvc_repro_the_plan_says_up_to_date_and_zero(tmp_path):
    """dvc repro has run: nothing to do, 0 calls, $0, though the `sources` stage is always
    changed (it runs on every repro; the plan computes what it would write and compares). When a
    file the params name changes, sources would write something else and what follows runs."""
    root = tmp_path / "ws"
    (root / "staged").mkdir(parents=True)
    for name in ("questions", "sessions", "turns", "answers", "verdicts"):
        (root / "staged" / f"{name}.parquet").write_bytes(name.encode())
    (root / "data.json").write_text("[]\n")
    py = sys.executable
    copy = "import shutil, sys; shutil.copy(*sys.argv[1:])"
    (root / "dvc.yaml").write_text(f"""\
stages:
  sources:
    cmd: {py} {REPO / "stages" / "sources.py"}
    always_changed: true
    outs: [{paths.SOURCES}]
  download:
    cmd: {py} -c "{copy}" staged/questions.parquet {paths.QUESTIONS}
    deps: [{paths.SOURCES}, staged/questions.parquet]
    params: [dataset.name, dataset.path]
    outs: [{paths.QUESTIONS}]
  read:
    cmd: {py} -c "{copy}" staged/answers.parquet {paths.ANSWERS}
    deps: [{paths.QUESTIONS}, staged/answers.parquet]
    params: [reader]
    outs: [{paths.ANSWERS}]
  judge:
    cmd: {py} -c "{copy}" staged/verdicts.parquet {paths.VERDICTS}
    deps: [{paths.QUESTIONS}, {paths.ANSWERS}]
    params: [judge]
    outs: [{paths.VERDICTS}]
""")
    p = {
        "dataset": {"name": "tiny", "path": "data.json", "question_ids": None, "errata": None},
        "reader": group("reader", "deepseek"),
        "judge": group("judge", "gpt4o"),
    }
    import yaml

    from memrecall.artifacts import atomic_write_text

    atomic_write_text(root / "params.yaml", yaml.safe_dump(p, sort_keys=True))
    _run([py, "-m", "dvc", "init", "--no-scm", "-q"], root)
    _run([py, "-m", "dvc", "repro", "-q"], root)

    plan = plan_params(p, root)
    assert [s.stage for s in plan.stages] == ["sources", "download", "read", "judge"]
    assert not any(s.runs for s in plan.stages), [(s.stage, s.why) for s in plan.stages]
    assert (plan.new_calls, plan.cost_usd) == (0, 0)
    text = format_plan(plan)
    assert text.count("up to date (nothing to do)") == 4
    assert "total: 0 new LLM calls, cost $0.0000" in text
    assert "would write the same artifacts/sources.json" in text

    (root / "data.json").write_text("[1]\n")  # the dataset file's content changed
    why = stage_status(root, p, read_pipeline(root)).why
    assert why["sources"] == ["always changed: would write a different artifacts/sources.json"]
    assert why["download"] == ["after sources (if its outputs change)"]
    assert why["judge"] == ["after download, read (if its outputs change)"]
