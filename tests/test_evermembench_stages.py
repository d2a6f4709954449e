"""EverMemBench through the shared read and judge stages (fast, no model): the reader shows a
multiple-choice question with its options, one a line; multiple choice is scored by the
released letter rule whichever judge is configured, and never sent to an LLM judge."""

from types import SimpleNamespace

import polars as pl

from confs import group
from memrecall.benchmarks.evermembench import BENCHMARK
from memrecall.judge.stage import FIXED_MODEL, judge_answers
from memrecall.read.reader import answer_messages, build_contexts, reader_settings
from memrecall.schema import polars_schema
from test_evermembench_data import FIX, local, run, tables


def setup(tmp_path):
    q, s, t = tables(run(tmp_path, local(FIX / "topics")))
    cands = pl.DataFrame(
        [
            {"question_id": qid, "rank": r + 1, "session_id": sid, "score": 1.0 - r / 10}
            for qid, hay in q.select("question_id", "haystack_session_ids").iter_rows()
            for r, sid in enumerate(hay[:2])
        ],
        schema=polars_schema("candidates"),
    )
    return q, s, t, cands


def answers(q: pl.DataFrame, replies: dict) -> pl.DataFrame:
    rows = [
        {
            "question_id": qid,
            "hypothesis": replies.get(qid, "no idea"),
            "model": "m",
            "prompt_id": "p",
            "request_hash": "h",
            "error": None,
        }
        for qid in q["question_id"]
    ]
    return pl.DataFrame(
        rows, schema={k: v for k, v in polars_schema("answers").items() if k in rows[0]}
    )


def test_reader_shows_options_and_speakers(tmp_path):
    q, s, t, cands = setup(tmp_path)
    settings = reader_settings(group("reader", "gpt4o"), BENCHMARK)
    ctxs = {
        c.question_id: c
        for c in build_contexts(
            settings,
            q,
            s,
            t,
            cands,
            speaker_column=BENCHMARK.speaker_column,
            question_text=BENCHMARK.reader_question,
        )
    }
    mc = answer_messages(settings, ctxs["MA_C_Top01_001"])[0]["content"]
    assert (
        "Question: Jing Lv wants to ship a release tonight. What must happen first?\n"
        "Options:\nA. Nothing, ship it\nB. A load test\nC. A security review sign-off\n"
        "D. A Figma review\n"
    ) in mc
    assert "reply with the letter" in mc and "Mingzhi Li" in mc
    open_ = answer_messages(settings, ctxs["F_SH_Top01_001"])[0]["content"]
    assert "Options:" not in open_ and settings.prompt.name == "evermembench_default"


def test_multiple_choice_is_fixed_under_every_judge(tmp_path):
    q, *_ = setup(tmp_path)
    a = answers(
        q,
        {
            "MA_C_Top01_001": "C",
            "MA_U_Top01_001": "A",
            "F_SH_Top01_001": "65%",
            "F_MH_Top01_001": "Sensor Metadata and Configuration Table Structure_V1.0",
        },
    )
    rule = judge_answers(BENCHMARK, q, a, group("judge", "rule"))
    mc = rule.filter(pl.col("question_id").str.contains("^(MA|P)_"))
    assert set(mc["judge_model"]) == {FIXED_MODEL}
    assert dict(mc.select("question_id", "label").iter_rows()) == {
        "MA_C_Top01_001": True,
        "MA_U_Top01_001": False,
        "P_Title_Top01_001": True,  # quirk
        "P_Style_Top02_001": False,
    }
    assert rule.filter(pl.col("question_id") == "F_SH_Top01_001")["label"][0] is True

    sent = []

    class Client:
        stats = {"calls": 0, "cached": 0, "failed": 0}

        def complete_many(self, messages, desc=""):
            sent.extend(messages)
            return [
                SimpleNamespace(
                    text="yes",
                    error=None,
                    model="judge-m",
                    request_hash="h",
                    input_tokens=1,
                    output_tokens=1,
                    reasoning_tokens=0,
                    cost_usd=0.0,
                    latency_s=0.0,
                )
                for _ in messages
            ]

    llm = judge_answers(BENCHMARK, q, a, group("judge", "gpt4o"), client=Client())
    assert len(sent) == 5  # the five open questions only
    assert set(llm.filter(pl.col("question_id").str.contains("^F_"))["judge_model"]) == {"judge-m"}
    assert llm.filter(pl.col("judge_model") == FIXED_MODEL).height == 4


def test_aggregate_reports_subtasks_forms_and_who_scored(tmp_path):
    from memrecall.artifacts import write_table
    from memrecall.report.aggregate import run_aggregate

    q, _, _, cands = setup(tmp_path)
    out = tmp_path / "out"
    a = answers(q, {"MA_C_Top01_001": "C", "F_SH_Top01_001": "65%"})
    full = pl.DataFrame(
        [
            {
                **r,
                "reasoning_tokens": 0,
                "input_tokens": 0,
                "output_tokens": 0,
                "cost_usd": 0.0,
                "latency_s": 0.0,
                "refused": False,
                "raw": r["hypothesis"],
                "context_session_ids": [],
            }
            for r in a.iter_rows(named=True)
        ],
        schema=polars_schema("answers"),
    )
    v = judge_answers(BENCHMARK, q, full, group("judge", "rule"))
    write_table(cands, out / "candidates.parquet", table="candidates", stage="t")
    write_table(full, out / "answers.parquet", table="answers", stage="t")
    write_table(
        v, out / "verdicts.parquet", table="verdicts", stage="t", params=group("judge", "rule")
    )
    m = run_aggregate(
        {"bootstrap_samples": 200, "seed": 0},
        questions=out / "questions.parquet",
        turns=tmp_path / "out" / "turns.parquet",
        candidates={"retrieve": out / "candidates.parquet"},
        answers=out / "answers.parquet",
        verdicts=out / "verdicts.parquet",
        out_dir=tmp_path / "reports",
    )
    e = m["evermembench"]
    assert e["n_subtasks"] == 7 and e["average"] is None  # MA_P and P_Skill are not in
    assert e["by_form"]["multiple_choice"]["n"] == 4 and e["by_form"]["open"]["n"] == 5
    assert m["qa"]["by_type"]["MA_C"] == 1.0 and m["retrieval"]["n"] == 8  # 1 has no R
    md = (tmp_path / "reports" / "by_type.md").read_text()
    assert "# QA by EverMemBench sub-task" in md and "Open answers: judge `rule`" in md
    csv = (tmp_path / "reports" / "per_question.csv").read_text()
    assert "scored_by" in csv.splitlines()[0] and "exact-match" in csv


def test_trace_fields(tmp_path):
    q, *_ = setup(tmp_path)
    row = q.filter(pl.col("question_id") == "MA_C_Top01_001").row(0, named=True)
    inputs, tags = BENCHMARK.trace_fields(row)
    assert inputs["form"] == "multiple_choice" and inputs["topic"] == "01"
    assert inputs["options"][2] == "C. A security review sign-off"
    assert tags == {"memrecall.subtask": "MA_C", "memrecall.form": "multiple_choice"}


def test_official_judge_through_the_stage(tmp_path):
    from test_evermembench_judge import PROMPTS, FakeClient

    q, *_ = setup(tmp_path)
    prompts = tmp_path / "prompts.yaml"
    prompts.write_text(PROMPTS)
    a = answers(q, {"MA_C_Top01_001": "C", "F_SH_Top01_001": "65%"})
    client = FakeClient(['{"label": "CORRECT"}'] * 5)
    cfg = group(
        "judge", "official", official_script=str(prompts), model="gemini/gemini-3-flash-preview"
    )
    v = judge_answers(BENCHMARK, q, a, cfg, client=client)
    assert len(client.sent) == 5 and "strict_label" in v.columns
    assert v.filter(pl.col("judge_model") == FIXED_MODEL).height == 4
    assert v.filter(pl.col("question_id") == "MA_C_Top01_001")["label"][0] is True
    assert v.filter(pl.col("question_id").str.starts_with("F_"))["label"].all()
