"""The judge stage with the rule judge: verdicts table, reader failures, bad inputs, and the
stage script run as DVC runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
import yaml

from confs import group
from memrecall.artifacts import read_meta, write_table
from memrecall.benchmarks.longmemeval import BENCHMARK as LME
from memrecall.errors import InputError
from memrecall.judge.stage import judge_answers
from memrecall.schema import VERDICTS, polars_schema
from tables import write_downloaded

REPO = Path(__file__).resolve().parents[1]
RULE = group("judge", "rule")


def questions():
    return pl.DataFrame(
        {
            "question_id": ["b", "a", "c_abs", "d"],
            "question_type": [
                "knowledge-update",
                "temporal-reasoning",
                "single-session-user",
                "multi-session",
            ],
            "is_abstention": [False, False, True, False],
            "question": [
                "How many titles are currently on my to-watch list?",
                "How many days ago did I watch the Super Bowl?",
                "How long was I in Korea?",
                "How many fish do I have?",
            ],
            "answer": [
                "25",
                "17 days ago. 18 days (including the last day) is also acceptable.",
                "You did not mention this information.",
                "17",
            ],
            "question_date": ["2023/05/30"] * 4,
            "haystack_session_ids": [["s1"]] * 4,
            "answer_session_ids": [["s1"]] * 4,
        }
    )


def answers(**over):
    rows = {
        "a": ("It was 16 days ago.", None),
        "b": ("You had 20, now 25.", None),
        "c_abs": ("You never mentioned Korea.", None),
        "d": (None, "Timeout after 3 tries"),
    }
    rows.update(over)
    return pl.DataFrame(
        {
            "question_id": list(rows),
            "hypothesis": [h for h, _ in rows.values()],
            "error": [e for _, e in rows.values()],
        },
        schema={"question_id": pl.String, "hypothesis": pl.String, "error": pl.String},
    )


def test_rule_verdicts():
    v = judge_answers(LME, questions(), answers(), RULE)
    assert v.columns[:5] == VERDICTS.names
    assert dict(v.schema) == polars_schema("verdicts")
    assert v["question_id"].to_list() == ["a", "b", "c_abs", "d"]
    assert v["label"].to_list() == [True, True, True, None]  # 16 days: off by one from 17
    assert v["reader_failed"].to_list() == [False, False, False, True]
    assert v["error"].to_list()[:3] == [None, None, None]
    assert v["error"][3] == "reader failed: Timeout after 3 tries"
    assert set(v["judge_model"]) == {"rule-v1"}
    assert "off by one" in v["raw"][0]
    assert v["cost_usd"].sum() == 0.0


def test_bad_answer_tables_name_file_question_and_field():
    with pytest.raises(InputError, match=r"no answer.*file 'ans.parquet'.*'d'.*'question_id'"):
        judge_answers(
            LME,
            questions(),
            answers().filter(pl.col("question_id") != "d"),
            RULE,
            answers_file="ans.parquet",
        )
    dup = pl.concat([answers(), answers().filter(pl.col("question_id") == "b")])
    with pytest.raises(InputError, match=r"more than one answer.*'b'"):
        judge_answers(LME, questions(), dup, RULE)
    with pytest.raises(InputError, match=r"not in questions.*'zz'"):
        judge_answers(LME, questions(), answers(zz=("x", None)), RULE)


def test_stage_script_writes_reproducible_verdicts(tmp_path):
    (tmp_path / "artifacts").mkdir()
    write_downloaded(questions(), tmp_path / "artifacts/questions.parquet", table="questions")
    a = answers().with_columns(
        pl.lit("m").alias("model"),
        pl.lit("p").alias("prompt_id"),
        pl.lit("h").alias("request_hash"),
        pl.lit(0, pl.Int64).alias("input_tokens"),
        pl.lit(0, pl.Int64).alias("output_tokens"),
        pl.lit(0, pl.Int64).alias("reasoning_tokens"),
        pl.lit(0.0).alias("cost_usd"),
        pl.lit(0.0).alias("latency_s"),
        pl.lit(False).alias("refused"),
    )
    write_table(a, tmp_path / "artifacts/answers.parquet", table="answers", stage="read")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"judge": RULE}))
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")

    def stage():
        return subprocess.run(
            [sys.executable, str(REPO / "stages" / "judge.py")],
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )

    r = stage()
    assert r.returncode == 0, r.stderr
    assert (
        "judge (rule): 4 verdicts, 3 correct, 0 judge errors, 1 reader errors; no model "
        "calls" in r.stdout
    )
    out = tmp_path / "artifacts" / "verdicts.parquet"
    first = out.read_bytes()
    assert read_meta(out)["params"] == RULE and read_meta(out)["stage"] == "judge"
    assert stage().returncode == 0 and out.read_bytes() == first

    (tmp_path / "params.yaml").write_text(
        yaml.safe_dump({"judge": {**RULE, "name": "x", "kind": "magic"}})
    )
    r = stage()
    assert (
        r.returncode == 1 and "error: unknown value 'magic' for config key 'judge.kind'" in r.stderr
    )
    assert out.read_bytes() == first  # nothing half-written replaced the good artifact
