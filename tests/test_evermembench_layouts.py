"""EverMemBench's two released layouts, read from hand-written fixtures in their exact shapes:
recognition, validation errors that name file / question / field, evidence resolution."""

import json
import shutil
from pathlib import Path

import pytest

from memrecall.benchmarks.evermembench import layouts as L
from memrecall.errors import InputError

FIX = Path(__file__).parent / "fixtures" / "evermembench"
TOPICS, BATCH = FIX / "topics", FIX / "batch"


def test_recognises_both_layouts_as_folder_or_folder_of_units():
    assert L.layout_of(TOPICS) == L.TOPIC and L.layout_of(TOPICS / "01") == L.TOPIC
    assert L.layout_of(BATCH) == L.BATCH and L.layout_of(BATCH / "004") == L.BATCH
    assert [p.name for p in L.unit_folders(TOPICS)] == ["01", "02"]
    assert L.layout_of(FIX / "topics" / "01" / "qa_01.json") is None
    assert L.layout_of(FIX) is None  # the fixture root holds no unit of its own


def test_topic_layout_reads_days_groups_and_evidence():
    (unit,) = L.read_dataset(TOPICS, ["01"])
    assert [(c.date, c.group, len(c.messages)) for c in unit.chats] == [
        ("2025-03-03", "Group 1", 3),
        ("2025-03-03", "Group 3", 1),
        ("2025-03-04", "Group 1", 2),
        ("2025-03-04", "Group 2", 2),
        ("2025-03-06", "Group 1", 1),
        ("2025-03-06", "Group 3", 2),
    ]  # null groups make none
    q = {x.question_id: x for x in unit.questions}
    assert q["F_MH_Top01_001"].evidence == [
        L.Evidence("2025-03-03", "Group 1", (1, 2)),
        L.Evidence("2025-03-06", "Group 1", (1,)),
    ]
    assert q["F_SH_Top01_002"].evidence == [] and q["F_SH_Top01_001"].options is None
    assert q["P_Title_Top01_001"].subtask == "P_Role"
    assert q["MA_C_Top01_001"].options == {
        "A": "Nothing, ship it",
        "B": "A load test",
        "C": "A security review sign-off",
        "D": "A Figma review",
    }


def test_batch_layout_sorts_days_and_has_no_evidence():
    (unit,) = L.read_dataset(BATCH)
    assert unit.layout == L.BATCH and unit.name == "004"
    assert [c.date for c in unit.chats] == ["2025-01-09", "2025-01-10", "2025-01-10"]
    assert [m.index for m in unit.chats[1].messages] == [1, 2]  # positions: no message_index
    assert unit.chats[2].messages[0].time.isoformat() == "2025-01-10T11:00:00"  # the T form
    q = {x.question_id: x for x in unit.questions}
    assert all(x.evidence is None for x in unit.questions)
    assert list(q["P_Skill_Top004_001"].options) == ["A", "B", "C", "D"]  # letter order
    assert q["F_SH_Top004_001"].task_id == "T001"


@pytest.mark.parametrize(
    "index, ok",
    [
        ("1, 4-5", (1, 4, 5)),
        (3, (3,)),
        ("2-2", (2,)),
        ([1, "3-4"], (1, 3, 4)),
        ("5-3", None),
        ("", None),
        ("x", None),
        (0, None),
        (True, None),
    ],
)
def test_parse_indices(index, ok):
    if ok is None:
        with pytest.raises(ValueError):
            L.parse_indices(index)
    else:
        assert L.parse_indices(index) == ok


def _copy(tmp_path, unit="01") -> Path:
    dst = tmp_path / unit
    shutil.copytree(TOPICS / unit, dst)
    return dst


def _edit_qa(folder: Path, fn):
    path = next(folder.glob("qa_*.json"))
    data = json.loads(path.read_text())
    fn(data)
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "edit, qid, field, words",
    [
        (
            lambda d: d[0].update(
                R=[{"date": "2025-03-04", "group": "Group 1", "message_index": "7"}]
            ),
            "F_SH_Top01_001",
            "R[0]",
            "does not have",
        ),
        (
            lambda d: d[0].update(
                R=[{"date": "2025-03-04", "group": "Group 1", "message_index": "two"}]
            ),
            "F_SH_Top01_001",
            "R[0].message_index",
            "indices",
        ),
        (lambda d: d[4].update(A="E"), "MA_C_Top01_001", "A", "not one of the options"),
        (lambda d: d[1].update(id="X_Top01_002"), "X_Top01_002", "id", "sub-tasks"),
        (lambda d: d[2].update(Q=""), "F_MH_Top01_001", "Q", "empty"),
        (lambda d: d[4].update(options=["A. x", "B. y"]), "MA_C_Top01_001", "options", "list"),
    ],
)
def test_bad_questions_name_file_question_and_field(tmp_path, edit, qid, field, words):
    folder = _copy(tmp_path)
    path = _edit_qa(folder, edit)
    with pytest.raises(InputError) as e:
        L.read_dataset(folder)
    assert (e.value.file, e.value.question_id, e.value.field) == (str(path), qid, field)
    assert words in str(e.value)


def test_message_index_may_be_a_digit_string(tmp_path):
    folder = _copy(tmp_path)
    days = json.loads((folder / "dialogue.json").read_text())
    days[1]["dialogues"]["Group 1"][1]["message_index"] = "2"
    (folder / "dialogue.json").write_text(json.dumps(days))
    (unit,) = L.read_dataset(folder)
    assert [m.index for m in unit.chats[2].messages] == [1, 2]


def test_bad_dialogue_names_the_field(tmp_path):
    folder = _copy(tmp_path)
    days = json.loads((folder / "dialogue.json").read_text())
    days[1]["dialogues"]["Group 2"][1]["message_index"] = 1  # twice in that chat
    (folder / "dialogue.json").write_text(json.dumps(days))
    with pytest.raises(InputError) as e:
        L.read_dataset(folder)
    assert e.value.field == "[1].dialogues['Group 2'][1].message_index"


def test_duplicate_ids_across_topics_and_unknown_topics(tmp_path):
    _copy(tmp_path, "01")
    second = _copy(tmp_path, "02")
    _edit_qa(second, lambda d: d[0].update(id="F_SH_Top01_001"))
    with pytest.raises(InputError, match="duplicate question id"):
        L.read_dataset(tmp_path)
    with pytest.raises(InputError, match=r"topics \['09'\] are not in the dataset"):
        L.read_dataset(tmp_path, ["09"])


def test_legacy_questions_format_is_refused_clearly(tmp_path):
    dst = tmp_path / "004"
    shutil.copytree(BATCH / "004", dst)
    (dst / "qa_004.json").write_text(
        json.dumps({"questions": [{"question_id": "004_mc_001", "question": "q", "answer": "a"}]})
    )
    with pytest.raises(InputError, match="legacy `questions` format") as e:
        L.read_dataset(dst)
    assert e.value.field == "qars"
