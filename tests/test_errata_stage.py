"""The errata stage and the aggregate's errata block without DVC: the run's own judge (rule,
and an LLM judge against the fake OpenAI server) judges again the answers whose gold a correction
changed, against the corrected gold; an overlay made for another version of the data stops,
naming the file, the question and the field; imported labels say why they cannot."""

from __future__ import annotations

import json

import polars as pl
import pytest

from confs import group
from fake_openai_server import FakeOpenAIServer, last_user
from memrecall.artifacts import read_meta, read_table
from memrecall.data.sources import errata_json
from memrecall.errata import Correction, Errata, errata_markdown, write_errata
from memrecall.errata.report import run_scores
from memrecall.errata.stage import run_errata
from memrecall.errors import InputError
from memrecall.eval.qa_metrics import per_question
from memrecall.judge.stage import run_judge
from test_judge_panel import _write_tables

SRC = "https://example.org/issues/7"
# ITEMS: q2 "How many books did I read?" gold 12, answered "You read 9." (wrong under 12);
# q4 "What is my cat called?" gold Luna, answered "Milo".
OVERLAY = Errata(
    "books",
    "1",
    "longmemeval",
    [
        Correction("q2", "answer", "12", "9", True, SRC, "recounted"),
        Correction("q4", "answer", "Luna", None, True, SRC, "no name was ever given"),
        Correction("q1", "answer_session_ids", [], ["s9"], False, SRC),
    ],
)


def _run(tmp_path, judge_cfg, overlay=OVERLAY):
    qp, ap = _write_tables(tmp_path)
    write_errata(overlay, tmp_path / "errata" / "books.json")
    rec = tmp_path / "errata.json"
    rec.write_text(errata_json({"errata": str(tmp_path / "errata" / "books.json")}))
    out = tmp_path / "verdicts_errata.parquet"
    run_errata(judge_cfg, errata=rec, questions=qp, answers=ap, out=out)
    return qp, ap, rec, out


def test_the_rule_judge_scores_the_corrected_gold(tmp_path):
    cfg = group("judge", "rule")
    qp, ap, rec, out = _run(tmp_path, cfg)
    again = read_table(out, "verdicts")
    assert again["question_id"].to_list() == ["q2"] and again["label"].to_list() == [True]
    v = run_judge(cfg, questions=qp, answers=ap, out=tmp_path / "verdicts.parquet")
    pq = per_question(read_table(qp, "questions"), v)
    s = run_scores(rec, out, pq)
    o = s["overall"]
    # raw: q1, q3 right of 4; corrected: q1, q2 (now right), q3 of 3 (q4 left out)
    assert (o["raw"], o["corrected"], o["ceiling"]) == (0.5, 1.0, 0.5)
    assert (o["n_rejudged"], o["flips_to_correct"], o["n_corrected"]) == (1, 1, 3)
    assert s["errata"]["name"] == "books" and s["errata"]["sources"] == [SRC]
    assert s["errata"]["file"].endswith("books.json") and s["flagged_questions"] == ["q2", "q4"]


def test_an_llm_judge_is_sent_the_corrected_gold(tmp_path, fresh_cache, fake_key):
    sent = []

    def judge(messages):
        sent.append(last_user(messages))
        return "yes"

    with FakeOpenAIServer(answer=judge) as srv:
        cfg = group("judge", "gpt4o", **srv.runtime())
        _, _, _, out = _run(tmp_path, cfg)
    assert len(sent) == 1 and "Reference answer: 9\n" in sent[0]
    assert "books did I read" in sent[0] and "Reference answer: 12" not in sent[0]
    meta = read_meta(out)
    assert meta["rejudged"] is True and meta["params"]["name"] == "gpt4o"


def test_an_overlay_for_another_version_stops(tmp_path):
    stale = Errata("books", "1", "x", [Correction("q3", "answer", "Initech", "Acme", True, SRC)])
    with pytest.raises(InputError, match="another version") as err:
        _run(tmp_path, group("judge", "rule"), stale)
    assert (err.value.question_id, err.value.field) == ("q3", "answer")
    assert err.value.file.endswith("books.json")
    assert not (tmp_path / "verdicts_errata.parquet").exists()  # nothing half-written


def test_imported_labels_cannot_judge_a_corrected_gold(tmp_path):
    cfg = group("judge", "file", path="labels.jsonl")
    qp, _, rec, out = _run(tmp_path, cfg)
    meta = read_meta(out)
    assert meta["rejudged"] is False and "judge=file" in meta["why"]
    pq = pl.DataFrame(
        {
            "question_id": ["q1", "q2", "q3", "q4"],
            "question_type": ["multi-session"] * 2 + ["knowledge-update"] * 2,
            "correct": [True, False, True, False],
        }
    )
    s = run_scores(rec, out, pq)
    assert s["overall"]["corrected"] == 1.0 and s["errata"]["why_not_rejudged"] == meta["why"]
    assert f"Not judged again: {meta['why']}." in errata_markdown(s)


def test_no_overlay_writes_an_empty_table(tmp_path):
    qp, ap = _write_tables(tmp_path)
    rec = tmp_path / "errata.json"
    rec.write_text(errata_json({"errata": None}))
    out = tmp_path / "v.parquet"
    run_errata(group("judge", "rule"), errata=rec, questions=qp, answers=ap, out=out)
    assert read_table(out, "verdicts").height == 0 and json.loads(rec.read_text()) == {
        "errata": None
    }
    assert run_scores(rec, out, pl.DataFrame()) is None
