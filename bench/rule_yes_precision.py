"""Where the rules say yes, how often the official judge agrees, by features of the answer.

A rule round looks here for over-acceptance a rule could read. A bin of answers the rules accept
but the official judge mostly rejects (official yes under half) is one where a rule answering
no would gain agreement. A bin above half is one where it would lose, however many
disagreements the bin holds. The bins are fixed here, before any split is measured, so that a
round cannot pick the cut that suits the runs it sees.

Two rule families are read, the two that hold most of the rules' lone yeses
(docs/findings/rule-judge/round-49.md):
- preference (the rubric-based rule): the response's length, where its first rubric term falls,
  the share of its sentences that name one, how often it names them, and whether it says it
  draws on what the user told it;
- quantity (answerable questions): how many other values of the asked kind its conclusion
  gives besides the reference's, for short and long responses.

    python bench/rule_yes_precision.py \\
        --oracle ../shared/data/longmemeval/longmemeval_oracle.json \\
        --logs ../shared/data/judge/*.gz --dev @docs/findings/rule-judge/ledger.csv

With --dev the development and held-out runs are tabled apart (as bench/judge_agreement.py
splits them); held-out runs are only counted, no answer of theirs is shown.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _env  # noqa: E402,F401
from judge_agreement import _answers, _rule, decided_by, dev_runs, run_name  # noqa: E402
from memrecall.artifacts import atomic_write_text  # noqa: E402
from memrecall.benchmarks.longmemeval.categories import is_abstention_id  # noqa: E402
from memrecall.interchange import model_snapshot  # noqa: E402
from memrecall.judge.rules.normalise import split_acceptable, tokens  # noqa: E402
from memrecall.judge.rules.numbers import quantities  # noqa: E402

# (the rules' own readings of a rubric and of a response, so the features see what the rules see)
from memrecall.judge.rules.preference import (  # noqa: E402
    DRAWS_ON_HISTORY,
    rubric_terms,
    without_questions_to_user,
)
from memrecall.judge.rules.response import conclusion, sentences, without_notes  # noqa: E402

# A bin needs this many answers before its share is read as a finding.
MIN_ANSWERS = 20
LONG_WORDS = 100  # (bench/judge_agreement.py's length bands part there too)

# (feature, [(label, low, high)]): a value v falls in the bin with low <= v < high
_BINS = {
    "words": [("<60", 0, 60), ("60-149", 60, 150), ("150-299", 150, 300), (">=300", 300, 1e9)],
    "first rubric term at (share of the response before it)": [
        ("<0.05", 0, 0.05),
        ("0.05-0.15", 0.05, 0.15),
        ("0.15-0.30", 0.15, 0.30),
        ("0.30-0.60", 0.30, 0.60),
        (">=0.60", 0.60, 2),
    ],
    "sentences naming a rubric term (share)": [
        ("<0.10", 0, 0.10),
        ("0.10-0.20", 0.10, 0.20),
        ("0.20-0.35", 0.20, 0.35),
        ("0.35-0.60", 0.35, 0.60),
        (">=0.60", 0.60, 2),
    ],
    "rubric-term mentions": [
        ("<2", 0, 2),
        ("2-3", 2, 4),
        ("4-7", 4, 8),
        ("8-15", 8, 16),
        (">=16", 16, 1e9),
    ],
}


def _bin(feature: str, value: float) -> str:
    return next(label for label, lo, hi in _BINS[feature] if lo <= value < hi)


def preference_features(question: str, rubric: str, response: str) -> dict[str, str]:
    """The bin of each preference feature for one response (its notes and its questions back
    to the user left out, as the rule reads it)."""
    anchors, names, _, _, details, bigrams = rubric_terms(rubric, question)
    terms = anchors | details | {w for pair in bigrams for w in pair}
    terms |= {w for name in names for w in name.words}
    said = without_questions_to_user(without_notes(response))
    toks = tokens(said)
    at = [i for i, t in enumerate(toks) if t in terms]
    parts = sentences(said)
    naming = sum(1 for s in parts if set(tokens(s)) & terms)
    values = {
        "words": len(response.split()),
        "first rubric term at (share of the response before it)": at[0] / len(toks) if at else 1.0,
        "sentences naming a rubric term (share)": naming / max(1, len(parts)),
        "rubric-term mentions": len(at),
    }
    return {feature: _bin(feature, value) for feature, value in values.items()} | {
        "draws on the user's history": "yes" if DRAWS_ON_HISTORY.search(said) else "no"
    }


def quantity_features(reference: str, response: str) -> dict[str, str] | None:
    """How many other values of the reference's kind (its unit, or none) the response's
    conclusion gives, and whether it is long; None for a reference with no quantity or a time
    of day."""
    main, _ = split_acceptable(reference)
    gold = quantities(main, keep_years=True)
    if not gold or gold[0].clock:
        return None
    gold = gold[0]
    others = {
        q.value
        for q in quantities(conclusion(response))
        if not (q.clock or q.ago or q.denied)
        and q.unit in (gold.unit, None)
        and abs(q.value - gold.value) > 1e-9
    }
    count = str(len(others)) if len(others) < 3 else "3+"
    long = len(response.split()) > LONG_WORDS
    length = f">{LONG_WORDS} words" if long else f"<={LONG_WORDS} words"
    return {"other values in its conclusion": f"{count}, {length}"}


def features(question: str, reference: str, response: str, rule: str):
    """The features of an answer the rules accepted, for the families read here; None else."""
    if rule == "preference":
        return preference_features(question, reference, response)
    if rule == "quantity":
        return quantity_features(reference, response)
    return None


def tally(logs: list[str], oracle: str, dev: str | None) -> dict:
    """{group: {rule: {feature: {bin: [answers, official yeses]}}}}, a group per judge model
    (and, with `dev`, per development or held-out run)."""
    runs = [run_name(p) for p in logs]
    developed = dev_runs(dev, runs) if dev else set()
    out: dict = {}
    for path, e, q in _answers(logs, oracle):
        if is_abstention_id(e["question_id"]):
            continue
        verdict = _rule(q, e["hypothesis"])
        if not verdict.label:
            continue
        rule = decided_by(verdict.reason)
        found = features(q["question"], str(q["answer"]), e["hypothesis"], rule)
        if not found:
            continue
        group = model_snapshot(e["model"])
        if dev:
            group += " dev" if run_name(path) in developed else " held-out"
        for feature, value in found.items():
            cell = out.setdefault(group, {}).setdefault(rule, {}).setdefault(feature, {})
            counts = cell.setdefault(value, [0, 0])
            counts[0] += 1
            counts[1] += bool(e["label"])
    return out


def gains(table: dict) -> list[tuple]:
    """(group, rule, feature, bin, answers, official yes share) of each bin of at least
    MIN_ANSWERS answers where a rule saying no would gain agreement."""
    return [
        (group, rule, feature, value, n, yes / n)
        for group, rules in table.items()
        for rule, feats in rules.items()
        for feature, cells in feats.items()
        for value, (n, yes) in cells.items()
        if n >= MIN_ANSWERS and yes / n < 0.5
    ]


def print_tables(table: dict) -> None:
    for group in sorted(table):
        for rule in sorted(table[group]):
            print(f"\n## {group}: the rules' yeses by {rule}\n")
            print("| feature | bin | n | official yes | agreement change if the rules said no |")
            print("|---|---|---:|---:|---:|")
            for feature, cells in table[group][rule].items():
                order = [label for label, _, _ in _BINS.get(feature, [])] or sorted(cells)
                for value in [v for v in order if v in cells]:
                    n, yes = cells[value]
                    print(f"| {feature} | {value} | {n} | {yes / n:.3f} | {(n - yes) - yes:+d} |")
    found = gains(table)
    print(f"\n## bins of >= {MIN_ANSWERS} answers where saying no would gain agreement\n")
    if not found:
        print("none: in every bin the official judge accepts at least half of what the rules do")
    for group, rule, feature, value, n, share in found:
        print(f"- {group}, {rule}, {feature} {value}: {n} answers, official yes {share:.3f}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--logs", nargs="+", required=True, help="official eval-results logs")
    ap.add_argument("--oracle", required=True, help="longmemeval_oracle.json (all questions)")
    ap.add_argument("--dev", help="development runs, as bench/judge_agreement.py --dev takes")
    ap.add_argument("--json", help="write the counts here")
    args = ap.parse_args(argv)
    table = tally(args.logs, args.oracle, args.dev)
    print_tables(table)
    if args.json:
        atomic_write_text(args.json, json.dumps(table, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
