"""`reader=router`: each question type is answered by the reader option its route names.

    reader.routes:
      recall: {types: [single-session-preference, knowledge-update], reader: minimax,
               overrides: []}
      rest:   {types: null, reader: deepseek, overrides: []}

A route names a reader option of conf/reader/ and, optionally, overrides of it
("prompt=preference", "thinking_budget=1024"); `types: null` marks the one route that takes
every type no other route lists. The router's own reading settings (INHERITED: prompt,
history_format, reading, top_k_context, max_chars_per_session) apply to every route unless its
overrides set them, so a router differs from a plain reader by its models only, and a sweep's
reader.prompt=... reaches every route. Each route's reader config is composed from conf/ when
the stage runs (the same composer as `memrecall compose`), so a route is exactly that option;
the read stage depends on conf/reader, conf/llm, conf/base/reader.yaml and compose.py
(dvc.yaml), and the composed routes' identities go into the artifact's metadata. Each route is
read by its own LLMClient: its own cache keys (model + messages + params), its own prices, its
own refusal guard (the router's reader.runtime); the answers table gets a `route` column after
the contract ones, which the reports group by (report/routes.py).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from ..artifacts import atomic_write_text, read_table, write_table
from ..config import identity
from ..errors import ConfigError

ROUTE_COLUMN = "route"
INHERITED = ("prompt", "history_format", "reading", "top_k_context", "max_chars_per_session")


@dataclass(frozen=True)
class Route:
    name: str
    types: tuple[str, ...] | None  # None: every type no other route lists
    cfg: dict  # the composed reader config of the route


def compose_route(name: str, spec: dict, inherited: dict | None = None) -> dict:
    from ..compose import compose_config

    option = spec.get("reader") if isinstance(spec, dict) else None
    if not isinstance(option, str) or option == "router":
        raise ConfigError(
            f"reader.routes.{name}.reader",
            option,
            hint="a reader option of conf/reader/ other than router",
        )
    overrides = spec.get("overrides") or []
    if not isinstance(overrides, list):
        raise ConfigError(
            f"reader.routes.{name}.overrides",
            overrides,
            hint="a list of reader overrides such as prompt=preference",
        )
    own = {str(o).split("=", 1)[0] for o in overrides}
    carried = [f"reader.{k}={v}" for k, v in (inherited or {}).items() if k not in own]
    cfg = compose_config([f"reader={option}", *carried, *(f"reader.{o}" for o in overrides)])[
        "reader"
    ]
    if cfg["kind"] != "llm" or cfg["callable"] is not None:
        raise ConfigError(
            f"reader.routes.{name}.reader",
            option,
            hint="a route reads with an LLM reader option (not file or plugin)",
        )
    return cfg


def routes_of(reader_cfg: dict, compose=compose_route) -> list[Route]:
    routes_cfg = reader_cfg["routes"]
    if not isinstance(routes_cfg, dict) or not routes_cfg:
        raise ConfigError("reader.routes", routes_cfg, hint="reader=router needs routes")
    routes, seen, default = [], {}, None
    for name in sorted(routes_cfg):
        spec = routes_cfg[name]
        types = spec.get("types") if isinstance(spec, dict) else None
        if types is None:
            if default is not None:
                raise ConfigError(
                    f"reader.routes.{name}.types",
                    None,
                    hint=f"only one route takes the rest (already: {default})",
                )
            default = name
        else:
            if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
                raise ConfigError(
                    f"reader.routes.{name}.types",
                    types,
                    hint="a list of question types, or null for the rest",
                )
            for t in types:
                if t in seen:
                    raise ConfigError(
                        f"reader.routes.{name}.types",
                        types,
                        hint=f"{t} is routed already by {seen[t]}",
                    )
                seen[t] = name
        inherited = {k: reader_cfg[k] for k in INHERITED}
        routes.append(
            Route(name, None if types is None else tuple(types), compose(name, spec, inherited))
        )
    return routes


def route_of_type(routes: list[Route]) -> callable:
    table = {t: r.name for r in routes for t in (r.types or ())}
    rest = next((r.name for r in routes if r.types is None), None)

    def pick(qtype: str) -> str | None:
        return table.get(qtype, rest)

    return pick


def assign(questions: pl.DataFrame, routes: list[Route]) -> dict[str, list[str]]:
    """{route name: its question ids}; a question no route takes is a config error."""
    pick = route_of_type(routes)
    out: dict[str, list[str]] = {r.name: [] for r in routes}
    for qid, qtype in questions.select("question_id", "question_type").iter_rows():
        name = pick(qtype)
        if name is None:
            raise ConfigError(
                "reader.routes",
                sorted(out),
                hint=(
                    f"no route takes question type {qtype!r} ({qid}); give one route types: null"
                ),
            )
        out[name].append(qid)
    return out


def run_router_read(
    reader_cfg: dict,
    *,
    questions,
    sessions,
    turns,
    candidates,
    out,
    prompts_out=None,
    client_for=None,
) -> pl.DataFrame:
    """The read stage for reader=router. `client_for(route)`: tests hand in clients."""
    from .. import benchmarks
    from ..llm import LLMClient
    from ..plugins import result_params
    from .reader import answer_questions, build_contexts, reader_settings, rendered_prompts
    from .refusal_guard import refusal_guard

    bench = benchmarks.of_artifact(questions)
    qdf = read_table(questions, "questions")
    tdf, sdf = read_table(turns, "turns"), read_table(sessions, "sessions")
    cdf = read_table(candidates, "candidates")
    routes = routes_of(reader_cfg)
    assigned = assign(qdf, routes)
    frames, prompts, spent = [], {}, {}
    for route in routes:
        ids = assigned[route.name]
        if not ids:
            continue
        settings = reader_settings(route.cfg, bench)
        contexts = build_contexts(
            settings,
            qdf.filter(pl.col("question_id").is_in(ids)),
            sdf,
            tdf,
            cdf,
            str(candidates),
            speaker_column=bench.speaker_column,
            question_text=bench.reader_question,
        )
        client = (client_for or (lambda r: LLMClient(r.cfg, stage="read")))(route)
        client.stop_check = refusal_guard(
            reader_cfg, settings.prompt.extract_answer, label=f"read (route {route.name})"
        )
        df, pending = answer_questions(route.cfg, settings, contexts, client)
        frames.append(df.with_columns(pl.lit(route.name, pl.String).alias(ROUTE_COLUMN)))
        prompts.update(
            {
                f"{route.name}:{k}": v
                for k, v in rendered_prompts(settings, contexts, pending).items()
            }
        )
        spent[route.name] = (len(ids), float(df["cost_usd"].sum()), route.cfg["model"])
    df = pl.concat(frames).sort("question_id") if frames else pl.DataFrame()
    params = result_params(identity(reader_cfg))
    composed = {r.name: identity(r.cfg) for r in routes}
    write_table(
        df,
        out,
        table="answers",
        stage="read",
        params=params,
        input_files=[questions, sessions, turns, candidates],
        extra_meta={"routes": json.dumps(composed, sort_keys=True)},
    )
    if prompts_out is not None:
        atomic_write_text(
            prompts_out, json.dumps(prompts, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        )
    for name, (n, cost, model) in spent.items():
        print(f"read (router, route {name}: {model}): {n} answers, ${cost:.4f}", file=sys.stderr)
    return df


def route_names(path: str | Path) -> dict[str, str]:
    """{question id: route} of an answers table written by the router ({} for other readers)."""
    df = read_table(path, "answers")
    if ROUTE_COLUMN not in df.columns:
        return {}
    return dict(df.select("question_id", ROUTE_COLUMN).iter_rows())
