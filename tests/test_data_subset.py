"""Subsets: question_ids (list or file), question_types, stratified (n / per_type, seeded),
limit."""

from __future__ import annotations

from collections import Counter

import pytest

from confs import group
from memrecall.benchmarks.longmemeval.categories import QUESTION_TYPES
from memrecall.data.subset import select as subset_select
from memrecall.errors import ConfigError, InputError, MemrecallError
from test_data_longmemeval import local_cfg, make_record, run, write_json


def select(records, over: dict, file: str):
    """subset.select with the dataset group as composed, `over` set on it."""
    return subset_select(records, group("dataset", "sample", **over), file, types=QUESTION_TYPES)


def records():
    """60 questions: 10 per type, ids q00..q59 in file order; every 5th is abstention."""
    out = []
    for i in range(60):
        qid = f"q{i:02d}" + ("_abs" if i % 5 == 4 else "")
        rec = make_record(
            qid, qtype=QUESTION_TYPES[i % 6], sessions=(f"s{i}",), evidence=(f"s{i}",)
        )
        out.append({**rec, "is_abstention": i % 5 == 4})
    return out


def ids(recs):
    return [r["question_id"] for r in recs]


def test_no_subset_keeps_everything_in_order():
    recs = records()
    got, steps = select(recs, {}, "f")
    assert ids(got) == ids(recs) and steps == []


def test_limit_and_types():
    got, steps = select(
        records(), {"question_types": ["multi-session", "knowledge-update"], "limit": 3}, "f"
    )
    assert ids(got) == ["q03", "q04_abs", "q09_abs"]
    assert steps == [
        "question_types: multi-session, knowledge-update",
        "limit: first 3 in file order",
    ]
    got, _ = select(records(), {"question_types": "temporal-reasoning"}, "f")
    assert len(got) == 10 and {r["question_type"] for r in got} == {"temporal-reasoning"}


def test_question_ids_list_and_files(tmp_path):
    got, _ = select(records(), {"question_ids": ["q10", "q02"]}, "f")
    assert ids(got) == ["q02", "q10"]  # file order
    txt = tmp_path / "ids.txt"
    txt.write_text("# chosen by hand\nq05\n\nq07  # a comment\n")
    assert ids(select(records(), {"question_ids": str(txt)}, "f")[0]) == ["q05", "q07"]
    js = tmp_path / "ids.json"
    js.write_text('["q01", "q58"]')
    assert ids(select(records(), {"question_ids": str(js)}, "f")[0]) == ["q01", "q58"]


def test_question_ids_errors(tmp_path):
    with pytest.raises(InputError, match="not in the dataset: nope") as e:
        select(records(), {"question_ids": ["q01", "nope"]}, "data.json")
    assert e.value.file == "data.json" and e.value.field == "dataset.question_ids"
    with pytest.raises(InputError, match="question id file not found"):
        select(records(), {"question_ids": str(tmp_path / "missing.txt")}, "f")
    with pytest.raises(ConfigError, match="dataset.question_ids"):
        select(records(), {"question_ids": 5}, "f")


def test_stratified_n_is_proportional_and_seeded():
    recs = records()
    a, steps = select(recs, {"stratified": {"n": 24, "seed": 1}}, "f")
    b, _ = select(recs, {"stratified": {"n": 24, "seed": 1}}, "f")
    c, _ = select(recs, {"stratified": {"n": 24, "seed": 2}}, "f")
    assert ids(a) == ids(b) and ids(a) != ids(c)
    assert len(a) == 24 and steps == ["stratified: n=24, seed=1"]
    assert Counter(r["question_type"] for r in a) == {t: 4 for t in QUESTION_TYPES}
    # Strata (type, abstention) hold 8 and 2 questions per type: quotas 3.2 and 0.8 -> floors
    # 3 and 0, and the 6 left go to the largest remainders (0.8): 3 + 1 per type.
    assert Counter((r["question_type"], r["question_id"].endswith("_abs")) for r in a) == {
        (t, abs_): 1 if abs_ else 3 for t in QUESTION_TYPES for abs_ in (False, True)
    }
    assert ids(a) == [i for i in ids(recs) if i in set(ids(a))]  # file order kept


def test_stratified_per_type_then_limit():
    got, _ = select(records(), {"stratified": {"per_type": 2, "seed": 0}}, "f")
    assert Counter(r["question_type"] for r in got) == {t: 2 for t in QUESTION_TYPES}
    got, steps = select(records(), {"stratified": {"per_type": 2, "seed": 0}, "limit": 5}, "f")
    assert len(got) == 5 and len(steps) == 2


@pytest.mark.parametrize(
    "cfg,key",
    [
        ({"limit": 0}, "dataset.limit"),
        ({"limit": "5"}, "dataset.limit"),
        ({"question_types": ["single-session-chitchat"]}, "dataset.question_types"),
        ({"stratified": {"n": 5, "per_type": 1}}, "dataset.stratified"),
        ({"stratified": {"size": 5}}, "dataset.stratified"),
        ({"stratified": {"n": -1}}, "dataset.stratified.n"),
        ({"stratified": {"n": 3, "seed": "x"}}, "dataset.stratified.seed"),
    ],
)
def test_config_errors(cfg, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        select(records(), cfg, "f")


def test_empty_subset_is_an_error():
    with pytest.raises(MemrecallError, match="selects no questions"):
        select(records()[:3], {"question_types": ["knowledge-update"]}, "f")


def test_subset_in_stage_outputs_and_card(tmp_path):
    f = write_json(tmp_path / "d.json", records())
    summ = run(tmp_path, local_cfg(f, question_types=["multi-session"], limit=4))
    assert summ["n_questions"] == 4 and summ["sessions_unique"] == 4
    card = (tmp_path / "out" / "data_card.md").read_text()
    assert "| questions in file | 60 |" in card
    assert "question_types: multi-session; limit: first 4 in file order" in card
