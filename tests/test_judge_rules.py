"""The rule judge against hand-written cases (tests/fixtures/judge_cases.yaml) and real data."""

from __future__ import annotations

import collections
import json
import random
import re
import textwrap
from pathlib import Path

import pytest

from conftest import judge_cases, shared_file
from memrecall.benchmarks.longmemeval.categories import QUESTION_TYPES
from memrecall.judge.rules import abstains, judge_one, normalize, quantities, stem, tokens
from memrecall.judge.rules.normalise import content_tokens

CASES = judge_cases()
ORACLE = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "data"
    / "longmemeval"
    / "longmemeval_oracle.json"
)


def _judge(c):
    return judge_one(
        c["type"],
        c["question"],
        str(c["answer"]),
        c["hypothesis"],
        is_abstention=bool(c.get("abstention")),
    )


def test_fixture_covers_what_the_issue_asks():
    cases = CASES["cases"]
    assert len(cases) >= 60
    assert len({c["id"] for c in cases}) == len(cases)
    by_type = collections.Counter(c["type"] for c in cases if not c.get("abstention"))
    for t in QUESTION_TYPES:  # every type, with both labels
        assert by_type[t] >= 4, t
        assert {c["expected"] for c in cases if c["type"] == t} == {True, False}
    abstention = [c for c in cases if c.get("abstention")]
    assert len(abstention) >= 6 and {c["expected"] for c in abstention} == {True, False}
    ids = " ".join(c["id"] for c in cases)
    for needed in (
        "off-by-one",
        "ku-old-only",
        "ku-updated-with-old",
        "ssp-",
        "alternative",
        "subset",
    ):
        assert needed in ids


@pytest.mark.parametrize("case", CASES["cases"], ids=[c["id"] for c in CASES["cases"]])
def test_rule_judge_matches_every_case(case):
    v = _judge(case)
    assert v.label is case["expected"], v.reason
    assert v.reason


@pytest.mark.parametrize(
    "case", CASES["known_disagreements"], ids=[c["id"] for c in CASES["known_disagreements"]]
)
@pytest.mark.xfail(strict=True, reason="documented limit of the rule judge (see `why`)")
def test_known_disagreements_stay_documented(case):
    assert _judge(case).label is case["expected"]


def test_temporal_tolerance_is_only_for_temporal_reasoning():
    q, a = "How many days did I spend in Rome?", "5 days"
    assert judge_one("temporal-reasoning", q, a, "6 days").label is True
    assert judge_one("temporal-reasoning", q, a, "4 days").label is True
    assert judge_one("temporal-reasoning", q, a, "7 days").label is False
    for t in ("multi-session", "single-session-user", "knowledge-update"):
        assert judge_one(t, q, a, "6 days").label is False
        assert judge_one(t, q, a, "5 days").label is True


def test_off_by_one_counts_in_the_finer_unit():
    q = "How many weeks ago did I start the course?"
    assert judge_one("temporal-reasoning", q, "3 weeks", "20 days ago").label is True  # 1 day
    assert judge_one("temporal-reasoning", q, "3 weeks", "4 weeks ago").label is True  # 1 week
    assert judge_one("temporal-reasoning", q, "1 week", "4 days ago").label is False  # 3 days
    assert judge_one("temporal-reasoning", q, "1 week", "9 days ago").label is False


def test_quantities_skip_dates_ordinals_and_years():
    qs = quantities("On March 15, 2023, my 3rd visit, I waited 2 hours and paid $1,250.50")
    assert [(q.value, q.unit) for q in qs] == [(2.0, "hour"), (1250.5, "dollar")]
    assert [(q.value, q.unit) for q in quantities("twenty-five titles, twice a week")] == [
        (25.0, None),
        (2.0, "time"),
        (1.0, "week"),
    ]
    clock = quantities("at 6:30 pm, not 18:45 or 7 a.m.")
    assert [(q.value, q.clock, q.ampm_known) for q in clock] == [
        (18 * 60 + 30, True, True),
        (18 * 60 + 45, True, True),
        (7 * 60, True, True),
    ]


def test_normalisation():
    assert normalize("Twenty-one thousand, and the SEVENTH one") == "21000, and the 7th 1"
    assert tokens("Tokyo's 3rd St. shops") == ["tokyo", "3", "street", "shop"]
    assert tokens("planting planted learning string taking take baked during") == [
        "plant",
        "plant",
        "learn",
        "string",
        "take",
        "take",
        "bake",
        "during",
    ]


def test_normalisation_reads_the_other_ways_to_write_dates_money_and_durations():
    """Dates, sums and durations written as people write them equal the reference's wording;
    a word that only looks like a month abbreviation ("mar", "Jan") and a race's or a screen's
    "5K" stay; "12k" people are 12000 and "27 mins 45 secs" the words written out."""
    cases = {
        "Feb. 1st": "february 1st",
        "on 12 Dec": "on december 12",
        "25 March 2023": "march 25, 2023",
        "the 3rd of June": "the june 3rd",
        "7 May, 2023": "may 7, 2023",
        "the other 3 may be": "the other 3 may be",
        "2024-03-09": "march 9, 2024",
        "2024/03/09 (Sat)": "march 9, 2024 (sat)",
        "$250K": "$250000",
        "$1.5k": "$1500",
        "250 thousand dollars": "250000 dollars",
        "$0.25 million": "$250000",
        "12 per cent": "12 percent",
        "an hour and a half": "1.5 hours",
        "half an hour": "0.5 hour",
        "2h15": "2 hours 15 minutes",
        "2.5h": "2.5 hours",
        "6.45pm": "6:45 pm",
        "a mar on the desk": "a mar on the desk",
        "Jan ran the 5K": "jan ran the 5k",
        "the charity 5K run": "the charity 5k run",
        "a 4K TV": "a 4k tv",
        "12k people, ~1.3K followers": "12000 people, ~1300 followers",
        "27 mins 45 secs, 3 wks, 10 lbs": "27 minutes 45 seconds, 3 weeks, 10 pounds",
    }
    for text, normalised in cases.items():
        assert normalize(text) == normalised, text
    q = "How much did I pay for the kayak?"
    assert judge_one("single-session-user", q, "$1,500", "About $1.5K.").label is True
    assert judge_one("single-session-user", q, "$1,500", "About $15K.").label is False
    when = "When did I buy the kayak?"
    assert judge_one("single-session-user", when, "March 9th", "On 2024-03-09.").label is True
    assert judge_one("single-session-user", when, "March 9th", "Mar 10, 2024").label is False
    # "~20%" says "approximately 20%"
    framerate = "What was the average improvement in framerate you reported?"
    gold = "The average improvement was approximately 20%."
    assert judge_one("single-session-assistant", framerate, gold, "It was ~20%.").label is True
    assert judge_one("single-session-assistant", framerate, gold, "It was ~30%.").label is False
    # a day-first reference is the same date, and its day goes with its month, not the year
    assert judge_one("single-session-user", when, "9 March 2024", "March 9, 2024.").label is True
    assert judge_one("single-session-user", when, "9 March 2024", "11 March 2024").label is False


def test_yes_no_answered_in_other_words():
    """A response that opens with "Yep", "Correct", "Indeed", "Nope" or "Not really" answers a
    yes/no question; "true" inside a sentence does not (made-up question)."""
    q = "Did I run farther on Saturday than on Sunday?"
    for text, said in (
        ("Yep, 10 km against 8 km.", "yes"),
        ("Correct: Saturday was longer.", "yes"),
        ("Indeed.", "yes"),
        ("Nope, Sunday was longer.", "no"),
        ("Not really; both were 8 km.", "no"),
        ("Incorrect. Sunday was longer.", "no"),
    ):
        assert judge_one("multi-session", q, "Yes.", text).label is (said == "yes"), text
        assert judge_one("multi-session", q, "No.", text).label is (said == "no"), text
    inside = "True to form, you ran 10 km on Saturday."
    assert judge_one("multi-session", q, "Yes.", inside).label is False


def test_a_named_place_is_named_without_what_locates_it():
    """A named place, "Trinity College in Dublin", is named by "Trinity College"; the place that
    locates it is not the answer alone, and an unnamed "a cafe in Paris" keeps its place (made-up
    references and responses)."""
    q = "Where did I spend my exchange semester?"
    gold = "Trinity College in Dublin"
    assert judge_one("single-session-user", q, gold, "At Trinity College.").label is True
    assert judge_one("single-session-user", q, gold, "You were in Dublin.").label is False
    at = "The Blue Door Bistro at Harbour Point."
    where = "Where did we have dinner on my birthday?"
    assert judge_one("single-session-user", where, at, "The Blue Door Bistro").label is True
    cafe = "Which place did I recommend for breakfast?"
    assert judge_one("single-session-user", cafe, "a cafe in Paris", "A cafe.").label is False


def test_a_range_written_with_to_and_or_carries_its_unit_to_both_ends():
    """A range "10 to 12 hours", "between 10 and 12 hours" or "8 or 10 hours" is hours at both
    ends, as "10-12 hours" was (the planted paraphrase "ten to twelve hours" was rejected); the
    parts of a compound duration stay one duration (made-up question)."""
    q = "How many hours did I spend on the quilt?"
    for text in ("Ten to twelve hours.", "Between 10 and 12 hours.", "Roughly 8 or 10 hours."):
        assert judge_one("knowledge-update", q, "10 hours", text).label is True, text
    assert judge_one("knowledge-update", q, "10 hours", "14 to 16 hours").label is False
    assert [(x.value, x.unit) for x in quantities("2 and 3 weeks, 1 year and 2 months")] == [
        (2, "week"),
        (3, "week"),
        (14, "month"),
    ]


def test_a_period_in_the_other_calendar_family_is_about_as_long():
    """Weeks and days against months and years: "8 weeks" is about 2 months, "a month" about
    30 days, "365 days" a year, to the nearest whole unit; "a month" is not a week, and only
    temporal questions forgive one off (made-up question)."""
    q = "How long had I been learning the cello?"
    for gold, text in (
        ("2 months", "About 8 weeks."),
        ("30 days", "A month."),
        ("1 year", "365 days"),
    ):
        assert judge_one("multi-session", q, gold, text).label is True, text
    assert judge_one("multi-session", q, "1 week", "A month.").label is False
    assert judge_one("multi-session", q, "2 months", "6 weeks").label is False
    assert judge_one("temporal-reasoning", q, "2 months", "6 weeks").label is True


def test_abstention_phrases():
    for text in (
        "You never told me about a trip to Korea.",
        "That information is not available in our chats.",
        "I can't determine that from what you shared.",
        "You mentioned Japan, but not Korea.",
        "Korea wasn't mentioned.",
        "There isn't a record of it.",
        "I can’t tell from our chats.",
        # what the history holds instead, said elliptically or as the only thing recorded
        "You mentioned practicing guitar every day, but never the violin.",
        "Only Alex's adoption is mentioned; Tom's isn't, so I can't compare.",
        "Only the guitar lessons were discussed.",
    ):
        assert abstains(text), text
    for text in (
        "You stayed in Korea for two weeks.",
        "It was Sarah.",
        "Yes, definitely.",
        "Only Alex became a parent: he adopted in January.",
        "You only ever practice guitar in the evenings.",
    ):
        assert not abstains(text), text


def test_empty_response_is_wrong_for_every_type():
    for t in QUESTION_TYPES:
        assert judge_one(t, "Q?", "A", "   ").label is False
        assert judge_one(t, "Q?", "A", None).label is False


def test_reference_as_response_is_correct_on_all_500_real_questions():
    """The rules must accept the reference itself for every real question (incl. _abs)."""
    data = json.loads(shared_file(ORACLE).read_text(encoding="utf-8"))
    wrong = [
        x["question_id"]
        for x in data
        if not judge_one(
            x["question_type"],
            x["question"],
            str(x["answer"]),
            str(x["answer"]),
            is_abstention="_abs" in x["question_id"],
        ).label
    ]
    assert len(data) == 500 and wrong == []


def test_another_questions_reference_is_rarely_accepted():
    """Swapping in the reference of another question of the same type should almost always be
    judged wrong (the rare accepts are coincidences such as two answers of '5 days')."""
    data = [
        x
        for x in json.loads(shared_file(ORACLE).read_text(encoding="utf-8"))
        if "_abs" not in x["question_id"]
    ]
    rng = random.Random(0)
    by_type = collections.defaultdict(list)
    for x in data:
        by_type[x["question_type"]].append(x)
    accepted = 0
    for x in data:
        other = rng.choice([y for y in by_type[x["question_type"]] if y is not x])
        accepted += judge_one(
            x["question_type"], x["question"], str(x["answer"]), str(other["answer"])
        ).label
    assert accepted / len(data) < 0.05


def test_rules_hold_no_question_ids():
    """Rules must generalise: no question id (nor anything shaped like one) in their source."""
    if not ORACLE.exists():
        pytest.fail(f"this test needs the shared LongMemEval data ({ORACLE})")
    ids = {x["question_id"] for x in json.loads(ORACLE.read_text(encoding="utf-8"))}
    ids |= {i.removesuffix("_abs") for i in ids}
    src = Path(__file__).resolve().parents[1] / "src" / "memrecall"
    files = sorted((src / "judge" / "rules").glob("*.py")) + [src / "abstention.py"]
    assert len(files) >= 8
    for f in files:
        text = f.read_text(encoding="utf-8")
        found = sorted(i for i in ids if i in text)
        assert not found, f"{f.name} names question ids {found[:5]}"
        shaped = re.findall(r"\b(?:gpt4_)?[0-9a-f]{8}(?:_abs)?\b", text)
        assert not shaped, f"{f.name} holds question-id-like tokens {shaped[:5]}"


def test_conclusion_of_a_reasoning_transcript():
    from memrecall.judge.rules.response import conclusion

    text = (
        "**Step 1: Extract**\n* Session 1: 3 trips.\n\n**Step 2: Reason**\nSo far 3.\n\n"
        "**Step 3: Draw a conclusion**\nYou took 4 trips."
    )
    assert conclusion(text).strip().startswith("**Step 3")
    assert conclusion("Final answer: 4 trips.") == "Final answer: 4 trips."
    assert conclusion("You took 3 trips in May. Therefore, it was 4.") == "Therefore, it was 4."
    plain_answer = "You took 4 trips, so you are well travelled."
    assert conclusion(plain_answer) is plain_answer  # no marker: the whole response


def test_sentences_do_not_end_at_an_abbreviation():
    """An abbreviation's full stop ("vs.", "e.g.", "Dr.") is inside a sentence; an either-or
    answer that sets the other option beside its choice ("A (a month ago, vs. B two weeks ago)")
    is one sentence, and it chooses A."""
    from memrecall.judge.rules.response import sentences

    assert sentences("The lamp (a month ago, vs. the rug last week). Then e.g. the desk.") == [
        "The lamp (a month ago, vs. the rug last week).",
        "Then e.g. the desk.",
    ]
    assert sentences("Ask Dr. Patel. I.e. the dentist! Next\nline") == [
        "Ask Dr. Patel.",
        "I.e. the dentist!",
        "Next",
        "line",
    ]
    assert sentences("Mass at St. Mary's Church. Then home.") == [
        "Mass at St. Mary's Church.",
        "Then home.",
    ]


@pytest.mark.parametrize(
    "question, part",
    [
        ("Which came first, A or B?", "Which came first, A or B?"),
        ("Quick question: which came first, A or B?", "which came first, A or B?"),
        (
            "Quick question: Before I bought it, did I have one?",
            "Before I bought it, did I have one?",
        ),
        ("Hi! How many bikes do I own? Thanks!", "How many bikes do I own?"),
        ("I'm trying to remember. Can you remind me which one I chose?", "which one I chose?"),
        ("Do you remember how many I have?", "how many I have?"),
        ("Please, can you tell me which came first, A or B, please?", "which came first, A or B?"),
        (
            "How many did I lead before? How many do I lead now",
            "How many did I lead before? How many do I lead now",
        ),
        # a colon after a question's own opening introduces its options, not the question
        (
            "Which came first: the blender or the toaster?",
            "Which came first: the blender or the toaster?",
        ),
        ("What time did I set: 6:30 or 7?", "What time did I set: 6:30 or 7?"),
        # an indirect yes/no question keeps its opening; no sentence asking: the whole text
        ("Can you remind me if I went?", "Can you remind me if I went?"),
        ("Tell me how many I have.", "Tell me how many I have."),
        ("How often do I see Dr. Smith?", "How often do I see Dr. Smith?"),
    ],
)
def test_asked_part_is_what_a_question_asks(question, part):
    """The sentences around a question ("Hi!", "Thanks!", "I'm trying to remember.") and an
    opening before it ("Quick question:", "Can you remind me") ask nothing."""
    from memrecall.judge.rules.response import asked_part

    assert asked_part(question) == part


def test_after_retraction():
    from memrecall.judge.rules.response import after_retraction

    assert after_retraction("It was 4. Actually, no, that's not right: it was 5.") == (
        "it was 5",
        True,
    )
    assert after_retraction("It was 4. Scratch that.") == ("", True)
    # the contracted forms too
    assert after_retraction("It was 4. That isn't right: 5.") == ("5", True)
    assert after_retraction("It was 4. This wasn’t correct: 6.") == ("6", True)
    # "actually" alone is emphasis, not a retraction
    plain = "Actually, you went there twice."
    assert after_retraction(plain) == (plain, False)


@pytest.mark.parametrize(
    ("text", "replaced"),
    [
        ("You originally said $12, but you corrected it later: $18.", "$18"),
        ("Earlier you said 4; a more recent message updates that to 7.", "7"),
        ("You later clarified it was the Spanish lessons.", "was the Spanish lessons"),
        ("One session says 5, but that was superseded by 4.", "4"),
        ("Denver is outdated; she lives in Portland now.", "she lives in Portland now"),
        ("The correct figure, from your later message, is 38.", "38"),
        # a denied replacement names none, nor does a change of the user's things
        ("On May 2 you said 10 hours. No later session updates that figure.", None),
        ("You never updated it, and nothing later revises the count.", None),
        ("It's possible the count was updated between conversations.", None),
        ("You replaced the toaster with a toaster oven.", None),
        ("The user corrects this in session 4, saying it was Germany.", None),
        ("If it had a fee, the actual total would be higher.", None),
        ("Two cost more, so the actual total amount spent is likely higher.", None),
        # a denial turned before it denies nothing
        ("I'm not 100% sure, but you corrected it later: 18.", "18"),
    ],
)
def test_what_a_response_says_replaced_what_it_named(text, replaced):
    from memrecall.judge.rules.response import replaced_by

    assert replaced_by(text) == replaced


@pytest.mark.parametrize(
    ("question_type", "question", "earlier"),
    [
        ("knowledge-update", "What was my previous goal before I updated it?", True),
        ("knowledge-update", "How many engineers did I lead when I just started?", True),
        ("knowledge-update", "How many bikes do I own now?", False),
        ("single-session-user", "What was my last name before I changed it?", True),
        ("single-session-user", "What was my previous occupation?", True),
        # of other questions, "first" orders events and "old" asks an age
        ("temporal-reasoning", "Which show did I start watching first, A or B?", False),
        ("multi-session", "How old was I when Alex was born?", False),
        ("single-session-user", "I'm looking back at our previous chat. What was the code?", False),
    ],
)
def test_which_questions_ask_for_an_earlier_value(question_type, question, earlier):
    from memrecall.judge.rules.updates import asks_earlier

    assert asks_earlier(question_type, question) is earlier


_BIKES = "How many bikes do I currently own?"
_RECIPES = "How many of Emma's recipes have I tried?"
_EARNINGS = "How much did I earn at the farmers market most recently?"
_SAYS_EARNINGS = "Your most recent earnings there were $420, an increase from the $350 you earned."


@pytest.mark.parametrize(
    ("question", "reference", "response", "right"),
    [
        (
            _BIKES,
            "4",
            "An earlier session mentioned owning 4 bikes; a later one says 3. So the most "
            "up-to-date count from your conversations is **3 bikes**.",
            False,
        ),
        (
            _BIKES,
            "4",
            "An earlier session mentioned owning 3 bikes; a later one says 4. So the most "
            "up-to-date count from your conversations is **4 bikes**.",
            True,
        ),
        (_BIKES, "4", "As of your most recent conversation, you own 3 bikes; in May, 4.", False),
        (_BIKES, "4", "You had 4 bikes in May; now you own 3.", False),
        (
            _BIKES,
            "4",
            "You currently own three bikes. However, you recently bought a hybrid bike, bringing "
            "your total to four bikes.",
            True,
        ),
        (
            "How many coins are in my collection?",
            "38",
            "The most recent explicit total is 37 coins, but since you added a quarter after "
            "that, the current count may be 38 coins.",
            True,
        ),
        (
            _RECIPES,
            "3",
            "An earlier message said two of Emma's recipes, but the most recent one (from May "
            "30) updates this to three recipes.",
            True,
        ),
        (
            "How many bird species have I seen in the park?",
            "32",
            "You have seen 32 species. However, by May 29 your count had increased to 27 species.",
            False,
        ),
        (
            "How many bird species have I seen in the park?",
            "32",
            "You have seen 27 species (as of May 29, when you updated your count from 32).",
            False,
        ),
        (
            "How many stars do I need for the gold level?",
            "120",
            "You corrected it to 125 stars (July 11), then later said 120 stars (July 30). "
            "Based on your corrections, you need 120 stars.",
            True,
        ),
        (_EARNINGS, "$420", _SAYS_EARNINGS, True),
        (_EARNINGS, "$350", _SAYS_EARNINGS, False),
    ],
)
def test_knowledge_update_answer_is_the_value_the_response_gives_as_now(
    question, reference, response, right
):
    """A response that names two values and says which one is the value now ("So the most
    up-to-date count is 3", "as of your most recent conversation", "bringing your total to 4")
    answers with that one; the other is history, not its answer. Both may be given as now ("the
    current count may be 38"); a number in brackets or after "an increase from the" is no value
    now, nor is what a value changed to when another follows it, and a value the count was
    "updated from" is history. (Made up; the first, third, fourth, eighth, ninth and last were
    accepted before.)"""
    verdict = judge_one("knowledge-update", question, reference, response)
    assert verdict.label is right, verdict.reason


_VIDEOS = "How many videos of the Python series have I completed so far?"
_PROJECTS = "How many projects have I completed since starting painting classes?"


@pytest.mark.parametrize(
    ("question", "reference", "response", "right"),
    [
        # a sentence that says it tells an earlier value, however far its number is
        (
            _VIDEOS,
            "30",
            "You completed 20 videos. Earlier, on May 24, you had completed 30.",
            False,
        ),
        (_VIDEOS, "20", "You completed 20 videos. Earlier, on May 24, you had completed 30.", True),
        (_VIDEOS, "30", "You've done 20. Prior to that, on May 24, you were at 30 videos.", False),
        (
            _VIDEOS,
            "30",
            "You've completed 20 videos. (In an earlier session from May 2023, you had "
            "mentioned 30, but you've rewatched since.)",
            False,
        ),
        (
            _RECIPES,
            "3",
            "You've tried 2 of Emma's recipes. You first mentioned having tried 3 of them, and "
            "later updated that you had tried 2.",
            False,
        ),
        (
            _RECIPES,
            "2",
            "You've tried 2 of Emma's recipes. You first mentioned having tried 3 of them, and "
            "later updated that you had tried 2.",
            True,
        ),
        (
            "How many times have I worn my new sneakers?",
            "6",
            "You've worn them **4 times**, up from the earlier-mentioned 6 times.",
            False,
        ),
        # ... unless a word between turns to the value now, or the earlier value is the only one
        (_VIDEOS, "30", "Earlier you had done 20, but now you have completed 30 videos.", True),
        (_VIDEOS, "30", "In an earlier session you said 30 videos, and nothing since.", True),
        # a history dated with years: the latest value is the answer
        (
            _PROJECTS,
            "4",
            "You completed **5 projects** as of August 2023, and then **4 projects** by "
            "October 9, 2023.",
            True,
        ),
        (
            _PROJECTS,
            "5",
            "You completed **5 projects** as of August 2023, and then **4 projects** by "
            "October 9, 2023.",
            False,
        ),
        (
            "How long have I had my cat, Luna?",
            "9 months",
            "As of August 11, 2023, you had Luna for about 9 months. By November 30, 2023, you "
            "mentioned having her for about 6 months.",
            False,
        ),
        # a date a count runs from, today's date, or a date without a year orders nothing
        (_PROJECTS, "5", "You've completed 4 since August 2023 and 5 since May 2023.", True),
        (
            "How long have I had my cat, Luna?",
            "9 months",
            "On November 30, 2023 you had had Luna for about 9 months. Counting on to today "
            "(March 29, 2026), that is roughly **3 years**.",
            True,
        ),
        (_PROJECTS, "5", "In August you had completed 5 projects; in October, 4.", True),
    ],
)
def test_knowledge_update_history_told_in_order(question, reference, response, right):
    """A response that tells the history of a value answers with its last value. A sentence
    that opens on an earlier value ("Earlier, on May 24, ...", "Prior to that", "an earlier
    session", "You first mentioned") gives its first number as history, dates and asides
    between aside; and of values whose clauses carry dates with their years, the earlier
    dated are history. A date a count runs from or today's date dates no value said. (Made up,
    from the turned answers of `bench/judge_agreement.py --turn`; every wrong one was accepted
    before.)"""
    verdict = judge_one("knowledge-update", question, reference, response)
    assert verdict.label is right, verdict.reason


_GOAL = "What was my previous goal for my Apex Legends level before I updated my goal?"
_RAISED = "How much more money did I raise than my initial goal in the charity cycling event?"


@pytest.mark.parametrize(
    ("question_type", "question", "reference", "response", "right"),
    [
        (
            "knowledge-update",
            _GOAL,
            "level 100",
            "Your previous goal was level 150. You later updated your goal to level 100, which "
            "is your current goal.",
            False,
        ),
        (
            "knowledge-update",
            _GOAL,
            "level 100",
            "Your previous goal was level 100. You later updated your goal to level 150, which "
            "is your current goal.",
            True,
        ),
        (
            "knowledge-update",
            _GOAL,
            "level 100",
            "You set a goal of reaching level 100, and that is the only goal you mentioned.",
            True,
        ),
        (
            "knowledge-update",
            "How many autographed baseballs did I add in the first three months of collecting?",
            "15",
            "In the first three months you added 15 baseballs. By December, that number had "
            "grown to 20.",
            True,
        ),
        (
            "knowledge-update",
            "How many autographed baseballs did I add in the first three months of collecting?",
            "15",
            "In the first three months you added 20 baseballs. By December, that number had "
            "grown to 15.",
            False,
        ),
        # elsewhere an earlier value is a term of the answer, not the answer
        (
            "multi-session",
            _RAISED,
            "$50",
            "You initially aimed to raise $200 and ended up raising $250, so you exceeded your "
            "initial goal by $50.",
            True,
        ),
    ],
)
def test_knowledge_update_that_asks_an_earlier_value(
    question_type, question, reference, response, right
):
    """A knowledge update that asks for an earlier value ("my previous goal", "in the first
    three months") is answered by the value the response calls former, not by the one it gives
    as now, when it gives both. (Made up, from the turned answers of `bench/judge_agreement.py
    --turn`; the wrong ones were accepted before.)"""
    verdict = judge_one(question_type, question, reference, response)
    assert verdict.label is right, verdict.reason


def test_preference_response_that_calls_its_advice_general_is_not_personalised():
    """A response that says it gives general advice does not use the user's details, even when
    it names something the rubric names (made-up rubric and responses)."""
    q = "Any tips for baking bread this weekend?"
    rubric = (
        "The user would prefer suggestions that build on their sourdough starter Bubbles and "
        "their cast-iron Dutch oven. They might not prefer generic bread advice."
    )
    general = (
        "I don't know much about your baking so far, so I'll provide some general tips: bake "
        "in a Dutch oven to trap steam, and let the dough rise somewhere warm."
    )
    assert judge_one("single-session-preference", q, rubric, general).label is False
    here_are = "Here are some general suggestions: a Dutch oven helps, and so does patience."
    assert judge_one("single-session-preference", q, rubric, here_are).label is False
    # Describing what something else lacks is not calling its own advice general.
    negated = (
        "Your notes don't provide general tips, but since you feed Bubbles daily, bake when "
        "it peaks and preheat your Dutch oven for 45 minutes."
    )
    assert judge_one("single-session-preference", q, rubric, negated).label is True
    personal = "Since you have Bubbles going, try a longer cold proof in your Dutch oven."
    assert judge_one("single-session-preference", q, rubric, personal).label is True


_NIGHT_OUT = (
    "Any ideas for a night out in Austin?",
    "The user would prefer suggestions that take into account their love of live music and "
    "their memorable meeting with Julia Rivers at a bar downtown. They might not prefer "
    "generic tourist spots.",
)
_PHONE = (
    "Can you suggest some useful accessories for my phone?",
    "The user would prefer suggestions of accessories that are compatible with a Pixel 8 Pro, "
    "such as screen protectors and durable cases. They may not prefer accessories for other "
    "brands.",
)
_PARK = (
    "I'm planning another theme park weekend; any suggestions?",
    "The user would prefer suggestions that build on their visits to Seven Peaks Water Park "
    "and its wave pool. They might not prefer suggestions of quiet museums.",
)
_BUDGET = (
    "Any suggestions for upgrading my home office?",
    "The user would prefer suggestions that fit their budget of $1,200 and their standing desk. "
    "They might not prefer expensive renovations.",
)
_DOCUMENTARY = (
    "I've got some free time tonight, any documentary recommendations?",
    "The user would prefer documentary recommendations similar to 'Free Solo' and 'Deep "
    "Water', which they have enjoyed. They might not prefer light comedies.",
)


@pytest.mark.parametrize(
    ("case", "response", "personal"),
    [
        (_NIGHT_OUT, "Catch a Julia Rivers show if she is in town.", True),
        (_NIGHT_OUT, "Check whether Rivers is touring; her new album is out.", True),
        (_NIGHT_OUT, "Spend the evening by the rivers and take a sunset walk.", False),
        (_NIGHT_OUT, "Take a boat tour on one of the Rivers Edge cruises.", False),
        (_PHONE, "A slim case made for the Pixel would fit well.", True),
        (_PHONE, "Get a screen protector cut for the 8 Pro.", True),
        (_PHONE, "Here are some pro tips: keep it charged and use a grip.", False),
        (_PHONE, "Try Adobe Premiere Pro on your laptop for editing the clips.", False),
        (_PHONE, "I have 8 suggestions for you.", False),
        (_PARK, "Go back to Seven Peaks and try the slides you skipped.", True),
        (_PARK, "Here are 7 ideas for a weekend away.", False),
        (_BUDGET, "Within your $1,200, a monitor arm and a good chair both fit.", True),
        (_BUDGET, "Step 1: declutter. Step 2: add a plant.", False),
        (_DOCUMENTARY, "Since you liked Free Solo, try The Alpinist.", True),
        (_DOCUMENTARY, "If Deep Water gripped you, try another sea documentary.", True),
        (_DOCUMENTARY, "Consider a solo walk, or a quiet evening with a book.", False),
    ],
)
def test_preference_rubric_name_of_several_words_is_said_as_a_name(case, response, personal):
    """A rubric's name of several words is the user's detail, not each of its words: "Rivers"
    in "rivers and mountains", "Pro" in "pro tips" or in another name ("Premiere Pro"), "7" for
    "Seven Peaks", or "solo" for "Free Solo" (whose "free" the question also holds) name
    nothing of the user. Two of its words side by side, or a name written with only its words,
    do. A rubric's "$1,200" is 1200, not a 1 and a 200. (Made-up rubrics; before this, every one
    of the False cases was accepted.)"""
    question, rubric = case
    verdict = judge_one("single-session-preference", question, rubric, response)
    assert verdict.label is personal, verdict.reason


def test_preference_rubric_prepositions_are_no_details_of_the_user():
    """ "Up", "around" and "within" say where dust is, not what the user has: a response that
    uses them for its own ends names nothing of the rubric (made up; it was accepted on "up
    around" before)."""
    q = "My apartment feels stuffy lately. Any tips?"
    rubric = (
        "The user would prefer tips that deal with the dust piling up around their bookshelves "
        "and within the air vents. They might not prefer generic cleaning advice."
    )
    unrelated = "Back up your files, walk around the block, and stay within your budget."
    assert judge_one("single-session-preference", q, rubric, unrelated).label is False
    personal = "Wipe the dust off the bookshelves and vacuum the air vents."
    assert judge_one("single-session-preference", q, rubric, personal).label is True


def test_preference_words_the_rubric_names_as_unwanted_are_no_details_of_the_user():
    """A word the rubric's negative sentence uses for what the user would not want ("more true
    crime podcasts") does not tell a preferred response from a dispreferred one, even where its
    positive sentence uses it too ("audiobooks or podcasts"). What the negative sentence names
    after a negation of its own ("tips that don't build on their rye flour") or after it turns
    (", and would appreciate ...") is what they do want, and stays a detail (made up)."""
    q = "Any ideas for what to listen to on my runs?"
    rubric = (
        "The user would prefer suggestions of audiobooks or podcasts in genres beyond true "
        "crime, such as history or science. They would not prefer more true crime podcasts, as "
        "they want a change."
    )
    more_of_the_same = "Try true crime podcasts like Serial, or a thriller audiobook."
    assert judge_one("single-session-preference", q, rubric, more_of_the_same).label is False
    personal = "Since you want a change, try a history podcast or a science audiobook."
    assert judge_one("single-session-preference", q, rubric, personal).label is True
    # "your conversation history" names the record searched, not the genre the rubric wants
    for record in ("your conversation history", "your history", "the chat histories"):
        generic = f"Based on {record}, you could try a science audiobook."
        assert judge_one("single-session-preference", q, rubric, generic).label is False, record
    genre = "You could try a history or science audiobook."
    assert judge_one("single-session-preference", q, rubric, genre).label is True

    q = "Any ideas for my baking this weekend?"
    rye = "Bake a loaf with your rye flour."
    for negative in (
        "They might not prefer generic bread recipes or tips that don't build on their rye flour.",
        "They would not prefer store-bought mixes, and would appreciate uses for their rye flour.",
        "They would find store-bought mixes or tips that ignore their rye flour unhelpful.",
    ):
        rubric = f"The user would prefer ideas that use their rye flour. {negative}"
        assert judge_one("single-session-preference", q, rubric, rye).label is True, negative
    rubric = "The user would prefer ideas that use their rye flour. They might not prefer rye."
    assert judge_one("single-session-preference", q, rubric, rye).label is False


def test_preference_advice_that_says_rather_than_does_not_disclaim_the_users_details():
    """The phrases "rather than", "but not" and ", not X" name what a history holds instead of
    an asked detail: an abstention only for an unanswerable question. In advice they are
    ordinary wording, so they do not make a response say it lacks the user's information
    (made-up rubric and responses; the rubric names no proper noun, so only its detail words
    can count)."""
    from memrecall.abstention import says_missing

    q = "Any tips for baking bread this weekend?"
    rubric = (
        "The user would prefer suggestions that build on their sourdough starter and their "
        "cast-iron pot. They might not prefer generic bread advice."
    )
    advice = (
        "Since you keep a sourdough starter, feed it the night before. Bake in your cast-iron "
        "pot rather than on a tray, so the crust gets the steam it needs."
    )
    assert says_missing(advice) and not says_missing(advice, instead=False)
    assert judge_one("single-session-preference", q, rubric, advice).label is True
    disclaimer = "I don't have your baking history. " + advice
    assert judge_one("single-session-preference", q, rubric, disclaimer).label is False
    # what it did find, after the turn of the same sentence, is recalled all the same
    turned = (
        "I didn't find any past conversations about bread, but I did notice you've been "
        "feeding a sourdough starter. Try a longer cold proof this weekend."
    )
    assert judge_one("single-session-preference", q, rubric, turned).label is True
    # For an unanswerable question the same words still abstain: "only mentioned", "but not".
    assert says_missing("You only mentioned the starter, not the pot.", instead=True)


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("No later session updates that figure.", False),
        ("You haven't mentioned changing this since.", False),
        ("There's no record of it changing since then.", False),
        ("You never updated that figure.", False),
        ("Nothing later revises the count.", False),
        # what the question asks about, denied, is still missing
        ("You didn't mention changing jobs.", True),
        ("There is no record of the trip.", True),
        ("No session mentions a later visit.", True),
    ],
)
def test_a_note_that_nothing_changed_later_says_nothing_is_missing(text, missing):
    from memrecall.abstention import says_missing

    assert says_missing(text) is missing


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        # a negated verb of telling or turning up, in any tense
        ("Honestly, that topic never surfaces anywhere in our chats.", True),
        ("We've never gotten into your sister's job.", True),
        ("Your notes never touched on a second car.", True),
        ("It isn't anything you've shared with me.", True),
        ("You have yet to tell me which gym you joined.", True),
        ("A move to Denver hasn't shown up in any session.", True),
        ("I'm not finding a wedding date anywhere.", True),
        ("The hotel name is missing from what you wrote.", True),
        ("I'm drawing a blank on that one.", True),
        ("The budget isn't something we've covered.", True),
        ("We haven't spoken about your brother's car.", True),
        ("There has been no talk of a second trip.", True),
        # nothing that contradicts the answer given backs it
        ("It was the red one; nothing you've said suggests otherwise.", False),
        ("You never told me otherwise, so it's 12.", False),
        # a hedge, an imperative, a determiner, a warranty: no history's silence
        ("I'm not sure what you said about it, but it was 12.", False),
        ("Don't hesitate to share more about the menu.", False),
        ("Set a no work talk rule for the evening.", False),
        ("Stevia and monk fruit do not raise blood sugar.", False),
        ("The warranty doesn't cover water damage.", False),
    ],
)
def test_a_negated_telling_in_any_tense_says_the_information_is_missing(text, missing):
    """The general form of the abstention phrases (made-up sentences): what the history does
    not hold, said with any verb of telling, discussing or turning up, in any tense."""
    from memrecall.abstention import says_missing

    assert says_missing(text, instead=False) is missing


@pytest.mark.parametrize("name", ["Dr. Lee", '"Dr. Lee"', "**Dr. Lee**", "_Dr. Lee_"])
def test_what_the_history_holds_instead_reads_the_same_quoted_or_in_bold(name):
    """ ", not X" names what the history holds instead of the asked detail, however X is set
    (made-up response)."""
    from memrecall.abstention import says_missing

    said = f"You see Dr. Park every two weeks, not {name}."
    assert says_missing(said) and not says_missing(said, instead=False)


@pytest.mark.parametrize(
    ("qtype", "question", "gold", "response", "expected"),
    [
        # a number in bold before its unit of time is the whole value
        ("multi-session", "How long is my commute?", "1.5 hours", "About **1.5** hours.", True),
        ("multi-session", "How long is my commute?", "1.5 hours", "About **2.5** hours.", False),
        ("single-session-user", "When does my class start?", "7 PM", "At **7** PM.", True),
        ("single-session-user", "When does my class start?", "7 PM", "At **9** PM.", False),
        # before another word the bold marks the answer
        (
            "multi-session",
            "How many days was my break?",
            "17",
            "A total of **17** break days.",
            True,
        ),
        # an inline citation names where it read, not what it says
        (
            "multi-session",
            "How many plants do I have?",
            "3",
            "You have 3 plants [Session 2].",
            True,
        ),
        (
            "multi-session",
            "How many plants do I have?",
            "2",
            "You have 3 plants [Session 2].",
            False,
        ),
        (
            "temporal-reasoning",
            "Which gift did I buy first, the necklace for my sister or the photo album for my mom?",
            "the necklace for my sister",
            "You bought the necklace for your sister first [Session 2]. You got it last weekend and"
            " ordered the photo album two weeks ago (Session 4). This means the necklace purchase"
            " was more recent than the photo album purchase [Session 2].",
            True,
        ),
        # a numbered heading is no sentence that opens the answer
        (
            "temporal-reasoning",
            "How long ago did I visit the museum?",
            "5 months",
            "### 1. Answer\n\nI cannot definitively answer this question.\n\nThe closest message"
            " says you went about 5 months ago.",
            False,
        ),
        # a negation in bold is the plain negation
        (
            "single-session-user",
            "What is my hamster called?",
            "Luna",
            "You did **not** say.",
            False,
        ),
        (
            "single-session-user",
            "What is my hamster called?",
            "Not mentioned",
            "You did **not** say.",
            True,
        ),
    ],
)
def test_emphasis_and_inline_citations_read_as_the_plain_words(
    qtype, question, gold, response, expected
):
    """Made-up responses: emphasis and citations are house style, not part of what is said."""
    abstention = gold == "Not mentioned"
    assert judge_one(qtype, question, gold, response, is_abstention=abstention).label is expected


def test_a_published_answer_is_read_after_its_models_thinking():
    """A reasoning model's answer as published may keep its `<think>` block: the rules read
    what follows it, so a number or option it only thought about is not its answer, and an
    answer cut off inside its thinking gives none (made-up question and responses)."""
    q = "How many bikes do I own?"
    thought_right = (
        "<think>You had 3, then bought one: 4? No, you sold one.</think>\nYou own 3 bikes."
    )
    assert judge_one("multi-session", q, "4", thought_right).label is False
    assert judge_one("multi-session", q, "3", thought_right).label is True
    assert judge_one("multi-session", q, "4", "<think>4 bikes, I think").label is False
    choice = "Which did I take first, the pottery class or the yoga class?"
    thinking = "<think>Yoga was May 3, pottery May 1, so pottery came first.</think>Pottery."
    assert judge_one("temporal-reasoning", choice, "the pottery class", thinking).label is True
    wrong = "<think>Pottery came first? The dates say yoga.</think>The yoga class came first."
    assert judge_one("temporal-reasoning", choice, "the pottery class", wrong).label is False
    # the tags a chain-of-thought prompt asks for read the same way
    tagged = thought_right.replace("think>", "thinking>")
    assert judge_one("multi-session", q, "4", tagged).label is False
    assert judge_one("multi-session", q, "3", tagged).label is True
    cut = "<reasoning>Pottery came first? The dates say yoga."
    assert judge_one("temporal-reasoning", choice, "the pottery class", cut).label is False


def test_a_line_break_inside_a_sentence_reads_as_a_space():
    """Made-up responses wrapped at a fixed width: the sentence goes on across the break, so a
    number or option after it is still what the sentence says, and a correction still settles
    the answer. Where a line plainly ends (a stop, a colon, a list item, a capital after a
    complete line) the break stays."""
    from memrecall.judge.rules.response import as_markdown

    assert as_markdown("you had been taking classes for\nabout 6 weeks.") == (
        "you had been taking classes for about 6 weeks."
    )
    assert as_markdown("the first one you took care of in\nFebruary was") == (
        "the first one you took care of in February was"
    )
    for kept in (
        "Total: 10 years\nPlease confirm",
        "You listed:\n1. a fern\n2. a cactus",
        "## Answer\nthree",
        "**Summary**\nthree plants",
        "- a fern\n- a cactus",
        "| a | b |\nnext",
        "a total of\n12. x",
    ):
        assert as_markdown(kept) == kept, kept
    q = "How many new postcards have I added since I started collecting again?"
    corrected = "25 is what you said first. The correct figure, from your later message,\nis 38."
    assert judge_one("knowledge-update", q, "38", corrected).label is True
    assert judge_one("knowledge-update", q, "25", corrected).label is False
    choice = "Which vehicle did I take care of first in February, the bike or the car?"
    wrapped = (
        "Based on what you told me, the first vehicle you took care of in\nFebruary was\nthe car."
    )
    assert judge_one("temporal-reasoning", choice, "car", wrapped).label is True
    assert judge_one("temporal-reasoning", choice, "bike", wrapped).label is False
    # Text wrapped at a width: a break the next word's length forced goes on, whatever it
    # starts with ("on **Valentine's\nDay**"); a list item after it still opens a line.
    said = (
        'Based on the memory records, you volunteered at the **"Love is in the Air"** '
        "fundraising dinner at your local animal shelter on **Valentine's Day**. The exact "
        "year isn't specified in the records, but it was mentioned in a conversation from "
        "around April 2023."
    )
    listed = "\n- the dinner\n- the raffle"
    wrapped_at_width = textwrap.fill(said, 72, break_on_hyphens=False) + listed
    assert "**Valentine's\nDay**" in wrapped_at_width
    assert as_markdown(wrapped_at_width) == said + listed
    when = "When did I volunteer at the animal shelter's fundraising dinner?"
    assert judge_one("single-session-user", when, "February 14th", wrapped_at_width).label is True
    # lines that are not wrapped (the widest is long, or the breaks fall short of it) stay
    for kept in ("A short line.\nAnother one here.\nAnd a third.", "x" * 120 + "\nNext line"):
        assert as_markdown(kept) == kept


def test_a_json_object_holding_only_the_answer_reads_as_that_answer():
    """A structured output that delivers the whole response as its one answer field reads as
    the response itself, its escaped line breaks as line breaks: its paragraphs and its
    concluding line are where they were (made-up responses)."""
    rubric = (
        "The user would prefer responses that build upon their experiments with muscovado sugar."
        " They might not prefer generic baking advice."
    )
    personal = (
        "Your history doesn't hold an earlier talk about banana bread. I can't answer that from"
        " it.\n\nThat said, you've tried **muscovado sugar** in your baking: swap half the white"
        " sugar for it to deepen the flavour."
    )
    concluded = (
        "**Step 1: Extract relevant information**\nYou went to Lisbon with your family for a"
        " week.\n\n**Step 2: Reason**\nThe trip you named was to Lisbon.\n\nTherefore, the"
        " answer is:\nLisbon"
    )
    trip = "Where did I go on a week-long trip with my family?"
    for dress in (
        lambda r: json.dumps({"answer": r}),
        lambda r: "```json\n" + json.dumps({"final_answer": r}, indent=2) + "\n```",
    ):
        advice = "My banana bread needs something extra. Any advice?"
        verdict = judge_one("single-session-preference", advice, rubric, dress(personal))
        assert verdict.label is True, verdict.reason
        verdict = judge_one("single-session-user", trip, "Lisbon", dress(concluded))
        assert verdict.label is True, verdict.reason
        assert judge_one("single-session-user", trip, "Porto", dress(concluded)).label is False
    # beside other fields the answer field is still the answer, and the rest is read too
    other = json.dumps({"answer": "Porto", "confidence": "high"})
    assert judge_one("single-session-user", trip, "Lisbon", other).label is False


def test_a_time_of_day_reads_the_same_on_either_clock():
    """Made-up answers: "6 am - 2 pm" is "06:00 - 14:00" and "6.00am to 2pm"; a preference rubric's
    "before 9:30 pm" is used by advice that says "by 21:30". A different time is not."""
    q = "Which shift did Priya have on Mondays in the rota you drew up?"
    gold = "Priya was assigned to the 6 am - 2 pm early shift on Mondays."
    for said, expected in (
        ("Priya's Monday slot is 06:00 – 14:00, the early shift.", True),
        ("Priya's Monday slot is 6.00am to 2pm, the early shift.", True),
        ("Priya's Monday slot is 06:00 – 12:00, the early shift.", False),
    ):
        assert judge_one("single-session-assistant", q, gold, said).label is expected, said
    rubric = (
        "The user would prefer relaxing activities for the evening, preferably before 9:30 pm."
        " They would not prefer suggestions that involve screens."
    )
    evening = "Can you suggest some activities that I can do in the evening?"
    for said, expected in (
        ("Wind down with a book and be in bed by 21:30.", True),
        ("Wind down with a book and be in bed by 9.30pm.", True),
        ("Wind down with a book and be in bed by 20:30.", False),
    ):
        verdict = judge_one("single-session-preference", evening, rubric, said)
        assert verdict.label is expected, (said, verdict.reason)


def test_currency_codes_and_spaced_thousands_are_the_amount():
    """Made-up answers: "USD 2,500" and "US$2,500" are $2,500, "not USD 2,500" denies it, and
    "12\u202f000" (thousands set apart by a narrow space, as SI style writes them) is 12,000."""
    q = "How much was I pre-approved for?"
    for said, expected in (
        ("You were pre-approved for USD 2,500.", True),
        ("You were pre-approved for US$2,500.", True),
        ("You were pre-approved for USD 2,000 (not USD 2,500).", False),
    ):
        assert judge_one("single-session-user", q, "$2,500", said).label is expected, said
    steps = "What is my daily step goal?"
    for said, expected in (
        ("Your goal is 12\u202f000 steps a day.", True),
        ("Your goal is 12\u2009000 steps a day.", True),
        ("Your goal is 10\u202f000 steps a day.", False),
    ):
        assert judge_one("single-session-user", steps, "12,000 steps", said).label is expected


def test_a_response_damaged_on_the_way_to_its_file_reads_as_written():
    """Made-up responses as a published file may hold them: mojibake ("donâ€™t"), line breaks
    escaped twice, a tag around all of it. Each reads as the response it was."""
    from memrecall.judge.rules.response import repaired

    assert repaired("I donâ€™t have that â€” sorry.") == "I don't have that — sorry."
    assert repaired('You own 3.\\n\\nThey are \\"road\\" bikes.') == (
        'You own 3.\n\nThey are "road" bikes.'
    )
    assert repaired("<response>\nYou own 3.\n</response>") == "You own 3."
    # a response with real line breaks keeps a backslash it writes; a tag inside it stays
    assert repaired("Use C:\\new\nfolder") == "Use C:\\new\nfolder"
    assert repaired("<b>3</b> bikes") == "<b>3</b> bikes"
    hamster = "What is my hamster called?"
    abstains = "I donâ€™t have any record of a hamster.\\n\\nYou mentioned your cat Luna."
    verdict = judge_one(
        "single-session-user", hamster, "Not mentioned", abstains, is_abstention=True
    )
    assert verdict.label is True, verdict.reason
    declines = (
        "<response>\nI canâ€™t tell from our chats.\n\nYou did mention Luna, your cat.\n</response>"
    )
    assert judge_one("single-session-user", hamster, "Luna", declines).label is False


@pytest.mark.parametrize(
    "footer",
    [
        "_Last updated: 2023-05-30_",
        "*Answer generated from 12 retrieved sessions.*",
        "(Retrieved 5 memories)",
        "— Your memory assistant",
        "P.S. Let me know if you want me to save anything new.",
        "Sources consulted: 4 sessions",
    ],
)
def test_a_footer_on_how_the_response_was_made_answers_nothing(footer):
    """Made-up responses with a closing line about how they were made (when, from what, by
    whom): the response still closes by declining, and the footer's numbers count nothing."""
    q = "How many plants did I buy last month?"
    declines = "You bought a fern in May.\n\nI can't tell how many plants you bought last month."
    assert judge_one("multi-session", q, "3", declines + "\n\n" + footer).label is False
    for gold in ("3", "4", "5", "12"):
        counted = "You bought 2 plants last month: a fern and a cactus.\n\n" + footer
        assert judge_one("multi-session", q, gold, counted).label is False, gold
        assert judge_one("multi-session", q, "2", counted).label is True


def test_order_response_that_says_the_order_is_missing_gives_none():
    """Naming the question's items in the question's own order after saying the order is not
    known is no ordering (made-up question and responses)."""
    q = "In what order did I visit Lisbon, Porto and Madrid?"
    a = "First Lisbon, then Porto, and Madrid last."
    missing = "I have no record of when you visited Lisbon, Porto and Madrid."
    assert judge_one("temporal-reasoning", q, a, missing).label is False
    turn = "I don't have exact dates, but you went to Lisbon, then Porto, then Madrid."
    assert judge_one("temporal-reasoning", q, a, turn).label is True
    assert judge_one("temporal-reasoning", q, a, "Lisbon, then Porto, then Madrid.").label is True


def test_compound_duration_is_one_quantity():
    """'3 years and 7 months' is one duration (43 months): a response giving another duration
    with the same leading part is not the answer (made-up question and responses)."""
    q = "How long did I live in Oslo before moving to Bergen?"
    a = "3 years and 7 months"
    assert [(x.value, x.unit) for x in quantities("3 years and 7 months")] == [(43.0, "month")]
    assert [(x.value, x.unit) for x in quantities("2 hours, 15 minutes")] == [(135.0, "minute")]
    # A smaller unit before a larger one, or two of the same unit, are separate quantities.
    assert len(quantities("8 days and 4 days")) == 2
    assert len(quantities("2 days and 3 weeks")) == 2
    other = "You had lived in Oslo for about 3 years and 1 month when you moved."
    assert judge_one("multi-session", q, a, other).label is False
    right = "You lived in Oslo for 3 years and 7 months before the move."
    assert judge_one("multi-session", q, a, right).label is True
    assert judge_one("multi-session", q, a, "43 months").label is True


def test_bare_number_that_counts_a_noun_is_not_a_duration():
    """For a duration question, a lone number that counts something else ("those 2 trips") is
    not the answer; a lone number standing alone is (made-up question and responses)."""
    q = "How many weeks passed between my dentist visit and my eye exam?"
    asks = (
        "You told me about both appointments; share their dates and I'll count the weeks "
        "between those 2 visits."
    )
    assert judge_one("temporal-reasoning", q, "3 weeks", asks).label is False
    assert judge_one("temporal-reasoning", q, "3 weeks", "It was 3.").label is True
    assert judge_one("temporal-reasoning", q, "3 weeks", "3").label is True
    assert judge_one("temporal-reasoning", q, "3 weeks", "About 3 weeks.").label is True


def test_reference_with_two_frequencies_needs_both_in_order():
    """A knowledge update between two frequencies is answered by giving both, the earlier one
    first, whatever framing words the response uses (made-up question and responses)."""
    q = "How often did I go swimming before, and how often do I go now?"
    a = "Before, you swam every day (at the lake). Now, you swim every other day (at the lake)."
    right = "You used to swim daily; these days you go every other day."
    assert judge_one("knowledge-update", q, a, right).label is True
    swapped = "You used to swim every other day, and now you swim daily."
    assert judge_one("knowledge-update", q, a, swapped).label is False
    only_now = "You swim every other day at the lake."
    assert judge_one("knowledge-update", q, a, only_now).label is False


def test_number_just_out_of_reach_is_not_that_number():
    """'close to 500', 'almost 500' say the count is below 500, so they do not give 500
    (made-up question and responses)."""
    q = "How many subscribers does my newsletter have now?"
    for near in ("You said you were close to 500 subscribers.", "Almost 500, by your last note."):
        assert judge_one("knowledge-update", q, "500", near).label is False, near
        assert quantities(near) == []
    assert judge_one("knowledge-update", q, "500", "You reached 500 subscribers.").label is True
    assert judge_one("knowledge-update", q, "500", "About 500 now.").label is True


def test_abstention_that_asks_the_user_for_the_information():
    """An unanswerable question is identified as such by a response that asks the user for the
    missing detail; a closing offer of more help asks for nothing (made-up responses)."""
    q = "What time did my sailing lesson start?"
    expl = "You did not mention this information. You mentioned a kayaking lesson, not sailing."
    for text in (
        "To work out when the sailing lesson began, could you tell me which day it was on?",
        "I'd need more details from you: please share the booking confirmation.",
    ):
        assert judge_one("single-session-user", q, expl, text, is_abstention=True).label, text
    guess = "Your sailing lesson started at 9 am. Please let me know if you want more detail."
    assert not judge_one("single-session-user", q, expl, guess, is_abstention=True).label


def test_abstention_in_words_the_labelled_runs_do_not_use():
    """Terse and plain ways to say the history does not hold the answer, which no labelled
    run uses ("Unknown", "N/A", "No sailing lesson was mentioned", "I don't recall", "It is
    unclear"); a bare "None" may be a count, and a stated answer is no abstention (made-up
    responses)."""
    q = "What time did my sailing lesson start?"
    expl = "You did not mention this information. You mentioned a kayaking lesson, not sailing."
    for text in (
        "Unknown.",
        "N/A",
        "Not mentioned",
        "Unanswerable",
        "No sailing lesson was mentioned.",
        "I don't recall you telling me about a sailing lesson.",
        "It is unclear from our chats.",
        "That never came up.",
        "I'm not aware of a sailing lesson.",
    ):
        assert judge_one("single-session-user", q, expl, text, is_abstention=True).label, text
    for text in ("None", "It started at 9 am.", "Unknown to me before, but it started at 9."):
        assert not judge_one("single-session-user", q, expl, text, is_abstention=True).label, text


def test_abstention_in_more_words_of_its_meaning():
    """More ways to say the history does not hold the answer, written from the meaning (no
    labelled run uses them): it cannot be located, the history lacks it or is silent on it, the
    records do not show it, it is not something the user said, only something else is there."""
    q = "How long do I practise the violin every day?"
    expl = "You did not mention this information. You mentioned guitar practice, not violin."
    for text in (
        "Unfortunately, I couldn't locate any details about violin practice.",
        "The chat history lacks information regarding violin practice.",
        "I have no knowledge of your violin practice.",
        "The records don't show any violin practice.",
        "The history only mentions guitar practice.",
        "I only have information about your guitar practice.",
        "Sorry, that's not something you've told me.",
        "The chat history is silent on violin practice.",
        "I do not possess that information.",
        # the twelfth round's: no trace of it, nowhere in the history, not documented, none of
        # the sessions discuss it, never touched on
        "There's no trace of violin practice in the history.",
        "Nowhere in our past sessions do you mention a violin.",
        "Violin practice isn't documented anywhere in the sessions.",
        "None of the sessions discuss violin practice.",
        "Our chats never touched on a violin.",
        # the twenty-second round's: the source as the subject
        "No session mentions a violin; you practise the guitar for 20 minutes a day.",
        "No earlier message covers violin practice.",
    ):
        assert judge_one("single-session-user", q, expl, text, is_abstention=True).label, text
    for text in (
        "You practise the violin for 30 minutes a day.",
        "Thirty minutes, every day.",
        "No other session gives a different time. Answer: 30 minutes a day.",
    ):
        assert not judge_one("single-session-user", q, expl, text, is_abstention=True).label, text


def test_yes_no_answered_without_the_words_yes_or_no():
    """A response can answer a yes/no question without "yes" or "no": a bare "You do!", an
    emphatic or negated "do", an opening "I'm afraid not", or a statement of the question's own
    claim. A restatement that only asks, offers or says the detail is missing answers nothing
    (made-up responses)."""
    q = "Do I have a spare screwdriver for opening up my laptop?"
    for gold, text in (
        ("Yes", "You do! You picked one up when you organised your desk."),
        ("Yes", "You do have a spare screwdriver: you picked it up when organising your desk."),
        ("Yes", "Sure do — you bought a spare last month."),
        ("Yes", "It looks like you do; you bought a spare last month."),
        ("Yes", "Therefore, you have a spare screwdriver for opening up your laptop."),
        ("No", "You don't — you only have the one that came with the laptop."),
        ("No", "You do not have a spare screwdriver."),
        ("No", "I'm afraid not. You only mentioned the original one."),
        ("No", "Unfortunately not — you lent your spare to a friend."),
        ("No", "Not that I know of; you only have the original."),
        ("No", "It doesn't look like it: you gave the spare away."),
        ("No", "So you have no spare screwdriver for opening the laptop any more."),
        ("No", "You no longer have it; you gave it away."),
        ("No", "You don't seem to have one anymore; you lent it away."),
        # the twelfth round's: after a lead-in, "you sure did", "you never", "not quite"
        ("Yes", "Based on our chats, you do — you bought a spare last month."),
        ("Yes", "You sure do! You bought a spare last month."),
        ("No", "Unfortunately, you don't: you lent your spare to a friend."),
        ("No", "You never replaced the one you lent out."),
        ("No", "Not quite — you only have the screwdriver that came with the laptop."),
    ):
        assert judge_one("knowledge-update", q, gold, text).label, text
    for text in (
        "You never mentioned a spare screwdriver.",
        "Based on our chats, you never told me about a spare screwdriver.",
        "I can check whether you have a spare screwdriver for opening your laptop.",
        "I'd be happy to look for a spare screwdriver for your laptop if you describe it!",
        "I have no record of a spare screwdriver for opening your laptop.",
        "Do you have a spare screwdriver for opening your laptop?",
    ):
        assert not judge_one("knowledge-update", q, "Yes", text).label, text
        assert not judge_one("knowledge-update", q, "No", text).label, text


def test_superlative_question_is_answered_by_the_statement_that_carries_it():
    """For "which ... the most ...?", the response's statement with "most" gives its answer; the
    reference named afterwards as a compared option does not answer (made-up question and
    responses)."""
    q = "Which cafe did I visit the most last month?"
    a = "Cafe Lumen"
    other = (
        "You visited Bean Street the most last month, four times. Cafe Lumen came up twice, "
        "and you went to Harbor Roast once."
    )
    assert judge_one("multi-session", q, a, other).label is False
    right = "Cafe Lumen: you visited it the most, five times, ahead of Bean Street."
    assert judge_one("multi-session", q, a, right).label is True
    plain_answer = "Cafe Lumen, five visits."
    assert judge_one("multi-session", q, a, plain_answer).label is True
    negated = "You did not go to Bean Street the most; Cafe Lumen had five visits."
    assert judge_one("multi-session", q, a, negated).label is True
    restated = "To find which cafe you visited the most, I counted: Cafe Lumen had five visits."
    assert judge_one("multi-session", q, a, restated).label is True
    # how sure the speaker is is no condition or negation of the statement
    for hedge in ("If I recall correctly, ", "I'm not 100% sure, but "):
        hedged = hedge + other[0].lower() + other[1:]
        assert judge_one("multi-session", q, a, hedged).label is False, hedge
    conditional = "If you count takeaway, Bean Street had the most; Cafe Lumen had five visits."
    assert judge_one("multi-session", q, a, conditional).label is True
    # a statement in bold ends after its closing marks, and the next one is another statement
    bold = (
        "**You visited Bean Street the most last month.** That is four visits, which is more "
        "than Cafe Lumen's two."
    )
    assert judge_one("multi-session", q, a, bold).label is False


def test_reference_restated_after_meaning_is_answered_by_either_form():
    """What follows ", meaning" in a reference says again what precedes it: a response that
    gives the first form answers (made-up question and responses)."""
    q = "You told me how to mix the window cleaner. What proportion did you suggest?"
    a = "The suggested mix is 1:4, meaning one part vinegar to four parts water."
    short = "It was **1:4** (vinegar to water)."
    assert judge_one("single-session-assistant", q, a, short).label is True
    spelled = "One part vinegar to four parts water."
    assert judge_one("single-session-assistant", q, a, spelled).label is True
    wrong = "It was 1:5, vinegar to water."
    assert judge_one("single-session-assistant", q, a, wrong).label is False


def test_order_is_read_from_where_the_response_states_it():
    """A response that lists its evidence by date and then states the order ("So the order
    is:", "**Chronological order:**", "from earliest to latest:") answers with that statement,
    when it places every item; the evidence's order is not its answer (made-up question and
    responses)."""
    q = "What is the order of the three trips I took, from earliest to latest?"
    a = "I went to Muir Woods, then to Big Sur, and finally to Yosemite."
    evidence = (
        "I found these sessions:\n1. Muir Woods (March 10)\n2. Big Sur (April 20)\n"
        "3. Yosemite (May 15)\n\n"
    )
    for statement in ("So the order is:", "**Chronological order:**", "From earliest to latest:"):
        wrong = evidence + statement + "\n1. Yosemite\n2. Big Sur\n3. Muir Woods"
        assert judge_one("temporal-reasoning", q, a, wrong).label is False, statement
        right = evidence + statement + "\n1. Muir Woods\n2. Big Sur\n3. Yosemite"
        assert judge_one("temporal-reasoning", q, a, right).label is True, statement
    # a statement that places only some items leaves the whole response to be read
    partial = evidence + "So the order is: Muir Woods came first."
    assert judge_one("temporal-reasoning", q, a, partial).label is True


def test_order_reference_written_as_a_sequence_of_steps():
    """A reference without names, written as a sequence ("First, ..., then ..., and lastly
    ..."), is an order of its steps: the response must mention them in that order; the sequence
    words need not be repeated. An apology's "but" is no turn: "I'm sorry, but I found no record
    of ..." gives no order (made-up question and responses)."""
    q = (
        "In what order did these happen: repainting the garage door, planting the herb garden, "
        "and cleaning the gutters?"
    )
    a = (
        "First, I repainted the garage door, then I planted the herb garden, and lastly, "
        "I cleaned the gutters."
    )
    listed = (
        "Here is the order:\n1. You repainted the garage door (April 2)\n"
        "2. You planted the herb garden (April 9)\n3. You cleaned the gutters (April 20)"
    )
    assert judge_one("temporal-reasoning", q, a, listed).label is True
    reversed_ = (
        "1. You cleaned the gutters (April 2)\n2. You planted the herb garden (April 9)\n"
        "3. You repainted the garage door (April 20)"
    )
    assert judge_one("temporal-reasoning", q, a, reversed_).label is False
    sorry = (
        "I'm sorry, but I couldn't find any record of these events:\n"
        "1. Repainting the garage door\n2. Planting the herb garden\n3. Cleaning the gutters"
    )
    assert judge_one("temporal-reasoning", q, a, sorry).label is False


def test_either_or_placing_with_first_after_a_determiner():
    """Which-came-first answers: "the first X ... was B" is the deciding sentence (normalising
    "first" to "1st" hid it), and "A was the first X" places A first; a bare "the first X"
    without "was" before it stays a description (made-up question and responses)."""
    q = "Which appliance did I repair first, the dryer or the oven?"
    described = (
        "The first appliance you repaired in May was the oven. There's no note of the dryer "
        "in those records."
    )
    assert judge_one("temporal-reasoning", q, "dryer", described).label is False
    assert judge_one("temporal-reasoning", q, "oven", described).label is True
    copula = (
        "Your notes say little about the oven, so it appears that fixing the dryer was the "
        "first repair you finished."
    )
    assert judge_one("temporal-reasoning", q, "dryer", copula).label is True
    assert judge_one("temporal-reasoning", q, "oven", copula).label is False


def test_numbers_that_label_a_session_or_step_are_not_counts():
    """ "Session 3" names where the history says something and "Step 2" a part of the
    reasoning; neither is a count, so "In Session 3 you mentioned one bike" answers 1, not 3,
    while "the session 3 weeks ago" still gives 3 weeks (made-up question and responses)."""
    q = "How many kayaks do I own now?"
    session = "In Session 3, you mentioned that you sold the old one and now keep just one kayak."
    assert judge_one("knowledge-update", q, "3", session).label is False
    assert judge_one("knowledge-update", q, "1", session).label is True
    steps = (
        "Step 1: Look for kayaks in the notes.\nIn Session 5, you said you bought one kayak.\n"
        "Step 2: Conclusion: you own 1 kayak."
    )
    assert judge_one("multi-session", q, "2", steps).label is False
    assert judge_one("multi-session", q, "1", steps).label is True
    weeks = "You brought it up in the session 3 weeks ago."
    assert quantities(weeks)[0].value == 3 and quantities(weeks)[0].unit == "week"


def test_operands_of_a_sum_are_not_its_result():
    """In "8 days + 6 days = 14 days" the response's number is the result, 14; the parts it
    adds are steps of the computation (made-up question and responses)."""
    q = "How many days before the recital did I buy the dance shoes?"
    a = "6 days. 7 days (including the last day) is also acceptable."
    summed = "From the 2nd to the 10th is 8 days + 6 days = 14 days before the recital."
    assert judge_one("temporal-reasoning", q, a, summed).label is False
    result = "That is 2 days + 4 days = 6 days before the recital."
    assert judge_one("temporal-reasoning", q, a, result).label is True
    assert [x.value for x in quantities("3 + 2 = 5 bikes, and 2 × 3 = 6 wheels")] == [5, 6]


def test_either_or_restated_alternatives_name_neither_option():
    """ "Between a ferry and a tram, ..." restates the question's alternatives; the option the
    response then names is its choice, even though the other one was named first (made-up
    question and responses)."""
    q = "Which did I use more recently, the ferry or the tram?"
    restated = "Between a ferry and a tram, the one you used was the tram, on Friday."
    assert judge_one("temporal-reasoning", q, "the tram", restated).label is True
    assert judge_one("temporal-reasoning", q, "the ferry", restated).label is False
    either = "Of either the ferry or the tram, your notes only show a ride on the ferry."
    assert judge_one("temporal-reasoning", q, "the ferry", either).label is True
    assert judge_one("temporal-reasoning", q, "the tram", either).label is False


def test_either_or_answer_is_not_dated_by_a_time_word():
    """A response that reasons over both options answers in its last sentence with a decision
    word; "last" in "as of our last conversation" dates the telling and decides nothing, so a
    corrected first statement is not the answer (made-up question and responses)."""
    q = "Did I switch to more water per tablespoon of coffee, or less?"
    said = (
        "{lead}you switched to **more water per tablespoon of coffee** — from 1 tablespoon per 6 "
        "ounces of water (February) to 1 tablespoon per 5 ounces of water (June). Wait — that's "
        "actually *less* water (5 oz vs 6 oz per tablespoon).\n\nTo be precise: you went from "
        "**1 tbsp per 6 oz** to **1 tbsp per 5 oz**, meaning you switched to **less water** per "
        "tablespoon of coffee."
    )
    for lead in ("", "As of our last conversation, ", "In the first week, "):
        response = said.format(lead=lead)
        assert judge_one("knowledge-update", q, "less water", response).label is True, lead
        assert judge_one("knowledge-update", q, "more water", response).label is False, lead


def test_a_count_of_the_historys_own_parts_is_no_answer():
    """ "Mentioned in thirty messages", "across 2 separate conversations" count where the
    response found its answer, not what the question counts, unless the question counts those
    parts (made-up questions and responses)."""
    q = "How many videos of the Python series have I completed so far?"
    sources = "You have completed 2 videos (this is mentioned in thirty messages from May 26)."
    assert judge_one("knowledge-update", q, "30", sources).label is False
    assert judge_one("knowledge-update", q, "2", sources).label is True
    across = "You visited 3 museums in February; I found them across 2 separate conversations."
    museums = "How many museums did I visit in February?"
    assert judge_one("multi-session", museums, "2", across).label is False
    sessions = "How many sessions of the bereavement support group did I attend?"
    assert judge_one("knowledge-update", sessions, "5", "You attended 5 sessions.").label is True


def test_one_of_a_group_is_no_count():
    """ "One of several classes", "one of the highlights" pick an item out of a group and count
    nothing; "only one of them" says how many (made-up question and responses)."""
    q = "How many pottery workshops did I sign up for?"
    picked = "The glaze workshop was one of several things you tried this spring."
    assert judge_one("multi-session", q, "1", picked).label is False
    highlight = "That workshop was one of the highlights of your month."
    assert judge_one("multi-session", q, "1", highlight).label is False
    only = "Only one of them was a pottery workshop: the glaze one."
    assert judge_one("multi-session", q, "1", only).label is True
    assert [x.value for x in quantities("just one of the four")] == [1, 4]


def test_one_or_two_is_a_range_like_1_to_2():
    """A hedge over two counts ("one or two") reads as the range "1-2" does: both judges accept
    a range at either end, so either count answers (made-up question and responses)."""
    q = "How many concerts did I go to in March?"
    for hedge in ("You went to one or two concerts in March.", "You went to 1-2 concerts."):
        assert judge_one("multi-session", q, "1", hedge).label is True
        assert judge_one("multi-session", q, "2", hedge).label is True
        assert judge_one("multi-session", q, "3", hedge).label is False


def test_numbers_inside_identifiers_are_not_counts():
    """A cited session id ("answer_9c1e77d2_3", "chat_12") names where the history says
    something; its numbers count nothing (made-up question, ids and responses)."""
    q = "How many yoga classes did I take last month?"
    cited = "Both answer_9c1e77d2_1 and answer_9c1e77d2_3 mention yoga: you took two classes."
    assert judge_one("multi-session", q, "3", cited).label is False
    assert judge_one("multi-session", q, "2", cited).label is True
    assert quantities("as noted in chat_12 and log_7b") == []
    assert normalize("@sam_lee_art and SIAC_GEE") == "@sam_lee_art and siac_gee"


def test_a_message_timestamp_is_not_a_reported_time():
    """ "2023/05/14 (Sun) 09:15" says when a message was sent, not the time the question asks
    about; a time after a word ("at 9:15 am") is reported (made-up question and responses)."""
    q = "What time did I leave for the airport?"
    stamped = "In the message of 2023/05/14 (Sun) 09:15 you said you'd leave right after lunch."
    assert judge_one("single-session-user", q, "9:15 am", stamped).label is False
    reported = "On 2023/05/14 (Sun) 08:02 you said you left at 9:15 am."
    assert judge_one("single-session-user", q, "9:15 am", reported).label is True
    assert judge_one("single-session-user", q, "8:02 am", reported).label is False
    iso = quantities("logged 2023-05-14T09:15:00")
    assert iso == []


def test_a_line_opening_no_before_a_noun_is_no_answer():
    """ "- No mention of the price" opens a line with "no" as a determiner; the answer is the
    "yes" that follows. "No I didn't" opens a line and a clause (made-up question and
    responses)."""
    q = "Did I end up renewing the gym membership?"
    listed = "- No mention of the price you paid\n- You said yes, you renewed it in June."
    assert judge_one("single-session-user", q, "Yes", listed).label is True
    assert judge_one("single-session-user", q, "No", listed).label is False
    clause = "No I don't think you renewed it; you cancelled in June."
    assert judge_one("single-session-user", q, "No", clause).label is True


def test_a_labelled_answer_is_read_apart_from_its_reasoning():
    """ "Answer: 4" followed by "Reasoning: ... 3 ..." answers 4; so do a JSON "answer" field
    and an `<answer>` tag, whatever numbers or names the reasoning beside them holds; and a
    labelled "Answer: N/A" abstains (made-up questions and responses)."""
    q = "How many kayaks do I own?"
    labelled = "Answer: 4\nReasoning: you listed 3 sea kayaks and 1 river kayak."
    assert judge_one("multi-session", q, "3", labelled).label is False
    assert judge_one("multi-session", q, "4", labelled).label is True
    bold = "**Final answer:** 4\n\n**Explanation:** 3 sea kayaks plus 1 river kayak."
    assert judge_one("multi-session", q, "3", bold).label is False
    as_json = '{"answer": 4, "reasoning": "3 sea kayaks and 1 river kayak"}'
    assert judge_one("multi-session", q, "3", as_json).label is False
    assert judge_one("multi-session", q, "4", as_json).label is True
    tagged = "<reasoning>3 sea kayaks, 1 river kayak</reasoning>\n<answer>4</answer>"
    assert judge_one("multi-session", q, "3", tagged).label is False
    yn = "Did I sell the red kayak?"
    json_no = '{"answer": "no", "reason": "you said yes to an offer, then kept it"}'
    assert judge_one("single-session-user", yn, "No", json_no).label is True
    name = "What is my kayak called?"
    named = "Answer: Otter\nReasoning: 'Heron' was the name of your old canoe."
    assert judge_one("single-session-user", name, "Heron", named).label is False
    for unknown in ("Answer: N/A", '{"answer": "unknown"}', "<answer>Unknown</answer>"):
        assert judge_one("single-session-user", name, "Not mentioned.", unknown, is_abstention=True)
    # A note qualifies the answer; it is not set apart from it.
    noted = "Answer: 3 kayaks.\nNote: you may own 4 now, if you kept the new one."
    assert judge_one("multi-session", q, "4", noted).label is True


def test_a_confidence_note_or_a_citation_is_no_answer():
    """ "Confidence: 3 out of 5", "(confidence: 20%)" rate the response and "[3]" cites a
    source; neither gives the asked number (made-up questions and responses)."""
    q = "How many kayaks do I own?"
    for note in (
        "You own 4 kayaks. Confidence: 3 out of 5",
        "You own 4 kayaks [3].",
        "You own 4 kayaks.[^3]",
        "You own 4 kayaks (sources: [1, 3]).",
    ):
        assert judge_one("multi-session", q, "3", note).label is False, note
        assert judge_one("multi-session", q, "4", note).label is True, note
    pct = "What discount did I get on the paddle, in percent?"
    rated = "You got 25% off (confidence: 20%). I'm 20% sure it was the spring sale."
    assert judge_one("single-session-user", pct, "20%", rated).label is False
    assert [x.value for x in quantities("[3 kayaks] and 4 sure bets")] == [3, 4]


def test_a_unit_glued_to_its_number_is_read():
    """ "3wks", "2hrs", "45min", "10yrs", "6mos", "27yo", "20 pct": the unit abbreviation glued
    to the number is still its unit; "5k" and "3d" stay unread (made-up questions and
    responses)."""
    assert judge_one("multi-session", "How many weeks was I in Peru?", "3 weeks", "3wks").label
    assert judge_one("multi-session", "How many days was I in Peru?", "21 days", "3wks").label
    assert judge_one("multi-session", "How many minutes is my bus ride?", "45", "45min").label
    assert judge_one("multi-session", "How long is my bus ride?", "1.5 hours", "90min").label
    assert judge_one("multi-session", "How long have I knitted?", "10 years", "10yrs").label
    assert judge_one("multi-session", "How long have I knitted?", "6 months", "6mos").label
    assert judge_one("multi-session", "How old was my sister then?", "27", "She was 27yo.").label
    assert judge_one("multi-session", "How old was my sister then?", "27", "27 y/o").label
    assert judge_one("single-session-user", "What percentage off?", "20%", "20 pct").label
    assert quantities("a 5k run in 3d") == []


def test_number_words_with_and_dozen_and_large_scales():
    """ "one hundred and fifty" is 150 (not 100 and 50); "a dozen" and "two dozen" are dozens,
    a count of 12 and 24 or the answer to "how many dozen"; "$1.5M", "$2bn" and "2 billion"
    are millions and billions (made-up questions and responses)."""
    assert judge_one(
        "multi-session", "How much was the rug?", "$150", "One hundred and fifty dollars."
    ).label
    guests = "How many guests came?"
    assert judge_one("multi-session", guests, "250", "Two hundred and fifty guests came.").label
    assert judge_one("multi-session", guests, "1,250", "one thousand two hundred and fifty").label
    assert [x.value for x in quantities("one hundred and two hundred")] == [100, 200]
    assert judge_one("multi-session", "How many rolls did I bake?", "24", "Two dozen rolls.").label
    assert judge_one("multi-session", "How many rolls did I bake?", "12", "A dozen rolls.").label
    dozens = "How many dozen rolls did I bake?"
    assert judge_one("knowledge-update", dozens, "3", "You baked 3 dozen rolls.").label
    assert not judge_one("knowledge-update", dozens, "36", "You baked 3 dozen rolls.").label
    worth = "How much is the studio worth?"
    assert judge_one("multi-session", worth, "$1.5 million", "About $1.5M.").label
    assert judge_one("multi-session", worth, "$2 billion", "It is worth $2bn.").label
    assert judge_one("multi-session", worth, "$2 billion", "two billion dollars").label


def test_durations_in_words():
    """ "a fortnight" is 2 weeks, "a decade" 10 years, "half a year" 6 months, "a quarter of an
    hour" 15 minutes and "¾ of an hour" 45 (made-up questions and responses)."""
    assert judge_one("multi-session", "How long was my trip?", "14 days", "A fortnight.").label
    assert (
        judge_one("multi-session", "How long was my trip?", "3 weeks", "A fortnight.").label
        is False
    )
    assert judge_one("multi-session", "How long have I sung?", "10 years", "About a decade.").label
    assert judge_one("multi-session", "How long have I sung?", "20 years", "Two decades.").label
    assert judge_one("multi-session", "How long did I rent?", "6 months", "Half a year.").label
    walk = "How many minutes is my walk?"
    assert judge_one("multi-session", walk, "15 minutes", "A quarter of an hour.").label
    assert judge_one("multi-session", walk, "45 minutes", "¾ of an hour").label
    assert judge_one("multi-session", walk, "45 minutes", "Three quarters of an hour.").label


def test_times_of_day_in_words():
    """ "seven thirty" is 7:30 (the number words read 37), "five forty-five pm" 5:45 pm, and
    "half past seven", "quarter to eight", "seven o'clock" and "noon" are times too (made-up
    question and responses)."""
    q = "What time does my pottery class start?"
    assert judge_one("single-session-user", q, "7:30 pm", "Seven thirty.").label
    assert judge_one("single-session-user", q, "7:30 pm", "At half past seven.").label
    assert judge_one("single-session-user", q, "7:45 pm", "A quarter to eight.").label
    assert judge_one("single-session-user", q, "7 pm", "Seven o'clock in the evening.").label
    assert judge_one("single-session-user", q, "5:45 pm", "five forty-five pm").label
    assert judge_one("single-session-user", q, "12 pm", "At noon.").label
    assert judge_one("single-session-user", q, "6:30 pm", "Seven thirty.").label is False
    assert not any(x.clock for x in quantities("two twenty-dollar bills"))  # not a time


def test_yes_no_emphasised_dashed_labelled_or_negated():
    """ "The answer is **no** — ..." and "no — you ..." answer no; a "Yes/No:" label names both
    and answers neither; "Definitely not" is a no, not the "definitely" of a yes (made-up
    question and responses)."""
    q = "Did I renew the climbing pass?"
    for said_no in (
        "The answer is no — you let it lapse in May.",
        "The answer is **no**, you let it lapse.",
        'Short answer: "no".',
        "Yes/No: No",
        "Definitely not.",
        "Absolutely not; it lapsed.",
    ):
        assert judge_one("single-session-user", q, "No", said_no).label is True, said_no
        assert judge_one("single-session-user", q, "Yes", said_no).label is False, said_no
    assert judge_one("single-session-user", q, "Yes", "Yes/No: Yes").label is True
    assert judge_one("single-session-user", q, "No", "No-shows were never charged.").label is False


def test_stems_of_doubled_consonants_and_y_verbs():
    """ "scrubbing"/"scrub", "stopped"/"stop", "drying"/"dry", "dried"/"dry" are one word each
    ("added" stays "add"), so a reference's -ing or -ed form is found in a plain one (made-up
    question, reference and response)."""
    assert stem("scrubbing") == stem("scrub") and stem("stopped") == stem("stop")
    assert stem("drying") == stem("dry") == stem("dried") and stem("studied") == stem("study")
    assert stem("added") == stem("add") == "add" and stem("during") == "during"
    q = "What did you suggest for the rusty grill grate?"
    a = "I suggested scrubbing it with a wire brush, then drying it over the flame."
    said = "- Scrub with a wire brush\n- Dry it over the flame"
    assert judge_one("single-session-assistant", q, a, said).label is True


def test_more_ways_to_say_the_detail_is_missing():
    """ "None mentioned", "no X on record", "not in my records/our chats" and a terse "No data
    found" say the asked detail is missing (made-up question and responses)."""
    q, a = "What is my tortoise called?", "You did not mention a tortoise."
    for said in (
        "None mentioned.",
        "No tortoise name on record.",
        "That detail isn't in my records.",
        "The tortoise's name is not in our chats.",
        "No data found.",
    ):
        assert abstains(said), said
        assert judge_one("single-session-user", q, a, said, is_abstention=True).label is True
    assert not abstains("Your tortoise is called Basil; it is in the notes from May.")


def test_frequencies_written_as_counts_per_period():
    """ "Once a week", "1x/week" and "every 7 days" are every week; "every fortnight" and
    "every 14 days" every other week; "twice a week" is neither (made-up question and
    responses)."""
    q = "How often do I water the fern now?"
    for weekly in ("Once a week.", "once per week", "1x/week", "1x per week", "every 7 days"):
        assert judge_one("knowledge-update", q, "every week", weekly).label is True, weekly
        assert judge_one("knowledge-update", q, "every other week", weekly).label is False
    for other in ("Every fortnight.", "every 14 days"):
        assert judge_one("knowledge-update", q, "every other week", other).label is True, other
        assert judge_one("knowledge-update", q, "every week", other).label is False, other
    assert judge_one("knowledge-update", q, "every week", "Twice a week.").label is False


def test_numeric_dates_that_say_which_part_is_the_month():
    """ "3/15/2023" and "15/03/2023" can only be March 15; "3/4/2023" could be either day, so
    it stays unread (made-up question and responses)."""
    q = "When did I repaint the shed?"
    for said in ("On 3/15/2023.", "On 15/03/2023.", "15.03.2023"):
        assert judge_one("temporal-reasoning", q, "March 15, 2023", said).label is True, said
        assert judge_one("temporal-reasoning", q, "March 16, 2023", said).label is False, said
    assert "march" not in normalize("3/4/2023") and "april" not in normalize("3/4/2023")


def test_thousands_and_millions_before_a_currency_word():
    """ "1.2K USD" and "1.5m dollars" are 1,200 and 1,500,000 dollars, as "$1.2k" was; a "5k
    run" stays unread (made-up question and responses)."""
    q = "How much did the kitchen remodel cost?"
    assert judge_one("multi-session", q, "$1,200", "1.2K USD").label is True
    assert judge_one("multi-session", q, "$1,500,000", "About 1.5m dollars.").label is True
    assert quantities("a 5k run") == []


def test_a_tldr_or_short_answer_before_the_long_one():
    """ "TL;DR: 4" and "Short answer: 4 ... Long answer: ..." answer 4, whatever numbers the
    long answer goes through (made-up question and responses)."""
    q = "How many kayaks do I own?"
    for said in (
        "TL;DR: 4 kayaks.\n\nReasoning: 3 sea kayaks and 1 river kayak.",
        "**Short answer:** 4\n\n**Long answer:** you listed 3 sea kayaks and a river kayak.",
    ):
        assert judge_one("multi-session", q, "3", said).label is False, said
        assert judge_one("multi-session", q, "4", said).label is True, said


def test_an_agents_final_answer_and_extra_spaces_read_as_the_plain_answer():
    """An agent's trace ("Thought: ... Final Answer: ...") answers after "Final Answer:", and two
    spaces after a full stop are one (made-up question and responses)."""
    q = "How many days before the book fair did I buy the new shelf?"
    gold = "5 days. 6 days (including the last day) is also acceptable."
    trace = (
        "Thought: I should check our past conversations.\nFinal Answer: I cannot determine that "
        "from the messages. They say you bought a shelf 5 days ago.\n\nThe fair's date is not "
        "recorded."
    )
    assert judge_one("temporal-reasoning", q, gold, trace).label is False
    kayaks = "How many kayaks do I own now?"
    spaced = "You had 3 kayaks in March.  Therefore, you now own 1 kayak."
    assert judge_one("knowledge-update", kayaks, "1", spaced).label is True
    assert judge_one("knowledge-update", kayaks, "3", spaced).label is False


def test_stopwords_are_not_stemmed_into_content_words():
    """A stopword stays itself, so the list filters it: stemmed, "whose", "there", "before" and
    "called" became "whos", "ther", "befor" and "call", which a reference then required and a
    preference rubric counted as the user's details."""
    words = "whose there these those where while before called named discussed according quite"
    assert content_tokens(words) == []
    # the words themselves still stem as before
    assert stem("calls") == "call" and stem("naming") == "name"
    q = "Which cafe did you recommend near the station?"
    ref = "A cafe called Blue Door, just before the bridge."
    assert judge_one("single-session-assistant", q, ref, "Blue Door, by the bridge.").label
