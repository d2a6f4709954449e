"""bench/rule_yes_precision.py: where the rules say yes, the official judge's share of yeses by
features of the answer, and the bins where a rule saying no would gain agreement."""

from __future__ import annotations

import importlib.util
import json
import sys

from conftest import REPO, SAMPLE_FILE
from memrecall.benchmarks.longmemeval.data import load_records
from memrecall.interchange import eval_results_path, write_eval_results, write_hypotheses

sys.path.insert(0, str(REPO / "bench"))
_SPEC = importlib.util.spec_from_file_location(
    "rule_yes_precision", REPO / "bench" / "rule_yes_precision.py"
)
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)

SONY = (
    "The user would prefer suggestions of Sony-compatible accessories or high-quality "
    "photography gear that can enhance their photography experience. They may not prefer "
    "suggestions of other brands' equipment or low-quality gear."
)
QUESTION = "Can you suggest some accessories for my camera?"


def test_preference_features_read_where_and_how_the_rubric_terms_are_said():
    recalled = "Since you use a Sony, a Sony battery grip would suit you."
    f = bench.preference_features(QUESTION, SONY, recalled)
    assert f["words"] == "<60"
    assert f["draws on the user's history"] == "yes"  # "since you use"
    # "Sony" is its fifth token of twelve, in its only sentence, said twice
    assert f["first rubric term at (share of the response before it)"] == "0.30-0.60"
    assert f["sentences naming a rubric term (share)"] == ">=0.60"
    assert f["rubric-term mentions"] == "2-3"
    listed = "Popular picks: a tripod. A strap. A bag. A lens cloth. A grip. A Sony battery."
    f = bench.preference_features(QUESTION, SONY, listed)
    assert f["draws on the user's history"] == "no"
    assert f["sentences naming a rubric term (share)"] == "0.10-0.20"  # one sentence of six
    assert f["first rubric term at (share of the response before it)"] == ">=0.60"


def test_quantity_features_count_the_other_values_of_the_asked_kind_in_the_conclusion():
    said = "You bought 2 in May and 4 in June.\n\nTherefore, you have 3 plants, or perhaps 5."
    # the conclusion ("Therefore, ...") gives 5 besides the reference's 3; the 2 and 4 before
    # it are evidence, and a value it denies ("3 plants, not 5") is no other answer
    denied = said.replace("or perhaps 5", "not 5")
    assert bench.quantity_features("3", denied)["other values in its conclusion"][0] == "0"
    assert bench.quantity_features("3", said) == {
        "other values in its conclusion": "1, <=100 words"
    }
    long = "You have 3 plants. " + "They are doing well. " * 30
    assert bench.quantity_features("3", long) == {"other values in its conclusion": "0, >100 words"}
    assert bench.quantity_features("2 PM", "At 2 PM.") is None  # a time of day: not read here
    assert bench.quantity_features("Spanish and French", "Spanish.") is None


def _logs(tmp_path, official: bool) -> tuple[str, list[str]]:
    """An oracle of a preference and a quantity question and three runs answering both so the
    rules accept, the preference answer labelled `official` by gpt-4o, the quantity one yes."""
    by_id = {r["question_id"]: r for r in load_records(SAMPLE_FILE)}
    records = [by_id["06878be2"], by_id["45dc21b6"]]
    oracle = tmp_path / "oracle.json"
    oracle.write_text(json.dumps(records))
    answers = {
        "06878be2": ("Since you use a Sony, a Sony battery grip would suit you.", official),
        "45dc21b6": ("3", True),
    }
    logs = []
    for run in ("sys0_s", "sys1_s", "sys2_s"):
        rows = [
            {"question_id": q, "hypothesis": said, "model": "gpt-4o-2024-08-06", "label": label}
            for q, (said, label) in answers.items()
        ]
        hyp = tmp_path / f"{run}.jsonl"
        write_hypotheses(hyp, rows)
        logs.append(str(write_eval_results(eval_results_path(hyp, "gpt-4o-2024-08-06"), rows)))
    return str(oracle), logs


def test_a_bin_the_official_judge_mostly_rejects_is_one_where_no_would_gain(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(bench, "MIN_ANSWERS", 2)
    oracle, logs = _logs(tmp_path, official=False)
    table = bench.tally(logs, oracle, dev="sys0")
    held = table["gpt-4o-2024-08-06 held-out"]
    assert held["preference"]["draws on the user's history"] == {"yes": [2, 0]}
    assert held["quantity"]["other values in its conclusion"] == {"0, <=100 words": [2, 2]}
    assert table["gpt-4o-2024-08-06 dev"]["preference"]["words"] == {"<60": [1, 0]}
    found = bench.gains(table)
    # every preference feature's bin of the two held-out runs; the dev run's bins are too small
    assert {(g, rule, n, share) for g, rule, _, _, n, share in found} == {
        ("gpt-4o-2024-08-06 held-out", "preference", 2, 0.0)
    }
    assert len(found) == 5
    bench.print_tables(table)
    out = capsys.readouterr().out
    assert "| draws on the user's history | yes | 2 | 0.000 | +2 |" in out
    assert "- gpt-4o-2024-08-06 held-out, preference, draws on the user's history yes" in out


def test_where_the_official_judge_accepts_what_the_rules_do_no_bin_gains(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(bench, "MIN_ANSWERS", 2)
    oracle, logs = _logs(tmp_path, official=True)
    out_json = tmp_path / "counts.json"
    bench.main(["--oracle", oracle, "--logs", *logs, "--json", str(out_json)])
    out = capsys.readouterr().out
    assert "none: in every bin the official judge accepts at least half" in out
    assert "| words | <60 | 3 | 1.000 | -3 |" in out
    counts = json.loads(out_json.read_text())
    assert counts["gpt-4o-2024-08-06"]["quantity"]["other values in its conclusion"] == {
        "0, <=100 words": [3, 3]
    }
