"""dataset.errata through DVC on the seeded 2-question slice: the overlay (errata/<name>.json)
is scored beside the raw gold, its corrected answer judged by the run's own judge; editing it
reruns only errata and aggregate, and naming it reruns nothing that reads the data."""

from __future__ import annotations

import json

import pytest

from memrecall.artifacts import read_table
from memrecall.errata import Correction, Errata, write_errata
from repo_copy import ALWAYS, dvc, set_params, stages_run

pytestmark = pytest.mark.slow
SRC = "https://example.org/issues/1 (a made-up report, for the test)"


def test_errata_overlay_through_dvc(project):
    repo, env = project.repo, project.env()
    q = read_table(repo / "artifacts/questions.parquet", "questions").sort("question_id")
    a = read_table(repo / "artifacts/answers.parquet", "answers").sort("question_id")
    raw = json.loads((repo / "reports/metrics.json").read_text())
    (first, gold), (second, other) = q.select("question_id", "answer").rows()
    # the first gold "corrected" to the reader's own answer: judged again, the rule judge
    # accepts it; the second marked wrong with no corrected answer: left out, the ceiling
    hyp = a.filter(a["question_id"] == first)["hypothesis"][0]
    assert hyp.strip() and hyp != gold
    overlay = Errata(
        "sample_fix",
        "1",
        "sample",
        [
            Correction(first, "answer", gold, hyp, True, SRC),
            Correction(second, "answer", other, None, True, SRC),
        ],
    )
    write_errata(overlay, repo / "errata" / "sample_fix.json")
    set_params(repo, **{"dataset.errata": "sample_fix"})
    ran = stages_run(dvc(repo, env, "repro"))
    # download declares the key and reruns, writing the same tables: nothing after it reruns
    assert ran == ALWAYS + ["download", "errata", "aggregate"]
    m = json.loads((repo / "reports/metrics.json").read_text())
    assert m["qa"] == raw["qa"]  # the raw scores stand
    e = m["errata"]
    assert e["errata"]["name"] == "sample_fix" and e["errata"]["sources"] == [SRC]
    o = e["overall"]
    assert o["raw"] == raw["qa"]["overall"] and o["ceiling"] == 0.0
    assert (o["n_rejudged"], o["n_corrected"], o["corrected"]) == (1, 1, 1.0)
    assert "Scores with errata `sample_fix`" in (repo / "reports/by_type.md").read_text()
    # editing the overlay reruns only the stages that read it
    overlay.corrections[1] = Correction(second, "answer", other, other + " (checked)", True, SRC)
    write_errata(overlay, repo / "errata" / "sample_fix.json")
    assert stages_run(dvc(repo, env, "repro")) == ALWAYS + ["errata", "aggregate"]
    m2 = json.loads((repo / "reports/metrics.json").read_text())
    assert m2["errata"]["overall"]["n_rejudged"] == 2
    assert stages_run(dvc(repo, env, "repro")) == ALWAYS
