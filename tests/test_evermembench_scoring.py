"""EverMemBench's released scoring rules, reproduced: the answerer's letter extraction, the
evaluator's multiple-choice comparison (with its quirk) and its reading of a judge's reply."""

import pytest

from memrecall.benchmarks.evermembench.scoring import (
    EMPTY,
    FAILED,
    INVALID,
    gold_letter,
    official_judge_label,
    official_mc,
    parse_letter,
)
from memrecall.benchmarks.evermembench.subtasks import RECALL, label, subtask_of


@pytest.mark.parametrize(
    "reply, letter",
    [
        ("B", "B"),
        (" c \n", "C"),
        ("B. GHG Protocol", "B"),
        ("The answer is (D)", "D"),  # "(D)": D then ")"
        ("answer: c", "C"),
        ("I choose B", "B"),  # ends the reply as a word
        ("D is right", "D"),  # a letter then a space
        ("Cannot tell", INVALID),  # no letter stands alone
        ("", EMPTY),
        (None, EMPTY),
    ],
)
def test_parse_letter_follows_the_released_answerer(reply, letter):
    assert parse_letter(reply) == letter


def test_a_failed_call_is_marked_failed():
    assert parse_letter("B", failed=True) == FAILED


@pytest.mark.parametrize(
    "parsed, gold, correct, quirk",
    [
        ("B", "B", True, False),
        ("B", "b. GHG Protocol", True, False),  # gold cut to its letter
        ("C", "B", False, False),
        (INVALID, "A", True, True),  # "[INVALID]" holds an A: the released quirk
        (INVALID, "B", False, True),
        (FAILED, "A", True, True),
        (EMPTY, "A", False, False),  # no A-D in "[EMPTY]"
    ],
)
def test_official_mc_compares_as_the_released_evaluator(parsed, gold, correct, quirk):
    assert official_mc(parsed, gold) == (correct, quirk)


def test_gold_letter():
    assert gold_letter(" d) text ") == "D" and gold_letter("Peng Hou") == "PENG HOU"


@pytest.mark.parametrize(
    "reply, label_",
    [
        ('Same fact. {"label": "CORRECT"}', True),
        ('```json\n{"label": "wrong"}\n```', False),
        ('```\n{"label": " correct "}\n```', True),
        ('{"label": {"label": "CORRECT"}}', True),
        ('{"label": 1}', False),
        ("[1, 2]", False),
        ("CORRECT", True),
        ("CORRECT, not WRONG", False),
        ("INCORRECT", True),  # released fallback: "CORRECT" is in "INCORRECT"
        ("no idea", False),
    ],
)
def test_official_judge_label_reads_replies_as_released(reply, label_):
    assert official_judge_label(reply) is label_


def test_subtask_of_id_prefix():
    assert subtask_of("F_SH_Top01_001") == "F_SH"
    assert subtask_of("P_Skill_Top004_001") == "P_Skill"
    assert subtask_of("P_Title_Top01_007") == "P_Role"
    assert subtask_of("P_Role_Top03_002") == "P_Role"
    assert subtask_of("004_mc_001") is None and subtask_of("X_Y_Top01_001") is None
    assert RECALL == ("F_SH", "F_MH", "F_TP") and label("MA_U") == "MA_U (updating)"
