"""A judge panel: several judges score the same answers in one run (`judge=panel`), or re-score
a finished experiment's answers (`memrecall rejudge`).

    members = member_configs(["rule", "gpt4o"])                # {label: judge config}
    verdicts, stats = judge_panel(bench, questions, answers, members, stage._judge)

Each member is a judge option of conf/judge/ composed as it is there (an option name, or Hydra
overrides: "official judge.official_script=PATH"); it runs through the judge stage's own code,
so an LLM member's calls go through the cached client and a panel never pays again for a verdict
it already has. The first member's verdicts are the run's verdicts (its label is the headline);
every member's label is kept beside them as a column `label:<member>`, which the aggregate stage
turns into reports/judge/panel.md (eval/panel.py: accuracies, the band, kappa and flips).
"""

from __future__ import annotations

import shlex
from pathlib import Path

import polars as pl

from ..config import identity
from ..errors import ConfigError
from ..schema import PANEL_LABEL_PREFIX as LABEL_PREFIX


def member_specs(members, where: str = "judge.members") -> list[str]:
    if (
        not isinstance(members, (list, tuple))
        or len(members) < 2
        or not all(isinstance(m, str) and m.strip() for m in members)
    ):
        raise ConfigError(
            where,
            members,
            hint="a list of at least two judge options of "
            "conf/judge/ (e.g. [rule, gpt4o]), each optionally with overrides",
        )
    for m in members:  # how a member runs is not what the panel computes
        if ".runtime." in m or " runtime." in f" {m}":
            raise ConfigError(
                where,
                m,
                hint="runtime settings of a member go under "
                "judge.runtime.per_member.<member> (not part of a result)",
            )
    return [m.strip() for m in members]


def member_configs(
    specs: list[str], *, runtime_overrides: dict | None = None, root: Path | None = None
) -> dict[str, dict]:
    """{label: judge config}: each spec is an option name ("gpt4o") or Hydra overrides
    ("judge=official judge.official_script=PATH"); the label is the judge's name, numbered when
    two share one. `runtime_overrides` ({label: {key: value}}) set runtime keys of a member (its
    api_base, concurrency): how it runs, not what it computes."""
    from ..compose import compose_config

    out: dict[str, dict] = {}
    for spec in specs:
        words = shlex.split(spec)
        if words and "=" not in words[0]:
            words[0] = f"judge={words[0]}"
        cfg = compose_config(words, root=root)["judge"]
        if cfg["kind"] == "panel":
            raise ConfigError("judge.members", spec, hint="a panel's members are single judges")
        label, i = str(cfg["name"]), 2
        while label in out:
            label, i = f"{cfg['name']}-{i}", i + 1
        out[label] = cfg
    for label, over in (runtime_overrides or {}).items():
        if label not in out:
            raise ConfigError(
                f"judge.runtime.per_member.{label}",
                over,
                sorted(out),
                hint="runtime settings for a judge not in the panel",
            )
        rt = out[label].get("runtime")
        if not isinstance(rt, dict):
            raise ConfigError(
                f"judge.runtime.per_member.{label}",
                over,
                hint=f"{label} calls no model: it has no runtime settings",
            )
        for k, v in (over or {}).items():
            if k not in rt:
                raise ConfigError(f"judge.runtime.per_member.{label}.{k}", v, sorted(rt))
            rt[k] = v
    return out


def members_of(judge_cfg: dict) -> dict[str, dict]:
    """{label: judge config} of a panel's or a routed judge's `members`, with the runtime
    settings of `judge.runtime.per_member`."""
    from ..config import runtime

    return member_configs(
        member_specs(judge_cfg["members"]),
        runtime_overrides=runtime(judge_cfg, "judge")["per_member"],
    )


def judge_panel(
    bench,
    questions: pl.DataFrame,
    answers: pl.DataFrame,
    members: dict[str, dict],
    judge,
    *,
    answers_file: str = "answers.parquet",
) -> tuple[pl.DataFrame, dict]:
    """(verdicts: the first member's, plus a `label:<member>` column per member; stats: each
    member's identity, model-call counts and provenance). `bench`: the benchmark the
    questions are of (benchmarks.of_artifact); `judge`: the judge stage's one-judge function
    (stage._judge), handed in by the stage."""
    frames, stats = {}, {"members": {}, "calls": 0, "cached": 0, "failed": 0}
    for label, cfg in members.items():
        df, s = judge(bench, questions, answers, cfg, answers_file)
        frames[label] = df
        for k in ("calls", "cached", "failed"):
            stats[k] += int(s.get(k, 0) or 0)
        stats["members"][label] = {
            "params": identity(cfg),
            **{k: s[k] for k in ("provenance", "official_script_sha256", "log_sha256") if s.get(k)},
        }
    first = next(iter(frames))
    out = frames[first]
    for label, df in frames.items():
        col = df.select("question_id", pl.col("label").alias(LABEL_PREFIX + label))
        out = out.join(col, on="question_id", how="left", maintain_order="left")
    return out, stats
