"""EverMemBench's nine sub-tasks, defined once: the id prefix that names each (the part of a
question id before "_Top", e.g. "F_SH" of "F_SH_Top01_001"), its dimension and its display name.

The released aggregation scripts read a question's sub-task from its id the same way. The role
sub-task is "P_Role" in the paper's tables; ids on the hub may spell it "P_Title" (the paper's
first version called it "Title"): both name the same sub-task, reported as P_Role, and the id is
kept as released.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SubTask:
    code: str  # the question_type value and report column ("F_SH")
    dimension: str  # fine-grained recall | memory awareness | profile understanding
    name: str  # display name ("single-hop")


SUBTASKS = (
    SubTask("F_SH", "fine-grained recall", "single-hop"),
    SubTask("F_MH", "fine-grained recall", "multi-hop"),
    SubTask("F_TP", "fine-grained recall", "temporal"),
    SubTask("MA_C", "memory awareness", "constraint"),
    SubTask("MA_P", "memory awareness", "proactivity"),
    SubTask("MA_U", "memory awareness", "updating"),
    SubTask("P_Style", "profile understanding", "style"),
    SubTask("P_Skill", "profile understanding", "skill"),
    SubTask("P_Role", "profile understanding", "role"),
)
CODES = tuple(s.code for s in SUBTASKS)
BY_CODE = {s.code: s for s in SUBTASKS}
# The three recall sub-tasks: the only ones the Compass runs scored (open answers).
RECALL = ("F_SH", "F_MH", "F_TP")
ALIASES = {"P_Title": "P_Role"}
ID_MARK = "_Top"


def subtask_of(question_id: str) -> str | None:
    """The sub-task code a question id names, or None when it names none of the nine."""
    prefix, mark, _ = str(question_id).partition(ID_MARK)
    if not mark:
        return None
    code = ALIASES.get(prefix, prefix)
    return code if code in BY_CODE else None


def label(code: str) -> str:
    """ "F_SH (single-hop)": the column label of a sub-task in reports."""
    s = BY_CODE.get(code)
    return f"{code} ({s.name})" if s else code
