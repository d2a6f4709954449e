"""bench/judge_agreement.py's table of which rule decided: the figures a rule round reads to
find where the rules over-accept or over-reject."""

from __future__ import annotations

import importlib.util

from conftest import REPO

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


def test_a_log_given_as_name_equals_path_is_the_run_name(tmp_path):
    log = tmp_path / "hypotheses.jsonl.eval-results-gpt-4o"
    log.write_text("")
    assert bench.run_name(str(log)) == "hypotheses"
    assert bench.log_path(str(log)) == str(log)
    named = f"activegraph_full_s={log}"
    assert bench.run_name(named) == "activegraph_full_s"
    assert bench.family(bench.run_name(named)) == "activegraph"
    assert bench.log_path(named) == str(log)
