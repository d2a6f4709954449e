"""Which sessions and turns are a question's gold evidence: the official LongMemEval rule
(src/retrieval/run_retrieval.py, src/evaluation/evaluate_qa.py), the default every benchmark
starts from (Benchmark.gold), defined here once for the retrieval metrics, the error matrix and
the data cards.

- Abstention questions (the questions table's is_abstention, which each benchmark sets by its
  own rule) have no gold: they are left out of retrieval metrics.
- Session-level gold: the question's evidence sessions (answer_session_ids, each once, only
  those in its haystack) with at least one *user* turn marked has_answer; the official code
  renames the others `noans_...`, so they never count.
- Turn-level gold: those sessions' user turns with has_answer, as `<session_id>_<i+1>` (i = the
  turn's index in the session, assistant turns included).

Per-question turn gold: a benchmark whose questions name their own evidence turns (all questions
of a conversation share its sessions, so has_answer marks every question's evidence) passes
`turn_gold`, which gives each question's gold turn ids.

`rule="answer_sessions"` takes every evidence session in the haystack as session-level gold (no
has_answer filter): the protocol behind some published figures, for comparison only.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Callable

import polars as pl

RULES = ("has_answer", "answer_sessions")


def abstention_flags(questions: pl.DataFrame) -> list[bool]:
    """The questions table's is_abstention, null as False."""
    return questions.get_column("is_abstention").fill_null(False).to_list()


def turn_id(session_id: str, turn_index: int) -> str:
    return f"{session_id}_{turn_index + 1}"


def answer_turns(turns: pl.DataFrame) -> dict[str, list[int]]:
    """session_id → indices of its user turns marked has_answer, in order."""
    out: dict[str, list[int]] = defaultdict(list)
    marked = turns.filter((pl.col("role") == "user") & pl.col("has_answer").fill_null(False))
    for sid, idx in (
        marked.select("session_id", "turn_index").sort("session_id", "turn_index").iter_rows()
    ):
        out[sid].append(int(idx))
    return dict(out)


@dataclass(frozen=True)
class Gold:
    evidence: tuple[str, ...]  # evidence sessions in the haystack, each once, in listed order
    sessions: tuple[str, ...]  # gold sessions (by the rule), in the same order
    turns: tuple[str, ...]  # gold turn ids (always by has_answer)


TurnGold = Callable[[str, tuple[str, ...]], tuple[str, ...]]


def question_gold(
    questions: pl.DataFrame,
    turns: pl.DataFrame,
    *,
    rule: str = "has_answer",
    turn_gold: TurnGold | None = None,
) -> dict[str, Gold | None]:
    """question_id → its Gold, or None for an abstention question. `turn_gold(question_id,
    evidence sessions)`: the question's own gold turn ids (default: the evidence sessions' user
    turns marked has_answer)."""
    if rule not in RULES:
        raise ValueError(f"gold rule must be one of {RULES}")
    marked = answer_turns(turns)
    out: dict[str, Gold | None] = {}
    rows = questions.select("question_id", "haystack_session_ids", "answer_session_ids")
    for (qid, haystack, evidence), is_abs in zip(rows.iter_rows(), abstention_flags(questions)):
        if is_abs:
            out[qid] = None
            continue
        in_haystack = set(haystack or [])
        ev = tuple(s for s in dict.fromkeys(evidence or []) if s in in_haystack)
        sessions = ev if rule == "answer_sessions" else tuple(s for s in ev if marked.get(s))
        gold_turns = (
            turn_gold(qid, ev)
            if turn_gold is not None
            else tuple(turn_id(s, i) for s in ev for i in marked.get(s, []))
        )
        out[qid] = Gold(ev, sessions, gold_turns)
    return out


def own_turn_gold(
    questions: pl.DataFrame,
    turns: pl.DataFrame,
    *,
    ids_column: str = "answer_turn_ids",
    turn_column: str = "turn_id",
) -> dict[str, Gold | None]:
    """question_gold whose turn-level gold is each question's own evidence turns: the ids in
    its `ids_column` that name a turn (`turn_column`) of an evidence session. For benchmarks
    whose questions share one conversation's sessions, so has_answer marks every question's
    evidence at once."""
    turn_at: dict[str, dict[str, int]] = defaultdict(dict)  # session -> turn id -> index
    for sid, idx, tid in turns.select("session_id", "turn_index", turn_column).iter_rows():
        turn_at[sid][tid] = int(idx)
    own = dict(questions.select("question_id", ids_column).iter_rows())

    def turn_gold(qid: str, evidence: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(
            turn_id(s, turn_at[s][t]) for s in evidence for t in own[qid] or [] if t in turn_at[s]
        )

    return question_gold(questions, turns, turn_gold=turn_gold)
