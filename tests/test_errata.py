"""Errata overlays: corrections with their sources, checked before they apply; raw and corrected
scores and the ceiling worked out by hand; made from two releases of a file and from a (made-up)
clone of the public LoCoMo audit, in its format."""

from __future__ import annotations

import json

import polars as pl
import pytest

from memrecall.benchmarks.locomo.errata import read_locomo_audit
from memrecall.benchmarks.longmemeval.errata import diff_releases
from memrecall.errata import errata_scores, load_errata, write_errata
from memrecall.errata.cli import main
from memrecall.errata.overlay import Correction, Errata, apply_errata
from memrecall.errors import InputError

SRC = "https://example.org/issues/1"


def errata(*cs) -> Errata:
    return Errata("t", "1", "d", list(cs))


def test_scores_raw_corrected_and_ceiling_by_hand():
    pq = pl.DataFrame(
        {
            "question_id": ["a", "b", "c", "d", "e"],
            "question_type": ["x", "x", "x", "y", "y"],
            "correct": [True, True, False, False, None],
        }
    )
    e = errata(
        Correction("b", "answer", "1", "2", True, SRC),
        Correction("d", "answer", "3", "4", True, SRC),
        Correction("a", "answer_session_ids", [], ["s"], False, SRC),
    )
    s = errata_scores(pq, e)
    o = s["overall"]
    assert (o["n"], o["n_gold_wrong"], o["credited_on_wrong_gold"]) == (4, 2, 1)
    assert o["raw"] == 0.5 and o["corrected"] == 0.5 and o["ceiling"] == 0.5
    assert s["by_type"]["x"]["corrected"] == 0.5 and s["by_type"]["y"]["corrected"] is None
    assert s["flagged_questions"] == ["b", "d"] and s["errata"]["sources"] == [SRC]


def test_apply_checks_the_old_value_and_drops_removed_questions():
    q = pl.DataFrame({"question_id": ["a", "b"], "answer": ["5", "Paris"]})
    out = apply_errata(
        q,
        errata(
            Correction("a", "answer", "5", "6", True, SRC),
            Correction("b", "present", True, False, False, SRC),
            Correction("zz", "answer", "?", "!", True, SRC),
        ),
    )
    assert out.to_dicts() == [{"question_id": "a", "answer": "6"}]
    with pytest.raises(InputError) as e:
        apply_errata(q, errata(Correction("b", "answer", "Lyon", "Nice", True, SRC)), file="e.json")
    assert (
        e.value.question_id == "b"
        and e.value.field == "answer"
        and "another version" in str(e.value)
    )


def test_load_names_file_question_and_field(tmp_path):
    good = {
        "name": "n",
        "version": "2",
        "dataset": "d",
        "corrections": [
            {
                "question_id": "q1",
                "field": "answer",
                "old": "a",
                "new": "b",
                "gold_wrong": True,
                "source": SRC,
            }
        ],
    }
    p = tmp_path / "e.json"
    p.write_text(json.dumps(good))
    e = load_errata(p)
    assert e.gold_wrong == {"q1"} and e.corrections[0].source == SRC
    write_errata(e, tmp_path / "again.json")
    assert load_errata(tmp_path / "again.json") == e
    for key, value, field in (
        ("source", "", "corrections[0].source"),
        ("field", "colour", "corrections[0].field"),
        ("gold_wrong", "yes", "corrections[0].gold_wrong"),
    ):
        bad = json.loads(json.dumps(good))
        bad["corrections"][0][key] = value
        p.write_text(json.dumps(bad))
        with pytest.raises(InputError) as err:
            load_errata(p)
        assert err.value.field == field and err.value.question_id == "q1"


def _lme(qid, answer, haystack=("s1", "s2"), qtype="multi-session"):
    return {
        "question_id": qid,
        "question_type": qtype,
        "question": f"Q {qid}?",
        "answer": answer,
        "answer_session_ids": ["s1"],
        "haystack_session_ids": list(haystack),
    }


def test_diff_of_two_releases(tmp_path):
    orig = [_lme("q1", "3"), _lme("q2", "Paris"), _lme("q3", "x"), _lme("q4", 7)]
    clean = [
        _lme("q1", "4"),
        _lme("q2", "Paris", haystack=("s1", "s3")),
        _lme("q4", 7),
        _lme("q5", "new"),
    ]
    a, b = tmp_path / "s.json", tmp_path / "s_cleaned.json"
    a.write_text(json.dumps(orig))
    b.write_text(json.dumps(clean))
    e = diff_releases(orig, clean, original_file=str(a), cleaned_file=str(b))
    got = {(c.question_id, c.field): c for c in e.corrections}
    assert set(got) == {("q1", "answer"), ("q2", "present"), ("q3", "present"), ("q5", "present")}
    assert got[("q1", "answer")].gold_wrong and (
        got[("q1", "answer")].old,
        got[("q1", "answer")].new,
    ) == ("3", "4")
    assert got[("q3", "present")].new is False and "haystack" in got[("q2", "present")].note
    assert "s.json sha256" in got[("q1", "answer")].source and e.gold_wrong == {"q1"}


def _conv(sample_id, questions):
    return {
        "sample_id": sample_id,
        "qa": [
            {"question": q, "answer": a, "evidence": ev, "category": 4} for q, a, ev in questions
        ],
    }


def test_locomo_audit_from_a_clone(tmp_path):
    records = [
        _conv(
            "conv-a",
            [("Where did Ann go?", "Rome", ["D1:1"]), ("What did Bo buy?", "A lamp", ["D2:3"])],
        ),
        _conv("conv-b", [("Who called?", "Cy", ["D1:2"])]),
    ]
    clone = tmp_path / "locomo-audit"
    (clone / "audit").mkdir(parents=True)
    (clone / "audit" / "errors_conv_0.json").write_text(
        json.dumps(
            [
                {
                    "question_id": "locomo_0_qa1",
                    "question": "What did Bo buy?",
                    "golden_answer": "A lamp",
                    "category": 4,
                    "error_type": "HALLUCINATION",
                    "cited_evidence": ["D2:3"],
                    "correct_evidence": ["D2:3"],
                    "correct_answer": "A rug",
                }
            ]
        )
    )
    (clone / "audit" / "errors_conv_1.json").write_text(
        json.dumps(
            [
                {
                    "question_id": "locomo_1_qa0",
                    "question": "Who called?",
                    "golden_answer": "Cy",
                    "category": 4,
                    "error_type": "WRONG_CITATION",
                    "cited_evidence": ["D1:2"],
                    "correct_evidence": ["D1:4"],
                    "correct_answer": "Cy",
                }
            ]
        )
    )
    e = read_locomo_audit(clone, records)
    got = {(c.question_id, c.field): c for c in e.corrections}
    assert set(got) == {("conv-a_q001", "answer"), ("conv-b_q000", "answer_turn_ids")}
    assert got[("conv-a_q001", "answer")].gold_wrong
    assert (got[("conv-a_q001", "answer")].old, got[("conv-a_q001", "answer")].new) == (
        "A lamp",
        "A rug",
    )
    assert not got[("conv-b_q000", "answer_turn_ids")].gold_wrong
    assert (
        "dial481/locomo-audit audit/errors_conv_0.json @ " in got[("conv-a_q001", "answer")].source
    )
    records[0]["qa"][1]["question"] = "What did Bo sell?"  # another version of the file
    with pytest.raises(InputError, match="another version") as err:
        read_locomo_audit(clone, records)
    assert err.value.question_id == "conv-a_q001"


def test_report_command(tmp_path, capsys):
    e = errata(Correction("q2", "answer", "x", "y", True, SRC))
    write_errata(e, tmp_path / "e.json")
    (tmp_path / "pq.csv").write_text(
        "question_id,question_type,correct\nq1,t,true\nq2,t,true\nq3,t,false\n"
    )
    main(
        [
            "report",
            str(tmp_path / "e.json"),
            "--per-question",
            str(tmp_path / "pq.csv"),
            "--questions",
            str(tmp_path / "none.parquet"),
            "--out",
            str(tmp_path / "out"),
        ]
    )
    s = json.loads((tmp_path / "out" / "errata.json").read_text())
    assert s["overall"]["raw"] == pytest.approx(2 / 3) and s["overall"]["corrected"] == 0.5
    assert "| **all** | 3 | 1 | 66.7 | 2 | 50.0 | 66.7 | 1 | 0 (0 / 0) |" in capsys.readouterr().out


# ---- dataset.errata: the overlay in the pipeline ---------------------------------------------


def test_corrected_scores_judge_again_against_the_corrected_gold():
    """a: untouched; b: gold wrong, judged again (wrong -> right); c: gold wrong, no corrected
    answer (left out); d: type corrected, judged again under its new type; e: removed."""
    pq = pl.DataFrame(
        {
            "question_id": ["a", "b", "c", "d", "e"],
            "question_type": ["x", "x", "x", "y", "y"],
            "correct": [True, False, True, True, False],
        }
    )
    e = errata(
        Correction("b", "answer", "1", "2", True, SRC),
        Correction("c", "answer", "3", None, True, SRC),
        Correction("d", "question_type", "y", "x", False, SRC),
        Correction("e", "present", True, False, False, SRC),
    )
    again = pl.DataFrame(
        {"question_id": ["b", "d"], "question_type": ["x", "x"], "correct": [True, False]}
    )
    s = errata_scores(pq, e, again)
    o = s["overall"]
    assert (o["n"], o["n_gold_wrong"], o["raw"], o["ceiling"]) == (5, 2, 0.6, 0.6)
    # corrected data: a (T), b (T, again), d (F, again); c and e left out
    assert (o["n_corrected"], o["corrected"], o["n_rejudged"]) == (3, 2 / 3, 2)
    assert (o["flips_to_correct"], o["flips_to_wrong"]) == (1, 1)
    x, y = s["by_type"]["x"], s["by_type"]["y"]
    assert (x["n"], x["n_corrected"], x["corrected"]) == (3, 3, 2 / 3)  # a, b and d now
    assert (x["n_rejudged"], x["flips_to_correct"], x["flips_to_wrong"]) == (2, 1, 1)
    assert (y["n"], y["n_corrected"], y["corrected"], y["raw"]) == (2, 0, None, 0.5)
    assert (y["n_rejudged"], y["flips_to_wrong"]) == (0, 0)  # d is judged under its new type
    assert s["errata"]["rejudged"] is True and s["rejudged_questions"] == ["b", "d"]
    # without verdicts against the corrected gold: wrong golds and removed questions left out
    plain = errata_scores(pq, e)["overall"]
    assert (plain["n_corrected"], plain["corrected"], plain["n_rejudged"]) == (2, 1.0, 0)


def test_only_questions_whose_judged_fields_changed_are_judged_again():
    q = pl.DataFrame(
        {
            "question_id": ["a", "b", "c", "d"],
            "question_type": ["x"] * 4,
            "question": ["A?", "B?", "C?", "D?"],
            "answer": ["1", "2", "3", "4"],
            "answer_session_ids": [["s"]] * 4,
        }
    )
    e = errata(
        Correction("a", "answer", "1", "one", True, SRC),
        Correction("b", "answer_session_ids", ["s"], ["t"], False, SRC),  # evidence only
        Correction("c", "answer", "3", None, True, SRC),  # no corrected gold: left out
        Correction("d", "question", "D?", "Dee?", False, SRC),
    )
    from memrecall.errata.overlay import rejudged_questions

    assert rejudged_questions(q, apply_errata(q, e)) == ["a", "d"]


def test_the_overlay_a_name_or_path_gives(tmp_path, monkeypatch):
    from memrecall.errata.source import overlay_file, overlay_record

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DVC_ROOT", str(tmp_path))
    assert overlay_record({"errata": None}) == {"errata": None}
    e = errata(Correction("q1", "answer", "x", "y", True, SRC))
    write_errata(e, tmp_path / "errata" / "mine.json")
    assert overlay_file("mine") == "errata/mine.json"
    rec = overlay_record({"errata": "mine"})
    assert rec["file"] == "errata/mine.json" and rec["overlay"] == e.to_dict()
    write_errata(e, tmp_path / "elsewhere.json")
    assert overlay_record({"errata": "elsewhere.json"})["file"] == "elsewhere.json"
    with pytest.raises(InputError) as err:
        overlay_record({"errata": "nosuch"})
    assert err.value.file == "errata/nosuch.json" and err.value.field == "dataset.errata"
    (tmp_path / "errata" / "bad.json").write_text('{"name": "b", "version": 1, "dataset": "d",')
    with pytest.raises(InputError, match="not JSON") as err:
        overlay_record({"errata": "bad"})
    assert err.value.file.endswith("bad.json")
    from memrecall.errors import ConfigError

    with pytest.raises(ConfigError, match="dataset.errata"):
        overlay_record({"errata": ["a"]})


def test_ids_outside_the_run_are_errors_only_on_the_whole_dataset():
    from memrecall.errata.stage import check_ids

    q = pl.DataFrame({"question_id": ["a"], "answer": ["1"]})
    e = Errata(
        "t",
        "1",
        "mydata",
        [
            Correction("a", "answer", "1", "2", True, SRC),
            Correction("zz", "answer", "?", "!", True, SRC),
            Correction("new", "present", False, True, False, SRC),  # added later: never here
        ],
    )
    whole = {"name": "mydata", "limit": None, "question_ids": None}
    with pytest.raises(InputError, match="this run holds all of it") as err:
        check_ids(q, e, "e.json", whole)
    assert (err.value.question_id, err.value.field) == ("zz", "corrections[1].question_id")
    assert check_ids(q, e, "e.json", {**whole, "limit": 1}) == ["zz"]
    assert check_ids(q, e, "e.json", {**whole, "name": "sample"}) == ["zz"]
