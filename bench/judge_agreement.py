"""The rule judge against official judge labels: agreement, Cohen's kappa, confusion, per type,
and each run's accuracy under both labelings.

    python bench/judge_agreement.py --logs ../shared/data/judge/*.gz \
        --oracle ../shared/data/longmemeval/longmemeval_oracle.json --json OUT

Each log is an official eval-results file (`autoeval_label: {model, label}` per answer). The
rule judge labels the same answers with the oracle file's questions and references. Logs of
different judge models (gpt-4o vs gpt-4o-mini) are pooled apart: only gpt-4o-2024-08-06 is the
official judge; the mini labels are a second opinion. A model named with the route it was called
through ("openai/gpt-4o-2024-08-06", as a router names it) is pooled with its snapshot. A log
given as `NAME=PATH` is the run NAME (its family the name before the first "_"): published runs
are often all called hypotheses.jsonl.

`--dev REGEX` names the runs a rule change was developed on (their disagreements were read);
every other run is held out, and the split table reports both groups apart, per judge model,
so a change that helps only the runs it was written from shows up, and names the held-out runs
more than 2 points off. `--dev @FILE` reads the dev runs' exact names from FILE, one per line
("#" starts a comment): a split written down before reading, where a regex's loose part (`v3`
also matching `cj_v34p2`) would move a run silently. A name in FILE that no log has is an error.
`--dev @LEDGER.csv` takes the dev runs from the ledger of every run any round measured
(docs/findings/rule-judge/ledger.csv: each run by repository, commit and path, with every name
it went by and the first round that read it): the runs some round read are dev, the rest held
out, and a log the ledger does not know is an error. `@LEDGER.csv:ROUND` counts the reads up to
round ROUND only (a later round's split as it stood then).

`--disagreements FILE.jsonl` writes one line per answer whose rule verdict differs from the
official label, for reading while writing a rule: run, family (the run name before its first
"_", e.g. auditcrux), judge_model, question_id, question_type, is_abstention, question,
answer (the reference or rubric), hypothesis, official (the label), rule (the verdict) and
reason (the rule that decided). The printed tables do not change. With `--dev`, only the
development runs' disagreements are written: a held-out run's answers are counted, not shown,
unless `--held-out-disagreements` asks for them (and the ledger should then say they were read).

    python bench/judge_agreement.py --logs ../shared/data/judge/*.gz \
        --oracle ../shared/data/longmemeval/longmemeval_oracle.json \
        --disagreements /tmp/disagreements.jsonl

The target table holds each group (per judge model, and per dev and held-out group with
--dev) to the rule judge's target: agreement >= 0.95, kappa >= 0.88, and every run of at least
100 answers within 2 points of its official accuracy; it names the runs that miss it, each
with a 95% paired-bootstrap interval of its gap (how far the questions it drew could move it),
and counts the smaller runs it does not hold to 2 points. It also names the runs that would
still miss it were the rubric types' answers (preference) to agree: what is left when the one
type no rule reads as the labels do is set aside.

The "judge=routed" table says what a routed judge (judge/routed.py) would send to its LLM
judge (Benchmark.rule_referral): the share referred, the disagreements among them, the rules'
agreement on the answers they keep, and the routed judge's agreement and worst run if its
referee agreed with the labels (an upper bound: an official judge run again agrees with its own
earlier labels less than always). Per judge model, and per group with --dev.

The "which rule decided" table groups the verdicts by the rule family their reason names
(quantity, contains, declines, preference, either-or, ...) and by what the rules said: a "yes"
row with low agreement is where the rules over-accept, a "no" row where they over-reject.

The length table bands the answers by their response's length in words (LENGTH_BANDS of
memrecall.eval.agreement, as the panel report bands them: up to 40, 41-100, 101-250, over 250), per
judge model and per group with --dev: each band's share of the answers, agreement, kappa, which
way its disagreements go, and its agreement outside the rubric-judged type (preference answers
run long; without them a long band still shows whether length itself costs agreement), and how
many of its answers judge=routed refers, with the rules' agreement on those it keeps. A group
whose answers run long is judged less well than its pooled figure says.

The labels-against-themselves table takes the answers that several runs gave word for word
(the same question, the same response) and counts those whose official labels differ: how
often the judge that made the labels said otherwise of the very same answer, a floor under
any judge's disagreement with them on those answers. The declines table does the same for
responses that answer nothing ("Insufficient information."), which runs word them differently:
how many of them the labels accept, and on how many questions declined in several runs the
labels go both ways.

The read-alike table groups the answers the rules read alike: those to one question whose
verdicts give the same reason ("quantity: 3 week is off by one from 2 week"). The rules give such
a class one verdict, so where the labels split inside it, one side disagrees whatever the
verdict. It splits the disagreements three ways: in classes the labels split, with the rules on
the majority's side (these stay until the rules read something their reason does not name);
against a class's majority (a verdict per question would remove them, and would be fitted to
those questions, not a reading); and alone in a class of one.

The sampling table asks what judge=routed's calls would buy spent another way: the official
judge labels a random sample of n answers of each run, and the sample's mean (official − rule)
corrects the rules' accuracy (a prediction-powered estimate: unbiased, with an interval from
the sample's spread). Per n (SAMPLE_SIZES), over 200 seeded draws per run: the mean and
95th-percentile error against the official accuracy, the share of draws more than 2 points
off and how often the interval holds the official accuracy, beside the rules alone.

Each run's "in doubt" is the share of its answers judge=routed would refer: what a rule-judged
run reports of itself in metrics.json (judge.in_doubt), with no labels. The doubt table gives
Spearman's rank correlation, over the runs of at least 100 answers per judge model, of that
share with each run's agreement and with its absolute gap: whether the share a run reports warns
of how far its rule-judged score is off.

`--restyle` also re-judges every answer dressed in each house style of
memrecall.audit.restyle (a greeting first, a heading, the question restated, citations after, ...)
and counts the verdicts that change, toward the official label or away from it. The label of a
restyled answer is its original's, so every change is the rules reading style as meaning.

`--rename` re-judges every answer whose question names something ("Sony", "Luna", "Instant
Pot") with those names made up, the same way in the question, the reference and the response
(memrecall.audit.rename), and lists each verdict that changes: a rule reading a particular name,
tuned to the questions it was written from. Held-out runs answer the same questions as the dev
runs; this is the check on other questions.

`--reword` re-judges every answer with its question asked in other words, its meaning kept
("Quick question: ...", "Can you remind me which ...?", "... Thanks!", contractions; see
memrecall.audit.reword), and counts the verdicts that change: a rule fitted to how these 500
questions happen to be worded.

`--restate` re-judges every answer against its reference written in other words, its meaning
kept ("five" for "5", "14 days" for "two weeks", "800 dollars" for "$800", "The user ..." for
"You ..."; see memrecall.audit.restate): a rule fitted to how these 500 references are written.
Its restatements include the notations of memrecall.audit.notation ("12k" for "12,000", "45
mins" for "45 minutes", "27:45" for "27 minutes and 45 seconds", "a dozen" for "12").

`--renotate` re-judges every answer with its response's quantities in those notations: a rule
fitted to how these responses happen to write their numbers.

`--cross` puts every response to a preference question to each other preference question,
judged against that question's rubric (memrecall.audit.crossed): an answer to another question,
wrong by construction, and no label needed. It counts the crossed answers the rules accept and
lists what they accepted them on: rubric words that a response to another question also holds.

`--turn` turns right answers wrong (memrecall.audit.turned): a knowledge update's response
with the reference's number and the one other number it gives swapped throughout, an either-or
response with its two options swapped throughout. Only answers the official label calls right
are turned, and only where the swap is clean; it counts the turned answers the rules still
accept, and which, and how many of those the rules reject as given (there the official label
may be what is wrong, and the turn made the answer right).

Each variant's table row counts the answers it rewrote, the verdicts it changed (toward the
label or away from it) and their questions; `--json` names each changed answer (run and
question id), to read it again.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import zlib
from collections import Counter
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402
from tqdm import tqdm  # noqa: E402

from memrecall import benchmarks  # noqa: E402
from memrecall.artifacts import atomic_write_text  # noqa: E402
from memrecall.audit.crossed import crossed  # noqa: E402
from memrecall.audit.notation import RENOTATED  # noqa: E402
from memrecall.audit.rename import rename  # noqa: E402
from memrecall.audit.restate import RESTATED  # noqa: E402
from memrecall.audit.restyle import RESTYLED  # noqa: E402
from memrecall.audit.reword import REWORDED  # noqa: E402
from memrecall.audit.turned import TURNS, turned  # noqa: E402
from memrecall.audit.variants import Labelled, verdict_changes  # noqa: E402
from memrecall.benchmarks.longmemeval.categories import is_abstention_id  # noqa: E402
from memrecall.benchmarks.longmemeval.data import load_records  # noqa: E402
from memrecall.benchmarks.longmemeval.judge import RUBRIC_TYPES  # noqa: E402
from memrecall.data.ledger import read_ledger, run_of  # noqa: E402
from memrecall.errors import InputError  # noqa: E402
from memrecall.eval.agreement import LENGTH_BAND_NAMES, judge_agreement, length_band  # noqa: E402
from memrecall.eval.stats import paired_bootstrap_delta  # noqa: E402
from memrecall.interchange import model_snapshot, read_eval_results  # noqa: E402
from memrecall.judge.rules import judge_one  # noqa: E402


def _named_log(arg: str) -> tuple[str | None, str]:
    """(NAME, PATH) of a `NAME=PATH` --logs argument; (None, arg) for a path."""
    if "=" in arg and not Path(arg).exists():
        name, path = arg.split("=", 1)
        return name, path
    return None, arg


def log_path(arg: str) -> str:
    return _named_log(arg)[1]


def run_name(arg: str) -> str:
    """A run's name: NAME of a `NAME=PATH` argument (published runs are often all called
    hypotheses.jsonl), else the file's name before ".jsonl"."""
    name, path = _named_log(arg)
    return name or Path(path).name.split(".jsonl")[0]


def family(run: str) -> str:
    """The system a run belongs to: its name before the first "_" (auditcrux_F1_s -> auditcrux)."""
    return run.split("_", 1)[0]


def _frame(rows, label_key):
    return pl.DataFrame(
        [{"question_id": f"{r['run']}|{r['question_id']}", "label": r[label_key]} for r in rows],
        schema={"question_id": pl.String, "label": pl.Boolean},
    )


def _types(rows):
    return pl.DataFrame(
        [
            {
                "question_id": f"{r['run']}|{r['question_id']}",
                "question_type": r["question_type"],
                "is_abstention": is_abstention_id(r["question_id"]),
            }
            for r in rows
        ]
    )


def _answers(logs: list[str], oracle: str):
    """(log path, its eval entry, the oracle question) for every answer of every log."""
    ref = {str(q["question_id"]): q for q in load_records(oracle)}
    for path in logs:
        entries = read_eval_results(log_path(path))
        for e in tqdm(entries, desc=run_name(path), leave=False):
            q = ref.get(e["question_id"])
            if q is None:
                sys.exit(
                    f"error: {log_path(path)} line {e['line']}: question_id {e['question_id']!r} "
                    f"is not in {oracle}"
                )
            yield path, e, q


def _item(q: dict, response: str) -> dict:
    """An oracle question with a response, as the benchmark's rule judge reads an answer."""
    return {
        "question_type": q["question_type"],
        "question": q["question"],
        "answer": str(q["answer"]),
        "hypothesis": response,
        "is_abstention": is_abstention_id(str(q["question_id"])),
    }


def _rule(q: dict, response: str):
    # judge_one by name: the tests put a rule judge of their own in its place
    it = _item(q, response)
    return judge_one(
        it["question_type"],
        it["question"],
        it["answer"],
        response,
        is_abstention=it["is_abstention"],
    )


def decided_by(reason: str) -> str:
    """The rule family a verdict's reason names: its words before the first ":" ("quantity",
    "contains", "declines", "preference", ...), or the whole reason when it has none."""
    return reason.split(":", 1)[0].strip()


def by_rule(rows: list[dict]) -> list[dict]:
    """Per rule family and verdict, how often the official label agrees: where the rules
    over-accept (a "yes" row with low agreement) or over-reject (a "no" row), most
    disagreements first."""
    groups: dict[tuple[str, bool], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["decided_by"], r["rule"]), []).append(r)
    table = [
        {
            "rule": rule,
            "says": "yes" if says else "no",
            "n": len(rs),
            "agreement": sum(r["rule"] == r["official"] for r in rs) / len(rs),
            "disagreements": sum(r["rule"] != r["official"] for r in rs),
        }
        for (rule, says), rs in groups.items()
    ]
    return sorted(table, key=lambda t: (-t["disagreements"], t["rule"], t["says"]))


_LME = benchmarks.get("longmemeval")

# The rule judge's target against the official judge's labels: pooled agreement and kappa, and
# every run of at least RUN_MIN_ANSWERS answers within RUN_POINTS of its official accuracy (a
# smaller run is held to nothing: one answer of 60 is already 1.7 points).
TARGET_AGREEMENT = 0.95
TARGET_KAPPA = 0.88
TARGET_RUN_POINTS = 0.02
TARGET_RUN_MIN_ANSWERS = 100


# Response lengths, in words, that the length table bands apart: a short answer, a paragraph, a
# few paragraphs, an essay. Round sizes, not fitted: a long response holds more numbers and words
# a rule can match by chance, and more reasoning around its answer, so the table shows whether
# agreement falls with length and by how much (a reader whose answers run long is then judged
# less well than the pooled figure says).
def by_length(rows: list[dict]) -> dict[str, dict]:
    """Per length band (shortest first), the rules' agreement with the labels on its answers,
    their share of all answers, the agreement on its answers outside the rubric-judged types
    (a preference answer is long and judged against a rubric, so it would make any long band look
    worse on its own), and how many judge=routed refers, with the rules' agreement on the rest."""
    out = {}
    for band in LENGTH_BAND_NAMES:
        sub = [r for r in rows if length_band(r["words"]) == band]
        if not sub:
            continue
        o = judge_agreement(_frame(sub, "rule"), _frame(sub, "official"), _types(sub))["overall"]
        valued = [r for r in sub if r["question_type"] not in RUBRIC_TYPES]
        kept = [r for r in sub if not r["referred"]]
        out[band] = o | {
            "share": len(sub) / len(rows),
            "n_valued": len(valued),
            "agreement_valued": (
                sum(r["rule"] == r["official"] for r in valued) / len(valued) if valued else None
            ),
            "referred": len(sub) - len(kept),
            "kept_agreement": (
                sum(r["rule"] == r["official"] for r in kept) / len(kept) if kept else None
            ),
        }
    return out


def beyond_run_points(difference: float) -> bool:
    """Whether a run's accuracy gap is more than TARGET_RUN_POINTS (a float's last bit aside)."""
    return abs(difference) > TARGET_RUN_POINTS + 1e-9


def routed(rows: list[dict]) -> dict:
    """judge=routed on these answers: what its rules refer, their agreement on the rest, and the
    routed judge's agreement and worst run if its referee agreed with the labels."""
    kept = [r for r in rows if not r["referred"]]
    off = {}
    for run in dict.fromkeys(r["run"] for r in rows):
        rr = [r for r in rows if r["run"] == run]
        accepted = sum(r["official"] if r["referred"] else r["rule"] for r in rr)
        off[run] = (accepted - sum(r["official"] for r in rr)) / len(rr)
    missed = sum(r["rule"] != r["official"] for r in kept)
    return {
        "n": len(rows),
        "referred": len(rows) - len(kept),
        "disagreements": sum(r["rule"] != r["official"] for r in rows),
        "disagreements_referred": sum(r["rule"] != r["official"] for r in rows if r["referred"]),
        "kept_agreement": 1 - missed / len(kept) if kept else None,
        "routed_agreement": 1 - missed / len(rows),
        "max_abs_difference": max(abs(d) for d in off.values()),
        "runs_over_2pt": sum(beyond_run_points(d) for d in off.values()),
    }


def target(overall: dict, runs: dict[str, dict]) -> dict:
    """Whether the pooled figures `overall` and the per-run figures `runs` (each with its `n`,
    `difference`, rule minus official accuracy, and `difference_ci`) meet the target, and where
    they miss it."""
    counted = {run: r for run, r in runs.items() if r["n"] >= TARGET_RUN_MIN_ANSWERS}
    off = {
        run: {"difference": r["difference"], "difference_ci": r["difference_ci"]}
        for run, r in counted.items()
        if beyond_run_points(r["difference"])
    }
    # (runs measured here carry it; a table of gaps alone does not)
    off_outside_rubrics = {
        run: r["difference_outside_rubrics"]
        for run, r in counted.items()
        if beyond_run_points(r.get("difference_outside_rubrics", 0.0))
    }
    kappa = overall["kappa"]
    checks = {
        "agreement_met": overall["agreement"] >= TARGET_AGREEMENT,
        "kappa_met": kappa is not None and kappa >= TARGET_KAPPA,
        "runs_met": not off,
    }
    return {
        "agreement": overall["agreement"],
        "kappa": kappa,
        "runs_counted": len(counted),
        "runs_smaller": len(runs) - len(counted),
        "runs_off": off,
        "runs_off_outside_rubrics": off_outside_rubrics,
        **checks,
        "met": all(checks.values()),
    }


def judge_against_itself(rows: list[dict]) -> dict:
    """The labels against themselves: per judge model, the answers given word for word (the same
    question, the same response) in more than one run, and how many of them got different labels
    (`discordant`). An LLM judge asked the same thing again can answer otherwise; this is how
    often the published runs' own labels did, a floor no judge's agreement with them can beat
    on these answers. `cross_system`: answers given by runs of different systems (judged in
    different evaluations, not one batch); `median_words`: how long these answers are (short
    ones are easy to judge the same way twice)."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["judge_model"], r["question_id"], r["response"]), []).append(r)
    out: dict = {}
    for (model, *_), rr in groups.items():
        if len(rr) < 2:
            continue
        m = out.setdefault(
            model, {"answers": 0, "verdicts": 0, "discordant": 0, "cross_system": 0, "_words": []}
        )
        m["answers"] += 1
        m["verdicts"] += len(rr)
        m["discordant"] += len({r["official"] for r in rr}) > 1
        m["cross_system"] += len({family(r["run"]) for r in rr}) > 1
        m["_words"].append(rr[0]["words"])
    for m in out.values():
        m["median_words"] = median(m.pop("_words"))
    return dict(sorted(out.items()))


def read_alike(rows: list[dict]) -> dict:
    """Where the disagreements lie among answers the rules read alike. The answers to one
    question whose verdicts give the same reason ("quantity: 3 week is off by one from 2 week",
    "preference: uses the user's suica") form a class, and the rules give a class one verdict.
    - `split`: disagreements in classes where the labels split and the rules side with the
      majority (or a tie). No verdict on the class agrees with both sides, so these stay until the
      rules read something in the answers that their reason does not name.
    - `against_majority`: disagreements in classes where the rules side with the minority. Giving
      such a class the majority's verdict would be fitted to this question, not a reading.
    - `alone`: disagreements in classes of one answer.
    `floor`: the fewest disagreements any verdict per class leaves (each class's minority);
    `by_type` gives the same per question type (abstention questions apart)."""

    def count(sub: list[dict]) -> dict:
        classes: dict[tuple, list[dict]] = {}
        for r in sub:
            classes.setdefault((r["question_id"], r["reason"]), []).append(r)
        out = {"answers": len(sub), "disagreements": 0, "split": 0, "against_majority": 0}
        out |= {"alone": 0, "floor": 0}
        for members in classes.values():
            verdict = members[0]["rule"]  # one reason, one verdict
            agree = sum(r["official"] == verdict for r in members)
            differ = len(members) - agree
            out["disagreements"] += differ
            if len(members) == 1:
                out["alone"] += differ
                continue
            out["floor"] += min(agree, differ)
            out["split" if agree >= differ else "against_majority"] += differ
        return out

    def type_of(r: dict) -> str:
        return r["question_type"] + (" (abstention)" if is_abstention_id(r["question_id"]) else "")

    types = sorted({type_of(r) for r in rows})
    return count(rows) | {
        "by_type": {t: count([r for r in rows if type_of(r) == t]) for t in types}
    }


def declines_labelled(rows: list[dict]) -> dict:
    """How the labels judge responses that answer nothing: per judge model, the answers the rules
    read as a decline ("Insufficient information.", "I can't find that in our conversations")
    to a question the history answers, how many the labels accept (`accepted`), and, among the
    questions declined in more than one run, how many got both labels (`questions_both`, of
    `questions_repeated`; `accepted_where_both` of the accepted answers are on those). A decline
    names no answer, so a label that accepts one is the judge's slip or its reading of words
    around the decline; where the same judge rejected another decline of the same question, the
    labels disagree with themselves, and no rule can agree with both."""
    out: dict = {}
    groups: dict[tuple[str, str], list[bool]] = {}
    for r in rows:
        if r["decided_by"] == "declines":
            groups.setdefault((r["judge_model"], r["question_id"]), []).append(r["official"])
    for (model, _), labels in groups.items():
        m = out.setdefault(
            model,
            {
                "declines": 0,
                "accepted": 0,
                "questions_repeated": 0,
                "questions_both": 0,
                "accepted_where_both": 0,
            },
        )
        m["declines"] += len(labels)
        m["accepted"] += sum(labels)
        if len(labels) > 1:
            m["questions_repeated"] += 1
            if len(set(labels)) > 1:
                m["questions_both"] += 1
                m["accepted_where_both"] += sum(labels)
    return dict(sorted(out.items()))


# The sampling what-if: labelled sample sizes per run, and draws of each.
SAMPLE_SIZES = (50, 100, 200)
SAMPLE_DRAWS = 200


def sampled_correction(
    runs: dict[str, tuple[list[bool], list[bool]]],
    sizes: tuple[int, ...] = SAMPLE_SIZES,
    draws: int = SAMPLE_DRAWS,
    seed: int = 0,
) -> dict:
    """The other way to correct a rule-judged score than judge=routed's: have the official judge
    label a random sample of n answers, and add the sample's mean (official − rule) to the rules'
    accuracy (a prediction-powered estimate: unbiased, its interval from the sample's spread).
    `runs`: each run's (official labels, rule verdicts). Over the runs of at least
    TARGET_RUN_MIN_ANSWERS answers, `draws` samples of each size smaller than the run: the mean
    and 95th-percentile absolute error against the official accuracy, the share of draws more
    than TARGET_RUN_POINTS off, and how often the normal 95% interval holds the official
    accuracy; and, as n = 0, the rules alone."""
    held = {
        run: (np.asarray(o, dtype=float), np.asarray(r, dtype=float))
        for run, (o, r) in runs.items()
        if len(o) >= TARGET_RUN_MIN_ANSWERS
    }
    alone = [abs(r.mean() - o.mean()) for o, r in held.values()]
    out: dict = {
        "runs": len(held),
        "rules_alone": {
            "mean_abs_error": float(np.mean(alone)) if alone else None,
            "max_abs_error": float(max(alone)) if alone else None,
        },
        "sampled": {},
    }
    for n in sizes:
        errors, covered = [], []
        for run, (o, r) in held.items():
            if n >= len(o):
                continue
            # each run's draws of its own: the same logs in another order draw the same samples
            rng = np.random.default_rng([seed, n, zlib.crc32(run.encode("utf-8"))])
            for _ in range(draws):
                picked = rng.choice(len(o), n, replace=False)
                d = o[picked] - r[picked]
                error = abs(r.mean() + d.mean() - o.mean())
                errors.append(error)
                covered.append(error <= 1.96 * d.std(ddof=1) / np.sqrt(n) + 1e-12)
        if errors:
            out["sampled"][n] = {
                "mean_abs_error": float(np.mean(errors)),
                "p95_abs_error": float(np.quantile(errors, 0.95)),
                "share_beyond_run_points": float(np.mean([beyond_run_points(e) for e in errors])),
                "coverage": float(np.mean(covered)),
            }
    return out


def doubt_warns(runs: dict[str, dict]) -> dict:
    """Whether a run's share in doubt (what judge=rule reports in metrics.json, with no labels)
    warns of how far its rule-judged accuracy is off: Spearman's rank correlation, over the runs
    of at least TARGET_RUN_MIN_ANSWERS answers, of the share with the run's agreement and with
    its absolute gap. None where fewer than three runs or a constant column leave no rank."""
    held = [r for r in runs.values() if r["n"] >= TARGET_RUN_MIN_ANSWERS]
    out: dict = {"runs": len(held)}
    doubt = [r["in_doubt"] for r in held]
    for key, values in (
        ("agreement", [r["agreement"] for r in held]),
        ("abs_difference", [abs(r["difference"]) for r in held]),
    ):
        rho = p = None
        if len(held) >= 3 and len(set(doubt)) > 1 and len(set(values)) > 1:
            res = spearmanr(doubt, values)
            rho, p = float(res.statistic), float(res.pvalue)
        out[key] = {"spearman": rho, "p": p}
    return out


def dev_runs(spec: str, runs: list[str]) -> set[str]:
    """The runs of `runs` that --dev names: by regex, by exact name from `@FILE`, or those a
    ledger (`@LEDGER.csv`, `@LEDGER.csv:ROUND`) says some round (up to ROUND) read."""
    if not spec.startswith("@"):
        return {run for run in runs if re.search(spec, run)}
    path = spec[1:]
    ledger = re.fullmatch(r"(.+\.csv)(?::(\d+))?", path)
    if ledger:
        return ledger_dev_runs(ledger[1], int(ledger[2]) if ledger[2] else None, runs)
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as e:
        raise SystemExit(f"--dev {spec}: cannot read the split file: {e}") from None
    names = {line.split("#", 1)[0].strip() for line in lines} - {""}
    unknown = sorted(names - set(runs))
    if unknown:
        raise SystemExit(f"--dev {spec}: no log is the run {', '.join(unknown)}")
    return names


def ledger_dev_runs(path: str, by_round: int | None, runs: list[str]) -> set[str]:
    """The runs of `runs` that a round up to `by_round` (any, for None) read, by the ledger. A
    run the ledger does not know is an error: a run counts as held out only when the ledger
    says no round read it, whatever it is called here."""
    try:
        known = run_of(read_ledger(path))
    except InputError as e:
        raise SystemExit(f"--dev @{path}: {e}") from None
    unknown = sorted(set(runs) - set(known))
    if unknown:
        raise SystemExit(
            f"--dev @{path}: not in the ledger: {', '.join(unknown)}. Add each run (its key, "
            f"names, and first_read_round: a round number, or never) or name the log as the "
            f"ledger does (NAME=PATH)"
        )
    return {run for run in runs if known[run].read_by(by_round)}


def measure(
    logs: list[str], oracle: str, dev: str | None = None, disagreements: list | None = None
) -> dict:
    """Every figure; when `disagreements` is a list, each answer whose rule verdict differs from
    the official label is appended to it (see the module docstring for the fields)."""
    rows = []
    for path, e, q in _answers(logs, oracle):
        v = _rule(q, e["hypothesis"])
        if disagreements is not None and v.label != e["label"]:
            disagreements.append(
                {
                    "run": run_name(path),
                    "family": family(run_name(path)),
                    "judge_model": model_snapshot(e["model"]),
                    "question_id": e["question_id"],
                    "question_type": q["question_type"],
                    "is_abstention": is_abstention_id(e["question_id"]),
                    "question": q["question"],
                    "answer": str(q["answer"]),
                    "hypothesis": e["hypothesis"],
                    "official": e["label"],
                    "rule": v.label,
                    "reason": v.reason,
                }
            )
        rows.append(
            {
                "run": run_name(path),
                "judge_model": model_snapshot(e["model"]),
                "question_id": e["question_id"],
                "question_type": q["question_type"],
                "official": e["label"],
                "rule": v.label,
                "words": len(e["hypothesis"].split()),
                "response": e["hypothesis"].strip(),
                "decided_by": decided_by(v.reason),
                "reason": v.reason,
                "referred": _LME.rule_referral(_item(q, e["hypothesis"]), v.label) is not None,
            }
        )
    out = {
        "runs": {},
        "pooled": {},
        "split": {},
        "by_rule": {},
        "by_length": {},
        "doubt": {},
        "sampled": {},
        "routed": {},
        "itself": judge_against_itself(rows),
        "alike": {},
        "declines": declines_labelled(rows),
        "target": {},
    }
    by_run: dict[str, list[dict]] = {}
    for r in rows:
        by_run.setdefault(r["run"], []).append(r)
    for run, sub in by_run.items():
        res = judge_agreement(_frame(sub, "rule"), _frame(sub, "official"), _types(sub))
        o = res["overall"]
        # How far the run's gap could move by which questions it drew (a paired bootstrap):
        # a run 2.4 points off may be within what its 500 answers' luck allows.
        gap = paired_bootstrap_delta([r["official"] for r in sub], [r["rule"] for r in sub])
        out["runs"][run] = {
            "judge_model": sub[0]["judge_model"],
            "n": o["n"],
            "agreement": o["agreement"],
            "kappa": o["kappa"],
            "official_accuracy": o["b_yes"],
            "rule_accuracy": o["a_yes"],
            "difference": o["a_yes"] - o["b_yes"],
            "difference_ci": (gap["ci_low"], gap["ci_high"]),
            # the gap were the rubric types' answers (preference) agreed: how much of a run's
            # miss those rubrics make, the type no rule reads as the labels do
            "difference_outside_rubrics": sum(
                r["rule"] - r["official"] for r in sub if r["question_type"] not in RUBRIC_TYPES
            )
            / len(sub),
            # the share judge=rule reports as in doubt (metrics.json's judge.in_doubt)
            "in_doubt": sum(r["referred"] for r in sub) / len(sub),
            "by_type": res["by_type"],
            "abstention": res["abstention"],
        }
    for model in sorted({r["judge_model"] for r in rows}):
        sub = [r for r in rows if r["judge_model"] == model]
        # Agreement of the rule judge (a) with the official labels (b).
        out["pooled"][model] = judge_agreement(
            _frame(sub, "rule"), _frame(sub, "official"), _types(sub)
        )
        out["by_rule"][model] = by_rule(sub)
        out["by_length"][model] = by_length(sub)
        out["alike"][model] = read_alike(sub)
        runs = {run: r for run, r in out["runs"].items() if r["judge_model"] == model}
        out["sampled"][model] = sampled_correction(
            {
                run: ([r["official"] for r in by_run[run]], [r["rule"] for r in by_run[run]])
                for run in runs
            }
        )
        out["doubt"][model] = doubt_warns(runs)
        out["routed"][model] = routed(sub)
        out["target"][model] = target(out["pooled"][model]["overall"], runs)
    if dev is not None:
        developed = dev_runs(dev, list(dict.fromkeys(r["run"] for r in rows)))
        out["dev_runs"] = sorted(developed)
        for model in sorted({r["judge_model"] for r in rows}):
            for group in ("dev", "held-out"):
                sub = [
                    r
                    for r in rows
                    if r["judge_model"] == model and (r["run"] in developed) == (group == "dev")
                ]
                if not sub:
                    continue
                res = judge_agreement(_frame(sub, "rule"), _frame(sub, "official"), _types(sub))
                runs = sorted({r["run"] for r in sub})
                diffs = {run: out["runs"][run]["difference"] for run in runs}
                over = {run: d for run, d in diffs.items() if beyond_run_points(d)}
                # Per system: answers from a reader and prompts the rules were never read on
                # can agree less than the group's pool, which the better-known systems dominate.
                by_system = {}
                for system in sorted({family(run) for run in runs}):
                    ss = [r for r in sub if family(r["run"]) == system]
                    o = judge_agreement(_frame(ss, "rule"), _frame(ss, "official"), _types(ss))
                    by_system[system] = o["overall"] | {
                        "runs": sum(family(run) == system for run in runs),
                        "max_abs_difference": max(
                            abs(d) for run, d in diffs.items() if family(run) == system
                        ),
                    }
                out["routed"][f"{model} {group}"] = routed(sub)
                out["by_length"][f"{model} {group}"] = by_length(sub)
                out["alike"][f"{model} {group}"] = read_alike(sub)
                out["target"][f"{model} {group}"] = target(
                    res["overall"], {run: out["runs"][run] for run in runs}
                )
                out["split"][f"{model} {group}"] = {
                    "runs": runs,
                    "overall": res["overall"],
                    "by_type": res["by_type"],
                    "abstention": res["abstention"],
                    "by_system": by_system,
                    "max_abs_difference": max(abs(d) for d in diffs.values()),
                    "runs_over_2pt": len(over),
                    "over_2pt": over,
                }
    return out


def varied(logs: list[str], oracle: str, variants: dict) -> dict:
    """Per variant (a restyling of memrecall.audit.restyle, a rewording of
    memrecall.audit.reword, a restatement of memrecall.audit.restate, a notation of
    memrecall.audit.notation), how many rule verdicts
    change on the answers it rewrites, whether toward or away from their official label, and
    which (run and question id of each)."""
    items = [
        Labelled(q["question"], e["hypothesis"], e["label"], record=q, source=run_name(path))
        for path, e, q in _answers(logs, oracle)
    ]
    changes = verdict_changes(
        items,
        lambda item: _rule(item.record | {"question": item.question}, item.response).label,
        variants,
        progress=True,
        key=lambda item: {"run": item.source, "question_id": item.record["question_id"]},
    )
    return {name: vars(c) for name, c in changes.items()}


def print_varied(result: dict, title: str, kind: str) -> None:
    print(f"\n## the rule judge's verdicts under {title}\n")
    print(f"| {kind} | answers | verdicts changed | toward the label | away from it | questions |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, c in result.items():
        questions = len({a["question_id"] for a in c["answers"]})
        print(
            f"| {name} | {c['n']} | {c['changed']} | {c['toward_label']} | {c['away_from_label']} "
            f"| {questions} |"
        )


def renamings(logs: list[str], oracle: str) -> dict:
    """How many rule verdicts change when each answer's question names are made up
    (memrecall.audit.rename), and which: run, question id, the names, and the reasons before
    and after."""
    answers = 0
    questions: set[str] = set()
    changed = []
    for path, e, q in _answers(logs, oracle):
        r = rename(q["question"], str(q["answer"]), e["hypothesis"] or "")
        if r is None:
            continue
        answers += 1
        questions.add(q["question_id"])
        before = _rule(q, e["hypothesis"])
        after = _rule(q | {"question": r.question, "answer": r.reference}, r.response)
        if after.label != before.label:
            changed.append(
                {
                    "run": run_name(path),
                    "question_id": q["question_id"],
                    "names": list(r.names),
                    "before": before.reason,
                    "after": after.reason,
                    "toward_label": after.label == e["label"],
                }
            )
    return {"answers": answers, "questions": len(questions), "changed": changed}


def print_renamings(result: dict) -> None:
    changed = result["changed"]
    toward = sum(c["toward_label"] for c in changed)
    print("\n## the rule judge's verdicts with the questions' names made up\n")
    print(
        f"{result['answers']} answers to {result['questions']} questions that name something; "
        f"{len(changed)} verdicts changed ({toward} toward the label, "
        f"{len(changed) - toward} away from it)"
    )
    if changed:
        print("\n| run | question | names | before | after |")
        print("|---|---|---|---|---|")
        for c in changed:
            print(
                f"| {c['run']} | {c['question_id']} | {', '.join(c['names'])} | {c['before']} | "
                f"{c['after']} |"
            )


def crossings(logs: list[str], oracle: str) -> dict:
    """How many responses the rules accept when put to another question with a rubric
    (memrecall.audit.crossed), and on what: each accepted one's run, its own question, the
    question it was put to and the rule's reason."""
    items = [
        Labelled(q["question"], e["hypothesis"] or "", record=q, source=run_name(path))
        for path, e, q in _answers(logs, oracle)
    ]

    def rubric_type(item: Labelled) -> str | None:
        kind = item.record["question_type"]
        return kind if kind in RUBRIC_TYPES else None

    pairs = list(crossed(items, rubric_type))
    accepted = []
    for answer, wrong in tqdm(pairs, desc="crossed", leave=False):
        verdict = _rule(wrong.record, wrong.response)
        if verdict.label:
            accepted.append(
                {
                    "run": answer.source,
                    "question_id": answer.record["question_id"],
                    "put_to": wrong.record["question_id"],
                    "reason": verdict.reason,
                }
            )
    return {"answers": len(pairs), "accepted": accepted}


def print_crossings(result: dict) -> None:
    n, accepted = result["answers"], result["accepted"]
    print("\n## the rule judge on responses put to another question's rubric\n")
    rate = f" ({len(accepted) / n:.1%})" if n else ""
    print(f"{n} crossed answers, all wrong; the rules accept {len(accepted)}{rate}")
    reasons = Counter(a["reason"] for a in accepted)
    if reasons:
        print("\n| accepted on | answers |")
        print("|---|---:|")
        for reason, count in reasons.most_common(15):
            print(f"| {reason} | {count} |")


# The question types each turn is put to: a knowledge update names the old value beside the new
# one; options are swapped wherever a question has two, and an order reversed wherever one is
# asked for.
_TURNED_TYPES = {
    "swapped_values": {"knowledge-update"},
    "swapped_options": None,
    "reversed_order": None,
}


def turnings(logs: list[str], oracle: str) -> dict:
    """Per turn (memrecall.audit.turned), how many right answers it turned wrong and which of
    them the rules still accept: run, question id and the rule's reason."""
    out = {name: {"answers": 0, "accepted": []} for name in TURNS}
    for path, e, q in _answers(logs, oracle):
        if e["label"] is not True or is_abstention_id(q["question_id"]):
            continue
        item = Labelled(q["question"], e["hypothesis"] or "", True, record=q, source=run_name(path))
        for name, turn in TURNS.items():
            types = _TURNED_TYPES[name]
            wrong = None if types and q["question_type"] not in types else turned(item, turn)
            if wrong is None:
                continue
            out[name]["answers"] += 1
            verdict = _rule(q, wrong.response)
            if verdict.label:
                out[name]["accepted"].append(
                    {
                        "run": item.source,
                        "question_id": q["question_id"],
                        "reason": verdict.reason,
                        # where the rules reject the answer as given, the label may be what
                        # is wrong, and the turn made it right
                        "original_accepted": _rule(q, item.response).label,
                    }
                )
    return out


def print_turnings(result: dict) -> None:
    print("\n## the rule judge on right answers turned wrong\n")
    print(
        "| turn | answers turned | still accepted | questions | of them, the rules reject "
        "the answer as given |"
    )
    print("|---|---:|---:|---:|---:|")
    for name, r in result.items():
        questions = len({a["question_id"] for a in r["accepted"]})
        rejected = sum(not a["original_accepted"] for a in r["accepted"])
        print(f"| {name} | {r['answers']} | {len(r['accepted'])} | {questions} | {rejected} |")


def _f(x, d=3):
    return "–" if x is None else f"{x:.{d}f}"


def _interval(ci) -> str:
    low, high = ci
    return "–" if low is None else f"[{low * 100:+.1f}, {high * 100:+.1f}]"


def _missed(met: bool) -> str:
    return "" if met else " ✗"


def print_tables(result: dict) -> None:
    for model, res in result["pooled"].items():
        print(f"\n## rule judge vs {model} (pooled over its logs)\n")
        print(
            "| type | n | agreement | kappa | rule acc | official acc | rule-only yes | "
            "official-only yes |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        items = [
            *res["by_type"].items(),
            ("abstention (_abs)", res["abstention"]),
            ("**all**", res["overall"]),
        ]
        for t, s in items:
            print(
                f"| {t} | {s['n']} | {_f(s['agreement'])} | {_f(s['kappa'])} | "
                f"{_f(s['a_yes'])} | {_f(s['b_yes'])} | {s['a_only_yes']} | "
                f"{s['b_only_yes']} |"
            )
    if result.get("split"):
        print("\n## held-out protocol: runs whose disagreements were read (dev) vs the rest\n")
        print(
            "| labels, runs | n | agreement | kappa | runs | max abs(rule − official) | "
            "runs > 2 pt | those runs (rule − official) |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---|")
        for name, s in result["split"].items():
            o = s["overall"]
            over = ", ".join(f"{run} {d * 100:+.1f}" for run, d in s["over_2pt"].items())
            print(
                f"| {name} | {o['n']} | {_f(o['agreement'])} | {_f(o['kappa'])} | "
                f"{len(s['runs'])} | {s['max_abs_difference'] * 100:.1f} pt | "
                f"{s['runs_over_2pt']} | {over} |"
            )
        # (which way a system's disagreements go: one-sided, they move its accuracy)
        print("\n## held-out protocol by system (a run's name up to its first underscore)\n")
        print(
            "| labels, runs | system | runs | n | agreement | kappa | max abs(rule − official) | "
            "rule-only yes | official-only yes |"
        )
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for name, s in result["split"].items():
            for system, o in s.get("by_system", {}).items():
                print(
                    f"| {name} | {system} | {o['runs']} | {o['n']} | {_f(o['agreement'])} | "
                    f"{_f(o['kappa'])} | {o['max_abs_difference'] * 100:.1f} pt | "
                    f"{o['a_only_yes']} | {o['b_only_yes']} |"
                )
        # Per type: a change that helps one type and hurts another shows here.
        print("\n## held-out protocol by type (abstention questions also in their type)\n")
        print("| labels, runs | type | n | agreement | kappa | rule acc | official acc |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for name, s in result["split"].items():
            for t, r in [*s["by_type"].items(), ("abstention (_abs)", s["abstention"])]:
                print(
                    f"| {name} | {t} | {r['n']} | {_f(r['agreement'])} | {_f(r['kappa'])} | "
                    f"{_f(r['a_yes'])} | {_f(r['b_yes'])} |"
                )
    if result.get("target"):
        print(
            f"\n## the target: agreement >= {TARGET_AGREEMENT}, kappa >= {TARGET_KAPPA}, every "
            f"run of >= {TARGET_RUN_MIN_ANSWERS} answers within {TARGET_RUN_POINTS * 100:.0f} "
            "points\n"
        )
        print(
            "| labels, runs | agreement | kappa | runs held to it (smaller) | "
            "those off: rule − official [95% interval] | "
            "still off were the rubric answers to agree | met |\n|---|---:|---:|---:|---|---|---|"
        )
        for name, t in result["target"].items():
            off = ", ".join(
                f"{run} {r['difference'] * 100:+.1f} {_interval(r['difference_ci'])}"
                for run, r in t["runs_off"].items()
            )
            still = t.get("runs_off_outside_rubrics", {})
            still_off = ", ".join(f"{run} {d * 100:+.1f}" for run, d in still.items())
            print(
                f"| {name} | {_f(t['agreement'])}{_missed(t['agreement_met'])} | "
                f"{_f(t['kappa'])}{_missed(t['kappa_met'])} | {t['runs_counted']} "
                f"({t['runs_smaller']}) | {off}{_missed(t['runs_met'])} | "
                f"{still_off or 'none'} | {'yes' if t['met'] else 'no'} |"
            )
    if result.get("by_length"):
        print("\n## by response length (words)\n")
        print(
            "| labels, runs | words | n | share | agreement | kappa | rule-only yes | "
            "official-only yes | n outside rubrics | agreement outside rubrics | "
            "routed refers | kept agreement |"
        )
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name, bands in result["by_length"].items():
            for band, b in bands.items():
                print(
                    f"| {name} | {band} | {b['n']} | {b['share']:.1%} | {_f(b['agreement'])} | "
                    f"{_f(b['kappa'])} | {b['a_only_yes']} | {b['b_only_yes']} | "
                    f"{b['n_valued']} | {_f(b['agreement_valued'])} | "
                    f"{b['referred']} ({b['referred'] / b['n']:.0%}) | {_f(b['kept_agreement'])} |"
                )
    if result.get("doubt"):
        print(
            "\n## does a run's share in doubt warn of its gap? (Spearman over runs of >= "
            f"{TARGET_RUN_MIN_ANSWERS} answers)\n"
        )
        print(
            "| labels | runs | in doubt ~ agreement (p) | in doubt ~ abs(rule − official) (p) |\n"
            "|---|---:|---:|---:|"
        )
        for name, d in result["doubt"].items():
            a, g = d["agreement"], d["abs_difference"]
            print(
                f"| {name} | {d['runs']} | {_f(a['spearman'], 2)} ({_f(a['p'], 3)}) | "
                f"{_f(g['spearman'], 2)} ({_f(g['p'], 3)}) |"
            )
    if result.get("itself"):
        print(
            "\n## the labels against themselves (the same answer, word for word, in several runs)\n"
        )
        print(
            "| labels | answers | their verdicts | labelled differently | from different systems | "
            "median words |\n|---|---:|---:|---:|---:|---:|"
        )
        for model, m in result["itself"].items():
            print(
                f"| {model} | {m['answers']} | {m['verdicts']} | {m['discordant']} | "
                f"{m['cross_system']} | {m['median_words']} |"
            )
    if result.get("alike"):
        print("\n## disagreements among answers the rules read alike (one question, one reason)\n")
        print(
            "| labels, runs | answers | disagreements | where the labels split a class | "
            "against a class's majority | alone in a class | fewest any verdict per class "
            "leaves |\n|---|---:|---:|---:|---:|---:|---:|"
        )
        for name, a in result["alike"].items():
            print(
                f"| {name} | {a['answers']} | {a['disagreements']} | {a['split']} | "
                f"{a['against_majority']} | {a['alone']} | {a['floor']} |"
            )
    if result.get("declines"):
        print("\n## declines: responses that answer nothing, as the labels judge them\n")
        print(
            "| labels | declines | labelled correct | questions declined in several runs | "
            "labelled both ways | correct labels on those |\n|---|---:|---:|---:|---:|---:|"
        )
        for model, m in result["declines"].items():
            print(
                f"| {model} | {m['declines']} | {m['accepted']} | {m['questions_repeated']} | "
                f"{m['questions_both']} | {m['accepted_where_both']} |"
            )
    print("\n## judge=routed: what the rules refer (the referee taken to agree with the labels)\n")
    print(
        "| labels, runs | n | referred | disagreements referred | kept agreement | "
        "routed agreement | max off | runs > 2 pt |\n|---|---:|---:|---:|---:|---:|---:|---:|"
    )
    for name, r in result.get("routed", {}).items():
        print(
            f"| {name} | {r['n']} | {r['referred']} ({r['referred'] / r['n']:.1%}) | "
            f"{r['disagreements_referred']} of {r['disagreements']} | "
            f"{_f(r['kept_agreement'])} | {_f(r['routed_agreement'])} | "
            f"{r['max_abs_difference'] * 100:.1f} pt | {r['runs_over_2pt']} |"
        )
    if result.get("sampled"):
        print(
            "\n## a random labelled sample instead: the rules' accuracy plus the sample's mean "
            f"(official − rule), {SAMPLE_DRAWS} draws per run of >= {TARGET_RUN_MIN_ANSWERS} "
            "answers\n"
        )
        print(
            "| labels | labelled per run | mean abs error | 95th percentile | draws > "
            f"{TARGET_RUN_POINTS * 100:.0f} pt | 95% interval holds the official accuracy |\n"
            "|---|---:|---:|---:|---:|---:|"
        )
        for model, w in result["sampled"].items():
            a = w["rules_alone"]
            if a["mean_abs_error"] is None:
                continue
            print(
                f"| {model} | 0 (the rules alone, {w['runs']} runs) | "
                f"{a['mean_abs_error'] * 100:.2f} pt | worst {a['max_abs_error'] * 100:.1f} pt "
                "| | |"
            )
            for n, c in w["sampled"].items():
                print(
                    f"| {model} | {n} | {c['mean_abs_error'] * 100:.2f} pt | "
                    f"{c['p95_abs_error'] * 100:.1f} pt | {c['share_beyond_run_points']:.1%} | "
                    f"{c['coverage']:.1%} |"
                )
    for model, table in result.get("by_rule", {}).items():
        print(f"\n## which rule decided, against {model}\n")
        print("| rule | says | n | agreement | disagreements |")
        print("|---|---|---:|---:|---:|")
        for t in table:
            print(
                f"| {t['rule']} | {t['says']} | {t['n']} | {_f(t['agreement'])} | "
                f"{t['disagreements']} |"
            )
    print("\n## per run\n")
    print(
        "| run | judge | n | agreement | kappa | official acc | rule acc | rule − official | "
        "95% interval | in doubt |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for run, r in result["runs"].items():
        print(
            f"| {run} | {r['judge_model']} | {r['n']} | {_f(r['agreement'])} | "
            f"{_f(r['kappa'])} | {_f(r['official_accuracy'])} | {_f(r['rule_accuracy'])} | "
            f"{r['difference'] * 100:+.1f} pt | {_interval(r['difference_ci'])} | "
            f"{r['in_doubt']:.1%} |"
        )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--logs",
        nargs="+",
        required=True,
        help="official eval-results logs, each PATH or NAME=PATH (NAME names the run)",
    )
    ap.add_argument("--oracle", required=True, help="longmemeval_oracle.json (all questions)")
    ap.add_argument("--json", default=None, help="write every figure here")
    ap.add_argument(
        "--dev",
        default=None,
        metavar="REGEX|@FILE|@LEDGER.csv[:ROUND]",
        help="runs the rules were developed on, by a regex over run names, exact names "
        "listed in FILE, or those a ledger (LEDGER.csv[:ROUND]) says a round read; the rest "
        "are held out",
    )
    ap.add_argument(
        "--disagreements",
        default=None,
        metavar="FILE.jsonl",
        help="write each answer whose rule verdict differs from the official label here "
        "(with --dev, the development runs' only)",
    )
    ap.add_argument(
        "--held-out-disagreements",
        action="store_true",
        help="with --dev, write the held-out runs' disagreements too (which makes them read)",
    )
    ap.add_argument(
        "--restyle",
        action="store_true",
        help="also re-judge every answer under each restyling (memrecall.audit.restyle)",
    )
    ap.add_argument(
        "--rename",
        action="store_true",
        help="also re-judge every answer with its question's names made up "
        "(memrecall.audit.rename)",
    )
    ap.add_argument(
        "--reword",
        action="store_true",
        help="also re-judge every answer with its question asked in other words "
        "(memrecall.audit.reword)",
    )
    ap.add_argument(
        "--restate",
        action="store_true",
        help="also re-judge every answer against its reference written in other words "
        "(memrecall.audit.restate)",
    )
    ap.add_argument(
        "--renotate",
        action="store_true",
        help="also re-judge every answer with its response's quantities written another way "
        "(memrecall.audit.notation)",
    )
    ap.add_argument(
        "--turn",
        action="store_true",
        help="also turn right answers wrong (values or options swapped throughout, an order "
        "reversed) and count those the rules still accept (memrecall.audit.turned)",
    )
    ap.add_argument(
        "--cross",
        action="store_true",
        help="also judge every preference response against each other preference question's "
        "rubric, and count those accepted (memrecall.audit.crossed)",
    )
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    found = [] if args.disagreements else None
    result = measure(args.logs, args.oracle, args.dev, found)
    print_tables(result)
    for wanted, key, variants, title, kind in (
        (args.restyle, "restyled", RESTYLED, "restylings that change no meaning", "restyling"),
        (args.reword, "reworded", REWORDED, "questions asked in other words", "rewording"),
        (args.restate, "restated", RESTATED, "references written in other words", "restatement"),
        (
            args.renotate,
            "renotated",
            RENOTATED,
            "responses' quantities written another way",
            "notation",
        ),
    ):
        if wanted:
            result[key] = varied(args.logs, args.oracle, variants)
            print_varied(result[key], title, kind)
    if args.rename:
        result["renamed"] = renamings(args.logs, args.oracle)
        print_renamings(result["renamed"])
    if args.cross:
        result["crossed"] = crossings(args.logs, args.oracle)
        print_crossings(result["crossed"])
    if args.turn:
        result["turned"] = turnings(args.logs, args.oracle)
        print_turnings(result["turned"])
    print(
        f"\n{sum(r['n'] for r in result['runs'].values())} answers in "
        f"{time.perf_counter() - t0:.1f} s"
    )
    if args.json:
        atomic_write_text(args.json, json.dumps(result, indent=2, sort_keys=True) + "\n")
        print(f"wrote {args.json}")
    if args.disagreements:
        written, withheld = readable(found, result.get("dev_runs"), args.held_out_disagreements)
        atomic_write_text(
            args.disagreements,
            "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in written),
        )
        print(f"wrote {args.disagreements} ({len(written)} disagreements)")
        if withheld:
            print(
                f"not written: the {withheld} disagreements of the held-out runs "
                f"(--held-out-disagreements writes them too, and makes those runs read)"
            )


def readable(
    found: list[dict], developed: list[str] | None, held_out_too: bool
) -> tuple[list[dict], int]:
    """(the disagreements to write, how many are withheld). With a split, a held-out run's
    answers are counted but not written: reading them would make it a development run."""
    if developed is None or held_out_too:
        return found, 0
    dev = set(developed)
    written = [d for d in found if d["run"] in dev]
    return written, len(found) - len(written)


if __name__ == "__main__":
    main()
