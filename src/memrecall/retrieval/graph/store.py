"""The entity graph of one question's candidate sessions, in an embedded Cypher database.

Schema (ladybug, the maintained fork of Kuzu; an in-memory database per question, nothing on
disk):

    (:Session {id})-[:MENTIONS]->(:Entity {name, idf})
    (:Entity)-[:CO_OCCUR {sessions}]->(:Entity)   one edge per pair seen together in a session

`idf` = ln(1 + N / df): N sessions in the pool, df of them mention the entity, so an entity that
every session mentions ("time", "help") weighs least. `reached(names, hops)` is one Cypher query
for the entities within `hops` CO_OCCUR steps of the question's entities (the shortest distance
of each); `session_scores` is one more for each session's sum over its entities of
idf * decay^distance.
"""

from __future__ import annotations

import math
from itertools import combinations

import polars as pl

from ...errors import MemrecallError

SCHEMA = (
    "CREATE NODE TABLE Entity(name STRING, idf DOUBLE, PRIMARY KEY(name))",
    "CREATE NODE TABLE Session(id STRING, PRIMARY KEY(id))",
    "CREATE REL TABLE MENTIONS(FROM Session TO Entity)",
    "CREATE REL TABLE CO_OCCUR(FROM Entity TO Entity, sessions INT64)",
)


def _ladybug():
    try:
        import ladybug
    except ImportError:  # pragma: no cover - a pinned dependency (requirements.txt)
        raise MemrecallError(
            "reranker=graph needs the `ladybug` package (pip install -r requirements.txt)"
        ) from None
    return ladybug


class SessionGraph:
    """The graph of `session_entities` ({session id: [entity normal forms]})."""

    def __init__(self, session_entities: dict[str, list[str]]):
        lb = _ladybug()
        self._db = lb.Database(":memory:")
        self.conn = lb.Connection(self._db)
        for stmt in SCHEMA:
            self.conn.execute(stmt)
        df: dict[str, int] = {}
        for ents in session_entities.values():
            for e in set(ents):
                df[e] = df.get(e, 0) + 1
        n = max(len(session_entities), 1)
        pairs: dict[tuple[str, str], int] = {}
        for ents in session_entities.values():
            for a, b in combinations(sorted(set(ents)), 2):
                pairs[(a, b)] = pairs.get((a, b), 0) + 1
        # Bulk loads (COPY FROM a data frame): one statement per table, not one per row.
        entity_df = pl.DataFrame(
            {"name": list(df), "idf": [math.log(1 + n / d) for d in df.values()]},
            schema={"name": pl.String, "idf": pl.Float64},
        )
        session_df = pl.DataFrame({"id": list(session_entities)}, schema={"id": pl.String})
        mentions_df = pl.DataFrame(
            {
                "from": [s for s, ents in session_entities.items() for _ in set(ents)],
                "to": [e for ents in session_entities.values() for e in sorted(set(ents))],
            },
            schema={"from": pl.String, "to": pl.String},
        )
        co_df = pl.DataFrame(
            {
                "from": [a for a, _ in pairs],
                "to": [b for _, b in pairs],
                "sessions": list(pairs.values()),
            },
            schema={"from": pl.String, "to": pl.String, "sessions": pl.Int64},
        )
        for table, frame in (
            ("Entity", entity_df),
            ("Session", session_df),
            ("MENTIONS", mentions_df),
            ("CO_OCCUR", co_df),
        ):
            if frame.height:
                self.conn.execute(f"COPY {table} FROM frame")
        self.n_entities, self.n_edges = entity_df.height, co_df.height

    def _rows(self, query: str, params: dict) -> list[list]:
        result = self.conn.execute(query, params)
        rows = []
        while result.has_next():
            rows.append(result.get_next())
        return rows

    def reached(self, names: list[str], hops: int) -> dict[str, int]:
        """{entity: shortest CO_OCCUR distance} for the question's entities present in the
        graph (distance 0) and every entity within `hops` steps of them."""
        known = [
            r[0]
            for r in self._rows(
                "MATCH (e:Entity) WHERE e.name IN $names RETURN e.name", {"names": names}
            )
        ]
        out = {name: 0 for name in known}
        if hops > 0 and known:
            for name, dist in self._rows(
                f"MATCH p = (q:Entity)-[:CO_OCCUR*1..{hops}]-(e:Entity) "
                "WHERE q.name IN $names RETURN e.name, min(length(p))",
                {"names": known},
            ):
                if name not in out:  # a question entity stays at distance 0
                    out[name] = int(dist)
        return out

    def session_scores(self, reached: dict[str, int], decay: float) -> dict[str, float]:
        """{session id: sum over its reached entities of idf * decay^distance}; sessions that
        mention none of them are absent (score 0)."""
        if not reached:
            return {}
        rows = self._rows(
            "UNWIND $reach AS r MATCH (s:Session)-[:MENTIONS]->(e:Entity {name: r.name}) "
            "RETURN s.id, sum(e.idf * pow($decay, r.hops))",
            {"reach": [{"name": k, "hops": v} for k, v in reached.items()], "decay": float(decay)},
        )
        return {sid: float(score) for sid, score in rows}
