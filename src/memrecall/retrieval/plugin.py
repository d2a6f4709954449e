"""`retrieval=plugin`: a retriever of your own ranks each question's haystack.

The protocol (docs/plugins.md; examples/memesh_fts5.py is a complete one):

    class MyRetriever:
        granularity = "session"  # or "round": ids are "<session_id>_<i+1>", i a user turn's index
        uses_vectors = False     # True: haystacks and queries carry the bundled embedder's vectors
        def __init__(self, **options): ...
        def index(self, haystack: Haystack):       # once per question
            return my_index                        # anything with .search(query, k)
    my_index.search(query: Query, k: int) -> [(id, score), ...]   # best first or not: we sort

`index` is called once per haystack and `search` once per query, so the rewrite stage's query
variants reuse the index of their question (an optional `close()` is called after the last one).
Results are checked: a list of (str id, finite number) pairs, ids of this haystack at the declared
granularity, no id twice. Sessions are ranked by score (rounds aggregated to their session by
max, as the built-in methods do); ties keep the plug-in's order. A bad answer stops the stage
with a PluginError naming the plug-in, the question and what was expected.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from numbers import Real

import polars as pl
from tqdm import tqdm

from ..artifacts import read_table
from ..haystack import Haystack, HaystackBuilder, Query
from ..plugins import PluginError, load_plugin, plugin_identity, result_params
from .units import UnitIndex

WHERE = "retrieval"
GRANULARITIES = ("session", "round")


@dataclass(frozen=True)
class Hit:
    session_id: str
    score: float
    turn_index: int | None  # round granularity: the user turn the round starts at


class PluginRetriever:
    """A loaded retriever plug-in with its answers checked."""

    def __init__(self, cfg: dict):
        self.spec = cfg["callable"]
        self.identity = plugin_identity(cfg, WHERE)
        self.obj = load_plugin(cfg, WHERE, methods=("index",))
        self.granularity = getattr(self.obj, "granularity", "session")
        if self.granularity not in GRANULARITIES:
            raise PluginError(
                self.spec,
                f"granularity is {self.granularity!r}",
                where=WHERE,
                expected=f"one of {', '.join(GRANULARITIES)}",
            )
        self.uses_vectors = bool(getattr(self.obj, "uses_vectors", False))

    def error(self, message: str, qid: str | None, expected: str | None = None) -> PluginError:
        return PluginError(self.spec, message, where=WHERE, question_id=qid, expected=expected)

    def _call(self, what: str, qid: str, fn, *args):
        """A plug-in exception, as one line naming the plug-in and the question (the original
        traceback stays chained for `python -X dev` / a debugger)."""
        try:
            return fn(*args)
        except Exception as e:
            raise self.error(f"{what} raised {type(e).__name__}: {e}", qid) from e

    def index(self, haystack: Haystack):
        idx = self._call("index()", haystack.question_id, self.obj.index, haystack)
        if not callable(getattr(idx, "search", None)):
            raise self.error(
                f"index() returned a {type(idx).__name__} without a search() method",
                haystack.question_id,
                "an object with search(query, k)",
            )
        return idx

    def close(self, idx) -> None:
        close = getattr(idx, "close", None)
        if callable(close):
            close()

    def search(
        self, idx, haystack: Haystack, query: Query, k: int, user_turns: dict[str, set[int]]
    ) -> list[Hit]:
        """The plug-in's answer for one query, checked, as hits in its order."""
        qid = haystack.question_id
        out = self._call("search()", qid, idx.search, query, k)
        shape = (
            "a list of (id, score) pairs, id a str, score a finite number, e.g. "
            "[('answer_4be1b6b4_2', 0.83), ...]"
        )
        if isinstance(out, (str, bytes, dict)) or not hasattr(out, "__iter__"):
            raise self.error(f"search() returned a {type(out).__name__}", qid, shape)
        hits, seen = [], set()
        in_haystack = {s.session_id for s in haystack.sessions}
        for i, item in enumerate(out):
            if not (
                isinstance(item, (tuple, list))
                and len(item) == 2
                and isinstance(item[0], str)
                and isinstance(item[1], Real)
                and not isinstance(item[1], bool)
                and math.isfinite(float(item[1]))
            ):
                raise self.error(f"search() result [{i}] is {item!r:.120}", qid, shape)
            uid, score = item[0], float(item[1])
            if uid in seen:
                raise self.error(
                    f"search() returned the id {uid!r} twice", qid, "each id at most once"
                )
            seen.add(uid)
            hits.append(self._hit(uid, score, qid, in_haystack, user_turns))
        return hits

    def _hit(self, uid, score, qid, in_haystack, user_turns) -> Hit:
        if self.granularity == "session":
            if uid not in in_haystack:
                raise self.error(
                    f"search() returned {uid!r}, which is not a session of this "
                    f"question's haystack",
                    qid,
                    "session ids from haystack.sessions (granularity 'session')",
                )
            return Hit(uid, score, None)
        sid, _, tail = uid.rpartition("_")
        if sid in in_haystack and tail.isdigit() and int(tail) - 1 in user_turns.get(sid, ()):
            return Hit(sid, score, int(tail) - 1)
        raise self.error(
            f"search() returned {uid!r}, which is not a round of this question's haystack",
            qid,
            "'<session_id>_<i+1>' with i the index of a user turn "
            "of a haystack session (granularity 'round')",
        )


def session_ranking(hits: list[Hit]) -> tuple[list[str], dict[str, float], dict[str, list[int]]]:
    """(sessions best first, session score, {session: user turns best first}). Rounds count for
    their session by max; ties keep the plug-in's order."""
    order = sorted(range(len(hits)), key=lambda i: -hits[i].score)  # stable
    best: dict[str, float] = {}
    turns: dict[str, list[int]] = {}
    for i in order:
        h = hits[i]
        best.setdefault(h.session_id, h.score)
        if h.turn_index is not None:
            turns.setdefault(h.session_id, []).append(h.turn_index)
    return list(best), best, turns


def plugin_retrieve(
    questions: pl.DataFrame,
    haystacks: list[list[str]],
    builder: HaystackBuilder,
    retriever: PluginRetriever,
    top_k: int,
    qvecs=None,
):
    """Per question: (session ids best first, scores, turn_indices or None), top_k of them."""
    out = []
    rows = questions.select("question_id", "question", "question_date").rows()
    for qi, ((qid, text, qdate), hay) in enumerate(
        tqdm(list(zip(rows, haystacks)), desc="retrieve (plugin)", file=sys.stderr)
    ):
        h = builder.haystack(qid, hay, retriever.uses_vectors)
        idx = retriever.index(h)
        try:
            query = Query(text, qid, qdate, 0, qvecs[qi] if qvecs is not None else None)
            k = (
                top_k
                if retriever.granularity == "session"
                else builder.n_units(retriever.granularity, hay)
            )
            hits = retriever.search(idx, h, query, k, builder.user_turns)
        finally:
            retriever.close(idx)
        ids, best, turns = session_ranking(hits)
        ids = ids[:top_k]
        out.append(
            (
                qid,
                ids,
                [best[s] for s in ids],
                [turns.get(s, []) for s in ids] if retriever.granularity == "round" else None,
            )
        )
    return out


def plugin_queries(
    retriever: PluginRetriever, question: dict, texts: list[str], vectors
) -> list[Query]:
    """The question (variant 0) and its rewrite variants as queries."""
    return [
        Query(
            t,
            question["question_id"],
            question["question_date"],
            j,
            vectors[j] if retriever.uses_vectors else None,
        )
        for j, t in enumerate(texts)
    ]


def plugin_pool_scores(
    retriever: PluginRetriever,
    builder: HaystackBuilder,
    qid: str,
    haystack_ids: list[str],
    queries: list[Query],
    pool: list[str],
) -> dict[str, float]:
    """Rewrite: one index of the question's haystack, searched with the question and each
    variant; a pooled session's score is its best over the queries (as the built-in rescoring
    takes the max cosine). Pooled sessions no query returned come last, in pool order."""
    h = builder.haystack(qid, haystack_ids, retriever.uses_vectors)
    idx = retriever.index(h)
    best: dict[str, float] = {}
    try:
        k = builder.n_units(retriever.granularity, haystack_ids)
        for q in queries:
            _, scores, _ = session_ranking(retriever.search(idx, h, q, k, builder.user_turns))
            for sid, s in scores.items():
                best[sid] = max(best.get(sid, -math.inf), s)
    finally:
        retriever.close(idx)
    found = [s for s in pool if s in best]
    floor = min((best[s] for s in found), default=0.0)
    # Unreturned pooled sessions: below every returned one, their pool order kept by the sort.
    return {**{s: best[s] for s in found}, **{s: floor - 1.0 for s in pool if s not in best}}


def open_plugin(cfg: dict, questions: pl.DataFrame, *, sessions, turns, embeddings):
    """The retrieve stage's setup: ((retriever, builder), metadata params, input files)."""
    retriever = PluginRetriever(cfg)
    units = (
        UnitIndex(read_table(embeddings), need_vectors=True, source=str(embeddings))
        if retriever.uses_vectors
        else None
    )
    builder = HaystackBuilder(
        questions, read_table(sessions, "sessions"), read_table(turns, "turns"), units
    )
    inputs = [sessions, turns] + ([embeddings] if retriever.uses_vectors else [])
    # The code's identity joins the params: a plug-in edit changes this artifact's metadata,
    # so everything downstream reruns.
    return (retriever, builder), result_params(cfg, retriever.identity), inputs
