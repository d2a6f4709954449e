"""End to end: `dvc exp run -S judge=official -S judge.official_script=PATH` in a clone of the
seeded project, against a local OpenAI-compatible server, sends exactly the prompts the script's
get_anscheck_prompt builds; the exported files are in the official format; the script is the
judge stage's dep and the imported hypothesis file (reader=file) the read stage's: editing both
reruns read, judge and aggregate, once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fake_openai_server import KEY, KEY_ENV, FakeOpenAIServer
from memrecall.artifacts import read_table
from memrecall.benchmarks.longmemeval.data import load_records
from memrecall.benchmarks.longmemeval.official import load_prompt_function
from memrecall.hashing import sha256_file
from memrecall.interchange import read_eval_results, write_hypotheses
from repo_copy import ALWAYS, changed_stages, dvc, git, stages_run

pytestmark = pytest.mark.slow
STANDIN = (
    Path(__file__).parent
    / "fixtures"
    / "official_standin"
    / "src"
    / "evaluation"
    / "evaluate_qa.py"
)


def test_dvc_exp_run_with_the_official_judge(project, tmp_path):
    repo = project.repo
    script = tmp_path / "LongMemEval" / "src" / "evaluation" / "evaluate_qa.py"
    script.parent.mkdir(parents=True)
    shutil.copy(STANDIN, script)
    records = load_records(repo / "data/sample/longmemeval_s_cleaned_sample.json.gz")[:2]
    hyp = tmp_path / "hypotheses.jsonl"
    write_hypotheses(
        hyp,
        [
            {"question_id": r["question_id"], "hypothesis": f"answer {i}"}
            for i, r in enumerate(records)
        ],
    )
    env = project.env(**{KEY_ENV: KEY})
    with FakeOpenAIServer(answer=lambda m: "Yes, it is correct.") as srv:
        out = dvc(
            repo,
            env,
            "exp",
            "run",
            "-S",
            "dataset.limit=2",
            "-S",
            "reader=file",
            "-S",
            f"reader.path={hyp}",
            "-S",
            "judge=official",
            "-S",
            f"judge.official_script={script}",
            "-S",
            f"judge.runtime.api_base={srv.url}",
            "-S",
            f"judge.runtime.api_key_env={KEY_ENV}",
        )
        assert stages_run(out) == ALWAYS + [
            "read",
            "judge",
            "errata",
            "aggregate",
        ]  # on the seeded DAG
        bodies = list(srv.bodies)
        fn, sha = load_prompt_function(script)
        questions = read_table(repo / "artifacts/questions.parquet", "questions")
        expected = sorted(
            fn(
                q["question_type"],
                q["question"],
                q["answer"],
                f"answer {i}",
                abstention="_abs" in q["question_id"],
            )
            for i, q in enumerate(
                sorted(
                    questions.iter_rows(named=True),
                    key=lambda q: [r["question_id"] for r in records].index(q["question_id"]),
                )
            )
        )
        assert sorted(b["messages"][0]["content"] for b in bodies) == expected
        assert {b["model"] for b in bodies} == {"gpt-4o-2024-08-06"}
        assert {(b["temperature"], b["max_tokens"]) for b in bodies} == {(0.0, 10)}

        m = json.loads((repo / "reports/metrics.json").read_text())
        # A local server answering "yes" is not the official judge, whatever the config says.
        assert m["judge"]["kind"] == "official" and m["judge"]["comparable_to_published"] is False
        assert m["judge"]["not_comparable_because"] == [
            "2 of 2 answers came from 127.0.0.1, not api.openai.com"
        ]
        assert "127.0.0.1" in (repo / "reports/by_type.md").read_text()
        assert m["judge"]["official_script_sha256"] == sha == sha256_file(script)
        assert m["judge"]["strict_parse_disagreements"] == 0 and m["qa"]["overall"] == 1.0
        log = read_eval_results(repo / "reports/judge/hypotheses.jsonl.eval-results-gpt-4o")
        assert {r["model"] for r in log} == {"gpt-4o-2024-08-06"} and len(log) == 2

        # The script is the judge stage's dep, the hypothesis file the read stage's (reader.code):
        # editing both reruns read, judge and aggregate, the new answer is what the judge is
        # sent, and the metrics name the edited script.
        script.write_text(script.read_text().replace("STAND-IN general", "STAND-IN plain"))
        write_hypotheses(
            hyp,
            [
                {"question_id": r["question_id"], "hypothesis": f"edited {i}"}
                for i, r in enumerate(records)
            ],
        )
        changed = changed_stages(repo)
        assert set(changed) == {"read", "judge", "errata"}
        assert str(script) in json.dumps(changed["judge"]) and str(hyp) in json.dumps(
            changed["read"]
        )
        assert stages_run(dvc(repo, env, "repro")) == ALWAYS + [
            "read",
            "judge",
            "errata",
            "aggregate",
        ]
        assert any("edited 0" in b["messages"][0]["content"] for b in srv.bodies)
        m2 = json.loads((repo / "reports/metrics.json").read_text())
        assert m2["judge"]["official_script_sha256"] == sha256_file(script) != sha

    # Back to the default as the README says: the official judge's eval-results file goes with
    # it (reports/judge/ is one DVC output), and the seeded run's files come back.
    assert (repo / "reports/judge/hypotheses.jsonl.eval-results-gpt-4o").exists()
    git(repo, "checkout", "--", "params.yaml", "dvc.lock", "reports")
    dvc(repo, env, "checkout")
    assert sorted(f.name for f in (repo / "reports/judge").iterdir()) == ["hypotheses.jsonl"]
    assert changed_stages(repo) == {}
