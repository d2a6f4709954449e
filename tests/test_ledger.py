"""The ledger of runs the rule judge was developed against (memrecall.data.ledger), the shipped
one against the published-runs manifest, and bench/judge_agreement.py's `--dev @LEDGER.csv`."""

from __future__ import annotations

import csv
import importlib.util
import re

import pytest

from conftest import REPO
from memrecall.data.ledger import COLUMNS, history, manifest_key, read_ledger, run_of
from memrecall.data.published import read_manifest
from memrecall.errors import InputError

LEDGER = REPO / "docs" / "findings" / "rule-judge" / "ledger.csv"
MANIFEST = REPO / "bench" / "published_runs.csv"


def _bench():
    spec = importlib.util.spec_from_file_location(
        "judge_agreement", REPO / "bench" / "judge_agreement.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _write(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({c: "" for c in COLUMNS} | r)
    return path


def _row(key, names, measured, read, **kw):
    return dict(
        key=key,
        names=names,
        answers="500",
        judge="gpt-4o",
        first_measured_round=str(measured),
        first_read_round=str(read),
        **kw,
    )


@pytest.fixture
def ledger(tmp_path):
    return _write(
        tmp_path / "ledger.csv",
        [
            _row("acme/mem@0123456789ab:runs/a.eval-results-gpt-4o", "mem_a_s|acme_a_s", 17, 17),
            _row("acme/mem@0123456789ab:runs/b.eval-results-gpt-4o", "mem_b_s", 20, 40),
            _row("acme/mem@0123456789ab:runs/c.eval-results-gpt-4o", "mem_c_s", 20, "never"),
        ],
    )


def test_a_run_read_under_one_name_is_dev_under_any_other(ledger):
    """The failure the ledger exists for: a round that knows a run by a new name (the manifest's
    `acme_a_s` for round 17's `mem_a_s`) must not count it as held out."""
    bench = _bench()
    runs = ["acme_a_s", "mem_b_s", "mem_c_s"]
    assert bench.dev_runs(f"@{ledger}", runs) == {"acme_a_s", "mem_b_s"}
    # the split as it stood in round 39: mem_b_s was read only in round 40
    assert bench.dev_runs(f"@{ledger}:39", runs) == {"acme_a_s"}
    assert bench.dev_runs(f"@{ledger}:16", runs) == set()


def test_a_log_the_ledger_does_not_know_is_an_error(ledger):
    with pytest.raises(SystemExit, match="not in the ledger: mem_d_s"):
        _bench().dev_runs(f"@{ledger}", ["mem_a_s", "mem_d_s"])


@pytest.mark.parametrize(
    "rows, message",
    [
        ([_row("k1", "a", 17, 17), _row("k2", "b|a", 18, 18)], "'a' already names the run"),
        ([_row("k1", "a", 20, 19)], "read in round 19, before round 20"),
        ([_row("k1", "a", 20, "soon")], "first_read_round is 'soon'"),
        ([_row("k1", "a", 20, 20, manifest_name="b")], "manifest_name 'b' is not among"),
        ([_row("k1", "", 20, 20)], "needs a key and a name"),
        ([_row("k1", "a", 20, 20) | {"answers": "many"}], "line 2: answers is 'many', not a"),
    ],
)
def test_a_ledger_that_contradicts_itself_is_refused(tmp_path, rows, message):
    with pytest.raises(InputError, match=message):
        read_ledger(_write(tmp_path / "ledger.csv", rows))


def test_the_shipped_ledger_knows_every_manifest_run_by_its_file():
    """Every pinned run has a ledger row keyed by the file it is (repository, commit, path,
    select) that carries its manifest name, so pinning a run some round read under another
    name cannot make it look unread."""
    runs = read_ledger(LEDGER)
    by_manifest = {r.manifest_name: r for r in runs if r.manifest_name}
    manifest = read_manifest(MANIFEST)
    assert set(by_manifest) == {m.name for m in manifest}
    for m in manifest:
        row = by_manifest[m.name]
        assert row.key == manifest_key(m.repo, m.commit, m.path, m.select), m.name
        assert row.answers == m.answers, m.name
    # the runs the forty-seventh round took for unread were read in rounds 17 to 24
    names = run_of(runs)
    for name, read in (("kerneta_gpt4o_s", 17), ("mentedb_baseline_s", 19), ("cj_opus_p1_s", 23)):
        assert names[name].first_read_round == read


def test_history_says_a_file_read_under_another_name_is_a_development_run(ledger):
    runs = read_ledger(ledger)
    key = manifest_key("acme/mem", "0123456789abcdef", "runs/a.eval-results-gpt-4o")
    assert history(runs, key, "kerneta_a_s") == (
        "kerneta_a_s is in the ledger as mem_a_s|acme_a_s: read in round 17, so it is a "
        "development run; add kerneta_a_s to its names"
    )
    key_c = manifest_key("acme/mem", "0123456789ab", "runs/c.eval-results-gpt-4o")
    assert "never read" in history(runs, key_c, "mem_c_s")
    assert "not in the ledger" in history(runs, "acme/mem@0123456789ab:runs/d", "mem_d_s")


def test_every_split_file_names_runs_the_ledger_says_were_read_by_then():
    """The dev-runs files each round wrote are the ledger's evidence: each name in
    round-NN-dev-runs.txt is a run the ledger knows and says some round up to NN read."""
    known = run_of(read_ledger(LEDGER))
    files = sorted(LEDGER.parent.glob("round-*-dev-runs.txt"))
    assert files
    for split in files:
        round_ = int(split.name.split("-")[1])
        names = {line.split("#", 1)[0].strip() for line in split.read_text().splitlines()}
        names.discard("")
        assert names <= set(known), (split.name, sorted(names - set(known)))
        assert all(known[n].read_by(round_) for n in names), split.name


def test_the_measured_runs_are_fetched_from_the_manifest_and_known_to_the_ledger():
    """measured-runs.txt is what `fetch --only` takes to reproduce the rounds' figures: each name
    a manifest run, once, with the ledger row that says which rounds read it."""
    text = (LEDGER.parent / "measured-runs.txt").read_text()
    names = [line for line in text.splitlines() if line and not line.startswith("#")]
    said = int(re.search(r"published_runs.csv: (\d+) runs", text).group(1))
    assert len(names) == len(set(names)) == said  # as many as its header says
    assert set(names) <= {r.name for r in read_manifest(MANIFEST)}
    known = run_of(read_ledger(LEDGER))
    assert all(known[n].manifest_name == n for n in names)
