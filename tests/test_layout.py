"""dvc.yaml, paths.py, conf/ and params.yaml agree with each other and with docs/contract.md."""

from __future__ import annotations

import ast
import functools
import re
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import REPO
from memrecall import paths
from memrecall.compose import compose_params
from memrecall.config import choice, load_params
from memrecall.errors import ConfigError, MemrecallError
from repo_copy import ALL_STAGES
from stage_modules import stage_modules

STAGES = ALL_STAGES  # dvc.yaml's stages, in order
GROUPS = {
    "dataset": [
        "sample",
        "longmemeval_s_cleaned",
        "longmemeval_s",
        "longmemeval_m_cleaned",
        "longmemeval_oracle",
        "local",
    ],
    "embedder": ["minilm", "bge_m3"],
    "retrieval": ["dense", "bm25", "hybrid", "oracle", "plugin"],
    "reranker": ["none", "bge_reranker_v2_m3"],
    "rewrite": ["off", "multiangle"],
    "reader": ["local", "deepseek", "kimi", "glm", "minimax", "gemini", "gpt4o", "plugin", "file"],
    "judge": ["rule", "official", "gpt4o", "file"],
    "sweep": ["readers", "ablation", "negative_findings"],
}


def _dvc_yaml():
    return yaml.safe_load((REPO / "dvc.yaml").read_text())


def _outs(stage):
    items = stage.get("outs", []) + stage.get("metrics", [])
    return [next(iter(o)) if isinstance(o, dict) else o for o in items]


def test_dvc_yaml_has_the_stages_in_order():
    assert list(_dvc_yaml()["stages"]) == STAGES


def test_every_artifact_path_is_a_declared_output():
    stages = _dvc_yaml()["stages"]
    outs = {o for st in stages.values() for o in _outs(st)}
    files = {k: v for k, v in vars(paths).items() if k.isupper() and isinstance(v, str)}
    folders = {"REPORTS"}
    assert folders <= set(files)
    missing = {k: v for k, v in files.items() if k not in folders and v not in outs}
    assert not missing, missing
    # The aggregate stage writes every one of its outputs under paths.REPORTS.
    assert all(o.startswith(paths.REPORTS + "/") for o in _outs(stages["aggregate"]))


def test_every_artifact_path_is_used():
    """No dead constants: each path in paths.py is passed by some stage script."""
    scripts = "\n".join(p.read_text() for p in (REPO / "stages").glob("*.py"))
    unused = [
        k
        for k, v in vars(paths).items()
        if k.isupper() and isinstance(v, str) and f"paths.{k}" not in scripts
    ]
    assert not unused, unused


def test_stage_scripts_exist_and_are_thin():
    for name in STAGES + ["sweep", "export"]:
        script = REPO / "stages" / f"{name}.py"
        assert script.exists(), script
        assert len(script.read_text().splitlines()) < 60, f"{script} holds logic; move it to src/"


# Where each stage's logic lives: a package of src/memrecall (no stage is a loose module).
STAGE_PACKAGES = {
    "sources": "data",
    "download": "data",
    "embed": "retrieval",
    "retrieve": "retrieval",
    "rerank": "retrieval",
    "rewrite": "rewrite",
    "read": "read",
    "judge": "judge",
    "errata": "errata",
    "aggregate": "report",
}


@pytest.mark.parametrize("stage", STAGES)
def test_stage_logic_lives_in_its_package(stage):
    import ast

    pkg = STAGE_PACKAGES[stage]
    assert (REPO / "src" / "memrecall" / pkg / "__init__.py").exists(), pkg
    tree = ast.parse((REPO / "stages" / f"{stage}.py").read_text())
    runs = [
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module != "memrecall.stage"
        and any(a.name.startswith("run_") for a in node.names)
    ]
    assert runs and all(m.startswith(f"memrecall.{pkg}") for m in runs), runs
    deps = _dvc_yaml()["stages"][stage]["deps"]
    assert any(d.startswith(f"src/memrecall/{pkg}") for d in deps), deps
    assert not list((REPO / "src" / "memrecall").glob(f"{stage}*.py")), (
        f"{stage} logic outside its package"
    )


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_config_group_options_exist(group):
    have = {p.stem for p in (REPO / "conf" / group).glob("*.yaml")}
    assert set(GROUPS[group]) <= have


@pytest.mark.parametrize("group", ["retrieval", "reader", "judge"])
def test_every_option_names_the_code_dvc_watches(group):
    """dvc.yaml lists `${retrieval.code}` / `${reader.code}` / `${judge.code}` as deps (so a
    plug-in edit, an imported file or the official script reruns its stage): every option sets
    it to a path that exists, or to one of its own path params (reader=file: `${.path}`;
    judge=official: `${.official_script}`), which the user gives."""
    stage = {"retrieval": "retrieve", "reader": "read", "judge": "judge"}[group]
    assert f"${{{group}.code}}" in _dvc_yaml()["stages"][stage]["deps"]
    from memrecall.compose import compose_config

    for path in sorted((REPO / "conf" / group).glob("*.yaml")):  # composed: bases set it
        option = compose_config([f"{group}={path.stem}"], root=REPO)[group]
        raw = yaml.safe_load(path.read_text()).get("code")
        own = re.fullmatch(r"\$\{\.(\w+)\}", str(raw))
        if own:  # a file the user names (reader.path, judge.official_script)
            assert own.group(1) in option, f"{path}: code={raw!r} names no key of its own"
            continue
        code = option["code"]
        assert isinstance(code, str) and (REPO / code).exists(), f"{path}: code={code!r}"


def test_committed_params_yaml_is_the_composed_default(tmp_path):
    shutil.copytree(REPO / "conf", tmp_path / "conf")
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    compose_params([], root=tmp_path)
    assert (tmp_path / "params.yaml").read_text() == (REPO / "params.yaml").read_text(), (
        "params.yaml is stale: run `memrecall compose`"
    )


def test_unknown_group_option_is_a_clear_error(tmp_path):
    shutil.copytree(REPO / "conf", tmp_path / "conf")
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    with pytest.raises(ConfigError, match=r"(?s)reader/nosuchmodel.*Available options"):
        compose_params(["reader=nosuchmodel"], root=tmp_path)
    assert not (tmp_path / "params.yaml").exists()  # nothing half-written


def test_params_read_as_yaml_1_2(tmp_path):
    (tmp_path / "params.yaml").write_text("rewrite:\n  name: off\n")
    assert load_params(tmp_path / "params.yaml")["rewrite"]["name"] == "off"


def test_unknown_value_names_key_and_choices():
    with pytest.raises(ConfigError, match=r"retrieval\.method.*dense, bm25"):
        choice({"method": "sparse"}, "method", ["dense", "bm25"], group="retrieval")


def test_malformed_params_file(tmp_path):
    bad = tmp_path / "params.yaml"
    bad.write_text("reader: [unclosed\n")
    with pytest.raises(MemrecallError, match="params.yaml"):
        load_params(bad)


# Modules that cannot change a stage's result (error text, param reading, paths, the stage
# frame and its timings, a package's marker __init__): a change to them need not rerun the
# pipeline. Everything else a stage can run must be one of its DVC deps, or DVC would keep a
# stale artifact after the code changed; and every src/ dep must hold code the stage can run, or
# an edit there (a judge rule before judge, a reader prompt before read) reruns stages for nothing.
NOT_RESULT_AFFECTING = {"errors", "config", "stage", "paths", "timings"}


def result_affecting(module: Path) -> bool:
    if module.name == "__init__.py":  # a package marker, unless it defines code
        tree = ast.parse(module.read_text(encoding="utf-8"))
        return any(isinstance(n, ast.FunctionDef | ast.ClassDef) for n in ast.walk(tree))
    return module.stem not in NOT_RESULT_AFFECTING


@functools.lru_cache(maxsize=None)
def stage_code(stage: str) -> tuple[str, ...]:
    """The result-affecting memrecall modules `stage` can run, relative to the repository."""
    modules = stage_modules(REPO / "stages" / f"{stage}.py", REPO / "src")
    return tuple(sorted(str(m.relative_to(REPO)) for m in modules if result_affecting(m)))


def src_deps(stage: str) -> list[str]:
    return [d for d in _dvc_yaml()["stages"][stage]["deps"] if d.startswith("src/")]


def covers(dep: str, module: str) -> bool:
    """Whether a DVC dep (a file or a folder) holds the module."""
    return module == dep or module.startswith(dep + "/")


def uncovered(modules, deps) -> list[str]:
    return sorted(m for m in modules if not any(covers(d, m) for d in deps))


@pytest.mark.parametrize("stage", STAGES)
def test_every_result_affecting_module_is_a_stage_dep(stage):
    missing = uncovered(stage_code(stage), src_deps(stage))
    assert not missing, f"stage {stage} can run {missing} but does not list them as deps"


@pytest.mark.parametrize("stage", STAGES)
def test_every_code_dep_holds_code_the_stage_runs(stage):
    code = stage_code(stage)
    idle = [d for d in src_deps(stage) if not any(covers(d, m) for m in code)]
    assert not idle, f"stage {stage} lists {idle} as deps but runs none of their code"


def test_stage_modules_follow_only_code_that_can_run(tmp_path):
    """A method's lazy import counts once something names the method; module-level imports
    and registry strings always count; TYPE_CHECKING imports never do."""
    src = tmp_path / "src"
    pkg = src / "memrecall"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for leaf in ("loading", "judging", "typing_only", "registered", "plain"):
        (pkg / f"{leaf}.py").write_text("X = 1\n")
    (pkg / "unit.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from memrecall import plain\n"
        "if TYPE_CHECKING:\n    from memrecall import typing_only\n"
        "TARGET = 'memrecall.registered:THING'\n"
        "class Unit:\n"
        "    def load(self):\n        from memrecall import loading\n"
        "    def judge(self):\n        from memrecall import judging\n"
    )
    loads, judges = tmp_path / "loads.py", tmp_path / "judges.py"
    loads.write_text("from memrecall.unit import Unit\nUnit().load()\n")
    judges.write_text("from memrecall.unit import Unit\nfor u in [Unit()]:\n    u.judge()\n")
    common = {"__init__", "unit", "plain", "registered"}
    assert {p.stem for p in stage_modules(loads, src)} == common | {"loading"}
    assert {p.stem for p in stage_modules(judges, src)} == common | {"judging"}


def test_check_int_rejects_bools_floats_and_small_values():
    from memrecall.config import check_int

    assert check_int(3, "reader.top_k_context", minimum=1) == 3
    for bad in (True, 2.0, "3", 0):
        with pytest.raises(ConfigError, match=r"reader\.top_k_context.*integer >= 1"):
            check_int(bad, "reader.top_k_context", minimum=1)
    with pytest.raises(ConfigError, match="a positive integer"):
        check_int(-1, "dataset.limit", minimum=1, hint="expected a positive integer")


# --- import cycles ------------------------------------------------------------------------------
# Every import counts, also one inside a function: a lazy import that closes a loop still makes
# two modules that cannot be understood (or changed) one without the other.


def import_graph(root, package: str = "memrecall") -> dict[str, set[str]]:
    """{module: modules of `package` it imports}, read with `ast` from the package folder
    `root`. `from pkg import name` is an import of pkg.name when that is a module, else of pkg;
    relative imports are resolved against the importing module's package."""
    import ast
    from pathlib import Path

    root = Path(root)
    files = {}
    for path in sorted(root.rglob("*.py")):
        parts = (package, *path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        files[".".join(parts)] = path
    packages = {m for m, p in files.items() if p.name == "__init__.py"}

    def known(name: str) -> str | None:
        """`name` or its longest prefix that is a module of the package."""
        parts = name.split(".")
        for n in range(len(parts), 0, -1):
            if ".".join(parts[:n]) in files:
                return ".".join(parts[:n])
        return None

    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        here = module if module in packages else module.rpartition(".")[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [known(a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")[: len(here.split(".")) - node.level + 1]
                    origin = ".".join(base + ([node.module] if node.module else []))
                else:
                    origin = node.module or ""
                targets = [
                    known(f"{origin}.{a.name}") if f"{origin}.{a.name}" in files else known(origin)
                    for a in node.names
                ]
            else:
                continue
            edges.update(t for t in targets if t is not None and t != module)
        graph[module] = edges
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The cycles of each strongly connected group of more than one module, as chains of module
    names that start and end at the same module: a shortest one through each of the group's
    modules that no chain before it passed (so every module of a loop is shown), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm; the graph is small enough to recurse
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    chains = []
    for group in groups:
        covered: set[str] = set()
        for start in sorted(group - covered):
            if start not in covered:
                chains.append(_cycle_through(graph, group, start))
                covered.update(chains[-1])
    return sorted(chains)


def _cycle_through(graph: dict[str, set[str]], group: set[str], start: str) -> list[str]:
    """A shortest cycle from `start` back to itself, inside its strongly connected group."""
    paths = {start: [start]}
    todo = [start]
    while todo:
        v = todo.pop(0)
        for w in sorted(graph[v] & group):
            if w == start:
                return paths[v] + [start]
            if w not in paths:
                paths[w] = paths[v] + [w]
                todo.append(w)
    raise AssertionError(f"no cycle through {sorted(group)}")  # a strong group always has one


def test_no_import_cycles():
    cycles = import_cycles(import_graph(REPO / "src" / "memrecall"))
    assert not cycles, "import cycles in src/memrecall:\n" + "\n".join(
        "  " + " -> ".join(c) for c in cycles
    )


def test_import_graph_finds_a_planted_cycle(tmp_path):
    """The check reads what it should: a cycle closed by a lazy, relative import inside a
    function, and a `from pkg import module`, are found; an acyclic package passes."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from ..a import g\n")
    (pkg / "c.py").write_text("import pkg.a\n")
    graph = import_graph(pkg, package="pkg")
    assert graph["pkg.a"] == {"pkg.sub.b"} and graph["pkg.sub.b"] == {"pkg.a"}
    assert import_cycles(graph) == [["pkg.a", "pkg.sub.b", "pkg.a"]]
    (pkg / "sub" / "b.py").write_text("def f():\n    return 1\n")
    assert import_cycles(import_graph(pkg, package="pkg")) == []


def test_metric_modules_read_no_files():
    """eval/ computes metrics from tables it is given: reading files (data/, artifacts), reports
    and commands live elsewhere (report/agreement.py loads labelings for the agreement metrics)."""
    graph = import_graph(REPO / "src" / "memrecall")
    banned = (
        "memrecall.data",
        "memrecall.cli",
        "memrecall.artifacts",
        "memrecall.report",
        "memrecall.interchange",
    )
    found = {
        m: sorted(t for t in graph[m] if t.startswith(banned))
        for m in graph
        if m.startswith("memrecall.eval")
    }
    assert not any(found.values()), {m: t for m, t in found.items() if t}
