"""The judge leniency audit: planted answers made by rule from gold answers (each class on
made-up golds), false-accept / false-reject rates with Wilson intervals, LLM judges through the
cached client (a rerun pays nothing), and both real dev files under the rule judge."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
import yaml

from confs import group
from conftest import ORACLE_FILE, SHARED, shared_file
from fake_openai_server import FakeOpenAIServer
from memrecall import benchmarks
from memrecall.audit import planting
from memrecall.audit.leniency import audit_judges, main, planted_tables, rates, report_markdown
from memrecall.audit.planting import (
    CLASSES,
    RIGHT,
    WRONG,
    Planted,
    Wordings,
    either_or,
    names,
    plant,
    plant_all,
    plant_unanswerable,
)
from memrecall.eval.stats import wilson_interval
from memrecall.judge.panel import member_configs
from memrecall.llm.cache import read_journal
from memrecall.schema import polars_schema

LOCOMO_DEV = SHARED / "data" / "locomo" / "locomo_dev2.json"
LME = benchmarks.get("longmemeval")


def by_class(ps):
    return {p.klass: p.answer for p in ps}


def test_other_wordings_replace_the_generators_own_and_nothing_else():
    """A family given another wording is planted in it; the other families and classes read as
    the generator writes them (bench/judge_wordings.py audits a judge in such wordings)."""
    question, gold = "How many bikes do I own?", "I own 4 bikes."
    own = by_class(plant("q1", question, gold, []))
    other = Wordings(reasoning=("Maybe {named}; no, {settled}.",), abstain=("No idea, sorry.",))
    got = by_class(plant("q1", question, gold, [], other))
    assert got["reasoning_then_wrong"] == "Maybe I own 4 bikes; no, I own 6 bikes."
    assert got["reasoning_then_right"] == "Maybe I own 6 bikes; no, I own 4 bikes."
    assert got["abstention"] == "No idea, sorry."
    changed = {k for k in own if own[k] != got[k]}
    assert changed == {"reasoning_then_wrong", "reasoning_then_right", "abstention"}
    unanswerable = plant_unanswerable(
        "q9_abs", question, "You never mentioned bikes.", [], None, other
    )
    assert by_class(unanswerable)["abstains_unanswerable"] == "No idea, sorry."


def test_wordings_files_are_checked_and_the_shipped_sets_load():
    ok = Wordings.from_mapping({"taken_back": ["{core}. Hmm, forget that."]}, source="w.yaml")
    assert ok.taken_back == ("{core}. Hmm, forget that.",) and ok.reasoning == Wordings().reasoning
    with pytest.raises(ValueError, match=r"w\.yaml: unknown family 'reasons'"):
        Wordings.from_mapping({"reasons": ["{named} {settled}"]}, source="w.yaml")
    with pytest.raises(
        ValueError, match=r"w\.yaml: reasoning\[1\] .*exactly \{named\}, \{settled\}"
    ):
        Wordings.from_mapping({"reasoning": ["{named}, so {settled}", "{named} only"]}, "w.yaml")
    with pytest.raises(ValueError, match=r"w\.yaml: abstain: expected a non-empty list"):
        Wordings.from_mapping({"abstain": []}, source="w.yaml")
    shipped = sorted((Path(__file__).resolve().parents[1] / "bench" / "wordings").glob("*.yaml"))
    assert len(shipped) >= 3
    for path in shipped:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert Wordings.from_mapping(data, source=str(path)) != Wordings(), path


def test_numbers_dates_and_periods():
    got = by_class(plant("q1", "How many bikes do I own?", "I own 4 bikes.", []))
    assert got["wrong_number"] == "I own 6 bikes" and got["number_words"] == "I own four bikes"
    reasoning, contradicted = got["reasoning_then_wrong"], got["gold_plus_contradiction"]
    assert reasoning.index("I own 4 bikes") < reasoning.index("I own 6 bikes")
    assert reasoning.endswith("I own 6 bikes.") and contradicted.endswith("I own 6 bikes.")
    assert contradicted.startswith("I own 4 bikes. ")
    assert "wrong_date" not in got and "date_format" not in got
    got = by_class(plant("q2", "When did I adopt the dog?", "12 March 2021", []))
    assert got["wrong_date"] == "14 March 2021" and got["date_format"] == "March 12, 2021"
    assert "wrong_number" not in got and "number_words" not in got
    got = by_class(plant("q3", "How long did the course last?", "3 weeks", []))
    assert got["wrong_date"] == "5 weeks"  # two units: past an off-by-one tolerance
    assert got["unit_paraphrase"] == "21 days" and got["number_words"] == "three weeks"
    got = by_class(plant("q4", "How much did the lamp cost?", "$40", []))
    assert got["wrong_number"] == "$60" and "number_words" not in got  # money keeps digits
    # what the grader also accepts is not part of the answer
    got = by_class(
        plant("q5", "How many days did it take?", "6 days. 7 days is also acceptable.", [])
    )
    assert got["wrong_date"] == "8 days" and got["in_sentence"].count("acceptable") == 0
    # nor an alternative in brackets: left in a wrong answer, it still states an accepted one
    got = by_class(plant("q6", "How long was it?", "9 days (or 10 days, counting both ends)", []))
    assert got["wrong_date"] == "11 days" and "10 days" not in got["reasoning_then_wrong"]


def test_each_wording_of_a_class_is_planted():
    """Reasoning, contradictions and the gold in a sentence come in several wordings, one per
    question picked by its id, so the audit measures the class and not one phrase a judge may
    know; without a wrong answer to conclude, a contradiction only takes the gold back."""
    seen = {"reasoning_then_wrong": set(), "gold_plus_contradiction": set()}
    mirrored = set()
    for i in range(60):
        got = by_class(plant(f"q{i}", "How many bikes do I own?", "4 bikes", []))
        for klass, texts in seen.items():
            assert got[klass].endswith("6 bikes.") and got[klass].index("4 bikes") < got[
                klass
            ].index("6 bikes")
            texts.add(got[klass].replace("4 bikes", "{core}").replace("6 bikes", "{wrong}"))
        # the mirror names the wrong answer first and settles on the gold
        right = got["reasoning_then_right"]
        assert right.endswith("4 bikes.") and right.index("6 bikes") < right.index("4 bikes")
        mirrored.add(right.replace("6 bikes", "{named}").replace("4 bikes", "{settled}"))
    reasoning = {w.format(named="{core}", settled="{wrong}") for w in planting._REASONING}
    assert seen["reasoning_then_wrong"] == reasoning
    assert mirrored == set(planting._REASONING)
    assert seen["gold_plus_contradiction"] == set(planting._CONTRADICTED)
    in_sentence = {
        by_class(plant(f"q{i}", "How many bikes do I own?", "4 bikes", []))["in_sentence"]
        for i in range(40)
    }
    assert in_sentence == {w.format(core="4 bikes") for w in planting._IN_SENTENCE}
    taken_back = {
        by_class(plant(f"q{i}", "Who gave me the scarf?", "my aunt Rosa", []))[
            "gold_plus_contradiction"
        ]
        for i in range(40)
    }
    assert taken_back == {w.format(core="my aunt Rosa") for w in planting._TAKEN_BACK}


def test_a_wrong_count_reads_as_a_count():
    """wrong_number's n * 1.5 is never left looking like a year (1320 -> 2640, not 1980); a
    number word keeps its capital, and one inside a name is not a count."""

    def wrong(question, gold):
        return by_class(plant("q", question, gold, [])).get("wrong_number")

    assert wrong("How many stamps do I have?", "1320") == "2640"
    assert wrong("How many stamps do I have?", "1,320") == "1,980"  # not a year as written
    assert wrong("How many steps did I walk?", "1000") == "1500"
    assert wrong("What pets do I have?", "Two dogs and a cat") == "Four dogs and a cat"
    assert wrong("Which book did I read?", "The Nine Gates") is None


def test_a_wrong_anchored_date_names_another_day():
    """A date that anchors a day or a week moves by two of those: "the Friday before" a
    Saturday and before the Monday two days later is the same Friday."""

    def wrong(gold):
        return by_class(plant("q", "When did I go?", gold, [])).get("wrong_date")

    assert wrong("The Friday before 9 September 2023") == "The Friday before 23 September 2023"
    assert wrong("the week of 4 March 2023") == "the week of 18 March 2023"
    assert wrong("The month before 31 December 2022") == "The month before 28 February 2023"
    assert wrong("9 September 2023") == "11 September 2023"


def test_compounds_and_ranges_are_changed_whole():
    """A compound period is one quantity (2 years and 3 months = 27 months, not "24 months and
    3 months"); a range's two ends are the answer together, never one end alone."""
    got = by_class(plant("q1", "How long did I live there?", "2 years and 3 months", []))
    assert got["unit_paraphrase"] == "27 months"
    assert got["wrong_date"] == "4 years and 3 months"
    got = by_class(plant("q2", "How long was the shift?", "6 hours, 15 minutes", []))
    assert got["unit_paraphrase"] == "375 minutes"
    # no single unit to write it in
    assert "unit_paraphrase" not in by_class(plant("q3", "How long?", "3 years and 1 week", []))
    got = by_class(plant("q4", "How long did the glue take to set?", "8-9 hours", []))
    assert got["unit_paraphrase"] == "480-540 minutes"
    assert got["number_words"] == "eight to nine hours"
    assert got["wrong_date"] == "11-12 hours"  # the whole range two units past its end
    got = by_class(plant("q5", "How many scoops of flour do I use?", "3-4 scoops", []))
    assert got["wrong_number"] == "6-7 scoops" and got["number_words"] == "three to four scoops"
    # a unit written onto the number is not spelled out half-way ("seventy to two hundredmm")
    assert "number_words" not in by_class(plant("q6", "Which lens?", "a 35-80mm lens", []))
    assert by_class(plant("q7", "How long did it take?", "one day", []))["wrong_date"] == "3 days"
    # a range written "10 to 12" is one too
    got = by_class(plant("q8", "How long did I spend on it?", "10 to 12 hours", []))
    assert got["unit_paraphrase"] == "600-720 minutes"
    got = by_class(plant("q9", "How often do I swim?", "3 to 4 times a week", []))
    assert got["wrong_number"] == "6-7 times a week"


def test_list_markers_and_words_that_begin_with_a_month_are_left_alone():
    """The numbers that mark a gold's items ("1) to identify ..., and 2) to ...", "..., 3.
    Music festival") count nothing, and "2 Marvel movies" holds no date ("Mar")."""
    listed = "The aims were: 1) to identify subtypes, 2) to test them, and 3) to develop markers."
    assert "number_words" not in by_class(plant("q1", "What were the aims?", listed, []))
    got = by_class(plant("q2", "How many Marvel movies did I watch?", "2 Marvel movies", []))
    assert got["number_words"] == "two Marvel movies"
    assert "date_format" not in got


def test_digits_that_are_not_counts_are_not_spelled_out():
    """number_words spells out counts only: a phone number, a code, a score, a clock time or a
    number in a name keeps its digits (a gold with nothing else to spell gets none)."""

    def words(gold):
        return by_class(plant("q", "What was it?", gold, [])).get("number_words")

    assert words("+1 (555) 010 / 22 - 7") is None  # not "+one (five hundred fifty-five) ..."
    assert words("Call 0171 555 0199") is None
    assert words("We won 6-3") is None  # a score, not a range
    assert words("order #4411") is None
    assert words("At 7 pm") is None and words("by 9 a.m.") is None
    assert words("Level 4") is None and words("the Galaxy 7 Pro") is None
    assert words("12. Nf3") is None  # a move number
    assert words("The Nine Gates") is None  # a title, not "The 9 Gates"
    assert words("Chapter 5 of Part 2") == "Chapter five of Part 2"
    assert words("Nine gates") == "9 gates" and words("25%") == "twenty-five percent"


def test_either_or_options_are_whole_and_vague_answers_pick_none():
    """The other option is the whole option, never a stopword ("the") or a fragment; a vague
    answer names no word of one option only (it would read as choosing it); a quantity
    question with an 'or' ("buy or borrow") is no either-or."""
    q = (
        "Which did I join first, the chess club or the evening pottery class for beginners at "
        "the community center?"
    )
    got = by_class(plant("q1", q, "chess club", []))
    assert got["swapped_entity"] == (
        "the evening pottery class for beginners at the community center"
    )
    assert got["reasoning_then_wrong"].endswith(
        "the evening pottery class for beginners at the community center."
    )
    q = "Which did I install first, the smart doorbell or the mesh router?"
    got = by_class(plant("q2", q, "Smart doorbell", []))
    assert got["swapped_entity"] == "the mesh router"
    assert not {"smart", "doorbell", "mesh", "router"} & set(got["vague"].lower().split())
    q = "Which did I repair first, the leaking faucet or the broken fence?"
    for key in ("q3", "q4", "q5", "q6"):  # every vague wording
        vague = by_class(plant(key, q, "The broken fence", []))["vague"]
        assert "leaking" not in vague and "broken" not in vague and "repair" in vague
    got = by_class(plant("q7", "Who did I call first, Dana and Lee or Sam?", "Sam", []))
    assert got["swapped_entity"] == "Dana and Lee"
    got = by_class(plant("q8", "How many books did I buy or borrow last month?", "4", []))
    assert got["wrong_number"] == "6"
    assert either_or("How many books did I buy or borrow last month?") is None


def test_a_swapped_name_is_a_whole_name():
    """swapped_entity replaces a whole name where it stands: a quoted title whole (never a
    word inside it), a name with its inner "of", never part of a tag or of "ABCD+", and the
    pool holds whole names too."""
    pool = ["Harbor Street", "Quentin"]

    def swapped(question, gold, pool=pool):
        return by_class(plant("q1", question, gold, pool)).get("swapped_entity")

    got = swapped("Which film did I see?", "The film was 'How to Paint a Barn in Winter'.")
    assert got in ("The film was 'Harbor Street'", "The film was 'Quentin'")
    got = swapped("Where did I go?", "I went to the Gallery of Modern Glass.")
    assert got in ("I went to the Harbor Street", "I went to the Quentin")
    assert swapped("Whose place was it?", "It was at Dana's place.") in (
        "It was at Harbor Street's place",
        "It was at Quentin's place",
    )
    assert swapped("Who was it for?", "support for ABCD+ families") is None
    assert swapped("What did I join?", "a challenge called #StepUpChallenge") is None
    assert swapped("Where was it?", "the Riverside Chapel", ["The Quiet Field"]) == (
        "the Quiet Field"
    )
    assert names("I bought 'The Quiet Field' there.", mid_sentence_only=True) == ["The Quiet Field"]
    assert names("I work there on Sundays.") == []


def test_names_options_vague_and_abstention():
    pool = ["Harbor Street", "Quentin"]
    got = by_class(plant("q1", "Who gave me the violin?", "My aunt Rosalind gave it to you.", pool))
    assert got["swapped_entity"] in (
        "My aunt Harbor Street gave it to you",
        "My aunt Quentin gave it to you",
    )
    assert got["vague"] and "Rosalind" not in got["vague"] and "violin" in got["vague"]
    assert got["abstention"] in planting._ABSTAIN
    assert either_or("Which came first, the concert or the picnic?") == (
        "the concert",
        "the picnic",
    )
    got = by_class(plant("q2", "Which came first, the concert or the picnic?", "The picnic", pool))
    assert got["swapped_entity"] == "the concert"
    assert "wrong_number" not in got
    # a name the question holds is context; a quantity question's answer is its number
    assert "swapped_entity" not in by_class(
        plant("q3", "How many times did I call Rosalind?", "I called Rosalind 3 times.", pool)
    )
    assert names("9:00 AM") == [] and names("Sunny Vale") == ["Sunny Vale"]
    assert names("Since 2016") == [] and names("It was in Lisbon, near Belem.") == [
        "Lisbon",
        "Belem",
    ]


def test_unanswerable_questions_get_their_own_classes_and_rubrics_none():
    rows = [
        {"question_id": "a", "question": "Q?", "answer": "5 apples", "is_abstention": False},
        {"question_id": "b", "question": "How many pears?", "answer": "Not mentioned."}
        | {"is_abstention": True},
        {
            "question_id": "c",
            "question": "Q?",
            "answer": " ".join(["word"] * 30),
            "is_abstention": False,
        },
    ]
    planted, left = plant_all(rows)
    assert {p.question_id for p in planted} == {"a", "b"}
    assert {p.klass for p in planted if p.question_id == "b"} == {
        "answers_unanswerable",
        "abstains_unanswerable",
    }
    assert left == {"questions": 3, "unanswerable_questions": 1, "gold_too_long": 1}
    assert plant_all(rows) == (planted, left)  # deterministic


@pytest.mark.parametrize(
    "question, gold, tempting, committed",
    [
        # the benchmark's own tempting answer first, its note on what else is accepted dropped
        ("What did Ana adopt?", "Not mentioned", "a beagle (or a dog)", "a beagle"),
        ("Who became a parent first, Tom or Alex?", "Not enough information.", None, None),
        ("How long was I in Korea for?", "You mentioned Japan, not Korea.", None, "3 months"),
        ("How often do I see Dr. Lee?", "You mentioned Dr. Park, not Dr. Lee.", None, None),
        ("What is the total cost of my bike and helmet?", "Not enough.", None, "$120"),
        ("How many engineers do I lead when I start?", "Not enough.", None, "3"),
        # a name the gold says was mentioned instead, not the one the question asks about
        (
            "What is my hamster called?",
            "You mentioned your cat Mochi, not a hamster.",
            None,
            "Mochi",
        ),
        ("Where did I study for my MBA?", "You did not mention an MBA.", None, "Quentin"),
    ],
)
def test_a_committed_answer_to_an_unanswerable_question(question, gold, tempting, committed):
    got = planting.committed_answer("qid", question, gold, ["Quentin"], tempting)
    if question.startswith("Who became"):
        assert got in ("Tom", "Alex")
    elif question.startswith("How often"):
        assert got == "twice a week"  # a quantity question gets a value of its kind
    else:
        assert got == committed


def test_an_abstention_on_an_unanswerable_question_may_name_what_was_said_instead():
    gold = "The information provided is not enough. You mentioned Dr. Park but not Dr. Lee."
    seen = {
        by_class(plant_unanswerable(f"q{i}", "How often do I see Dr. Lee?", gold, []))[
            "abstains_unanswerable"
        ]
        for i in range(40)
    }
    assert set(planting._ABSTAIN) < seen
    assert {w for w in seen if "Dr. Park" in w} == {
        w.format(instead="Dr. Park") for w in planting._ABSTAIN_NAMING
    }
    assert not any("Dr. Lee" in w for w in seen)


def test_locomo_tempts_with_its_adversarial_answer_unless_it_is_none():
    locomo = benchmarks.get("locomo")
    row = {"is_abstention": True, "adversarial_answer": "a beagle"}
    assert locomo.tempting_answer(row) == "a beagle"
    assert locomo.tempting_answer(row | {"adversarial_answer": "Not mentioned"}) is None
    assert locomo.tempting_answer(row | {"is_abstention": False}) is None
    assert LME.tempting_answer({"is_abstention": True, "answer": "x"}) is None


def test_a_swapped_name_comes_from_another_history():
    """A name from a question on the same history (a LoCoMo conversation) may be true of this
    question too: the pool holds names of golds on other histories only."""
    rows = [
        {"question_id": f"h1_q{i}", "haystack_session_ids": ["h1_s1", "h1_s2"]}
        | {"question": q, "answer": a, "is_abstention": False}
        for i, (q, a) in enumerate(
            [
                ("Which city did I move to?", "I moved to Porto."),
                ("Where did my sister move?", "She moved to Lyon."),
                ("Where did my friend study?", "He studied in Tartu."),
                ("Where was the wedding?", "It was held in Bergen."),
            ]
        )
    ] + [
        {"question_id": "h2_q0", "haystack_session_ids": ["h2_s1"], "question": "Where?"}
        | {"answer": "I studied in Graz.", "is_abstention": False}
    ]
    swapped = {p.question_id: p.answer for p in plant_all(rows)[0] if p.klass == "swapped_entity"}
    assert swapped == {
        "h1_q0": "I moved to Graz",
        "h1_q1": "She moved to Graz",
        "h1_q2": "He studied in Graz",
        "h1_q3": "It was held in Graz",
        "h2_q0": swapped["h2_q0"],
    }
    assert swapped["h2_q0"].removeprefix("I studied in ") in ("Porto", "Lyon", "Tartu", "Bergen")


def test_the_generator_holds_no_question_and_no_gold_text():
    source = Path(planting.__file__).read_text()
    recs = json.loads(shared_file(ORACLE_FILE).read_text())
    for r in recs:
        gold = str(r["answer"]).strip()
        assert r["question_id"] not in source
        assert len(gold) < 12 or gold not in source, gold


def test_wilson_interval():
    lo, hi = wilson_interval(0, 10)
    assert lo == pytest.approx(0.0, abs=1e-12) and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(5, 10)
    assert (lo, hi) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(0, 0) is None


def test_rates_count_errors_apart():
    ps = [
        Planted("q1", "wrong_number", "x", False),
        Planted("q2", "wrong_number", "y", False),
        Planted("q3", "wrong_number", "z", False),
        Planted("q1", "in_sentence", "w", True),
    ]
    r = rates(
        ps,
        {
            "q1::wrong_number": True,
            "q2::wrong_number": False,
            "q3::wrong_number": None,
            "q1::in_sentence": False,
        },
    )
    assert r["wrong_number"] == {
        "kind": "false_accept",
        "n": 3,
        "judged": 2,
        "judge_errors": 1,
        "errors": 1,
        "rate": 0.5,
        "ci": wilson_interval(1, 2),
    }
    assert r["in_sentence"]["kind"] == "false_reject" and r["in_sentence"]["rate"] == 1.0


def _questions():
    rows = [
        ("q-n", "multi-session", "How many plants do I have?", "7 plants"),
        ("q-d", "temporal-reasoning", "How many days did the trip take?", "4 days"),
        ("q-e", "single-session-user", "Which city did I move to?", "I moved to Porto."),
    ]
    return pl.DataFrame(
        [
            {
                "question_id": i,
                "question_type": t,
                "is_abstention": False,
                "question": q,
                "answer": a,
                "question_date": "2023/05/30 (Tue) 10:00",
                "haystack_session_ids": [],
                "answer_session_ids": [],
            }
            for i, t, q, a in rows
        ],
        schema=polars_schema("questions"),
    )


def test_an_llm_judge_that_says_yes_accepts_every_wrong_answer_and_pays_once(fresh_cache, fake_key):
    q = _questions()
    with FakeOpenAIServer(answer=lambda m: "yes") as srv:
        cfg = group("judge", "gpt4o", **srv.runtime())
        report = audit_judges(LME, q, {"yes-server": cfg, **member_configs(["rule"])})
        sent = srv.total_requests
        again = audit_judges(LME, q, {"yes-server": cfg})
        assert srv.total_requests == sent  # every verdict came from the cache
    n = sum(report["planted"].values())
    assert sent == n and len(read_journal(fresh_cache / "llm")) == n
    yes = report["judges"]["yes-server"]["classes"]
    assert all(yes[k]["rate"] == 1.0 for k in WRONG if k in yes)
    assert all(yes[k]["rate"] == 0.0 for k in RIGHT if k in yes)
    assert again["judges"]["yes-server"] == report["judges"]["yes-server"]
    rule = report["judges"]["rule"]["classes"]
    assert rule["abstention"]["rate"] == 0.0 and rule["in_sentence"]["rate"] == 0.0
    md = report_markdown(report)
    assert "| wrong_number | false accept | 1 | 100.0 [20.7, 100.0] | 0.0 [0.0, 79.3] |" in md


def test_planted_tables_keep_the_benchmarks_columns():
    q = _questions().with_columns(pl.lit(2).alias("category"))
    planted, _ = plant_all(q.to_dicts())
    qs, a = planted_tables(q, planted)
    assert qs.columns == q.columns and qs.height == a.height == len(planted)
    assert set(qs["question_id"]) == {p.planted_id for p in planted}


def test_cli_writes_the_report(tmp_path, capsys):
    from memrecall.artifacts import write_table

    qp = tmp_path / "questions.parquet"
    write_table(
        _questions(),
        qp,
        table="questions",
        stage="download",
        extra_meta={benchmarks.META_KEY: "longmemeval"},
    )
    main(["--questions", str(qp), "--out", str(tmp_path / "out")])
    data = json.loads((tmp_path / "out" / "judge_audit.json").read_text())
    assert set(data["judges"]) == {"rule"} and set(data["planted"]) == set(CLASSES)
    assert "# Judge leniency audit" in (tmp_path / "out" / "judge_audit.md").read_text()


@pytest.mark.parametrize("path", [ORACLE_FILE, LOCOMO_DEV], ids=["longmemeval", "locomo"])
def test_rule_judge_on_the_real_dev_files(path):
    """Every class is planted on real golds, and the rule judge is not lenient on the plain
    wrong answers nor strict on the plain right ones (its weak spots are the report's)."""
    shared_file(path)
    if path == LOCOMO_DEV:
        from memrecall.benchmarks.locomo import data as L

        recs = json.loads(path.read_text())
        q = L.normalise(recs, L.flatten(recs)).questions
        bench = benchmarks.get("locomo")
    else:
        from memrecall.benchmarks.longmemeval.data import normalise
        from memrecall.data.jsonfile import load_records

        q = normalise(load_records(path), str(path)).questions
        bench = LME
    report = audit_judges(bench, q, member_configs(["rule"]))
    c = report["judges"]["rule"]["classes"]
    assert all(report["planted"][k] > 0 for k in CLASSES), report["planted"]
    for k in ("vague", "abstention", "wrong_date", "answers_unanswerable"):
        assert c[k]["rate"] < 0.05, (k, c[k])
    for k in ("in_sentence", "date_format", "abstains_unanswerable"):
        assert c[k]["rate"] < 0.05, (k, c[k])
