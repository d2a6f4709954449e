"""The refusal classifier: empty and declining answers are refusals; an abstention ("the
information is not in our conversations") is a legitimate answer to LongMemEval's _abs questions
and is not."""

from __future__ import annotations

import pytest

from memrecall.llm.refusal import is_abstention, is_refusal

REFUSALS = [
    None,
    "",
    "   \n",
    "I can't help with that.",
    "I'm sorry, but I cannot assist with this request.",
    "As an AI language model, I do not have personal experiences.",
    "I am unable to provide personal information about individuals.",
    "I must decline to answer this.",
    "Sharing that would be against my guidelines.",
    "I'm just an AI and I won't do that.",
    "I don't have access to your previous conversations, so I can't tell you.",
    "I do not have the ability to remember past chats.",
]

ANSWERS = [
    "Paris.",
    "You bought 3 apples at the farmers' market on May 2.",
    "Based on our previous conversations, your dog's name is Max.",
    "It took you 4 days.",
    "I can help: your new job title is senior nurse.",  # "can help" is not declining
    "The assistant recommended the Lisbon trip; I cannot be sure of the exact date, likely May.",
]

ABSTENTIONS = [
    "The information is not available in our conversations.",
    "You never mentioned the name of your cat.",
    "I'm sorry, but there is no record of that in the chat history.",
    "I can't answer that based on our previous chats.",  # declining words, abstention meaning
    "I cannot help with that because you didn't mention your sister's birthday.",
    "This cannot be determined from the provided sessions.",
    "There is not enough information to answer.",
]


@pytest.mark.parametrize("text", REFUSALS)
def test_refusals(text):
    assert is_refusal(text)


@pytest.mark.parametrize("text", ANSWERS)
def test_answers_are_not_refusals(text):
    assert not is_refusal(text)


@pytest.mark.parametrize("text", ABSTENTIONS)
def test_abstentions_are_not_refusals(text):
    assert is_abstention(text)
    assert not is_refusal(text)


def test_rates_on_the_whole_table():
    texts = REFUSALS + ANSWERS + ABSTENTIONS
    flags = [is_refusal(t) for t in texts]
    assert sum(flags) == len(REFUSALS) and flags[: len(REFUSALS)] == [True] * len(REFUSALS)


# Answers on which the refusal classifier and the rule judge disagreed while each kept its own
# phrase list (before memrecall.abstention): (text, says the information is missing?).
ONCE_DISAGREED = [
    # refusal: a refusal ("can't help"; "never told" was not in its list); judge: an abstention
    ("I'm sorry, I can't help with that: you never told me which hotel you booked.", True),
    # refusal: an abstention ("don't contain"); judge: an answer
    ("The memory records don't contain any mention of a gift from your dad.", True),
    # refusal: an answer; judge: an abstention
    ("I don't know which hotel you booked.", True),
    # refusal: an abstention (it names the conversations); judge: an answer. It is an answer.
    ("Based on our previous conversations, your dog's name is Max.", False),
]


@pytest.mark.parametrize("text,missing", ONCE_DISAGREED)
def test_refusal_classifier_and_rule_judge_agree_on_abstention(text, missing):
    from memrecall.judge.rules import abstains, judge_one

    assert is_abstention(text) is abstains(text) is missing
    assert not is_refusal(text)  # an abstention is never a refusal, and neither is an answer
    v = judge_one(
        "single-session-user",
        "Which hotel did I book?",
        "You did not mention this information.",
        text,
        is_abstention=True,
    )
    assert v.label is missing


def test_no_memory_claims_are_refusals_even_though_they_abstain():
    """'I don't have access to your past conversations' says the information is missing (the
    official judge accepts it for `_abs`), but the model declined to read the history it had."""
    text = "I don't have access to your past conversations, so I can't say which hotel it was."
    assert is_abstention(text) and is_refusal(text)
