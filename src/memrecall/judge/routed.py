"""A routed judge (`judge=routed`): the rule judge decides the answers it can be trusted with, an
LLM judge the ones it refers, so a run pays for a fraction of the calls.

    members = member_configs(["rule", "gpt4o"])          # [the rules, the referee]
    verdicts, stats = judge_routed(bench, questions, answers, members, stage._judge)

The benchmark says which rule verdicts to refer and why (Benchmark.rule_referral: for
LongMemEval, a preference rubric, or a response that turns or corrects itself; judge/rules/
referral.py). Both members run through the judge stage's own code, so the referee's calls go
through the cached client and are never paid for twice. The verdicts are the rules' where kept
and the referee's where referred (its label, judge_model, raw reply, error and cost); every row
also carries `rule_label` (the rules' verdict) and `referred` (why it went to the referee, null
where the rules decided). A referee that fails leaves a judge error, never the rules' label.
Answers whose reader failed, and verdicts the benchmark fixes by its own rule, are not referred.
"""

from __future__ import annotations

from collections import Counter

import polars as pl

from ..errors import ConfigError

REFEREE_KINDS = ("llm", "official")


def check_members(members: dict[str, dict]) -> tuple[tuple[str, dict], tuple[str, dict]]:
    """((label, config) of the rules, (label, config) of the referee): two members, a rule
    judge then an LLM judge."""
    if len(members) != 2:
        raise ConfigError(
            "judge.members",
            list(members),
            hint="a routed judge has two members: the rule judge, then the LLM judge it "
            "refers answers to (e.g. [rule, gpt4o])",
        )
    (rules, rules_cfg), (referee, referee_cfg) = members.items()
    if rules_cfg["kind"] != "rule":
        raise ConfigError(
            "judge.members",
            rules,
            hint="the first member of a routed judge is a rule judge (judge=rule)",
        )
    if referee_cfg["kind"] not in REFEREE_KINDS:
        raise ConfigError(
            "judge.members",
            referee,
            hint="the second member of a routed judge is an LLM judge (gpt4o, official, "
            "lenient, local, ...): it judges what the rules refer",
        )
    return (rules, rules_cfg), (referee, referee_cfg)


def _family(why: str) -> str:
    """A referral's reason without the words it quotes: "... itself ('but')" -> "... itself"."""
    return why.split(" (", 1)[0]


def referrals(bench, items: list[dict], label_of: dict) -> dict[str, str]:
    """Why each answer of `items` (those the rules judged, `label_of` their verdicts by
    question_id) would go to an LLM judge (Benchmark.rule_referral); answers kept are absent."""
    return {
        it["question_id"]: reason
        for it in items
        if (reason := bench.rule_referral(it, label_of[it["question_id"]])) is not None
    }


def referral_counts(judged: int, why: dict[str, str]) -> dict:
    """How many of `judged` answers `why` refers, and for which reasons (their families)."""
    return {
        "judged": judged,
        "referred": len(why),
        "reasons": dict(sorted(Counter(_family(w) for w in why.values()).items())),
    }


def judge_routed(
    bench,
    questions: pl.DataFrame,
    answers: pl.DataFrame,
    members: dict[str, dict],
    judge,
    *,
    answers_file: str = "answers.parquet",
    client=None,
) -> tuple[pl.DataFrame, dict]:
    """(verdicts, stats: the referee's calls and provenance, and `routed`: who judged what).
    `judge`: the judge stage's one-judge function (stage._judge), handed in by the stage, as
    both are; `client`: the referee's client (the plan's dry-run client), else its own."""
    (rules, rules_cfg), (referee, referee_cfg) = check_members(members)
    # The rule judge says which of the answers it judged (not a failed reader's, nor one the
    # benchmark fixes itself) it would refer, and why: its stats' `referrals` and `in_doubt`.
    decided, rules_stats = judge(bench, questions, answers, rules_cfg, answers_file)
    why = rules_stats["referrals"]
    out = decided.with_columns(
        pl.col("label").alias("rule_label"),
        pl.col("question_id")
        .replace_strict(why, default=None, return_dtype=pl.String)
        .alias("referred"),
    )
    stats: dict = {"calls": 0, "cached": 0, "failed": 0}
    if why:
        ids = pl.Series(sorted(why)).implode()
        ruled, s = judge(
            bench,
            questions.filter(pl.col("question_id").is_in(ids)),
            answers.filter(pl.col("question_id").is_in(ids)),
            referee_cfg,
            answers_file,
            client,
        )
        stats.update({k: v for k, v in s.items() if k != "routed"})
        shared = [c for c in decided.columns if c in ruled.columns and c != "question_id"]
        out = out.update(ruled.select("question_id", *shared), on="question_id", include_nulls=True)
    stats["routed"] = {
        "rules": rules,
        "referee": referee,
        "referee_model": str(referee_cfg["model"] or ""),
        **rules_stats["in_doubt"],
    }
    return out, stats
