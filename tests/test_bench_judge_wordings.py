"""bench/judge_wordings.py: the rule judge's errors on planted answers in given wordings, the
answers judge=routed refers, and the errors it keeps (those it does not refer)."""

from __future__ import annotations

import importlib.util
import sys

from conftest import REPO, SAMPLE_FILE
from memrecall import benchmarks

sys.path.insert(0, str(REPO / "bench"))
_SPEC = importlib.util.spec_from_file_location("judge_wordings", REPO / "bench/judge_wordings.py")
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)


def test_errors_the_routed_judge_refers_are_not_kept():
    questions = bench.questions_of("longmemeval", str(SAMPLE_FILE))
    families = {
        "contradicted": (
            # a correction the rules do not read, in a word the referral reads: referred
            "{core}. I stand corrected: it was {wrong}.",
            # one in no word either reads: the rules' error is kept
            "{core}. Going by your newest message, it was {wrong}.",
        )
    }
    rows = bench.measure(benchmarks.get("longmemeval"), questions, families)
    by_wording = {}
    for r in rows:
        if r["class"] == "gold_plus_contradiction":
            by_wording[r["wording"]] = r
    referred, unmarked = (by_wording[w] for w in families["contradicted"])
    assert referred["planted"] > 0 and referred["referred"] == referred["planted"]
    assert referred["errors"] > 0 and referred["kept_errors"] == 0
    assert unmarked["referred"] == 0 and unmarked["kept_errors"] == unmarked["errors"] > 0
