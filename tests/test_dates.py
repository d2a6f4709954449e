"""Dates are parsed by one module (dates.py): the strict parser validates dataset files, the
lenient one reads model output and hand-made tables, and the two agree on every real date."""

from __future__ import annotations

from datetime import datetime

import pytest

from conftest import REPO
from memrecall.benchmarks.longmemeval.data import load_records
from memrecall.dates import date_key, parse_date, parse_longmemeval


def test_parse_date_formats():
    assert parse_date("2023/04/10 (Mon) 17:50") == datetime(2023, 4, 10, 17, 50)
    assert parse_date("2023-04-10") == datetime(2023, 4, 10)
    assert parse_date('{"start": "2023/08/07"}') == datetime(2023, 8, 7)
    assert parse_date("2023/02/30 (Thu) 10:00") is None
    assert parse_date("yesterday") is None and parse_date(None) is None


def test_strict_parser_takes_only_the_longmemeval_format():
    assert parse_longmemeval("2023/05/30 (Tue) 21:56") == datetime(2023, 5, 30, 21, 56)
    for bad in (
        "2023-05-30",
        "2023/05/30",
        "2023/05/30 (Tue) 21:56 extra",
        "2023/02/30 (Thu) 10:00",
    ):
        with pytest.raises(ValueError):
            parse_longmemeval(bad)


def test_strict_and_lenient_agree_on_every_bundled_date():
    recs = load_records(REPO / "data" / "sample" / "longmemeval_s_cleaned_sample.json.gz")
    dates = {r["question_date"] for r in recs} | {d for r in recs for d in r["haystack_dates"]}
    assert len(dates) > 50
    for d in dates:
        assert parse_date(d) == parse_longmemeval(d), d
    ordered = sorted(dates, key=date_key)
    assert [parse_longmemeval(d) for d in ordered] == sorted(parse_longmemeval(d) for d in dates)
    assert date_key("not a date") > date_key(ordered[-1])  # unparseable text sorts last
