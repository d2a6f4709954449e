"""The whole DAG on a 2-question slice (the session's seeded project): every stage runs, a no-op
repro runs nothing (but the `sources` fingerprint, which runs every time), a runtime knob
changes no stage, a reader-prompt change reruns only read → judge → errata → aggregate, a judge
change only judge → errata → aggregate, and an unchanged request is never sent to the model
twice."""

from __future__ import annotations

import json

import pytest

from memrecall.artifacts import read_meta, read_table
from repo_copy import ALL_STAGES, ALWAYS, changed_stages, dvc, set_params, stages_run

pytestmark = pytest.mark.slow


def test_seeding_ran_every_stage_once(seeded_project):
    repo = seeded_project.repo
    assert stages_run(seeded_project.seeding) == ALL_STAGES
    questions = read_table(repo / "artifacts/questions.parquet", "questions")
    answers = read_table(repo / "artifacts/answers.parquet", "answers")
    assert questions.height == 2 and answers.height == 2
    assert set(answers["prompt_id"].str.split(":").list.first()) == {"default"}
    # rule judge, rewrite off: the reader is the only model called
    assert [c["stage"] for c in seeded_project.llm_calls()] == ["read", "read"]
    metrics = json.loads((repo / "reports/metrics.json").read_text())
    assert metrics["n_questions"] == 2
    assert {"qa", "retrieval", "cost_usd", "refusal_rate", "judge_errors"} <= set(metrics)


def test_dag_reruns_only_what_changed(project):
    repo, env = project.repo, project.env()

    def repro(*args) -> list[str]:
        return stages_run(dvc(repo, env, "repro", *args))

    first_answers = (repo / "artifacts/answers.parquet").read_bytes()
    assert repro() == ALWAYS  # no-op

    # Runtime knobs are not results: no stage sees a change, so a repro runs nothing.
    set_params(
        repo,
        **{
            "reader.runtime.concurrency": 3,
            "reader.runtime.timeout_s": 30,
            "embedder.runtime.batch_size": 4,
            "reranker.runtime.batch_size": 2,
            "rewrite.llm.runtime.num_retries": 1,
        },
    )
    assert changed_stages(repo) == {}

    # Forcing read with unchanged requests: zero model calls, byte-identical answers,
    # so nothing downstream runs.
    assert repro("--force", "--single-item", "read") == ["read"]
    assert len(project.llm_calls()) == 2
    assert (repo / "artifacts/answers.parquet").read_bytes() == first_answers

    # A reader-prompt change reruns read, judge, aggregate only, with 2 new calls.
    # (Chain-of-Note changes every request; type_aware equals default for these two types,
    # so it would rerun read with 0 calls.)
    set_params(repo, **{"reader.prompt": "con"})
    assert repro() == ALWAYS + ["read", "judge", "errata", "aggregate"]
    assert len(project.llm_calls()) == 4
    assert read_meta(repo / "artifacts/answers.parquet")["params"]["prompt"] == "con"

    # A judge change reruns judge, errata (the run's judge on corrected golds, none here) and
    # aggregate only (and the rule judge calls no model).
    set_params(repo, **{"judge.model": "rule-v1-renamed"})
    assert set(changed_stages(repo)) == {"judge", "errata"}  # aggregate follows their outputs
    assert repro() == ALWAYS + ["judge", "errata", "aggregate"]
    assert len(project.llm_calls()) == 4


def test_each_stage_loads_only_code_it_lists_as_deps(seeded_project):
    """At run time, not only as read from the code: every result-affecting memrecall module a
    stage loaded in the seeding repro is one of its DVC deps (stage_modules can miss a call it
    cannot see, such as a getattr on a computed name; this would not)."""
    from repo_copy import module_log
    from test_layout import result_affecting, src_deps, uncovered

    logged = [json.loads(line) for line in module_log(seeded_project.repo).read_text().splitlines()]
    assert [entry["stage"] for entry in logged] == ALL_STAGES
    for entry in logged:
        code = [m for m in entry["modules"] if result_affecting(seeded_project.repo / m)]
        assert code, entry["stage"]
        missing = uncovered(code, src_deps(entry["stage"]))
        assert not missing, f"stage {entry['stage']} loaded {missing}, not among its deps"


# An edit to code only a later stage runs leaves the earlier stages' artifacts alone; code no
# stage runs (the readers of published runs, for the bench tools) leaves every stage alone.
CODE_EDITS = {
    "src/memrecall/judge/rules/phrases.py": "judge",  # the rule judge
    "src/memrecall/benchmarks/longmemeval/judge.py": "judge",  # LongMemEval's own-wording judge
    "src/memrecall/benchmarks/longmemeval/prompts.py": "read",  # its reader prompts
    "src/memrecall/read/prompts.py": "read",
    "src/memrecall/data/run_formats.py": None,
}


@pytest.mark.parametrize("path", sorted(CODE_EDITS))
def test_a_code_edit_reruns_its_stage_and_none_before(project, path):
    with open(project.repo / path, "a", encoding="utf-8") as f:
        f.write("\n# edited\n")
    changed = changed_stages(project.repo)
    stage = CODE_EDITS[path]
    if stage is None:
        assert changed == {}
        return
    assert stage in changed
    assert not set(changed) & set(ALL_STAGES[: ALL_STAGES.index(stage)]), changed
