"""One rule for what is a result (config.identity: every key but `runtime`), applied the same way
in dvc.yaml, in artifact metadata and in code; every key code reads is in conf/, every key in
conf/ is read, and code holds no defaults of its own for them."""

from __future__ import annotations

import ast
import functools
import re
import shutil
from pathlib import Path

import pytest
import yaml

from confs import composed
from conftest import REPO
from memrecall.config import RUNTIME, identity, identity_keys
from repo_copy import compose, copy_repo, dvc_status, pipeline_env
from stage_modules import stage_modules
from test_layout import STAGES

# Values that are mappings of their own, not config nodes: a subset spec, a plug-in's options.
OPAQUE = {"stratified", "options", "routes"}
GROUPS = ["dataset", "embedder", "retrieval", "reranker", "rewrite", "reader", "judge"]


def options(group: str) -> list[str]:
    return sorted(p.stem for p in (REPO / "conf" / group).glob("*.yaml"))


def compose_option(group: str, option: str) -> dict:
    extra = ["dataset.path=some/file.json"] if (group, option) == ("dataset", "local") else []
    return composed(f"{group}={option}", *extra)[group]


def stage_groups(stage: str) -> list[str]:
    """The config groups a stage script hands to the library: section(params, "<group>")."""
    text = (REPO / "stages" / f"{stage}.py").read_text()
    return re.findall(r'section\([^,()]+, "(\w+)"\)', text)


def leaves(cfg: dict, prefix: str = "") -> set[str]:
    out = set()
    for k, v in cfg.items():
        if isinstance(v, dict) and v and k not in OPAQUE:
            out |= leaves(v, f"{prefix}{k}.")
        else:
            out.add(f"{prefix}{k}")
    return out


@pytest.mark.parametrize("group", GROUPS)
def test_every_option_of_a_group_has_the_same_keys(group):
    """dvc.yaml declares params by key, and DVC stops on a declared key that params.yaml lacks:
    so every option of a group carries every result key (the bases in conf/base/ and
    conf/llm/). A rule judge calls no model and has no runtime node."""
    want = leaves(identity(compose_option(group, options(group)[0])))
    for option in options(group):
        assert leaves(identity(compose_option(group, option))) == want, option


@pytest.mark.parametrize("stage", STAGES)
def test_dvc_params_of_each_stage_are_the_identity_keys_of_its_groups(stage):
    spec = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"][stage]
    groups = stage_groups(stage)
    assert groups, f"stages/{stage}.py reads no config group"
    if spec.get("always_changed"):  # runs every time: params would add nothing
        assert not spec.get("params"), stage
        return
    want = []
    for g in groups:
        for option in options(g) if (REPO / "conf" / g).is_dir() else [None]:
            cfg = compose_option(g, option) if option else composed()[g]
            want += [k for k in identity_keys(cfg, g) if k not in want]
    declared = spec.get("params") or []
    assert sorted(declared) == sorted(want), (
        f"dvc.yaml stage {stage}: missing {sorted(set(want) - set(declared))}, "
        f"not identity {sorted(set(declared) - set(want))}"
    )
    assert not any(f".{RUNTIME}." in k or k.endswith(f".{RUNTIME}") for k in declared)


def test_identity_drops_runtime_at_any_depth():
    reader = composed("reader=deepseek")["reader"]
    ident = identity(reader)
    assert RUNTIME not in ident and ident["model"] == "deepseek/deepseek-chat"
    emb = identity(composed()["embedder"])
    assert RUNTIME not in emb and RUNTIME not in emb["expansion_llm"]
    assert emb["expansion_llm"]["max_tokens"] == 256


def test_runtime_holds_only_operational_knobs():
    allowed = {
        "api_base",
        "api_key_env",
        "concurrency",
        "rpm",
        "timeout_s",
        "num_retries",
        "backoff_s",
        "backoff_max_s",
        "max_cost_usd",
        "batch_size",
        "device",
        "max_refusal_rate",
        "refusal_window",
        "refusal_min_count",
        "per_member",
    }  # judge=panel: these knobs per member
    for group in GROUPS:
        for option in options(group):
            cfg = compose_option(group, option)
            for key in leaves(cfg):
                parts = key.split(".")
                if RUNTIME in parts:
                    assert parts[-1] in allowed, f"{group}.{key}"
                else:  # an operational knob outside runtime would be hashed as a result
                    assert parts[-1] not in allowed, f"{group}.{key} belongs under runtime"


# ---- every key code reads is in conf/, every key in conf/ is read, no defaults in code -------

_CFG_NAME = re.compile(r"(^|_)cfg$|^rt$")


def _is_cfg(node) -> bool:
    """An expression that holds a config group: a name like cfg / reader_cfg / rt, self.cfg,
    or runtime(cfg, ...)."""
    if isinstance(node, ast.Name):
        return bool(_CFG_NAME.search(node.id))
    if isinstance(node, ast.Attribute):
        return bool(_CFG_NAME.search(node.attr))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id == "runtime"
    return False


def config_reads(path: Path) -> tuple[set[str], list[str]]:
    """(keys read from config groups, `.get(...)` reads with a default or None fallback)."""
    keys, gets = set(), []
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.Subscript)
            and _is_cfg(node.value)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            keys.add(node.slice.value)
        elif isinstance(node, ast.Call):
            f = node.func
            if (
                isinstance(f, ast.Attribute)
                and f.attr == "get"
                and _is_cfg(f.value)
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                gets.append(f"{path.relative_to(REPO)}:{node.lineno}: .get({node.args[0].value!r})")
            # helper(cfg, "key", ...): choice, _number, _positive_int, _types, ... (but not
            # runtime(cfg, "embedder") or _device(cfg, "reranker"): that argument names a group)
            if (
                len(node.args) >= 2
                and _is_cfg(node.args[0])
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
                and node.args[1].value not in GROUPS + ["report"]
            ):
                keys.add(node.args[1].value)
    return keys, gets


def _stage_modules(stage: str) -> set[Path]:
    """The stage script and every memrecall module it can run (stage_modules); where it asks
    the benchmark registry, also every module of each registered benchmark and what they can
    run, so that a config key any benchmark reads counts, whether or not the stage calls it."""
    script = REPO / "stages" / f"{stage}.py"
    mods = stage_modules(script, REPO / "src") | {script}
    registry = REPO / "src" / "memrecall" / "benchmarks" / "__init__.py"
    if registry in mods:
        from memrecall.benchmarks import BUILTIN

        for target in BUILTIN.values():
            package = REPO / "src" / Path(*target.split(":")[0].split("."))
            for mod in sorted(package.rglob("*.py")):
                mods |= stage_modules(mod, REPO / "src") | {mod}
    return mods


@functools.lru_cache(maxsize=None)
def _group_cfgs(group: str) -> tuple[dict, ...]:
    """Every option of the group, composed once per test run (read, never changed)."""
    if (REPO / "conf" / group).is_dir():
        return tuple(compose_option(group, o) for o in options(group))
    return (composed()[group],)


def _names(groups) -> set[str]:
    return {
        part for g in groups for c in _group_cfgs(g) for k in leaves(c) for part in k.split(".")
    }


def test_conf_keys_are_read_and_code_reads_only_conf_keys():
    """Both directions, for every option of every group: a key in conf/ that no stage reading
    its group reads is dead; a key a stage module reads that no group has is a hidden knob."""
    pipeline = STAGES
    all_names = _names(GROUPS + ["report"]) | {RUNTIME}
    unknown, defaults, read_by = set(), set(), {}
    for stage in pipeline:
        for mod in _stage_modules(stage):
            keys, gets = config_reads(mod)
            defaults |= set(gets)
            unknown |= {f"{mod.relative_to(REPO)}: {k!r}" for k in keys - all_names}
            for g in stage_groups(stage):
                read_by.setdefault(g, {RUNTIME}).update(keys)  # runtime: config.runtime()
    # dvc.yaml reads some too: `${reader.code}` names the file DVC watches
    for g, k in re.findall(r"\$\{(\w+)\.(\w+)\}", (REPO / "dvc.yaml").read_text()):
        read_by.setdefault(g, set()).add(k)
    unread = [
        f"{g}: {k}"
        for g in GROUPS + ["report"]
        for k in sorted(_names([g]) - read_by.get(g, set()))
    ]
    assert not unknown, f"config keys read in code but absent from conf/: {sorted(unknown)}"
    assert not unread, f"keys in conf/ that no stage reading the group reads: {unread}"
    assert not defaults, (
        "config keys read with .get() (a hidden default, or a missing key "
        f"passing silently): {sorted(defaults)}"
    )


# ---- runtime knobs rerun nothing; result keys do ----------------------------------------------


def _status(repo: Path, env: dict) -> dict:
    return dvc_status(repo)


def _param_changes(status: dict) -> dict[str, set[str]]:
    """{stage: params whose values differ from dvc.lock}."""
    out = {}
    for stage, entries in status.items():
        for entry in entries:
            params = (
                (entry.get("changed deps") or {}).get("params.yaml")
                if isinstance(entry, dict)
                else None
            )
            if params:
                out[stage] = set(params)
    return out


def test_runtime_override_changes_no_stage_params_but_a_result_key_does(tmp_path):
    """What `dvc exp run -S reader.runtime.concurrency=3` does to params.yaml (DVC's own Hydra
    composer, via `memrecall compose`), checked with `dvc status` against the committed
    dvc.lock: no stage sees a changed param. reader.prompt, a result, is seen by read."""
    lock = REPO / "dvc.lock"
    repo = copy_repo(tmp_path / "repo")
    shutil.copy2(lock, repo / "dvc.lock")
    env = pipeline_env(tmp_path / "cache")
    base = _param_changes(_status(repo, env))
    assert not base, f"the committed dvc.lock is stale for params: {base}"
    overrides = [
        "reader.runtime.concurrency=3",
        "reader.runtime.timeout_s=30",
        "reader.runtime.num_retries=5",
        "reader.runtime.api_base=http://x/v1",
        "embedder.runtime.batch_size=4",
        "reranker.runtime.batch_size=2",
        "rewrite.llm.runtime.rpm=60",
        "embedder.expansion_llm.runtime.concurrency=8",
    ]
    compose(repo, env, *overrides)
    assert "concurrency: 3" in (repo / "params.yaml").read_text()
    assert _param_changes(_status(repo, env)) == {}
    compose(repo, env, "reader.prompt=type_aware")
    assert _param_changes(_status(repo, env)) == {"read": {"reader.prompt"}}
