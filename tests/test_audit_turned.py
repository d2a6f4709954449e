"""memrecall.audit.turned: right answers turned wrong by swapping, throughout, what decides them."""

from __future__ import annotations

import pytest

from memrecall.audit.turned import (
    TURNS,
    reversed_order,
    swapped_options,
    swapped_values,
    turned,
)
from memrecall.audit.variants import Labelled

_BIKES = "How many bikes do I currently own?"
_SEEDS = "Which seeds were started first, the tomatoes or the marigolds?"
_EVENTS = "Which event did I participate in first, the charity gala or the charity bake sale?"


def test_a_value_and_the_one_other_value_are_swapped_everywhere():
    response = "In May you had 3 bikes; by October, 4. So you own **4 bikes** now (since 2023)."
    assert swapped_values(_BIKES, "4", response) == (
        "In May you had 4 bikes; by October, 3. So you own **3 bikes** now (since 2023)."
    )
    # a date or a year stays: "May 30" and "2023" are no values
    assert swapped_values(_BIKES, "4", "You own 4 bikes (May 30, 2023), up from 3.") == (
        "You own 3 bikes (May 30, 2023), up from 4."
    )
    # each mention keeps its form: digits for digits, words for words, with their capital
    assert swapped_values(_BIKES, "Four", "Four bikes now, up from 3; you had three in May.") == (
        "Three bikes now, up from 4; you had four in May."
    )
    # a list's marker numbers an item, it is no value
    listed = "Your bikes:\n1. a road bike\n2. a hybrid\n3. a gravel bike\nSo 4 now, up from 3."
    assert swapped_values(_BIKES, "4", listed) == listed.replace(
        "4 now, up from 3", "3 now, up from 4"
    )


@pytest.mark.parametrize(
    ("reference", "response"),
    [
        ("4", "You own 3 bikes."),  # the reference is not there to swap
        ("4", "You own 4 bikes."),  # nothing to swap it with
        ("4", "You own 4 bikes: 3 road bikes and 1 hybrid."),  # two others
        ("4", "You own 4 bikes, up from 3, and ride at 4 pm."),  # "4 pm" would still say 4
        ("4", "You own a four-wheel rack and 4 bikes, up from 3."),  # "four-wheel" too
        ("4", "Your fourth bike makes 4 now, up from 3."),  # an ordinal would stay behind
        ("10-12 hours", "You spent 10-12 hours, up from 5."),  # a range, not one number
        ("the road bike", "You own 4 bikes, up from 3."),  # the reference gives no number
    ],
)
def test_values_are_not_swapped_where_the_swap_would_not_be_clean(reference, response):
    assert swapped_values(_BIKES, reference, response) is None


def test_an_either_or_question_has_no_value_to_swap():
    """Its answer is an option, whatever numbers the response gives on the way."""
    question = "Did I most recently increase or decrease my coffee limit?"
    response = "You increased it: from one cup in May to two cups in June."
    assert swapped_values(question, "You increased it (from one cup to two cups)", response) is None


def test_every_mention_of_an_option_becomes_the_other():
    response = "The **tomatoes** came first: Tomato seeds on Feb 20, the marigolds on March 3."
    assert swapped_options(_SEEDS, "Tomatoes", response) == (
        "The **marigolds** came first: Marigold seeds on Feb 20, the tomatoes on March 3."
    )
    # the words the options share stay; what tells them apart is swapped
    response = "You did the charity bake sale first (March 15), before the gala (March 28)."
    assert swapped_options(_EVENTS, "The charity bake sale", response) == (
        "You did the charity gala first (March 15), before the bake sale (March 28)."
    )


@pytest.mark.parametrize(
    ("question", "reference", "response"),
    [
        (_EVENTS, "The charity bake sale", "You did the sale first, then the gala."),  # "sale"
        (_EVENTS, "The charity bake sale", "I can't find either event."),  # names no answer
        ("How many seeds did I start?", "12", "You started 12 seeds."),  # no options
        (_SEEDS, "Both at once", "Both at once."),  # the reference picks no option
    ],
)
def test_options_are_not_swapped_where_the_swap_would_not_be_clean(question, reference, response):
    assert swapped_options(question, reference, response) is None


def test_a_turned_answer_is_labelled_wrong_and_keeps_its_question_and_source():
    item = Labelled(_BIKES, "You had 3, now 4 bikes.", True, record={"answer": "4"}, source="run_a")
    wrong = turned(item, TURNS["swapped_values"])
    assert wrong == Labelled(
        _BIKES, "You had 4, now 3 bikes.", False, record={"answer": "4"}, source="run_a"
    )
    assert turned(item, TURNS["swapped_options"]) is None


_TRIPS = "What is the order of the three trips I took, from earliest to latest?"
_TRIPS_ORDER = (
    "I went on a day hike to Muir Woods, then a road trip to Big Sur, and finally a camping trip "
    "to Yosemite."
)


def test_an_order_is_reversed_in_the_list_that_closes_the_response():
    response = (
        "I found three trips:\n"
        "- Muir Woods day hike (March 10)\n"
        "- Big Sur road trip (April 20)\n"
        "- Yosemite camping (May 15)\n\n"
        "So the order is:\n"
        "1. Muir Woods hike\n"
        "2. Big Sur road trip\n"
        "3. Yosemite camping"
    )
    # the evidence stays as it was; the order the response settles on is reversed
    assert reversed_order(_TRIPS, _TRIPS_ORDER, response) == response.replace(
        "1. Muir Woods hike\n2. Big Sur road trip\n3. Yosemite camping",
        "1. Yosemite camping\n2. Big Sur road trip\n3. Muir Woods hike",
    )


@pytest.mark.parametrize(
    "response",
    [
        "Muir Woods, then Big Sur, then Yosemite.",  # no list to reverse
        "1. Muir Woods\n2. Big Sur\n3. Yosemite\n\nSo: Muir Woods first, Yosemite last.",
        "1. **1st**: Muir Woods\n2. **2nd**: Big Sur\n3. **3rd**: Yosemite",  # its own places
        "1. Muir Woods and Big Sur\n2. Yosemite",  # a line with two items
    ],
)
def test_an_order_is_not_reversed_where_the_response_would_still_say_it(response):
    assert reversed_order(_TRIPS, _TRIPS_ORDER, response) is None


def test_only_an_order_question_is_reversed():
    listed = "1. Muir Woods\n2. Big Sur"
    assert reversed_order("Which trip did I enjoy?", "Muir Woods, then Big Sur", listed) is None
