"""bench/judge_agreement.py's table of which rule decided: the figures a rule round reads to
find where the rules over-accept or over-reject."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter

import pytest

from conftest import REPO, SAMPLE_FILE
from memrecall.benchmarks.longmemeval.data import load_records
from memrecall.interchange import eval_results_path, write_eval_results, write_hypotheses
from memrecall.judge.rules import RuleVerdict

_SPEC = importlib.util.spec_from_file_location(
    "bench_judge_agreement", REPO / "bench" / "judge_agreement.py"
)
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)


def test_decided_by_names_the_rule_family():
    assert bench.decided_by("quantity: 3 week matched") == "quantity"
    assert bench.decided_by("contains: missing shoe rack") == "contains"
    assert bench.decided_by("empty response") == "empty response"


def _row(rule, says, official):
    return {"decided_by": rule, "rule": says, "official": official}


def test_by_rule_counts_agreement_per_family_and_verdict_most_disagreements_first():
    rows = [
        _row("quantity", True, True),
        _row("quantity", True, False),
        _row("quantity", True, False),
        _row("quantity", False, False),
        _row("preference", True, False),
        _row("preference", False, False),
    ]
    table = bench.by_rule(rows)
    assert [(t["rule"], t["says"], t["n"], t["disagreements"]) for t in table] == [
        ("quantity", "yes", 3, 2),
        ("preference", "yes", 1, 1),
        ("preference", "no", 1, 0),
        ("quantity", "no", 1, 0),
    ]
    assert table[0]["agreement"] == 1 / 3


def test_routed_counts_what_the_rules_refer_and_takes_the_labels_for_it(capsys):
    def row(run, rule, official, referred):
        return {"run": run, "rule": rule, "official": official, "referred": referred}

    rows = [
        row("a", True, True, False),
        row("a", True, False, True),  # referred: the routed judge takes the label
        row("a", True, False, False),  # kept: the rules' disagreement stays
        row("a", False, False, True),
        row("b", False, True, True),
        row("b", True, True, False),
    ]
    r = bench.routed(rows)
    assert (r["n"], r["referred"], r["disagreements"], r["disagreements_referred"]) == (6, 3, 3, 2)
    assert r["kept_agreement"] == pytest.approx(2 / 3)
    assert r["routed_agreement"] == pytest.approx(5 / 6)
    # run a: routed accepts 2 of 4, the labels 1 of 4; run b: both 2 of 2
    assert r["max_abs_difference"] == pytest.approx(0.25) and r["runs_over_2pt"] == 1
    bench.print_tables({"pooled": {}, "runs": {}, "routed": {"gpt-4o": r}})
    assert "| gpt-4o | 6 | 3 (50.0%) | 2 of 3 | 0.667 | 0.833 | 25.0 pt | 1 |" in (
        capsys.readouterr().out
    )


def test_a_log_given_as_name_equals_path_is_the_run_name(tmp_path):
    log = tmp_path / "hypotheses.jsonl.eval-results-gpt-4o"
    log.write_text("")
    assert bench.run_name(str(log)) == "hypotheses"
    assert bench.log_path(str(log)) == str(log)
    named = f"activegraph_full_s={log}"
    assert bench.run_name(named) == "activegraph_full_s"
    assert bench.family(bench.run_name(named)) == "activegraph"
    assert bench.log_path(named) == str(log)


def test_dev_by_regex_matches_anywhere_in_a_name():
    runs = ["activegraph_v3_s", "cj_v34p2", "cj_opus2"]
    # The regex's loose part takes cj_v34p2 too: the reason @FILE exists.
    assert bench.dev_runs("v3", runs) == {"activegraph_v3_s", "cj_v34p2"}


def test_dev_from_a_file_takes_exact_names_and_comments(tmp_path):
    split = tmp_path / "dev.txt"
    split.write_text("# read in round 24\nactivegraph_v2_s\n\ncj_opus2  # read late\n")
    runs = ["activegraph_v2_s", "cj_v34p2", "cj_opus2"]
    assert bench.dev_runs(f"@{split}", runs) == {"activegraph_v2_s", "cj_opus2"}


def test_dev_file_naming_a_run_no_log_has_is_an_error(tmp_path):
    split = tmp_path / "dev.txt"
    split.write_text("activegraph_v2_s\nactivegraph_v9_s\n")
    with pytest.raises(SystemExit, match="activegraph_v9_s"):
        bench.dev_runs(f"@{split}", ["activegraph_v2_s", "cj_v34p2"])
    with pytest.raises(SystemExit, match="cannot read"):
        bench.dev_runs(f"@{tmp_path / 'missing.txt'}", ["activegraph_v2_s"])


def _measured(tmp_path, records: list[dict], rejected: dict[str, int], dev: str) -> dict:
    """Every figure of the bench for runs that answer every question of `records` with its
    reference, each run's gpt-4o labels rejecting its first `rejected[run]` answers, and the
    run `dev` named as developed on."""
    oracle = tmp_path / "oracle.json"
    oracle.write_text(json.dumps(records))
    logs = []
    for name, n_rejected in rejected.items():
        rows = [
            {
                "question_id": r["question_id"],
                "hypothesis": str(r["answer"]),
                "model": "gpt-4o-2024-08-06",
                "label": i >= n_rejected,
            }
            for i, r in enumerate(records)
        ]
        hyp = tmp_path / f"{name}.jsonl"
        write_hypotheses(hyp, rows)
        logs.append(str(write_eval_results(eval_results_path(hyp, "gpt-4o-2024-08-06"), rows)))
    split = tmp_path / "dev.txt"
    split.write_text(f"{dev}\n")
    return bench.measure(logs, str(oracle), dev=f"@{split}")


def _split_of_runs(tmp_path, records: list[dict], rejected: dict[str, int], dev: str) -> dict:
    """The held-out protocol's figures of _measured."""
    return _measured(tmp_path, records, rejected, dev)["split"]


def test_split_names_the_held_out_runs_more_than_2_points_off(tmp_path, capsys):
    records = load_records(SAMPLE_FILE)[:3]
    # Each answer is its reference, so the rules accept all: run_b's official labels reject
    # one answer of three (33 points below the rules), run_a's none.
    result = _split_of_runs(tmp_path, records, {"run_a": 0, "run_b": 1, "run_c": 0}, dev="run_a")
    held = result["gpt-4o-2024-08-06 held-out"]
    assert held["runs"] == ["run_b", "run_c"]
    assert held["runs_over_2pt"] == 1
    assert held["over_2pt"] == {"run_b": pytest.approx(1 / 3)}
    assert result["gpt-4o-2024-08-06 dev"]["runs"] == ["run_a"]
    bench.print_tables({"pooled": {}, "runs": {}, "split": result})
    printed = capsys.readouterr().out
    assert "| 1 | run_b +33.3 |" in printed  # the held-out run more than 2 points off, named
    # by type: each type's held-out answers (two runs' worth) with their agreement
    for t in {r["question_type"] for r in records}:
        n = 2 * sum(r["question_type"] == t for r in records)
        agreed = n - (t == records[0]["question_type"])  # run_b's rejected first answer
        assert f"| gpt-4o-2024-08-06 held-out | {t} | {n} | {agreed / n:.3f} |" in printed


def test_split_gives_each_held_out_system_its_own_agreement(tmp_path, capsys):
    records = load_records(SAMPLE_FILE)[:3]
    # Every answer is its reference; only newsys's labels reject one (its first).
    rejected = {"oldsys_a": 0, "oldsys_b": 0, "newsys_a": 1}
    result = _split_of_runs(tmp_path, records, rejected, dev="oldsys_a")
    systems = result["gpt-4o-2024-08-06 held-out"]["by_system"]
    assert sorted(systems) == ["newsys", "oldsys"]
    assert (systems["oldsys"]["n"], systems["oldsys"]["agreement"]) == (3, 1.0)
    assert (systems["newsys"]["n"], systems["newsys"]["runs"]) == (3, 1)
    assert systems["newsys"]["agreement"] == pytest.approx(2 / 3)
    assert systems["newsys"]["max_abs_difference"] == pytest.approx(1 / 3)
    assert list(result["gpt-4o-2024-08-06 dev"]["by_system"]) == ["oldsys"]
    bench.print_tables({"pooled": {}, "runs": {}, "split": result})
    printed = capsys.readouterr().out
    assert "| gpt-4o-2024-08-06 held-out | newsys | 1 | 3 | 0.667 |" in printed
    # which way its disagreement goes: the rules alone say yes to the answer its labels reject
    newsys = next(line for line in printed.splitlines() if "| newsys |" in line)
    assert newsys.endswith("| 33.3 pt | 1 | 0 |")


def _one_labelled_run(tmp_path, records: list[dict], rows: list[dict]) -> tuple[str, str]:
    """An oracle file of `records` and one run's eval-results log of `rows`, labelled by gpt-4o:
    (oracle path, log path)."""
    oracle = tmp_path / "oracle.json"
    oracle.write_text(json.dumps(records))
    rows = [r | {"model": "gpt-4o-2024-08-06"} for r in rows]
    hyp = tmp_path / "run_a.jsonl"
    write_hypotheses(hyp, rows)
    return str(oracle), str(write_eval_results(eval_results_path(hyp, "gpt-4o-2024-08-06"), rows))


def test_renamings_list_the_verdicts_a_name_decides(tmp_path, monkeypatch):
    records = [
        {
            "question_id": "q_sony",
            "question_type": "single-session-user",
            "question": "Which camera brand do I use?",
            "answer": "Sony",
        },
        {
            "question_id": "q_count",
            "question_type": "single-session-user",
            "question": "How many cameras do I have?",
            "answer": "3",
        },
    ]
    rows = [
        {"question_id": "q_sony", "hypothesis": "You use Sony.", "label": True},
        {"question_id": "q_count", "hypothesis": "Three.", "label": True},
    ]
    oracle, log = _one_labelled_run(tmp_path, records, rows)
    # the rules read no name: the answer naming one is judged alike renamed
    assert bench.renamings([log], oracle) == {"answers": 1, "questions": 1, "changed": []}

    # a rule that knows the brand is caught, with the answer it decides
    def knows_sony(question_type, question, answer, response, **_):
        return RuleVerdict("sony" in response.lower(), "knows sony")

    monkeypatch.setattr(bench, "judge_one", knows_sony)
    changed = bench.renamings([log], oracle)["changed"]
    assert [(c["question_id"], c["names"], c["toward_label"]) for c in changed] == [
        ("q_sony", ["sony"], False)
    ]


@pytest.mark.parametrize(
    "variants, record, response, rewrites, keeps, misreads",
    [
        pytest.param(
            "REWORDED",
            {"question": "How many cameras do I have?", "answer": "3"},
            "Three.",
            "quick_question",
            "thanks",  # the opening stays
            lambda question, answer: question.startswith("How many"),
            id="rewordings-catch-a-rule-reading-the-question-opening",
        ),
        pytest.param(
            "RESTATED",
            {"question": "How much did I spend on the bike?", "answer": "$800"},
            "You spent $800.",
            "money_words",
            "trailing_period",  # the dollar sign stays
            lambda question, answer: answer.startswith("$"),
            id="restatements-catch-a-rule-reading-the-dollar-sign",
        ),
    ],
)
def test_variants_count_the_verdicts_a_wording_decides(
    tmp_path, monkeypatch, variants, record, response, rewrites, keeps, misreads
):
    records = [{"question_id": "q", "question_type": "multi-session", **record}]
    rows = [{"question_id": "q", "hypothesis": response, "label": True}]
    oracle, log = _one_labelled_run(tmp_path, records, rows)
    variants = getattr(bench, variants)
    changes = bench.varied([log], oracle, variants)
    # the rules read what is asked and what the reference says: no variant moves the verdict
    assert changes[rewrites] == {
        "n": 1,
        "changed": 0,
        "toward_label": 0,
        "away_from_label": 0,
        "answers": [],
    }
    assert sum(c["changed"] for c in changes.values()) == 0

    # a rule that reads the wording is caught, away from the label
    def reads_the_wording(question_type, question, answer, response, **_):
        return RuleVerdict(misreads(question, answer), "reads the wording")

    monkeypatch.setattr(bench, "judge_one", reads_the_wording)
    changes = bench.varied([log], oracle, variants)
    assert changes[rewrites]["away_from_label"] == 1
    # the answer it changed is named, to be read again
    assert changes[rewrites]["answers"] == [{"run": "run_a", "question_id": "q"}]
    assert changes[keeps]["changed"] == 0


def test_crossings_count_what_the_rules_accept_from_another_question(tmp_path, monkeypatch):
    rubric = "The user would prefer suggestions that build on their {} . They might not prefer {}."
    records = [
        {
            "question_id": "q_camera",
            "question_type": "single-session-preference",
            "question": "Any accessories for my camera?",
            "answer": rubric.format("Sony A7 III and its 85mm lens", "other brands"),
        },
        {
            "question_id": "q_cake",
            "question_type": "single-session-preference",
            "question": "What should I bake for my colleagues?",
            "answer": rubric.format("lemon poppyseed cake", "complex recipes"),
        },
        {
            "question_id": "q_count",
            "question_type": "multi-session",
            "question": "How many cakes did I bake?",
            "answer": "3",
        },
    ]
    rows = [
        {"question_id": "q_camera", "hypothesis": "Since you shoot Sony, get a spare battery."},
        {"question_id": "q_cake", "hypothesis": "Your lemon poppyseed cake went down well."},
        {"question_id": "q_count", "hypothesis": "3 cakes."},
    ]
    oracle, log = _one_labelled_run(tmp_path, records, [r | {"label": True} for r in rows])
    # each preference response is put to the other preference question, and neither is accepted
    assert bench.crossings([log], oracle) == {"answers": 2, "accepted": []}

    # a rule that accepts any response long enough is caught, with what it accepted
    def accepts_anything(question_type, question, answer, response, **_):
        return RuleVerdict(len(response) > 20, "long enough")

    monkeypatch.setattr(bench, "judge_one", accepts_anything)
    accepted = bench.crossings([log], oracle)["accepted"]
    assert sorted((a["question_id"], a["put_to"], a["reason"]) for a in accepted) == [
        ("q_cake", "q_camera", "long enough"),
        ("q_camera", "q_cake", "long enough"),
    ]


def test_turnings_count_the_right_answers_turned_wrong_the_rules_still_accept(
    tmp_path, monkeypatch
):
    records = [
        {
            "question_id": "q_bikes",
            "question_type": "knowledge-update",
            "question": "How many bikes do I currently own?",
            "answer": "4",
        },
        {
            "question_id": "q_seeds",
            "question_type": "temporal-reasoning",
            "question": "Which seeds were started first, the tomatoes or the marigolds?",
            "answer": "Tomatoes",
        },
        {
            "question_id": "q_count",
            "question_type": "multi-session",
            "question": "How many bikes did I fix?",
            "answer": "4",
        },
        {
            "question_id": "q_order",
            "question_type": "temporal-reasoning",
            "question": "What is the order of the trips I took, from earliest to latest?",
            "answer": "First Muir Woods, then Big Sur, and finally Yosemite.",
        },
    ]
    rows = [
        {"question_id": "q_bikes", "hypothesis": "You had 3 bikes; now you own 4.", "label": True},
        {
            "question_id": "q_seeds",
            "hypothesis": "The tomatoes, before the marigolds.",
            "label": True,
        },
        # a value is swapped only in a knowledge update's answer
        {"question_id": "q_count", "hypothesis": "You fixed 4 bikes, not 3.", "label": True},
        {
            "question_id": "q_order",
            "hypothesis": "In order:\n1. Muir Woods\n2. Big Sur\n3. Yosemite",
            "label": True,
        },
    ]
    oracle, log = _one_labelled_run(tmp_path, records, rows)
    result = bench.turnings([log], oracle)
    assert {name: r["answers"] for name, r in result.items()} == {
        "swapped_values": 1,
        "swapped_options": 1,
        "reversed_order": 1,
    }
    assert all(r["accepted"] == [] for r in result.values())

    # a rule that accepts any response naming the reference is caught, with what it accepted
    def names_it(question_type, question, answer, response, **_):
        return RuleVerdict(answer.lower() in response.lower(), "names it")

    monkeypatch.setattr(bench, "judge_one", names_it)
    result = bench.turnings([log], oracle)
    assert result["swapped_values"]["accepted"] == [
        {"run": "run_a", "question_id": "q_bikes", "reason": "names it", "original_accepted": True}
    ]
    assert result["swapped_options"]["accepted"] == [
        {"run": "run_a", "question_id": "q_seeds", "reason": "names it", "original_accepted": True}
    ]


def test_target_holds_only_runs_of_at_least_100_answers_to_2_points(capsys):
    overall = {"agreement": 0.96, "kappa": 0.89}
    runs = {
        # 1.9 points off, all of it outside the rubric types
        "big_close": {
            "n": 500,
            "difference": 0.019,
            "difference_ci": (0.005, 0.033),
            "difference_outside_rubrics": 0.019,
        },
        # 3 points off; 2.5 of them were the rubric answers to agree
        "big_off": {
            "n": 100,
            "difference": -0.03,
            "difference_ci": (-0.051, -0.009),
            "difference_outside_rubrics": -0.025,
        },
        # too small to be held to 2 points
        "small_off": {"n": 60, "difference": 0.117, "difference_ci": (0.05, 0.2)},
    }
    t = bench.target(overall, runs)
    assert (t["agreement_met"], t["kappa_met"], t["runs_met"], t["met"]) == (
        True,
        True,
        False,
        False,
    )
    assert (t["runs_counted"], t["runs_smaller"]) == (2, 1)
    assert t["runs_off"] == {"big_off": {"difference": -0.03, "difference_ci": (-0.051, -0.009)}}
    assert t["runs_off_outside_rubrics"] == {"big_off": -0.025}
    # a run off only by its rubric answers is off, and not off were they to agree
    rubric_only = dict(runs["big_off"], difference_outside_rubrics=-0.01)
    by_rubrics = bench.target(overall, {"big_off": rubric_only})
    assert by_rubrics["runs_off"] and by_rubrics["runs_off_outside_rubrics"] == {}
    assert bench.target(overall, {"big_close": runs["big_close"]})["met"] is True
    low = bench.target({"agreement": 0.949, "kappa": None}, {})
    assert (low["agreement_met"], low["kappa_met"], low["runs_met"]) == (False, False, True)
    bench.print_tables({"pooled": {}, "runs": {}, "target": {"gpt-4o": t, "low": low}})
    printed = capsys.readouterr().out
    assert (
        "| gpt-4o | 0.960 | 0.890 | 2 (1) | big_off -3.0 [-5.1, -0.9] ✗ | big_off -2.5 | no |"
        in printed
    )
    assert "| low | 0.949 ✗ | – ✗ | 0 (0) |  | none | no |" in printed


def test_measure_holds_each_group_to_the_target(tmp_path):
    records = load_records(SAMPLE_FILE)[:3]
    targets = _measured(tmp_path, records, {"run_a": 0, "run_b": 1}, dev="run_a")["target"]
    # Three-answer runs are below 100 answers: no run is held to 2 points.
    assert set(targets) == {
        "gpt-4o-2024-08-06",
        "gpt-4o-2024-08-06 dev",
        "gpt-4o-2024-08-06 held-out",
    }
    # run_a agrees on all three, but every label and verdict is yes: kappa is undefined, and an
    # undefined kappa does not meet the target.
    dev = targets["gpt-4o-2024-08-06 dev"]
    assert (dev["agreement_met"], dev["kappa"], dev["met"]) == (True, None, False)
    held = targets["gpt-4o-2024-08-06 held-out"]
    assert (held["runs_counted"], held["runs_smaller"], held["runs_met"]) == (0, 1, True)
    assert held["agreement"] == pytest.approx(2 / 3) and not held["met"]
    assert targets["gpt-4o-2024-08-06"]["runs_smaller"] == 2


def test_each_run_gap_has_a_paired_interval_around_it(tmp_path, capsys):
    records = load_records(SAMPLE_FILE)[:3]
    runs = _measured(tmp_path, records, {"run_a": 0, "run_b": 1}, dev="run_a")["runs"]
    # run_a: the rules and the labels accept all three, so no resample moves the gap off 0.
    assert runs["run_a"]["difference_ci"] == (0.0, 0.0)
    low, high = runs["run_b"]["difference_ci"]
    assert runs["run_b"]["difference"] == pytest.approx(1 / 3)
    assert 0.0 <= low <= 1 / 3 <= high <= 1.0
    bench.print_tables({"pooled": {}, "runs": runs})
    assert (
        "| run_a | gpt-4o-2024-08-06 | 3 | 1.000 | – | 1.000 | 1.000 | +0.0 pt | [+0.0, +0.0] |"
        in (capsys.readouterr().out)
    )


def test_each_run_gap_is_also_given_without_its_rubric_answers_disagreements(tmp_path):
    records = load_records(SAMPLE_FILE)[:3]
    assert [r["question_type"] for r in records][2] == "single-session-preference"
    runs = _measured(tmp_path, records, {"run_a": 1, "run_b": 3}, dev="run_a")["runs"]
    # run_a's labels reject a single-session-user answer: its whole gap is outside the rubrics
    assert runs["run_a"]["difference_outside_rubrics"] == pytest.approx(1 / 3)
    # run_b's reject all three; were its preference answer to agree, 2 of 3 would stay
    assert runs["run_b"]["difference"] == pytest.approx(1.0)
    assert runs["run_b"]["difference_outside_rubrics"] == pytest.approx(2 / 3)


def test_by_length_bands_agreement_shortest_first_and_apart_from_rubrics(capsys):
    def row(i, words, rule, official, qtype="multi-session", referred=False):
        return {
            "run": "r",
            "question_id": f"q{i}",
            "question_type": qtype,
            "words": words,
            "rule": rule,
            "official": official,
            "referred": referred,
        }

    rows = [
        row(0, 300, True, False),  # a long answer the rules accept and the label rejects
        row(1, 300, True, True, "single-session-preference", referred=True),
        row(2, 300, False, False, "single-session-preference", referred=True),
        row(3, 12, True, True),
        row(4, 30, False, False),
    ]
    table = bench.by_length(rows)
    assert list(table) == ["<=40", ">250"]  # no answer of 41 to 250 words: no band
    short, long = table["<=40"], table[">250"]
    assert (short["n"], short["agreement"], short["share"]) == (2, 1.0, 0.4)
    assert (long["n"], long["a_only_yes"], long["b_only_yes"]) == (3, 1, 0)
    assert long["agreement"] == pytest.approx(2 / 3)
    # outside the rubric-judged preference answers, the long band agrees on none
    assert (long["n_valued"], long["agreement_valued"]) == (1, 0.0)
    # judge=routed refers the two preference answers and keeps the one it gets wrong
    assert (long["referred"], long["kept_agreement"]) == (2, 0.0)
    assert (short["referred"], short["kept_agreement"]) == (0, 1.0)
    bench.print_tables({"pooled": {}, "runs": {}, "by_length": {"gpt-4o": table}})
    printed = capsys.readouterr().out
    assert (
        "| gpt-4o | >250 | 3 | 60.0% | 0.667 | 0.400 | 1 | 0 | 1 | 0.000 | 2 (67%) | 0.000 |"
        in printed
    )


def test_measure_bands_each_group_by_length(tmp_path):
    records = load_records(SAMPLE_FILE)[:3]
    lengths = _measured(tmp_path, records, {"run_a": 0, "run_b": 1}, dev="run_a")["by_length"]
    assert set(lengths) == {
        "gpt-4o-2024-08-06",
        "gpt-4o-2024-08-06 dev",
        "gpt-4o-2024-08-06 held-out",
    }
    # Every answer is its reference: each group's bands are its references' lengths.
    bands = [bench.length_band(len(str(r["answer"]).split())) for r in records]
    held = lengths["gpt-4o-2024-08-06 held-out"]  # run_b alone
    assert {band: b["n"] for band, b in held.items()} == Counter(bands)
    assert len(held) >= 2  # (a rubric runs longer than a value)
    # run_b's labels reject its first answer, which the rules accept: only its band disagrees
    for band, b in held.items():
        assert b["a_only_yes"] == (band == bands[0])
    assert sum(b["share"] for b in lengths["gpt-4o-2024-08-06"].values()) == pytest.approx(1)


def test_doubt_warns_ranks_each_runs_share_in_doubt_against_its_gap(capsys):
    def run(n, doubt, agreement, difference):
        return {"n": n, "in_doubt": doubt, "agreement": agreement, "difference": difference}

    runs = {
        "calm": run(500, 0.10, 0.99, 0.002),
        "mixed": run(500, 0.30, 0.97, -0.010),
        "doubtful": run(500, 0.60, 0.92, 0.040),
        # too small to count: it would break the ranks
        "tiny": run(60, 0.90, 1.00, 0.0),
    }
    d = bench.doubt_warns(runs)
    assert d["runs"] == 3
    assert d["agreement"]["spearman"] == pytest.approx(-1.0)
    assert d["abs_difference"]["spearman"] == pytest.approx(1.0)
    # two runs, or a share that never changes, rank nothing
    two = bench.doubt_warns({k: runs[k] for k in ("calm", "mixed")})
    assert two["agreement"] == {"spearman": None, "p": None}
    flat = {k: {**r, "in_doubt": 0.3} for k, r in runs.items()}
    assert bench.doubt_warns(flat)["abs_difference"]["spearman"] is None
    bench.print_tables({"pooled": {}, "runs": {}, "doubt": {"gpt-4o": d, "two": two}})
    printed = capsys.readouterr().out
    assert "| gpt-4o | 3 | -1.00 (0.000) | 1.00 (0.000) |" in printed
    assert "| two | 2 | – (–) | – (–) |" in printed


def test_each_run_reports_its_share_in_doubt(tmp_path):
    records = load_records(SAMPLE_FILE)[:3]
    runs = _measured(tmp_path, records, {"run_a": 0}, dev="run_a")["runs"]
    # Each answer is its reference: only the preference rubric is in doubt (judge=routed refers
    # every rubric), the value answers make no turn.
    rubrics = sum(r["question_type"] == "single-session-preference" for r in records)
    assert 0 < rubrics < len(records)
    assert runs["run_a"]["in_doubt"] == pytest.approx(rubrics / len(records))


def test_the_labels_against_themselves_count_identical_answers_labelled_differently(capsys):
    def row(run, qid, response, official, words=3, model="gpt-4o"):
        return {
            "run": run,
            "judge_model": model,
            "question_id": qid,
            "response": response,
            "official": official,
            "words": words,
        }

    rows = [
        # the same answer in two runs of one system, labelled alike
        row("sys_a", "q1", "You have 5.", True),
        row("sys_b", "q1", "You have 5.", True),
        # the same answer in three runs of two systems, labelled differently once
        row("sys_a", "q2", "It was May.", True, words=40),
        row("sys_b", "q2", "It was May.", True, words=40),
        row("other_c", "q2", "It was May.", False, words=40),
        # another answer to q2, given once: no pair
        row("other_c", "q2", "It was June.", False),
        # the same text under another judge model is that model's answer, not this one's
        row("sys_a", "q3", "Luna.", True, model="mini"),
        row("sys_b", "q3", "Luna.", False, model="mini"),
        row("sys_a", "q4", "Milo.", True, model="mini"),
    ]
    itself = bench.judge_against_itself(rows)
    assert itself["gpt-4o"] == {
        "answers": 2,
        "verdicts": 5,
        "discordant": 1,
        "cross_system": 1,
        "median_words": 21.5,  # of 3 and 40
    }
    assert (itself["mini"]["answers"], itself["mini"]["discordant"]) == (1, 1)
    bench.print_tables({"pooled": {}, "runs": {}, "itself": itself})
    assert "| gpt-4o | 2 | 5 | 1 | 1 | 21.5 |" in capsys.readouterr().out


def test_read_alike_splits_the_disagreements_by_how_the_labels_judge_one_reading(capsys):
    def row(qid, reason, rule, official):
        return {
            "question_id": qid,
            "question_type": "temporal-reasoning",
            "reason": reason,
            "rule": rule,
            "official": official,
        }

    off_by_one = "quantity: 3 week is off by one from 2 week"
    rows = [
        # one reading of q1, accepted: the labels say yes twice and no once, so one disagreement
        # stays whatever the verdict
        row("q1", off_by_one, True, True),
        row("q1", off_by_one, True, True),
        row("q1", off_by_one, True, False),
        # the same reason on another question is another class: here the rules side with the
        # minority (yes once, no twice), so two disagree and a verdict per class would leave one
        row("q2", off_by_one, True, False),
        row("q2", off_by_one, True, False),
        row("q2", off_by_one, True, True),
        # a tie counts as the majority's side: one disagrees either way
        row("q3", "quantity: 4 matched", True, True),
        row("q3", "quantity: 4 matched", True, False),
        # a reading given once, disagreeing
        row("q4_abs", "abstention: says the information is missing", True, False),
        # and one agreeing: no disagreement anywhere
        row("q5", "contains: Luna", True, True),
    ]
    alike = bench.read_alike(rows)
    counts = {k: v for k, v in alike.items() if k != "by_type"}
    assert counts == {
        "answers": 10,
        "disagreements": 5,
        "split": 2,  # q1's and q3's
        "against_majority": 2,  # q2's
        "alone": 1,  # q4_abs
        "floor": 3,  # q1 1, q2 1, q3 1
    }
    assert alike["by_type"]["temporal-reasoning (abstention)"]["alone"] == 1
    assert alike["by_type"]["temporal-reasoning"]["disagreements"] == 4
    bench.print_tables({"pooled": {}, "runs": {}, "alike": {"gpt-4o held-out": alike}})
    assert "| gpt-4o held-out | 10 | 5 | 2 | 2 | 1 | 3 |" in capsys.readouterr().out


def test_declines_count_how_the_labels_judge_answers_that_give_none(capsys):
    def row(run, qid, official, decided_by="declines", model="gpt-4o"):
        return {
            "run": run,
            "judge_model": model,
            "question_id": qid,
            "official": official,
            "decided_by": decided_by,
        }

    rows = [
        # q1 declined in three runs, accepted once: labelled both ways
        row("a", "q1", False),
        row("b", "q1", True),
        row("c", "q1", False),
        # q2 declined twice, rejected both times
        row("a", "q2", False),
        row("b", "q2", False),
        # q3 declined once and accepted: no second decline to hold it against
        row("a", "q3", True),
        # an answer the rules read otherwise, and another judge model's decline
        row("b", "q3", True, decided_by="quantity"),
        row("a", "q1", True, model="mini"),
    ]
    got = bench.declines_labelled(rows)
    assert got["gpt-4o"] == {
        "declines": 6,
        "accepted": 2,
        "questions_repeated": 2,
        "questions_both": 1,
        "accepted_where_both": 1,
    }
    assert got["mini"]["declines"] == 1 and got["mini"]["questions_repeated"] == 0
    bench.print_tables({"pooled": {}, "runs": {}, "declines": got})
    assert "| gpt-4o | 6 | 2 | 2 | 1 | 1 |" in capsys.readouterr().out


def test_a_random_labelled_sample_corrects_the_rules_bias_as_it_grows(capsys):
    # 150 answers: the labels accept the first 90, the rules those and 15 more (10 points over)
    official = [i < 90 for i in range(150)]
    rules = [i < 105 for i in range(150)]
    runs = {
        "over": (official, rules),
        "exact": (official, official),  # the rules agree on every answer
        "small": (official[:60], rules[:60]),  # under 100 answers: not counted
    }
    w = bench.sampled_correction(runs, sizes=(20, 149, 150), draws=50)
    assert w["runs"] == 2
    assert w["rules_alone"]["max_abs_error"] == pytest.approx(0.10)
    assert w["rules_alone"]["mean_abs_error"] == pytest.approx(0.05)
    assert 150 not in w["sampled"]  # a sample as large as the run is no sample
    # 149 of 150 labelled: the estimate is off by at most one answer's share of the correction
    near = w["sampled"][149]
    assert near["mean_abs_error"] < 0.01 and near["share_beyond_run_points"] == 0.0
    # 20 labelled: unbiased but loose; the exact run's draws are all exact
    loose = w["sampled"][20]
    assert loose["p95_abs_error"] > near["p95_abs_error"]
    assert 0.0 < loose["share_beyond_run_points"] <= 0.5
    # the same runs in another order (logs named in another order) draw the same samples
    assert bench.sampled_correction(dict(reversed(runs.items())), (20, 149, 150), draws=50) == w
    bench.print_tables({"pooled": {}, "runs": {}, "sampled": {"gpt-4o": w}})
    printed = capsys.readouterr().out
    assert "| gpt-4o | 0 (the rules alone, 2 runs) | 5.00 pt | worst 10.0 pt | | |" in printed
    assert "| gpt-4o | 149 | " in printed


def test_disagreements_of_held_out_runs_are_counted_not_written(tmp_path, capsys):
    """Writing a held-out run's disagreements would put its answers in front of whoever writes
    the next rule: with a split, only the development runs' are written unless asked for."""
    records = load_records(SAMPLE_FILE)[:3]
    _measured(tmp_path, records, {"run_a": 1, "run_b": 1}, dev="run_a")  # writes the logs
    logs = [str(p) for p in sorted(tmp_path.glob("*.eval-results-gpt-4o"))]
    out = tmp_path / "dis.jsonl"
    base = ["--logs", *logs, "--oracle", str(tmp_path / "oracle.json"), "--disagreements", str(out)]

    def runs_written(*extra):
        bench.main([*base, *extra])
        return sorted(json.loads(line)["run"] for line in out.read_text().splitlines())

    assert runs_written("--dev", f"@{tmp_path / 'dev.txt'}") == ["run_a"]
    assert "not written: the 1 disagreements of the held-out runs" in capsys.readouterr().out
    both = ["run_a", "run_b"]
    assert runs_written("--dev", f"@{tmp_path / 'dev.txt'}", "--held-out-disagreements") == both
    assert runs_written() == both  # no split, nothing is held out
