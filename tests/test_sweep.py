"""Sweeps: names from overrides, named sweeps from conf/sweep/, wave scheduling, and real DVC
experiments in a tiny self-contained DVC project (git + dvc + conf/ with two groups, two stages
that count their executions under $DVC_ROOT): queueing, parallel workers, compute-once upstream,
on_exists, and a two-job sweep through Hydra's submitit_local launcher."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from conftest import REPO
from memrecall import experiments
from memrecall.errors import ConfigError, MemrecallError
from memrecall.report.paper import export_paper_tables
from memrecall.sweep import (
    DvcProject,
    ExpSpec,
    Stage,
    SweepOptions,
    check_unique,
    expand_named_sweep,
    experiment_name,
    hydra_argv,
    is_driver_override,
    load_stages,
    merge_overrides,
    override_key,
    plan_experiments,
    schedule_waves,
    slug,
    stage_signatures,
)
from memrecall.sweep.scheduling import experiment_values
from repo_copy import subprocess_env

# ---------------------------------------------------------------- the tiny DVC project

COUNT_PY = '''\
"""A trivial stage that records each real execution in $DVC_ROOT/counts/<stage>.log."""
import json, os, sys, time
from pathlib import Path
import polars as pl
import yaml

started = time.time()

stage = sys.argv[1]
root = Path(os.environ.get("DVC_ROOT", "."))
(root / "counts").mkdir(exist_ok=True)
with open(root / "counts" / f"{stage}.log", "a") as f:
    f.write(os.environ.get("DVC_EXP_NAME", "workspace") + "\\n")
params = yaml.safe_load(open("params.yaml"))
Path("out").mkdir(exist_ok=True)
if stage == "prep":
    Path("out/prep.json").write_text(json.dumps({"scale": params["prep"]["scale"]}))
else:
    scale = json.loads(Path("out/prep.json").read_text())["scale"]
    factor = params["reader"]["factor"]
    Path("reports").mkdir(exist_ok=True)
    Path("reports/metrics.json").write_text(json.dumps({
        "n_questions": 4,
        "qa": {"overall": scale * factor / 10, "by_type": {"single-session-user": factor / 4}},
        "retrieval": {"session": {"recall_any@5": scale / 4, "ndcg_any@10": 0.5}},
        "cost_usd": 0.001 * factor, "label": "not a number"}))
    name = params["reader"]["name"]
    Path("reports/summary.md").write_text(f"# {name}\\nscore {scale * factor}\\n")
    # what the real aggregate and read stages leave for the reports and MLflow
    with open("reports/per_question.csv", "w") as f:
        f.write("question_id,question_type,correct\\n")
        for i in range(4):
            f.write(f"q{i},multi-session,{str(i < factor).lower()}\\n")
    prompt = params["reader"]["prompt"]
    Path("reports/prompts.json").write_text(json.dumps(
        {f"{prompt}:0000": {"stage": "read", "template": f"template of {prompt}"}}))
    # the artifacts an MLflow trace per question is built from
    Path("artifacts").mkdir(exist_ok=True)
    ids = [f"q{i}" for i in range(4)]
    pl.DataFrame({"question_id": ids, "question_type": ["multi-session"] * 4,
                  "question": [f"question {i}?" for i in range(4)],
                  "question_date": ["2023/05/20 (Sat) 02:21"] * 4,
                  "answer": [f"gold {i}" for i in range(4)], "is_abstention": [False] * 4,
                  }).write_parquet("artifacts/questions.parquet")
    pl.DataFrame({"question_id": ids, "rank": [1] * 4, "session_id": ["s1", "s2", "s3", "s4"],
                  "score": [0.5] * 4}).write_parquet("artifacts/candidates_retrieve.parquet")
    pl.DataFrame({"question_id": ids, "hypothesis": [f"answer {i}" for i in range(4)],
                  "model": ["m"] * 4, "prompt_id": [f"{prompt}:0000"] * 4,
                  "request_hash": [None] * 4, "input_tokens": [10] * 4,
                  "output_tokens": [2] * 4, "latency_s": [0.5] * 4, "cost_usd": [0.0] * 4,
                  "error": [None, None, None, "timeout after 3 tries"],
                  }).write_parquet("artifacts/answers.parquet")
    # an LLM judge and a rewrite stage record the prompts they sent in their tables' metadata
    from memrecall.artifacts import write_table
    from memrecall.benchmarks.longmemeval import BENCHMARK
    from memrecall.judge.llm_judge import prompt_records as judge_prompts
    from memrecall.rewrite.prompts import prompt_records as rewrite_prompts
    write_table(pl.DataFrame({"question_id": ids, "label": [i < factor for i in range(3)] + [None],
                              "judge_model": ["openai/judge"] * 4, "raw": ["yes"] * 4,
                              "error": [None] * 4}),
                "artifacts/verdicts.parquet", stage="judge",
                extra_meta={"prompts": judge_prompts(BENCHMARK, ["default"])})
    write_table(pl.DataFrame({"question_id": ids[:1], "variants": [["variant of question 0"]]}),
                "artifacts/rewrites.parquet", stage="rewrite",
                extra_meta={"prompts": rewrite_prompts("multiangle", 3, False)})
from memrecall.timings import record_stage  # noqa: E402  (what stage.run_stage does)
record_stage(stage, started, time.time())
'''

DVC_YAML = """\
stages:
  prep:
    cmd: python count.py prep
    deps: [count.py]
    params: [prep]
    outs: [out/prep.json]
  answer:
    cmd: python count.py answer
    deps: [count.py, out/prep.json]
    params: [reader]
    metrics:
      - reports/metrics.json:
          cache: false
    outs: [reports/summary.md, reports/per_question.csv, reports/prompts.json,
           artifacts/questions.parquet, artifacts/candidates_retrieve.parquet,
           artifacts/answers.parquet, artifacts/verdicts.parquet, artifacts/rewrites.parquet]
"""

DATASET_SHA = "ab" * 32


def _env() -> dict:
    return subprocess_env()


def make_tiny_project(path: Path) -> Path:
    """git + DVC (hydra enabled) + conf/{prep,reader} + a two-stage dvc.yaml, one commit."""
    (path / "conf/prep").mkdir(parents=True)
    (path / "conf/reader").mkdir(parents=True)
    (path / "conf/config.yaml").write_text(
        "defaults:\n  - prep: a\n  - reader: x\n  - _self_\n\n"
        f"dataset:\n  name: tiny\n  sha256: {DATASET_SHA}\n"
    )
    for name, scale in (("a", 1), ("b", 2)):
        (path / f"conf/prep/{name}.yaml").write_text(f"name: {name}\nscale: {scale}\n")
    for name, factor, prompt in (("x", 1, "default"), ("y", 2, "type_aware"), ("z", 3, "con")):
        (path / f"conf/reader/{name}.yaml").write_text(
            f"name: {name}\nfactor: {factor}\nprompt: {prompt}\nreading: direct\n"
        )
    (path / "conf/sweep").mkdir()
    (path / "conf/sweep/ablation.yaml").write_text(
        "name: ablation\nvariants:\n  baseline: [reader=x]\n  top: [reader=z]\n"
    )
    (path / "count.py").write_text(COUNT_PY)
    (path / "dvc.yaml").write_text(DVC_YAML)
    (path / ".gitignore").write_text(
        "/counts/\n/out/\n/reports/summary.md\n/multirun/\n"
        "/outputs/\n/mlflow.db\n/mlruns/\n/reports/per_question.csv\n"
        "/reports/prompts.json\n/artifacts/\n"
    )
    env = _env()
    for cmd in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "config", "user.email", "test@example.com"],
        ["git", "config", "user.name", "test"],
        [sys.executable, "-m", "dvc", "init", "-q"],
        [sys.executable, "-m", "dvc", "config", "hydra.enabled", "true"],
        ["git", "add", "-A"],
        ["git", "commit", "-qm", "tiny project"],
    ):
        subprocess.run(cmd, cwd=path, check=True, capture_output=True, env=env)
    return path


def counts(project: Path, stage: str) -> list[str]:
    log = project / "counts" / f"{stage}.log"
    return log.read_text().split() if log.exists() else []


def sweep_cli(project: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    cmd = [
        sys.executable,
        str(REPO / "stages/sweep.py"),
        "--config-path",
        str(project / "conf"),
        *args,
        "++sweep.poll_s=0.5",
    ]
    proc = subprocess.run(cmd, cwd=project, env=_env(), capture_output=True, text=True, timeout=600)
    if check:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def table_rows(stdout: str) -> dict[str, dict]:
    lines = [ln for ln in stdout.splitlines() if ln.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = [dict(zip(header, (c.strip() for c in ln.strip("|").split("|")))) for ln in lines[2:]]
    return {r["experiment"]: r for r in rows}


def exp_params(project: Path, name: str) -> dict:
    (ref,) = experiments.list_experiments(
        project, names=[name], baseline=experiments.head_rev(project)
    )
    return experiments.read_experiment(project, ref).params


# ---------------------------------------------------------------- overrides and names


def test_override_keys_and_driver_overrides():
    assert override_key("reader=deepseek") == "reader"
    assert override_key("+reader.extra=1") == "reader.extra"
    assert override_key("++sweep.jobs=3") == "sweep.jobs"
    assert override_key("~rewrite") == "rewrite"
    assert [
        is_driver_override(o)
        for o in ("+sweep=ablation", "++sweep.jobs=2", "sweep.track=false", "sweeper=x", "reader=a")
    ] == [True, True, True, False, False]
    assert merge_overrides(["reader=a", "reader.top_k_context=3"], ["reader.top_k_context=15"]) == (
        "reader=a",
        "reader.top_k_context=15",
    )


def test_names_come_from_overrides_and_are_safe_git_refs():
    assert experiment_name(slug(["reader=deepseek"])) == "reader-deepseek"
    assert (
        experiment_name(slug(["retrieval=hybrid", "reranker=none"]))
        == "retrieval-hybrid_reranker-none"
    )
    weird = experiment_name(slug(["dataset.path=../data/my file.json.gz", "~rewrite"]))
    assert re.fullmatch(r"[A-Za-z0-9._-]+", weird) and ".." not in weird
    assert weird == "dataset.path-data-my-file.json.gz_no-rewrite"
    assert experiment_name(slug(["x=a.lock"])) == "x-a-lock"
    assert experiment_name("") == "default"
    long_a = experiment_name(slug([f"reader.model=provider/{'m' * 120}-a"]))
    long_b = experiment_name(slug([f"reader.model=provider/{'m' * 120}-b"]))
    assert len(long_a) <= 96 and len(long_b) <= 96 and long_a != long_b


def test_plan_strips_driver_overrides_and_names_the_job():
    (spec,) = plan_experiments(["reader=kimi", "++sweep.jobs=3", "retrieval.top_k=30"])
    assert spec == ExpSpec("reader-kimi_retrieval.top_k-30", ("reader=kimi", "retrieval.top_k=30"))
    (spec,) = plan_experiments(["++sweep.jobs=3"])
    assert spec == ExpSpec("default", ())
    (spec,) = plan_experiments(["reader=glm"], prefix="run2")
    assert spec.name == "run2_reader-glm"


def test_named_sweep_grid_variants_and_common_overrides():
    grid = {"name": "readers", "grid": {"reader": ["local", "deepseek"]}}
    assert expand_named_sweep(grid) == [
        ("local", ("reader=local",)),
        ("deepseek", ("reader=deepseek",)),
    ]
    both = {
        "name": "mix",
        "overrides": ["reader.top_k_context=10"],
        "variants": {"base": [], "wide": ["reader.top_k_context=15"]},
        "grid": {"retrieval": ["dense", "hybrid"], "reranker.top_k": [10, 15]},
    }
    out = expand_named_sweep(both)
    assert len(out) == 8
    assert out[0] == (
        "base_retrieval-dense_reranker.top_k-10",
        ("reader.top_k_context=10", "retrieval=dense", "reranker.top_k=10"),
    )
    assert out[-1] == (
        "wide_retrieval-hybrid_reranker.top_k-15",
        ("reader.top_k_context=15", "retrieval=hybrid", "reranker.top_k=15"),
    )
    # job overrides the variant replaces do not show up in the name
    specs = plan_experiments(["+sweep=readers", "reader=kimi", "judge=gpt4o"], grid)
    assert [s.name for s in specs] == ["readers_local_judge-gpt4o", "readers_deepseek_judge-gpt4o"]
    assert specs[0].overrides == ("judge=gpt4o", "reader=local")
    assert specs[0].meta == (("sweep", "readers"), ("variant", "local"), ("ladder", "judge-gpt4o"))
    assert specs[0].dvc_overrides[-3:] == (
        "++meta.sweep='readers'",
        "++meta.variant='local'",
        "++meta.ladder='judge-gpt4o'",
    )
    # a prefix goes into the name and the ladder; a plain job records nothing
    (spec,) = plan_experiments(
        ["+sweep=readers"], {"name": "readers", "grid": {"reader": ["x"]}}, prefix="v2"
    )
    assert (spec.name, dict(spec.meta)["ladder"]) == ("v2_readers_x", "v2")
    assert plan_experiments(["reader=kimi"])[0].meta == ()


def test_runtime_overrides_never_name_an_experiment_or_a_ladder():
    url = "judge.runtime.api_base=http://127.0.0.1:8000/v1"
    (spec,) = plan_experiments(["reader=kimi", url, "reader.runtime.concurrency=4"])
    assert spec.name == "reader-kimi" and url in spec.overrides  # still sent to DVC
    grid = {"name": "ablation", "variants": {"baseline": [], "wide": ["reader.top_k_context=15"]}}
    specs = plan_experiments(["+sweep=ablation", "judge=official", url], grid)
    assert [s.name for s in specs] == [
        "ablation_baseline_judge-official",
        "ablation_wide_judge-official",
    ]
    assert dict(specs[0].meta)["ladder"] == "judge-official"
    assert all("127.0.0.1" not in s.name and "127" not in str(s.meta) for s in specs)


@pytest.mark.parametrize(
    "spec, field",
    [
        ({"name": "s"}, "sweep.variants"),
        ({"name": "s", "variants": {"a": "reader=x"}}, "sweep.variants.a"),
        ({"name": "s", "variants": {"a": ["reader"]}}, "sweep.variants.a"),
        ({"name": "s", "grid": {"reader": []}}, "sweep.grid"),
        ({"name": "s", "variant": {"a": []}}, "sweep.variant"),
    ],
)
def test_named_sweep_errors_name_the_file_and_field(spec, field):
    with pytest.raises(ConfigError) as e:
        expand_named_sweep(spec)
    assert field in str(e.value)
    assert "conf/sweep/s.yaml" in str(e.value)


def test_options_are_checked():
    assert SweepOptions.from_cfg({"jobs": 3, "variants": {}}).jobs == 3
    for bad, key in (
        ({"jobs": 0}, "sweep.jobs"),
        ({"execute": "slurm"}, "sweep.execute"),
        ({"on_exists": "keep"}, "sweep.on_exists"),
        ({"job": 2}, "sweep.job"),
    ):
        with pytest.raises(ConfigError, match=re.escape(key)):
            SweepOptions.from_cfg(bad)
    with pytest.raises(MemrecallError, match="share the name 'a'"):
        check_unique([ExpSpec("a", ("x=1",)), ExpSpec("a", ("x=2",))])


def test_hydra_argv_maps_jobs_and_registers_the_callback():
    argv = hydra_argv(["sweep.py", "-m", "reader=a,b", "--jobs", "3"])
    assert argv[:4] == ["sweep.py", "-m", "reader=a,b", "++sweep.jobs=3"]
    assert argv[-1] == "+hydra.callbacks.memrecall_sweep._target_=memrecall.sweep.SweepCallback"
    assert hydra_argv(["s", "--jobs=2"])[1] == "++sweep.jobs=2"
    assert len(hydra_argv(argv)) == len(argv)  # idempotent


# ---------------------------------------------------------------- compute-once scheduling


def _stages() -> dict[str, Stage]:
    p = "params.yaml"
    return {
        "embed": Stage("embed", "python embed.py", {p: ("embedder",)}, ()),
        "retrieve": Stage("retrieve", "python r.py", {p: ("retrieval",)}, ("embed",)),
        "read": Stage("read", "python read.py", {p: ("reader.model",)}, ("retrieve",)),
    }


def test_stage_identity_follows_params_and_upstream():
    def sigs(**params):
        return stage_signatures(_stages(), lambda _s, _f, k: params.get(k.split(".")[0]))

    base = sigs(embedder="m", retrieval="dense", reader="a")
    other_reader = sigs(embedder="m", retrieval="dense", reader="b")
    other_embedder = sigs(embedder="n", retrieval="dense", reader="a")
    assert base["embed"] == other_reader["embed"] and base["retrieve"] == other_reader["retrieve"]
    assert base["read"] != other_reader["read"]
    # an upstream change changes everything downstream, though their own params did not change
    assert all(base[s] != other_embedder[s] for s in base)


@pytest.mark.slow
def test_stage_graph_comes_from_dvc_with_params_by_key(tmp_path):
    """DVC's index, not a parse of dvc.yaml: params declared by key (`reader.factor`), a
    foreach stage and the upstream edges are resolved as `dvc repro` resolves them."""
    project = make_tiny_project(tmp_path / "tiny")
    (project / "dvc.yaml").write_text(
        DVC_YAML.replace("params: [reader]", "params: [reader.factor]")
        + """\
  extra:
    foreach: [a, b]
    do:
      cmd: python count.py extra-${item}
      deps: [out/prep.json]
      params: [prep.scale]
      outs: ["out/extra-${item}.json"]
"""
    )
    stages, up_to_date = load_stages(project)
    assert set(stages) == {"prep", "answer", "extra@a", "extra@b"}
    assert stages["answer"].params == {"params.yaml": ("reader.factor",)}
    assert stages["answer"].upstream == ("prep",) and stages["extra@b"].upstream == ("prep",)
    assert up_to_date == set()  # nothing run yet

    def sigs(**overrides):
        params = {"prep": {"name": "a", "scale": 1}, "reader": {"name": "x", "factor": 1}}
        for k, v in overrides.items():
            group, key = k.split("__")
            params[group] = {**params[group], key: v}
        return stage_signatures(stages, experiment_values(params))

    base = sigs()
    # a key the stage does not declare changes nothing; a declared one changes only its stage
    assert sigs(reader__name="y") == base
    factor = sigs(reader__factor=2)
    assert factor["answer"] != base["answer"] and factor["prep"] == base["prep"]
    scale = sigs(prep__scale=2)
    assert all(scale[s] != base[s] for s in stages)  # prep's change reaches every stage


@pytest.mark.slow
def test_after_repro_a_reader_sweep_is_one_wave(tmp_path):
    """Stages up to date in the workspace's dvc.lock count as computed: every reader runs at
    once. A changed upstream param (prep=b) is computed once, then shared."""
    from memrecall.compose import compose_params

    project = make_tiny_project(tmp_path / "tiny")
    compose_params([], root=project)
    subprocess.run(
        [sys.executable, "-m", "dvc", "repro", "-q"],
        cwd=project,
        env=_env(),
        check=True,
        capture_output=True,
    )
    dvc_project = DvcProject(project)
    stages, computed = dvc_project.stage_graph()
    readers = [ExpSpec(f"r-{r}", (f"reader={r}",)) for r in "xyz"]
    prep_b = [ExpSpec(f"b-{r}", ("prep=b", f"reader={r}")) for r in "xy"]
    sigs = {s.name: dvc_project.signatures(stages, s) for s in readers + prep_b}
    assert {sigs["r-x"]["prep"], sigs["r-x"]["answer"]} <= computed
    assert sigs["r-y"]["answer"] not in computed
    assert [len(w) for w in schedule_waves(readers, sigs, computed)] == [3]
    assert [len(w) for w in schedule_waves(prep_b, sigs, computed)] == [1, 1]


def test_waves_never_compute_a_shared_stage_twice():
    def sig(retrieval, reader):
        return {"embed": "E", "retrieve": f"R{retrieval}", "read": f"A{retrieval}{reader}"}

    specs = [ExpSpec(f"{r}-{m}", ()) for r in ("d", "h") for m in ("x", "y", "z")]
    sigs = {s.name: sig(*s.name.split("-")) for s in specs}
    waves = schedule_waves(specs, sigs)
    assert [[s.name for s in w] for w in waves] == [["d-x"], ["d-y", "d-z", "h-x"], ["h-y", "h-z"]]
    for i, wave in enumerate(waves):  # nothing not yet computed is computed twice in a wave
        done = {v for w in waves[:i] for s in w for v in sigs[s.name].values()}
        new = [set(sigs[s.name].values()) - done for s in wave]
        assert sum(len(n) for n in new) == len(set().union(*new))
    # upstream already computed (in the workspace's dvc.lock): one wave, all parallel
    readers = specs[:3]
    assert len(schedule_waves(readers, sigs, computed={"E", "Rd"})) == 1


# ---------------------------------------------------------------- the named sweeps of conf/sweep


def experiments_yaml() -> dict:
    from memrecall.config import load_yaml_file

    return load_yaml_file(REPO / "dvc.yaml")


def _named(name: str) -> dict:
    return OmegaConf.to_container(OmegaConf.load(REPO / "conf/sweep" / f"{name}.yaml"))


def test_ablation_reproduces_the_compass_ladder_on_the_real_conf():
    from memrecall.benchmarks.longmemeval.prompts import PROMPTS

    project = DvcProject(REPO)
    specs = plan_experiments(["+sweep=ablation", "reader=local"], _named("ablation"))
    assert [s.name for s in specs] == [
        f"ablation_{v}_reader-local"
        for v in ("baseline", "top15", "ms_decompose", "ku_recency", "ssu_rewrite", "all")
    ]
    cfgs = project.compose_all(specs)
    ladder = [
        (
            c["reader"]["top_k_context"],
            c["reader"]["max_chars_per_session"],
            c["reader"]["prompt"],
            c["rewrite"]["name"],
        )
        for c in cfgs
    ]
    assert ladder == [
        (10, 2400, "default", "off"),
        (15, 3500, "default", "off"),
        (15, 3500, "multi_session", "off"),
        (15, 3500, "recency", "off"),
        (15, 3500, "default", "multiangle"),
        (15, 3500, "type_aware", "multiangle"),
    ]
    assert all(c["rewrite"]["types"] == ["single-session-user"] for c in cfgs)
    # each prompt rung carries exactly its own instruction; `all` carries both
    assert set(PROMPTS["multi_session"].guidance) == {"multi-session"}
    assert set(PROMPTS["recency"].guidance) == {"knowledge-update"}
    assert set(PROMPTS["type_aware"].guidance) == {"multi-session", "knowledge-update"}
    assert all("sweep" not in c for c in cfgs)  # driver config never reaches params.yaml
    # each run records its sweep, variant and ladder in params: the export groups by these
    assert [c["meta"] for c in cfgs] == [
        {"sweep": "ablation", "variant": v, "ladder": "reader-local"}
        for v in ("baseline", "top15", "ms_decompose", "ku_recency", "ssu_rewrite", "all")
    ]
    # no stage reads meta: recording it reruns nothing
    dvc_yaml = experiments_yaml()
    assert not any(
        "meta" in str(p) for st in dvc_yaml["stages"].values() for p in st.get("params", [])
    )


def test_negative_findings_compose_on_the_real_conf():
    from memrecall.benchmarks.longmemeval.prompts import PROMPTS
    from memrecall.retrieval.expansion import EXPANSIONS
    from memrecall.retrieval.fusion import FUSIONS
    from memrecall.retrieval.keys import KEYS

    project = DvcProject(REPO)
    specs = plan_experiments(["+sweep=negative_findings"], _named("negative_findings"))
    cfgs = dict(zip((s.name.split("_", 2)[-1] for s in specs), project.compose_all(specs)))
    ref = cfgs["reference"]
    assert ref["reranker"]["name"] == "bge_reranker_v2_m3"
    assert ref["reader"]["prompt"] == "type_aware"
    changed = {
        k: {
            g: {f: v for f, v in c[g].items() if ref[g].get(f) != v}
            for g in c
            if isinstance(c[g], dict) and c[g] != ref[g] and g != "meta"
        }
        for k, c in cfgs.items()
        if k != "reference"
    }
    # the Compass paper's Table 3 rows
    assert list(cfgs) == [
        "reference",
        "graph_rerank",
        "router",
        "preference_prompt",
        "thinking_1024",
    ]
    assert changed["graph_rerank"]["reranker"]["name"] == "graph"
    assert set(changed["graph_rerank"]) == {"reranker"}
    assert cfgs["router"]["reader"]["name"] == "router" and set(changed["router"]) == {"reader"}
    # the reference's reading settings reach the router (and so its routes)
    assert cfgs["router"]["reader"]["prompt"] == "type_aware"
    assert cfgs["router"]["reader"]["top_k_context"] == 15
    assert changed["preference_prompt"] == {"reader": {"prompt": "preference"}}
    assert changed["thinking_1024"] == {"reader": {"thinking_budget": 1024}}
    assert "preference" in PROMPTS

    # the retrieval rows, a ladder of their own against the same reference
    specs = plan_experiments(["+sweep=negative_retrieval"], _named("negative_retrieval"))
    cfgs = dict(zip((s.name.split("_", 2)[-1] for s in specs), project.compose_all(specs)))
    assert cfgs["reference"] == {**ref, "meta": cfgs["reference"]["meta"]}
    changed = {
        k: {
            g: {f: v for f, v in c[g].items() if ref[g].get(f) != v}
            for g in c
            if isinstance(c[g], dict) and c[g] != ref[g] and g != "meta"
        }
        for k, c in cfgs.items()
        if k != "reference"
    }
    assert changed["weighted_fusion"] == {"retrieval": {"method": "hybrid", "fusion": "weighted"}}
    assert changed["fact_keys"] == {"embedder": {"expansion": "fact_only"}}
    assert changed["all_turn_keys"] == {"embedder": {"key": "all"}}
    assert changed["no_reranker"]["reranker"]["name"] == "none"
    assert "weighted" in FUSIONS and "fact" in EXPANSIONS and "all" in KEYS


def test_thinking_sweep_crosses_models_and_budgets():
    spec = _named("thinking")
    specs = plan_experiments(["+sweep=thinking"], spec)
    cfgs = DvcProject(REPO).compose_all(specs)
    cells = {(c["reader"]["name"], c["reader"]["thinking_budget"]) for c in cfgs}
    assert cells == {
        (m, b) for m in spec["grid"]["reader"] for b in spec["grid"]["reader.thinking_budget"]
    }
    assert all(
        c["reader"]["max_tokens"] > max(spec["grid"]["reader.thinking_budget"]) for c in cfgs
    )


def test_readers_sweep_covers_every_reader_option_and_composes():
    spec = _named("readers")
    options = spec["grid"]["reader"]
    assert options[0] == "local"  # the offline one first
    # every model reader; `file` (imported answers) and `plugin` (a system of your own) need a
    # path or a callable from the user, so they are not part of a model comparison
    # and `router` combines other options' models rather than being one
    assert set(options) == {p.stem for p in (REPO / "conf/reader").glob("*.yaml")} - {
        "file",
        "plugin",
        "router",
    }
    project = DvcProject(REPO)
    specs = plan_experiments(["+sweep=readers"], spec)
    assert [s.name for s in specs] == [f"readers_{o}" for o in options]
    for params, option in zip(project.compose_all(specs), options):
        assert params["reader"]["name"] == option
    missing = ExpSpec("x", ("reader=no_such_reader",))
    with pytest.raises(ConfigError, match="Available options in 'reader'"):
        project.compose(missing)


# ---------------------------------------------------------------- real DVC experiments


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """`stages/sweep.py -m reader=x,y,z --jobs 2` in a fresh tiny project (no baseline run)."""
    project = make_tiny_project(tmp_path_factory.mktemp("sweep") / "tiny")
    proc = sweep_cli(project, "-m", "reader=x,y,z", "--jobs", "2", "++sweep.track=false")
    return project, proc


@pytest.mark.slow
@pytest.mark.queue
def test_reader_sweep_runs_one_experiment_per_reader_and_upstream_once(swept):
    project, proc = swept
    head = experiments.head_rev(project)
    names = {r.name for r in experiments.list_experiments(project, baseline=head)}
    assert names == {"reader-x", "reader-y", "reader-z"}
    for reader in "xyz":
        params = exp_params(project, f"reader-{reader}")
        assert params["reader"]["name"] == reader and "sweep" not in params
    # compute once: the shared upstream stage ran once, the reader stage once per reader
    assert counts(project, "prep") == ["reader-x"]
    assert sorted(counts(project, "answer")) == ["reader-x", "reader-y", "reader-z"]
    assert "in 2 wave(s) of [1, 2], 2 worker(s)" in proc.stderr
    rows = table_rows(proc.stdout)
    assert {n: (r["state"], r["reader"], float(r["qa.overall"])) for n, r in rows.items()} == {
        "reader-x": ("Success", "x", 0.1),
        "reader-y": ("Success", "y", 0.2),
        "reader-z": ("Success", "z", 0.3),
    }
    table = Path(re.search(r"table in (\S+comparison\.md)", proc.stderr).group(1))
    assert table.read_text().strip() == "\n".join(
        ln for ln in proc.stdout.splitlines() if ln.startswith("|")
    )


@pytest.mark.slow
@pytest.mark.queue
def test_existing_experiments_are_kept_or_replaced_from_the_run_cache(swept):
    project, _ = swept
    before = {r.name: r.rev for r in experiments.list_experiments(project)}
    n_prep, n_answer = len(counts(project, "prep")), len(counts(project, "answer"))

    kept = sweep_cli(project, "-m", "reader=x,y", "++sweep.on_exists=skip", "++sweep.track=false")
    assert {r["state"] for r in table_rows(kept.stdout).values()} == {"Kept"}
    assert {r.name: r.rev for r in experiments.list_experiments(project)} == before

    replaced = sweep_cli(project, "reader=y", "++sweep.track=false")  # single run, no -m
    assert table_rows(replaced.stdout)["reader-y"]["state"] == "Success"
    after = {r.name: r.rev for r in experiments.list_experiments(project)}
    assert after.keys() == before.keys() and after["reader-y"] != before["reader-y"]
    # both stages restored from DVC's run-cache: nothing executed again
    assert (len(counts(project, "prep")), len(counts(project, "answer"))) == (n_prep, n_answer)

    clash = sweep_cli(
        project, "reader=y", "++sweep.on_exists=error", "++sweep.track=false", check=False
    )
    assert clash.returncode == 1
    assert "error: experiment 'reader-y' exists at baseline" in clash.stderr


@pytest.mark.slow
@pytest.mark.queue
def test_bad_override_fails_before_anything_is_queued(swept):
    project, _ = swept
    proc = sweep_cli(project, "-m", "reader=x,nope", "++sweep.track=false", check=False)
    assert proc.returncode != 0
    assert "Could not find 'reader/nope'" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert not any(r.name == "reader-nope" for r in experiments.list_experiments(project))


@pytest.mark.slow
@pytest.mark.queue
def test_two_job_sweep_through_submitit_local(swept):
    """Each Hydra job runs its experiment itself (`dvc exp run --temp`), as on SLURM; job 1
    waits for job 0, so the new upstream (prep=b) is still computed once."""
    project, _ = swept
    n_prep, n_answer = len(counts(project, "prep")), len(counts(project, "answer"))
    proc = sweep_cli(
        project,
        "-m",
        "hydra/launcher=submitit_local",
        "prep=b",
        "reader=x,y",
        "++sweep.track=false",
    )
    assert "Submitit 'local' sweep output dir" in proc.stdout + proc.stderr
    rows = table_rows(proc.stdout)
    assert {n: (r["state"], float(r["qa.overall"])) for n, r in rows.items()} == {
        "prep-b_reader-x": ("Success", 0.2),
        "prep-b_reader-y": ("Success", 0.4),
    }
    assert counts(project, "prep")[n_prep:] == ["prep-b_reader-x"]
    assert sorted(counts(project, "answer")[n_answer:]) == ["prep-b_reader-x", "prep-b_reader-y"]
    # the jobs really ran in submitit's worker processes
    sweep_dir = next(project.glob("multirun/*/*/.submitit"))
    assert len(list(sweep_dir.rglob("*_result.pkl"))) == 2
    records = sorted(sweep_dir.parent.glob(".memrecall_sweep/job-*.json"))
    assert [json.loads(p.read_text())["mode"] for p in records] == ["inline", "inline"]


@pytest.mark.slow
@pytest.mark.queue
def test_named_sweep_records_meta_and_the_export_groups_by_it(swept, tmp_path):
    """`+sweep=ablation ++sweep.prefix=v2`: the runs carry meta.sweep/variant/ladder in their
    params, and the paper export builds the ladder from those (the prefix in the names does not
    matter), compared with the sweep's first variant."""
    project, _ = swept
    proc = sweep_cli(
        project, "+sweep=ablation", "++sweep.prefix=v2", "--jobs", "2", "++sweep.track=false"
    )
    assert set(table_rows(proc.stdout)) == {"v2_ablation_baseline", "v2_ablation_top"}
    assert exp_params(project, "v2_ablation_top")["meta"] == {
        "sweep": "ablation",
        "variant": "top",
        "ladder": "v2",
    }
    assert "meta" not in exp_params(project, "reader-x")  # plain sweeps record nothing

    out = tmp_path / "paper"
    export_paper_tables(str(project), out_dir=out, n_resamples=200, seed=0)
    rows = list(csv.DictReader(io.StringIO((out / "table2_ablation.csv").read_text())))
    assert [(r["step"], r["config"]) for r in rows] == [
        ("baseline", "v2_ablation_baseline"),
        ("top", "reader=z"),
    ]
    assert float(rows[1]["delta"]) == pytest.approx(0.5) and rows[1]["n"] == "4"


def test_a_queue_reply_read_half_written_is_asked_again(monkeypatch):
    """kombu's filesystem broker can hand over a reply file before it is written: the question
    to the queue is asked again instead of failing the sweep."""
    from contextlib import nullcontext
    from types import SimpleNamespace

    from memrecall.sweep import project as project_mod

    replies = iter([json.JSONDecodeError("Expecting value", "", 0), ["w1", "w2"]])
    asked = []

    def worker_status():
        asked.append(1)
        reply = next(replies)
        if isinstance(reply, Exception):
            raise reply
        return reply

    queue = SimpleNamespace(worker_status=worker_status)
    repo = SimpleNamespace(experiments=SimpleNamespace(celery_queue=queue))
    project = object.__new__(project_mod.DvcProject)  # no DVC repository needed
    monkeypatch.setattr(project, "_queue", lambda: nullcontext(repo), raising=False)
    assert project.workers_alive() == 2 and len(asked) == 2

    def never_whole():
        asked.append(1)
        raise json.JSONDecodeError("Expecting value", "", 0)

    asked.clear()
    queue.worker_status = never_whole
    with pytest.raises(json.JSONDecodeError):
        project.workers_alive()
    assert len(asked) == project_mod.QUEUE_ASKS
