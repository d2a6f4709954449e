"""Paper tables from hand-made experiment records: accuracies, deltas and exact McNemar p-values
worked out by hand; the three renderings; and collection from a real (tiny) DVC repository."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from memrecall.report.paper import (
    ablation_table,
    build_tables,
    collect_runs,
    cost_table,
    export_paper_tables,
    model_table,
    negative_table,
    run_label,
)

MS, KU = "multi-session", "knowledge-update"
T, F = True, False
BASE_PARAMS = {
    "dataset.name": "sample",
    "reader.name": "local",
    "reader.provider": "local",
    "reader.model": "memrecall-local/smollm2-135m",
    "reader.prompt": "default",
    "rewrite.name": "off",
    "rewrite.n_variants": 3,
    "judge.name": "rule",
    "judge.model": "rule-v1",
    "report.seed": 0,
}


SWEEP_OF = {
    "baseline": None,
    "other": None,
    "readers": "readers",
    "ablation": "ablation",
    "negative": "negative_findings",
}


def record(name, group, ms, ku, params=None, cost=0.0, tokens=(0, 0, 0), judge="rule"):
    """A run as memrecall.experiments reads it back (on LongMemEval, which gives the type
    order and short names); `group` says which sweep recorded it (meta.sweep), or "baseline"
    for the HEAD run."""
    pq = [{"question_id": f"ms{i}", "question_type": MS, "correct": c} for i, c in enumerate(ms)]
    pq += [{"question_id": f"ku{i}", "question_type": KU, "correct": c} for i, c in enumerate(ku)]
    judged = [r["correct"] for r in pq if r["correct"] is not None]
    acc = {
        t: sum(v) / len(v)
        for t, v in ((MS, [c for c in ms if c is not None]), (KU, [c for c in ku if c is not None]))
    }
    metrics = {
        "n_questions": len(pq),
        "qa": {
            "overall": sum(judged) / len(judged),
            "by_type": acc,
            "task_averaged": sum(acc.values()) / 2,
            "abstention": None,
            "ci": {"by_type": {t: {"low": 0.0, "high": 1.0} for t in acc}},
        },
        "cost_usd": cost,
        "judge": {"kind": judge},
        "tokens": {"input": tokens[0], "output": tokens[1], "reasoning": tokens[2]},
        "latency_s": {"sum": 12.5},
    }
    meta = {"meta.sweep": SWEEP_OF[group], "meta.variant": None, "meta.ladder": None}
    return {
        "name": name,
        "baseline": group == "baseline",
        "benchmark": "longmemeval",
        "params": {**BASE_PARAMS, **meta, **(params or {})},
        "metrics": metrics,
        "per_question": pq,
    }


BASE = record("baseline (main)", "baseline", [T, T, F, F, F], [T, T, T, F, F])
ABL1 = record(
    "ablation-1", "ablation", [T, T, T, T, F], [T, T, T, F, F], {"rewrite.name": "multiangle"}
)
ABL2 = record(
    "ablation-2",
    "ablation",
    [T, T, T, T, T],
    [T, T, T, T, F],
    {"rewrite.name": "multiangle", "reader.prompt": "con"},
)
NEG1 = record(
    "negative-1", "negative", [F, F, F, F, F], [T, T, T, F, F], {"reader.prompt": "type_aware"}
)
NEG2 = record("negative-2", "negative", [T, T, F, F, F], [F, F, F, F, T], {"rewrite.n_variants": 8})
NEG3 = record(
    "negative-3", "negative", [T, T, T, F, F], [T, T, T, F, F], {"reader.prompt": "terse"}
)
READER = record(
    "readers-1",
    "readers",
    [T, T, T, F, None],
    [T, T, T, T, F],
    {
        "reader.name": "deepseek",
        "reader.provider": "deepseek",
        "reader.model": "deepseek/deepseek-chat",
    },
    cost=0.8421,
    tokens=(120_000, 3_000, 45_000),
)


def mcnemar_p(k, n):
    """Two-sided exact McNemar by hand: 2 * P(X <= min) for X ~ Bin(n, 1/2), capped at 1."""
    k = min(k, n - k)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n)


def test_labels_from_param_differences():
    assert run_label(ABL1, BASE) == "rewrite=multiangle"
    assert run_label(ABL2, BASE) == "rewrite=multiangle, reader.prompt=con"
    assert run_label(NEG2, BASE) == "rewrite.n_variants=8"
    assert run_label(READER, BASE) == "reader=deepseek"
    assert run_label({**ABL1, "label": "+ rewrite"}, BASE) == "+ rewrite"


def test_model_table():
    t = model_table([BASE, READER])
    base, ds = t.rows
    assert (ds["reader"], ds["provider"]) == ("deepseek", "deepseek")
    assert ds["overall"] == pytest.approx(7 / 9)  # one judge error left out
    assert ds[MS] == pytest.approx(3 / 4) and ds[KU] == pytest.approx(4 / 5)
    assert ds["cost_usd"] == 0.8421
    md = t.to_markdown()
    assert (
        "| readers-1 | deepseek | deepseek | rule (rule-v1)"
        " | 10 | 77.8 | 77.5 | 75.0 | 80.0 | 0.8421 |" in md
    )
    assert (
        "| baseline (main) | local | local | rule (rule-v1)"
        " | 10 | 50.0 | 50.0 | 40.0 | 60.0 | 0.0000 |" in md
    )
    assert "not comparable with LLM-judged" in md


def test_ablation_ladder_deltas_and_p_values():
    t = ablation_table(BASE, [ABL1, ABL2], n_resamples=1000, seed=0)
    base, s1, s2 = t.rows
    assert base["overall"] == 0.5 and base["n"] == 10 and "delta" not in base
    # step 1: +2 questions (both multi-session), none lost: p = 2 * (1/2)^2 = 0.5
    assert s1["delta"] == pytest.approx(0.2) and s1["p_value"] == pytest.approx(mcnemar_p(0, 2))
    assert s1["p_value"] == pytest.approx(0.5)
    assert s1[f"d_{MS}"] == pytest.approx(0.4) and s1[f"d_{KU}"] == pytest.approx(0.0)
    # step 2: +4 questions, none lost: p = 2 / 16 = 0.125
    assert s2["delta"] == pytest.approx(0.4) and s2["p_value"] == pytest.approx(0.125)
    assert s2[f"d_{MS}"] == pytest.approx(0.6) and s2[f"d_{KU}"] == pytest.approx(0.2)
    assert s2["config"] == "rewrite=multiangle, reader.prompt=con"
    lo, hi = s2["ci"]
    assert 0.0 <= lo <= 0.4 <= hi  # no question got worse: no resample goes below 0
    assert ablation_table(BASE, [ABL1, ABL2], n_resamples=1000, seed=0).rows == t.rows

    md = t.to_markdown()
    assert (
        "| 2 | rewrite=multiangle, reader.prompt=con | rule (rule-v1) | 10 | 90.0 | +40.0 |" in md
    )
    assert "| 0.125 | +60.0 | +20.0 |" in md
    rows = list(csv.DictReader(io.StringIO(t.to_csv())))
    assert list(rows[0]) == [
        "step",
        "config",
        "judge",
        "n",
        "overall",
        "delta",
        "ci",
        "p_value",
        f"d_{MS}",
        f"d_{KU}",
    ]
    assert rows[2]["config"] == "rewrite=multiangle, reader.prompt=con"
    assert float(rows[2]["delta"]) == pytest.approx(0.4)
    assert float(rows[2]["p_value"]) == pytest.approx(0.125)
    assert float(rows[2][f"d_{MS}"]) == pytest.approx(0.6)
    assert rows[0]["delta"] == "" and rows[0]["p_value"] == ""
    assert [float(x) for x in rows[2]["ci"].split(";")] == pytest.approx(list(s2["ci"]))
    tex = t.to_latex()
    assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex
    assert "$\\Delta$" in tex and "+40.0" in tex


def test_negative_findings():
    t = negative_table(BASE, [NEG1, NEG2, NEG3], n_resamples=1000, seed=0)
    assert [r["config"] for r in t.rows] == ["reader.prompt=type_aware", "rewrite.n_variants=8"]
    n1, n2 = t.rows
    # NEG1 loses 2 multi-session questions: Δ −0.2, worst type multi-session −0.4, p 0.5
    assert n1["delta"] == pytest.approx(-0.2) and n1["worst_type"] == "Multi"
    assert n1["worst_delta"] == pytest.approx(-0.4) and n1["p_value"] == pytest.approx(0.5)
    # NEG2 loses 3 knowledge-update questions and gains 1: Δ −0.2, p = 2 * 5/16 = 0.625
    assert n2["delta"] == pytest.approx(-0.2) and n2["worst_type"] == "KU"
    assert n2["worst_delta"] == pytest.approx(-0.4)
    assert n2["p_value"] == pytest.approx(mcnemar_p(1, 4)) == pytest.approx(0.625)
    assert "| reader.prompt=type_aware | rule (rule-v1) | 10 | 30.0 | -20.0 |" in t.to_markdown()


def test_cost_table():
    t = cost_table([BASE, READER])
    ds = t.rows[1]
    assert (ds["input_tokens"], ds["output_tokens"], ds["reasoning_tokens"]) == (
        120_000,
        3_000,
        45_000,
    )
    assert ds["cost_per_question"] == pytest.approx(0.08421)
    assert (
        "| readers-1 | deepseek | rule (rule-v1)"
        " | 10 | 120,000 | 3,000 | 45,000 | 0.8421 | 0.08421 | 12.5 |" in t.to_markdown()
    )


def test_build_tables_groups_and_export(tmp_path):
    judged_by_llm = {
        **ABL1,
        "name": "ablation-1-gpt4o",
        "params": {
            **ABL1["params"],
            "judge.name": "gpt4o",
            "meta.sweep": None,
            "judge.model": "openai/gpt-4o-2024-08-06",
        },
        "per_question": [
            {**r, "correct": (not r["correct"]) if r["question_id"] == "ms4" else r["correct"]}
            for r in ABL1["per_question"]
        ],
    }
    records = [READER, NEG1, ABL2, BASE, ABL1, judged_by_llm]
    t1, t2, t3, t4 = build_tables(records, n_resamples=500, seed=0, sweeps={})
    assert [r["run"] for r in t1.rows] == ["readers-1"]
    assert [r["step"] for r in t2.rows] == ["baseline", "1", "2"]
    assert t2.rows[1]["config"] == "rewrite=multiangle"  # name order: ablation-1 first
    assert [r["config"] for r in t3.rows] == ["reader.prompt=type_aware"]
    assert len(t4.rows) == len(records)

    out = tmp_path / "reports" / "paper"
    paths = export_paper_tables(records=records, out_dir=out, n_resamples=500, seed=0, sweeps={})
    for stem in ("table1_models", "table2_ablation", "table3_negative", "table4_cost"):
        for ext in ("md", "tex", "csv"):
            assert (out / f"{stem}.{ext}").read_text().strip()
    assert (out / "by_type.png").read_bytes()[:4] == b"\x89PNG"
    # ABL1 and its LLM-judged twin differ only in the judge: an agreement report is written.
    agree = (tmp_path / "reports" / "judge_agreement.md").read_text()
    assert "ablation-1 (rule) vs ablation-1-gpt4o (gpt4o)" in agree
    assert "| **all** | 10 | 0.900 |" in agree
    assert len(paths) == 4 * 3 + 3


def _judged(rec, name, model, kind="llm", **extra):
    """The same run scored by another judge (params and metrics.json say which)."""
    return {
        **rec,
        "name": f"{rec['name']}-{name}",
        "params": {**rec["params"], "judge.name": name, "judge.model": model, **extra},
        "metrics": {**rec["metrics"], "judge": {"kind": kind, "name": name, "model": model}},
    }


def test_a_judge_change_is_never_a_ladder_step():
    # The "official" twin of ABL2 would be the largest step of the ladder if judges could mix.
    official = _judged(
        ABL2,
        "official",
        "gpt-4o-2024-08-06",
        kind="official",
        **{"judge.runtime.api_base": "http://127.0.0.1:8000/v1"},
    )
    t = ablation_table(BASE, [ABL1, official], n_resamples=200, seed=0)
    assert [r["step"] for r in t.rows] == ["baseline", "1"]
    md = t.to_markdown()
    assert (
        "ablation-2-official [sample (10 q)]: scored by official (gpt-4o-2024-08-06), "
        "baseline (main) by rule (rule-v1): a judge change is not a ladder step"
    ) in md
    assert "127.0.0.1" not in md
    # Without a sweep (every run a step against HEAD), the same holds in build_tables.
    tables = build_tables([BASE, ABL1, official], n_resamples=200, seed=0, sweeps={})
    assert [r["config"] for r in tables[1].rows] == ["baseline (main)", "rewrite=multiangle"]
    # Each run's judge is named in Table 1 (one judge's runs together) and Table 4.
    assert {r["run"]: r["judge"] for r in tables[0].rows}[
        "ablation-2-official"
    ] == "official (gpt-4o-2024-08-06)"
    assert all(r["judge"] for r in tables[3].rows)


def test_judge_identity_ignores_runtime_and_file_paths():
    from memrecall.report.paper import judge_of

    a = _judged(
        ABL1,
        "official",
        "gpt-4o-2024-08-06",
        kind="official",
        **{
            "judge.official_script": "/home/a/LongMemEval/src/evaluation/evaluate_qa.py",
            "judge.runtime.api_base": "http://a",
        },
    )
    b = _judged(
        ABL1,
        "official",
        "gpt-4o-2024-08-06",
        kind="official",
        **{"judge.official_script": "/home/b/evaluate_qa.py", "judge.runtime.api_base": None},
    )
    assert judge_of(a) == judge_of(b)
    c = {
        **b,
        "metrics": {
            **b["metrics"],
            "judge": {**b["metrics"]["judge"], "official_script_sha256": "ab" * 32},
        },
    }
    assert judge_of(c)[0] != judge_of(b)[0] and judge_of(c)[1] == judge_of(b)[1]
    assert judge_of(BASE) != judge_of(_judged(BASE, "gpt4o", "openai/gpt-4o-2024-08-06"))


def test_the_reference_row_shows_its_absolute_per_type_scores():
    t = ablation_table(BASE, [ABL1], n_resamples=200, seed=0)
    base, step = t.rows
    assert base[f"d_{MS}"] == pytest.approx(0.4) and base[f"d_{KU}"] == pytest.approx(0.6)
    md = t.to_markdown().splitlines()
    base_cells, step_cells = md[4].split(" | "), md[5].split(" | ")
    assert "| 50.0 | – | – | – |" in md[4], md[4]
    assert sorted(c.strip(" |") for c in base_cells[-2:]) == ["40.0", "60.0"]  # levels
    assert sorted(c.strip(" |") for c in step_cells[-2:]) == ["+0.0", "+40.0"]  # the Δs
    rows = list(csv.DictReader(io.StringIO(t.to_csv())))
    assert float(rows[0][f"d_{MS}"]) == pytest.approx(0.4)


def test_a_rule_judged_locomo_column_is_not_called_J():
    from memrecall.benchmarks.locomo.report import paper_table
    from memrecall.report.paper import annotate

    m = {
        "n_questions": 3,
        "qa": {"overall": 0.5, "by_category": {"1": 0.5}},
        "f1": {"overall": 0.4, "by_category": {"1": 0.4}},
        "judge": {"kind": "rule"},
    }
    rule_run = {"name": "r", "params": {"reader.name": "local", "judge.name": "rule"}, "metrics": m}
    rule_run = annotate(rule_run)
    t = paper_table([rule_run])
    headers = [c.header for c in t.columns]
    assert "rule multi-hop" in headers and not any(h.startswith("J ") for h in headers)
    assert t.rows[0]["judge"] == "rule"
    llm = annotate(
        {
            **rule_run,
            "metrics": {**m, "judge": {"kind": "llm", "name": "locomo_j", "model": "gpt-4o-mini"}},
        }
    )
    assert "J multi-hop" in [c.header for c in paper_table([llm]).columns]
    assert "acc multi-hop" in [c.header for c in paper_table([rule_run, llm]).columns]


def sweep_run(sweep, variant, ms, ku, params, ladder="reader-deepseek"):
    """A run of a named sweep as memrecall.sweep records it: meta.* in its params; its name is
    opaque (a prefix, a hash), the export must not need it."""
    name = f"exp-{abs(hash((sweep, variant, ladder))) % 10**8:08d}"
    group = "ablation" if sweep == "ablation" else "negative"
    return record(
        name,
        group,
        ms,
        ku,
        {
            "reader.name": ladder or "local",
            **params,
            "meta.sweep": sweep,
            "meta.variant": variant,
            "meta.ladder": ladder or None,
        },
    )


def test_ladders_follow_the_sweep_files():
    """Grouped by recorded params, not names; each ladder is ordered as conf/sweep lists its
    variants (not alphabetically) and compared with its first variant, not the HEAD run."""
    sweeps = {
        "ablation": ("ablation", ["baseline", "top15", "type_aware", "all"]),
        "negative": ("negative_findings", ["reference", "no_reranker", "fact_keys"]),
    }
    runs = [
        BASE,
        sweep_run("ablation", "all", [T, T, T, T, T], [T, T, T, T, T], {"reader.prompt": "x"}),
        sweep_run(
            "ablation",
            "type_aware",
            [T, T, T, T, F],
            [T, T, T, F, F],
            {"reader.prompt": "type_aware"},
        ),
        sweep_run("ablation", "baseline", [T, F, F, F, F], [T, T, F, F, F], {}),
        sweep_run(
            "ablation", "top15", [T, T, F, F, F], [T, T, T, F, F], {"reader.top_k_context": 15}
        ),
        sweep_run(
            "ablation", "baseline", [F, F, F, F, F], [F, F, F, F, F], {}, ladder="reader-kimi"
        ),
        sweep_run(
            "ablation",
            "top15",
            [T, F, F, F, F],
            [F, F, F, F, F],
            {"reader.top_k_context": 15},
            ladder="reader-kimi",
        ),
        sweep_run("negative_findings", "reference", [T, T, T, T, F], [T, T, T, T, F], {}, ""),
        sweep_run(
            "negative_findings",
            "no_reranker",
            [T, T, T, F, F],
            [T, T, T, T, F],
            {"reranker.name": "none"},
            "",
        ),
        sweep_run(
            "negative_findings",
            "fact_keys",
            [T, T, T, T, T],
            [T, T, T, T, F],
            {"embedder.expansion": "fact"},
            "",
        ),
    ]
    _, t2, t3, _ = build_tables(runs, n_resamples=300, seed=0, sweeps=sweeps)
    assert [(r["ladder"], r["step"]) for r in t2.rows] == [
        ("reader-deepseek", "baseline"),
        ("reader-deepseek", "top15"),
        ("reader-deepseek", "type_aware"),
        ("reader-deepseek", "all"),
        ("reader-kimi", "baseline"),
        ("reader-kimi", "top15"),
    ]
    ds = {r["step"]: r for r in t2.rows if r["ladder"] == "reader-deepseek"}
    assert ds["baseline"]["overall"] == pytest.approx(0.3)  # vs the ladder's own baseline
    assert ds["top15"]["delta"] == pytest.approx(0.2) and ds["all"]["delta"] == pytest.approx(0.7)
    assert ds["top15"]["config"] == "reader.top_k_context=15"
    assert ds["all"]["p_value"] == pytest.approx(mcnemar_p(0, 7))
    assert t2.columns[0].key == "ladder" and "| reader-kimi | top15 |" in t2.to_markdown()
    # Only no_reranker hurt (vs `reference`, not vs the HEAD run): one row.
    assert [(r["variant"], r["delta"]) for r in t3.rows] == [("no_reranker", pytest.approx(-0.1))]
    assert t3.rows[0]["worst_type"] == "Multi" and t3.rows[0]["p_value"] == 1.0


def test_user_story_prompt_sweep_and_single_runs_on_other_questions(tmp_path):
    """Issue 11: after a `reader.prompt` sweep and a few single `dvc exp run`s in one workspace
    (one with dataset.limit=2, one on another dataset), the export compares only runs on the
    HEAD run's questions, never lists rewrite=off as a change, shows no n = 0 row, and every
    table says which questions it covers."""

    def prompt_run(prompt, ms, ku):
        return record(f"reader.prompt-{prompt}", "other", ms, ku, {"reader.prompt": prompt})

    sweep = [
        prompt_run("type_aware", [T, T, T, F, F], [T, T, T, T, F]),
        prompt_run("con", [T, F, F, F, F], [T, T, T, F, F]),
        prompt_run("default", [T, T, F, F, F], [T, T, T, F, F]),
    ]
    limit2 = record("limit-2", "other", [T], [T], {"dataset.limit": 2})
    other_ds = {
        **record(
            "s-cleaned",
            "other",
            [T, F, T, F, T],
            [F, F, T, T, T],
            {"dataset.name": "longmemeval_s_cleaned"},
        ),
        "dataset_sha256": "cd" * 32,
    }
    other_ds["per_question"] = [
        {**r, "question_id": "x" + r["question_id"]} for r in other_ds["per_question"]
    ]
    records = [BASE, *sweep, limit2, other_ds]
    t1, t2, t3, t4 = build_tables(records, n_resamples=300, seed=0, sweeps={})

    # Table 2: the three prompt runs are the steps; the other-question runs are left out
    # (the default-prompt run has HEAD's params: it shows under its name)
    assert [r["config"] for r in t2.rows] == [
        "baseline (main)",
        "reader.prompt=con",
        "reader.prompt-default",
        "reader.prompt=type_aware",
    ]
    assert all(r["n"] == 10 for r in t2.rows)
    assert not any("rewrite" in r["config"] for r in t2.rows + t3.rows)
    md2 = t2.to_markdown()
    assert "Questions: sample (10 q) = set " in md2
    assert "limit-2 [sample (2 q)]: other questions than baseline (main)" in md2
    assert "s-cleaned [longmemeval_s_cleaned (10 q)]: other questions" in md2
    # Table 3: only the con prompt hurt, measured on the same 10 questions
    assert [(r["config"], r["n"]) for r in t3.rows] == [("reader.prompt=con", 10)]
    for t in (t2, t3):
        assert not any(r.get("n") == 0 for r in t.rows)
    # Tables 1 and 4 keep every run, each labelled with its questions, and say so
    for t in (t1, t4):
        labels = {r["run"]: r["questions"] for r in t.rows}
        assert (
            labels["limit-2"] == "sample (2 q)"
            and labels["baseline (main)"] == "sample (10 q)"
            and labels["s-cleaned"] == "longmemeval_s_cleaned (10 q)"
        )
        assert t.columns[1].key == "questions"
        assert "Runs on different sets are not compared with each other." in t.to_markdown()
    assert [r["run"] for r in t1.rows][:1] == ["baseline (main)"]  # HEAD's questions first

    # the figure compares the runs on the HEAD run's questions only
    export_paper_tables(
        records=records, out_dir=tmp_path / "paper", n_resamples=300, seed=0, sweeps={}
    )
    assert (tmp_path / "paper" / "by_type.png").exists()


def on_dataset(run, dataset):
    """The same run on another dataset: other question ids, another dataset file."""
    return {
        **run,
        "params": {**run["params"], "dataset.name": dataset},
        "dataset_sha256": dataset * 4,
        "per_question": [
            {**r, "question_id": f"{dataset}-{r['question_id']}"} for r in run["per_question"]
        ],
    }


def test_a_ladder_per_question_set_each_with_its_own_reference():
    sweeps = {"ablation": ("ablation", ["baseline", "top15"])}
    base = sweep_run("ablation", "baseline", [T, F, F, F, F], [T, T, F, F, F], {})
    top = sweep_run(
        "ablation", "top15", [T, T, F, F, F], [T, T, T, F, F], {"reader.top_k_context": 15}
    )
    other_base = on_dataset(sweep_run("ablation", "baseline", [F] * 5, [T] * 5, {}), "oth")
    other_top = on_dataset(
        sweep_run("ablation", "top15", [T] * 5, [T] * 5, {"reader.top_k_context": 15}), "oth"
    )
    orphan = on_dataset(
        sweep_run("ablation", "top15", [T] * 5, [F] * 5, {"reader.top_k_context": 15}), "third"
    )
    _, t2, _, _ = build_tables(
        [BASE, base, top, other_base, other_top, orphan], n_resamples=200, seed=0, sweeps=sweeps
    )
    assert [(r["ladder"], r["step"], r["n"]) for r in t2.rows] == [
        ("reader-deepseek sample (10 q)", "baseline", 10),
        ("reader-deepseek sample (10 q)", "top15", 10),
        ("reader-deepseek oth (10 q)", "baseline", 10),
        ("reader-deepseek oth (10 q)", "top15", 10),
    ]
    assert [r.get("delta") for r in t2.rows][1::2] == [pytest.approx(0.2), pytest.approx(0.5)]
    assert "no reference run on the same questions" in t2.to_markdown()
    assert [c.key for c in t2.columns][:3] == ["ladder", "step", "questions"]


def test_sweep_specs_read_from_conf(tmp_path):
    from memrecall.report.paper import sweep_specs

    (tmp_path / "conf" / "sweep").mkdir(parents=True)
    (tmp_path / "conf" / "sweep" / "ablation.yaml").write_text(
        "name: ablation\nvariants:\n  baseline: []\n  top15: [a=1]\n  all: [a=2]\n"
    )
    (tmp_path / "conf" / "sweep" / "readers.yaml").write_text(
        "name: readers\ngrid:\n  reader: [local, deepseek]\n"
    )
    assert sweep_specs(tmp_path) == {"ablation": ("ablation", ["baseline", "top15", "all"])}


def test_no_runs_is_a_clear_error():
    from memrecall.errors import MemrecallError

    with pytest.raises(MemrecallError, match="no runs to export"):
        build_tables([])


# ---- collection from a real DVC repository ----------------------------------------------------

STAGE = textwrap.dedent("""
    import json, yaml
    p = yaml.safe_load(open("params.yaml"))
    good = p["reader"]["good"]
    rows = [("q1", "multi-session", True), ("q2", "multi-session", good >= 1),
            ("q3", "knowledge-update", good >= 2), ("q4", "knowledge-update", False)]
    rows = rows[:p["dataset"]["limit"]]
    acc = sum(r[2] for r in rows) / len(rows)
    json.dump({"n_questions": len(rows),
               "qa": {"overall": acc, "task_averaged": acc, "abstention": None, "by_type": {}},
               "cost_usd": 0.01 * good, "judge": {"kind": "rule"}},
              open("reports/metrics.json", "w"))
    with open("reports/per_question.csv", "w") as f:
        f.write("question_id,question_type,is_abstention,correct\\n")
        for q, t, c in rows:
            f.write(f"{q},{t},false,{str(c).lower()}\\n")
""")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_collect_runs_from_dvc_experiments(tmp_path):
    repo = tmp_path / "repo"
    (repo / "reports").mkdir(parents=True)
    (repo / "agg.py").write_text(STAGE)
    (repo / "params.yaml").write_text(
        "dataset:\n  name: tiny\n  limit: 4\nreader:\n  name: local\n"
        "  good: 0\nrewrite:\n  name: off\njudge:\n  name: rule\n"
        "meta:\n  sweep: null\n"
    )
    (repo / "dvc.yaml").write_text(
        textwrap.dedent(f"""
        stages:
          aggregate:
            cmd: {sys.executable} agg.py
            deps: [agg.py]
            params: [dataset, reader, rewrite, meta]
            metrics:
              - reports/metrics.json:
                  cache: false
            outs:
              - reports/per_question.csv:
                  cache: false
    """)
    )
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    env.pop("DVC_ROOT", None)
    dvc = [sys.executable, "-m", "dvc"]

    def sh(*cmd):
        subprocess.run(cmd, cwd=repo, env=env, check=True, capture_output=True)

    sh("git", "init", "-q")
    sh(*dvc, "init", "-q")
    sh(*dvc, "repro", "-q")
    sh("git", "add", "-A")
    sh("git", "commit", "-qm", "baseline")
    for i, good in ((1, 1), (2, 2)):
        sh(*dvc, "exp", "run", "-q", "-n", f"ablation-{i}", "-S", f"reader.good={good}")
    sh(*dvc, "exp", "run", "-q", "-n", "limit-2", "-S", "dataset.limit=2", "-S", "reader.good=2")
    sh(*dvc, "exp", "run", "-q", "-n", "swept", "-S", "reader.good=1", "-S", "meta.sweep=abl")

    records = collect_runs(str(repo))
    by_name = {r["name"]: r for r in records}
    assert [r["baseline"] for r in records].count(True) == 1
    assert set(by_name) >= {"ablation-1", "ablation-2", "limit-2"}
    assert by_name["ablation-1"]["params"]["rewrite.name"] == "off"  # YAML 1.2: not False
    assert by_name["ablation-2"]["metrics"]["qa"]["overall"] == 0.75
    assert by_name["ablation-2"]["params"]["reader.good"] == 2
    assert [r["correct"] for r in by_name["ablation-1"]["per_question"]] == [T, T, F, F]

    out = tmp_path / "paper"
    export_paper_tables(str(repo), out_dir=out, n_resamples=200, seed=0)
    ladder = (out / "table2_ablation.md").read_text()
    assert "| 1 | reader.good=1 | rule | 4 | 50.0 | +25.0 |" in ladder
    assert "| 2 | reader.good=2 | rule | 4 | 75.0 | +50.0 |" in ladder
    # the 2-question run is not a step of the 4-question ladder; the table says why
    assert "limit-2 [tiny (2 q)]: other questions than baseline" in ladder
    assert "Questions: tiny (4 q) = set " in ladder and "rewrite" not in ladder
    rows = list(csv.DictReader(io.StringIO((out / "table2_ablation.csv").read_text())))
    assert [float(r["delta"]) for r in rows[1:]] == [0.25, 0.5]
    models = list(csv.DictReader(io.StringIO((out / "table1_models.csv").read_text())))
    assert {r["run"]: r["questions"] for r in models}["limit-2"] == "tiny (2 q)"
    baseline = next(r for r in records if r["baseline"])
    assert baseline["metrics"]["qa"]["overall"] == 0.25 and json.loads(json.dumps(baseline))

    # A selection: experiment names (HEAD = the HEAD run), a sweep, a git revision range.
    from memrecall.errors import MemrecallError

    assert [r["name"] for r in collect_runs(str(repo), names=["ablation-1"])] == ["ablation-1"]
    picked = collect_runs(str(repo), names=["HEAD", "limit-2"])
    assert sorted(r["baseline"] for r in picked) == [False, True]
    with pytest.raises(MemrecallError, match="no finished experiment named 'nope'"):
        collect_runs(str(repo), names=["nope"])
    assert [r["name"] for r in collect_runs(str(repo), sweep="abl")] == ["swept"]
    first = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    (repo / "params.yaml").write_text(
        (repo / "params.yaml").read_text().replace("good: 0", "good: 1")
    )
    sh(*dvc, "repro", "-q")
    sh("git", "commit", "-qam", "second")
    sh(*dvc, "exp", "run", "-q", "-n", "later-2", "-S", "reader.good=2")
    later = collect_runs(str(repo), revs=f"{first}..HEAD")
    assert [(r["name"].split()[0], r["baseline"]) for r in later] == [
        ("commit", True),
        ("later-2", False),
    ]
    both = collect_runs(str(repo), revs=f"{first}~0")  # one revision: its run, its experiments
    assert {r["name"] for r in both} >= {f"commit {first[:7]}", "ablation-1", "swept"}
    with pytest.raises(MemrecallError, match="revision range"):
        collect_runs(str(repo), revs="nosuch..HEAD")


def test_two_negative_sweeps_each_against_their_own_reference():
    """negative_findings and negative_retrieval share Table 3; each is ordered by its own file
    and compared with its own `reference` (sweep_specs keys them by name too)."""
    sweeps = {
        "negative": ("negative_findings", ["reference", "graph_rerank"]),
        "negative_findings": ("negative_findings", ["reference", "graph_rerank"]),
        "negative_retrieval": ("negative_retrieval", ["reference", "no_reranker"]),
    }
    runs = [
        BASE,
        sweep_run("negative_findings", "reference", [T, T, T, T, F], [T, T, T, T, F], {}, ""),
        sweep_run(
            "negative_findings",
            "graph_rerank",
            [T, T, F, F, F],
            [T, T, T, T, F],
            {"reranker.name": "graph"},
            "",
        ),
        sweep_run("negative_retrieval", "reference", [T, T, T, F, F], [T, T, T, T, F], {}, ""),
        sweep_run(
            "negative_retrieval",
            "no_reranker",
            [T, T, T, F, F],
            [T, T, T, T, T],
            {"reranker.name": "none"},
            "",
        ),
    ]
    t3 = build_tables(runs, n_resamples=300, seed=0, sweeps=sweeps)[2]
    assert [(r["variant"], r["delta"]) for r in t3.rows] == [("graph_rerank", pytest.approx(-0.2))]
    # the variant that did not hurt is named with its Δ and interval, not dropped silently
    assert "Compared, not below the reference: no_reranker (+10.0, 95% CI" in t3.to_markdown()


def test_thinking_ladder_table_and_refusal_figure(tmp_path):
    from memrecall.report.thinking import refusal_series

    def think(model, budget, refusal, ms):
        r = record(
            f"thinking-{model}-{budget}",
            "other",
            ms,
            [T, T, F, F, F],
            {"reader.model": model, "reader.thinking_budget": budget, "meta.sweep": "thinking"},
        )
        r["metrics"]["refusal_rate"] = refusal
        return r

    runs = [
        BASE,
        think("minimax/MiniMax-M2", 1024, 0.44, [F, F, F, F, F]),
        think("minimax/MiniMax-M2", 0, 0.02, [T, T, T, F, F]),
        think("minimax/MiniMax-M2", None, 0.05, [T, T, F, F, F]),
        think("zai/glm-4.6", 1024, 0.0, [T, T, T, T, F]),
    ]
    tables = build_tables(runs, n_resamples=300, seed=0)
    t5 = next(t for t in tables if t.name == "table5_thinking")
    assert [(r["model"], r["budget"]) for r in t5.rows] == [
        ("minimax/MiniMax-M2", "0"),
        ("minimax/MiniMax-M2", "1024"),
        ("minimax/MiniMax-M2", "default"),
        ("zai/glm-4.6", "1024"),
    ]
    assert "| minimax/MiniMax-M2 | 1024 | 10 | 20.0 |" in t5.to_markdown()
    assert refusal_series(runs[1:])["minimax/MiniMax-M2"] == [
        ("0", 0.02),
        ("1024", 0.44),
        ("default", 0.05),
    ]
    paths = export_paper_tables(records=runs, out_dir=tmp_path, n_resamples=300, seed=0, sweeps={})
    fig = tmp_path / "refusal_rate.png"
    assert fig in paths and fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "table5_thinking.md").exists()
