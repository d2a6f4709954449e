"""Published runs for measuring a judge on answers it was not developed on: the manifest, the
answers' pin, and the download against a local server laid out like raw.githubusercontent.com
(bench/published_runs.py's fetch and pin)."""

from __future__ import annotations

import importlib.util
import json
import re
from http.server import BaseHTTPRequestHandler

import pytest

from conftest import REPO
from local_http import LocalServer, allow_downloads
from memrecall.data.ledger import COLUMNS as LEDGER_COLUMNS
from memrecall.data.published import (
    PublishedRun,
    answers_sha256,
    describe,
    fetch,
    read_manifest,
)
from memrecall.errors import InputError, MemrecallError
from memrecall.interchange import read_eval_results

_SPEC = importlib.util.spec_from_file_location(
    "bench_published", REPO / "bench" / "published_runs.py"
)
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)

REPO_NAME, COMMIT, PATH = (
    "someone/memory-system",
    "a" * 40,
    "runs/r1/hypotheses.jsonl.eval-results-gpt-4o",
)


def _log(*answers: tuple[str, str, bool], escape: bool = False) -> bytes:
    lines = [
        json.dumps(
            {
                "question_id": q,
                "hypothesis": h,
                "autoeval_label": {"model": "gpt-4o-2024-08-06", "label": y},
            },
            ensure_ascii=escape,
        )
        for q, h, y in answers
    ]
    return ("\n".join(lines) + "\n").encode("utf-8")


PUBLISHED = _log(
    ("q1", "You bought it on 3 May — at Café Lumen.", True), ("q2_abs", "I don't know.", True)
)


class RawServer(LocalServer):
    """Serves files as https://raw.githubusercontent.com/<repo>/<commit>/<path> would."""

    def __init__(self, files: dict[str, bytes]):
        self.files, self.requests = files, []
        srv = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                srv.requests.append(self.path)
                body = srv.files.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        super().__init__(Handler)
        self.url = self.origin


@pytest.fixture
def server(monkeypatch):
    allow_downloads(monkeypatch)
    s = RawServer({f"/{REPO_NAME}/{COMMIT}/{PATH}": PUBLISHED})
    yield s
    s.close()


@pytest.fixture
def copy(tmp_path):
    """A copy of the published file, as the one who pins it holds it."""
    path = tmp_path / "copy.jsonl"
    path.write_bytes(PUBLISHED)
    return path


def _run(copy) -> PublishedRun:
    return describe("memsys_r1_s", REPO_NAME, COMMIT, PATH, copy)


def test_the_pin_is_of_the_answers_not_of_the_bytes(tmp_path):
    answers = [("q1", "Café Lumen", True), ("q2", "no idea", False)]
    plain, escaped, reordered = (tmp_path / n for n in ("a.jsonl", "b.jsonl", "c.jsonl"))
    plain.write_bytes(_log(*answers))
    escaped.write_bytes(_log(*answers, escape=True))  # "Caf\u00e9": other bytes, same answers
    reordered.write_bytes(_log(*answers[::-1]))
    assert plain.read_bytes() != escaped.read_bytes()
    pins = {answers_sha256(read_eval_results(p)) for p in (plain, escaped, reordered)}
    assert len(pins) == 1
    relabelled = tmp_path / "d.jsonl"
    relabelled.write_bytes(_log(("q1", "Café Lumen", True), ("q2", "no idea", True)))
    assert answers_sha256(read_eval_results(relabelled)) not in pins


def test_describe_counts_scores_and_pins_a_copy(copy):
    run = _run(copy)
    assert (run.answers, run.official_accuracy) == (2, 1.0)
    assert run.urls("https://mirror.example/") == [
        f"https://mirror.example/{REPO_NAME}/{COMMIT}/{PATH}"
    ]


def test_fetch_downloads_the_pinned_answers_and_then_uses_them_without_a_request(
    server, copy, tmp_path
):
    run = _run(copy)
    out = tmp_path / "published"
    path, downloaded = fetch(run, out, server.url)
    assert downloaded and path == out / "memsys_r1_s.jsonl"
    assert path.read_bytes() == PUBLISHED
    assert server.requests == [f"/{REPO_NAME}/{COMMIT}/{PATH}"]
    server.requests.clear()
    assert fetch(run, out, server.url) == (path, False) and server.requests == []


def test_a_file_with_other_answers_is_refused_and_replaces_nothing(server, copy, tmp_path):
    run = _run(copy)
    out = tmp_path / "published"
    fetch(run, out, server.url)
    good = (out / "memsys_r1_s.jsonl").read_bytes()
    (out / "memsys_r1_s.jsonl").write_bytes(good.replace(b"true}", b"false}", 1))  # damaged here
    server.files[f"/{REPO_NAME}/{COMMIT}/{PATH}"] = _log(("q1", "Another answer.", True))
    with pytest.raises(
        MemrecallError, match="other answers than the manifest pinned for memsys_r1_s"
    ):
        fetch(run, out, server.url)
    assert [p.name for p in out.iterdir()] == ["memsys_r1_s.jsonl"]  # no partial left behind
    assert (out / "memsys_r1_s.jsonl").read_bytes() != good  # the damaged copy, untouched


def test_a_damaged_copy_is_downloaded_again(server, copy, tmp_path):
    run = _run(copy)
    out = tmp_path / "published"
    out.mkdir()
    (out / "memsys_r1_s.jsonl").write_text("{not json\n")
    path, downloaded = fetch(run, out, server.url)
    assert downloaded and path.read_bytes() == PUBLISHED


def test_a_missing_file_and_a_file_that_is_no_log_say_which_run(server, copy, tmp_path):
    run = _run(copy)
    gone = PublishedRun(**{**run.__dict__, "path": "runs/gone.jsonl"})
    out = tmp_path / "published"
    with pytest.raises(MemrecallError, match=r"HTTP 404 .*memsys_r1_s is published at"):
        fetch(gone, out, server.url)
    server.files[f"/{REPO_NAME}/{COMMIT}/{PATH}"] = b"<html>not found</html>\n"
    with pytest.raises(MemrecallError, match="is not an eval-results log"):
        fetch(run, out, server.url)
    assert list(out.iterdir()) == []


def test_the_manifest_is_checked_on_reading(tmp_path):
    bad = tmp_path / "m.csv"
    bad.write_text("name,repo\nx,y\n")
    with pytest.raises(InputError, match="expected the columns"):
        read_manifest(bad)
    twice = tmp_path / "twice.csv"
    row = f"r,{REPO_NAME},{COMMIT},{PATH},,,,2,1.0,{'0' * 64}\n"
    twice.write_text(",".join(bench.COLUMNS) + "\n" + row + row)
    with pytest.raises(InputError, match="given twice"):
        read_manifest(twice)
    uncounted = tmp_path / "uncounted.csv"
    uncounted.write_text(",".join(bench.COLUMNS) + "\n" + row.replace(",2,", ",two,"))
    with pytest.raises(InputError, match="line 2: answers is 'two', not a number") as err:
        read_manifest(uncounted)
    assert err.value.field == "answers"
    unknown = tmp_path / "unknown.csv"
    zep = row.replace(f"{PATH},,,,", f"{PATH},,zep,,")  # select empty, format zep
    unknown.write_text(",".join(bench.COLUMNS) + "\n" + zep)
    with pytest.raises(InputError, match="line 2: format 'zep' is not one of") as err:
        read_manifest(unknown)
    assert err.value.field == "format"


def test_bench_pins_then_fetches_the_manifest_it_wrote(server, copy, tmp_path, capsys):
    manifest = tmp_path / "published_runs.csv"
    pin = ["pin", "--manifest", str(manifest), "--repo", REPO_NAME, "--commit", COMMIT]
    assert bench.main([*pin, "--name", "memsys_r1_s", "--path", PATH, str(copy)]) == 0
    assert bench.main([*pin, "--name", "memsys_r1_s", "--path", PATH, str(copy)]) == 0  # updated
    # the shipped ledger has no row for this made-up file: pin says one is needed
    assert "memsys_r1_s is not in the ledger: add its row" in capsys.readouterr().out
    (run,) = read_manifest(manifest)
    assert run == _run(copy)
    # a ledger that is not there stops the pin with its name, and the manifest stays as it was
    before = manifest.read_bytes()
    missing = tmp_path / "no-ledger.csv"
    argv = [*pin, "--name", "memsys_r2_s", "--path", PATH, "--ledger", str(missing), str(copy)]
    assert bench.main(argv) == 1
    assert str(missing) in capsys.readouterr().err
    assert manifest.read_bytes() == before
    out = tmp_path / "published"
    argv = ["fetch", "--manifest", str(manifest), "--out", str(out), "--base-url", server.url]
    assert bench.main(argv) == 0
    assert "| memsys_r1_s | 2 | 1.000 |" in capsys.readouterr().out
    assert bench.main([*argv, "--only", "nobody_s"]) == 1
    assert "not in" in capsys.readouterr().err


def test_fetch_unread_takes_the_runs_the_ledger_says_no_round_read(server, copy, tmp_path, capsys):
    manifest = tmp_path / "published_runs.csv"
    pin = ["pin", "--manifest", str(manifest), "--repo", REPO_NAME, "--commit", COMMIT]
    for name in ("memsys_read_s", "memsys_unread_s"):
        assert bench.main([*pin, "--name", name, "--path", PATH, str(copy)]) == 0
    capsys.readouterr()
    ledger = tmp_path / "ledger.csv"
    key = f"{REPO_NAME}@{COMMIT[:12]}:{PATH}"
    rows = [
        # (one published file measured twice under two names, for the test's sake)
        [f"{key}#a", "memsys_read_s", "memsys_read_s", "2", "gpt-4o", "3", "3", "", "", ""],
        [f"{key}#b", "memsys_unread_s", "memsys_unread_s", "2", "gpt-4o", "3", "never", "3"]
        + ["", ""],
    ]
    ledger.write_text(
        "\n".join(",".join(r) for r in [list(LEDGER_COLUMNS), *rows]) + "\n", encoding="utf-8"
    )
    out = tmp_path / "held-out"
    argv = ["fetch", "--manifest", str(manifest), "--out", str(out), "--base-url", server.url]
    assert bench.main([*argv, "--unread", "--ledger", str(ledger)]) == 0
    printed = capsys.readouterr().out
    assert "memsys_unread_s" in printed and "memsys_read_s" not in printed
    assert [p.name for p in out.iterdir()] == ["memsys_unread_s.jsonl"]
    # --only and --unread are two ways to choose: given both, argparse refuses
    with pytest.raises(SystemExit):
        bench.main([*argv, "--unread", "--only", "memsys_read_s"])


SWEEP_PATH = "outputs/all_conditions.jsonl"


def _sweep_log() -> bytes:
    """One file of a sweep: every condition's answer to each question, a line each, as a
    harness calling the judge through a router writes it (the model with its route)."""
    lines = [
        {
            "question_id": q,
            "hypothesis": f"{strategy} answer to {q}",
            "strategy": strategy,
            "k": k,
            "autoeval_label": {"model": "openai/gpt-4o-2024-08-06", "label": label},
            "judge_audit": {"raw_response": "Yes" if label else "No"},
        }
        for strategy, k, labels in (
            ("bm25", 5, (True, False)),
            ("bm25", 10, (True, True)),
            ("none", None, (False, False)),
        )
        for q, label in zip(("q1", "q2"), labels)
    ]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def test_a_sweep_log_is_pinned_and_fetched_one_run_at_a_time(server, tmp_path, capsys):
    server.files[f"/{REPO_NAME}/{COMMIT}/{SWEEP_PATH}"] = _sweep_log()
    copy = tmp_path / "all_conditions.jsonl"
    copy.write_bytes(_sweep_log())
    manifest = tmp_path / "published_runs.csv"
    pin = ["pin", "--manifest", str(manifest), "--repo", REPO_NAME, "--commit", COMMIT]
    for name, select in (("sweep_bm25_k5", "strategy=bm25;k=5"), ("sweep_none", "k=null")):
        argv = [*pin, "--name", name, "--path", SWEEP_PATH, "--select", select, str(copy)]
        assert bench.main(argv) == 0
    k5, none = read_manifest(manifest)
    assert (k5.select, k5.answers, k5.official_accuracy) == ("strategy=bm25;k=5", 2, 0.5)
    assert (none.answers, none.official_accuracy) == (2, 0.0)
    out = tmp_path / "published"
    path, downloaded = fetch(k5, out, server.url)
    # the run's own lines, in the official format (its route-named model kept as written)
    assert downloaded and [json.loads(line) for line in path.read_text().splitlines()] == [
        {
            "question_id": q,
            "hypothesis": f"bm25 answer to {q}",
            "autoeval_label": {"model": "openai/gpt-4o-2024-08-06", "label": label},
        }
        for q, label in (("q1", True), ("q2", False))
    ]
    assert fetch(k5, out, server.url)[1] is False  # the kept lines match the pin
    gone = PublishedRun(**{**k5.__dict__, "name": "sweep_k7", "select": "strategy=bm25;k=7"})
    with pytest.raises(MemrecallError, match="not an eval-results log with strategy=bm25;k=7: "):
        fetch(gone, out, server.url)
    assert not (out / "sweep_k7.jsonl").exists()
    # a run the file holds no line of, and a selection that is not field=value
    argv = [*pin, "--name", "x", "--path", SWEEP_PATH, "--select", "strategy=bm25;k=7", str(copy)]
    assert bench.main(argv) == 1
    assert "no entry has strategy=bm25;k=7" in capsys.readouterr().err
    argv[-2] = "strategy"
    assert bench.main(argv) == 1
    assert "'strategy' is not field=value" in capsys.readouterr().err
    # without a selection the log is two runs: a question answered twice
    with pytest.raises(InputError, match="question_id given twice"):
        describe("all", REPO_NAME, COMMIT, SWEEP_PATH, copy)


def test_a_harness_results_file_is_pinned_and_fetched_as_official_lines(server, tmp_path):
    """Caura's eval_results.json: the answers and verdicts of one run in the harness's own JSON,
    the judge named by its alias; pinned with the snapshot its publisher documents."""
    results_path = "outputs/run-a/eval_results.json"
    results = [
        {"question_id": "q1", "hypothesis": "45 minutes.", "correct": True},
        {"question_id": "q2", "hypothesis": "An hour.", "correct": False},
    ]
    body = {"overall_accuracy": 0.5, "results": [r | {"judge_model": "gpt-4o"} for r in results]}
    published = json.dumps(body).encode()
    server.files[f"/{REPO_NAME}/{COMMIT}/{results_path}"] = published
    copy = tmp_path / "eval_results.json"
    copy.write_bytes(published)
    manifest = tmp_path / "published_runs.csv"
    argv = ["pin", "--manifest", str(manifest), "--repo", REPO_NAME, "--commit", COMMIT]
    argv += ["--name", "caura_a", "--path", results_path, "--format", "caura"]
    argv += ["--judge-model", "gpt-4o-2024-08-06", str(copy)]
    assert bench.main(argv) == 0
    (run,) = read_manifest(manifest)
    assert (run.format, run.judge_model, run.answers, run.official_accuracy) == (
        "caura",
        "gpt-4o-2024-08-06",
        2,
        0.5,
    )
    out = tmp_path / "published"
    path, downloaded = fetch(run, out, server.url)
    assert downloaded and [json.loads(line) for line in path.read_text().splitlines()] == [
        {
            "question_id": q,
            "hypothesis": h,
            "autoeval_label": {"model": "gpt-4o-2024-08-06", "label": label},
        }
        for q, h, label in (("q1", "45 minutes.", True), ("q2", "An hour.", False))
    ]
    assert fetch(run, out, server.url)[1] is False  # the kept lines match the pin
    # the same file read as an official log is not one
    official = PublishedRun(**{**run.__dict__, "name": "caura_b", "format": ""})
    with pytest.raises(MemrecallError, match="is not an eval-results log: "):
        fetch(official, out, server.url)
    assert not (out / "caura_b.jsonl").exists()


def test_a_run_published_as_several_files_is_pinned_and_fetched_as_one_log(server, tmp_path):
    """cjchanh's runs: the judge's labels in one file, the reader's answers in two more; `path`
    names all three, and the fetched run is one official log. A part the mirror lacks stops the
    fetch and leaves nothing behind."""
    files = {
        "run/judge_gpt4o/rescored.jsonl": [
            {"question_id": q, "llm_judge_correct": y, "attempts": 1, "model": "gpt-4o-2024-08-06"}
            for q, y in (("q1", True), ("q2_abs", False))
        ],
        "run/reader/checkpoint_answerable.jsonl": [{"question_id": "q1", "response": "An hour."}],
        "run/reader/checkpoint_abs.jsonl": [{"question_id": "q2_abs", "response": "Two."}],
    }
    copies = []
    for name, rows in files.items():
        body = "".join(json.dumps(r) + "\n" for r in rows).encode()
        server.files[f"/{REPO_NAME}/{COMMIT}/{name}"] = body
        copies.append(tmp_path / name.replace("/", "_"))
        copies[-1].write_bytes(body)
    manifest = tmp_path / "published_runs.csv"
    argv = ["pin", "--manifest", str(manifest), "--repo", REPO_NAME, "--commit", COMMIT]
    argv += ["--name", "cj_run_s", "--format", "cjchanh", "--path", ";".join(files)]
    assert bench.main([*argv, *map(str, copies[:2])]) == 1  # a copy short: nothing pinned
    assert not manifest.exists()
    assert bench.main([*argv, *map(str, copies)]) == 0
    (run,) = read_manifest(manifest)
    assert (run.files, run.answers, run.official_accuracy) == (list(files), 2, 0.5)
    out = tmp_path / "published"
    path, downloaded = fetch(run, out, server.url)
    assert downloaded and [
        (r["question_id"], r["hypothesis"], r["label"]) for r in read_eval_results(path)
    ] == [("q1", "An hour.", True), ("q2_abs", "Two.", False)]
    assert sorted(p.name for p in out.iterdir()) == ["cj_run_s.jsonl"]  # no part left over
    assert fetch(run, out, server.url)[1] is False
    del server.files[f"/{REPO_NAME}/{COMMIT}/run/reader/checkpoint_abs.jsonl"]
    lost = PublishedRun(**{**run.__dict__, "name": "cj_lost_s"})
    with pytest.raises(MemrecallError, match="HTTP 404 for .*checkpoint_abs.jsonl"):
        fetch(lost, out, server.url)
    assert sorted(p.name for p in out.iterdir()) == ["cj_run_s.jsonl"]


def test_files_committed_apart_are_fetched_each_from_its_own_commit(server, tmp_path):
    """engrava's labels were committed after its answers, in another folder: `commit` gives one
    commit per file, and the labels, which name no judge, take the run's judge_model."""
    labels_commit, answers_commit = "b" * 40, "c" * 40
    files = {
        (labels_commit, "old/run/judge_labels.jsonl"): [
            {"question_id": "q1", "correct": True},
            {"question_id": "q2_abs", "correct": False},
        ],
        (answers_commit, "official/run/hypotheses.jsonl"): [
            {"question_id": "q1", "hypothesis": "One."},
            {"question_id": "q2_abs", "hypothesis": "Two."},
        ],
    }
    copies = []
    for (commit, name), rows in files.items():
        body = "".join(json.dumps(r) + "\n" for r in rows).encode()
        server.files[f"/{REPO_NAME}/{commit}/{name}"] = body
        copies.append(tmp_path / name.replace("/", "_"))
        copies[-1].write_bytes(body)
    path = "old/run/judge_labels.jsonl;official/run/hypotheses.jsonl"
    with pytest.raises(MemrecallError, match="3 commits for 2 files"):
        describe("e_s", REPO_NAME, ";".join([labels_commit] * 3), path, copies, format="engrava")
    run = describe(
        "engrava_run_s",
        REPO_NAME,
        f"{labels_commit};{answers_commit}",
        path,
        copies,
        format="engrava",
        judge_model="gpt-4o-2024-08-06",
    )
    assert run.commits == [labels_commit, answers_commit]
    fetched, downloaded = fetch(run, tmp_path / "published", server.url)
    assert downloaded and [(r["hypothesis"], r["model"]) for r in read_eval_results(fetched)] == [
        ("One.", "gpt-4o-2024-08-06"),
        ("Two.", "gpt-4o-2024-08-06"),
    ]
    assert server.requests[-2:] == [
        f"/{REPO_NAME}/{labels_commit}/old/run/judge_labels.jsonl",
        f"/{REPO_NAME}/{answers_commit}/official/run/hypotheses.jsonl",
    ]


def test_a_manifest_row_gives_its_format_the_files_it_takes(tmp_path):
    manifest = tmp_path / "published_runs.csv"
    row = dict(name="cj_s", repo=REPO_NAME, commit=COMMIT, path="run/judge/rescored.jsonl")
    row |= dict(select="", format="cjchanh", judge_model="", answers="2")
    row |= dict(official_accuracy="0.5", answers_sha256="0" * 64)
    manifest.write_text(",".join(row) + "\n" + ",".join(row.values()) + "\n")
    with pytest.raises(InputError, match="line 2: a cjchanh run is at least 2 files") as err:
        read_manifest(manifest)
    assert err.value.field == "path"
    row["path"] = "run/judge/rescored.jsonl;run/reader/answers.jsonl"
    row["commit"] = f"{COMMIT};abc123"
    manifest.write_text(",".join(row) + "\n" + ",".join(row.values()) + "\n")
    with pytest.raises(InputError, match="line 2: not a full commit .*'abc123'") as err:
        read_manifest(manifest)
    assert err.value.field == "commit"


def test_the_shipped_manifest_reads_and_names_each_run_once():
    runs = read_manifest(bench.MANIFEST)
    assert runs and all(len(r.answers_sha256) == 64 for r in runs)
    assert all(len(r.commits) == len(r.files) for r in runs)
    # the official evaluator writes <hypotheses>.eval-results-gpt-4o, a re-implementation may
    # name the snapshot (mentedb's .eval-results-gpt-4o-2024-08-06); some repositories keep the
    # same lines under a JSON-lines name of their own (EDN's runs/<id>/judgements.jsonl);
    # Caura's harness writes outputs/<run>/eval_results.json (format caura)
    official = [r for r in runs if not r.format]
    assert all(re.search(r"\.eval-results-gpt-4o[\w.-]*$|\.jsonl$", r.path) for r in official)
    caura = [r for r in runs if r.format == "caura"]
    assert caura and all(r.path.endswith("/eval_results.json") for r in caura)
    # mnimi's harness publishes results/published/<run>/results.json; cjchanh's runs are the
    # judge's rescored.jsonl, then the reader's checkpoints
    mnimi = [r for r in runs if r.format == "mnimi"]
    assert mnimi and all(
        re.fullmatch(r"results/published/[^/]+/results\.json", r.path) for r in mnimi
    )
    cj = [r for r in runs if r.format == "cjchanh"]
    assert cj and all(
        r.files[0].endswith("/rescored.jsonl")
        and [f.rsplit("/", 1)[1] for f in r.files[1:]]
        == ["checkpoint_answerable.jsonl", "checkpoint_abs.jsonl"]
        for r in cj
    )


def test_offline_switch_stops_before_a_request_but_keeps_what_is_there(
    server, copy, tmp_path, monkeypatch
):
    run = _run(copy)
    out = tmp_path / "published"
    monkeypatch.setenv("MEMRECALL_OFFLINE", "1")
    with pytest.raises(MemrecallError, match="MEMRECALL_OFFLINE is set, so memsys_r1_s"):
        fetch(run, out, server.url)
    assert server.requests == [] and not out.exists()
    monkeypatch.delenv("MEMRECALL_OFFLINE")
    fetch(run, out, server.url)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert fetch(run, out, server.url)[1] is False  # already there: no request needed
