"""Published LongMemEval runs with official gpt-4o labels, fetched to measure the rule judge on
answers it was not developed on (memrecall.data.published).

    python bench/published_runs.py fetch --out data/published
    python bench/judge_agreement.py --oracle ../shared/data/longmemeval/longmemeval_oracle.json \
        --logs data/published/*.jsonl

`fetch` downloads every run of the manifest (bench/published_runs.csv by default; `--only NAME`
for some, `--unread` for those the ledger says no round has read: the held-out set) from
raw.githubusercontent.com, or from a mirror laid out the same way
(`--base-url`), and keeps each one only when it holds the answers the manifest pinned; runs
already in the folder with those answers are not downloaded again. It needs the network.

`pin` adds a run you hold a copy of to the manifest (or updates its row): its answers counted,
scored and pinned. It then says what the ledger of earlier rounds
(docs/findings/rule-judge/ledger.csv) records of that file: under which names it was measured
and whether a round read it, so a run read before under another name is not taken for new.
A ledger that cannot be read (`--ledger`, another file) stops the pin before the manifest is
written.
A log that holds several runs (a sweep's harness writing every condition into one file) is
pinned once per run, each with `--select` naming its lines by their fields. A harness's own
results file is pinned with `--format` (memrecall.data.run_formats), and one whose judge is named
only by an alias with `--judge-model`, the snapshot its publisher documents; such runs are
fetched as their answers in the official format.

    python bench/published_runs.py pin --name NAME --repo OWNER/REPO --commit SHA \
        --path PATH/IN/REPO/hypotheses.jsonl.eval-results-gpt-4o COPY.jsonl
    python bench/published_runs.py pin --name NAME_bm25_k5 --repo OWNER/REPO --commit SHA \
        --path PATH/IN/REPO/all_conditions.jsonl --select 'strategy=bm25;k=5' COPY.jsonl
    python bench/published_runs.py pin --name NAME --repo OWNER/REPO --commit SHA \
        --path outputs/RUN/eval_results.json --format caura --judge-model gpt-4o-2024-08-06 \
        COPY.json

A run published as several files (its judge's labels apart from its reader's answers) is pinned
with every file in `--path`, separated by ";", and a copy of each, in that order:

    R=PATH/IN/REPO/RUN
    python bench/published_runs.py pin --name NAME --repo OWNER/REPO --commit SHA \
        --format cjchanh --path "$R/judge_gpt4o/rescored.jsonl;"\
"$R/reader/checkpoint_answerable.jsonl;$R/reader/checkpoint_abs.jsonl" \
        rescored.jsonl checkpoint_answerable.jsonl checkpoint_abs.jsonl
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from memrecall.artifacts import atomic_write_text  # noqa: E402
from memrecall.data.ledger import history, manifest_key, read_ledger  # noqa: E402
from memrecall.data.published import (  # noqa: E402
    COLUMNS,
    RAW_BASE,
    describe,
    fetch,
    manifest_row,
    read_manifest,
)
from memrecall.data.run_formats import FORMATS  # noqa: E402
from memrecall.errors import MemrecallError  # noqa: E402

MANIFEST = Path(__file__).resolve().parent / "published_runs.csv"
LEDGER = Path(__file__).resolve().parents[1] / "docs" / "findings" / "rule-judge" / "ledger.csv"


def _fetch(args) -> None:
    runs = read_manifest(args.manifest)
    if args.unread:
        unread = {r.manifest_name for r in read_ledger(args.ledger) if not r.read_by(None)}
        runs = [r for r in runs if r.name in unread]
    if args.only:
        unknown = sorted(set(args.only) - {r.name for r in runs})
        if unknown:
            raise MemrecallError(f"not in {args.manifest}: {', '.join(unknown)}")
        runs = [r for r in runs if r.name in args.only]
    print("| run | answers | official acc | file |\n|---|---:|---:|---|")
    for run in runs:
        path, downloaded = fetch(run, args.out, args.base_url)
        status = "downloaded" if downloaded else "already there"
        print(f"| {run.name} | {run.answers} | {run.official_accuracy:.3f} | {path} ({status}) |")


def _pin(args) -> None:
    # (read first: a ledger that cannot be read stops the pin before the manifest is written)
    ledger = read_ledger(args.ledger)
    runs = read_manifest(args.manifest) if Path(args.manifest).is_file() else []
    new = describe(
        args.name,
        args.repo,
        args.commit,
        args.path,
        args.log,
        args.select,
        args.format,
        args.judge_model,
    )
    runs = [r for r in runs if r.name != new.name] + [new]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(manifest_row(r) for r in sorted(runs, key=lambda r: r.name))
    atomic_write_text(args.manifest, buf.getvalue())
    print(f"{new.name}: {new.answers} answers, official accuracy {new.official_accuracy:.3f}")
    print(history(ledger, manifest_key(new.repo, new.commit, new.path, new.select), new.name))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fetch", help="download the manifest's runs into a folder")
    f.add_argument("--manifest", default=str(MANIFEST))
    f.add_argument("--out", required=True, help="folder for the runs' logs (NAME.jsonl)")
    f.add_argument("--base-url", default=RAW_BASE, help="a mirror of the repositories' raw files")
    which = f.add_mutually_exclusive_group()
    which.add_argument("--only", nargs="+", metavar="NAME", help="these runs of the manifest")
    which.add_argument(
        "--unread",
        action="store_true",
        help="the runs no round has read (the ledger's held-out set; --ledger for another)",
    )
    f.add_argument("--ledger", default=str(LEDGER), help="the ledger --unread reads")
    f.set_defaults(run=_fetch)
    p = sub.add_parser("pin", help="add a run you hold a copy of to the manifest")
    p.add_argument("--manifest", default=str(MANIFEST))
    for field in ("name", "repo", "path"):
        p.add_argument(f"--{field}", required=True)
    p.add_argument(
        "--commit",
        required=True,
        help="the commit of its files; for files committed apart, one per file of --path, "
        "';' between them",
    )
    p.add_argument(
        "--select",
        default="",
        metavar="FIELD=VALUE;...",
        help="the run's lines in a log of several runs (a sweep's: 'strategy=hybrid_raw;k=5'), "
        "the arm of a bettermemory file of several systems ('arm=NAME'), or the judged lines "
        "of a graphnosis run whose reader failed on some ('judgeModel=gpt-4o-2024-08-06')",
    )
    p.add_argument(
        "--format",
        default="",
        choices=FORMATS,
        help="the harness's own format of the file (memrecall.data.run_formats); "
        "default: an official eval-results log",
    )
    p.add_argument(
        "--judge-model",
        default="",
        metavar="SNAPSHOT",
        help="the snapshot behind the file's judge alias, or that judged labels naming none, "
        "where the publisher documents it ('gpt-4o-2024-08-06' for a file that says 'gpt-4o')",
    )
    p.add_argument(
        "--ledger",
        default=str(LEDGER),
        help="the runs earlier rounds measured and read: says whether this one is among them",
    )
    p.add_argument(
        "log",
        nargs="+",
        help="your copy of the published file (of each of its files, in the order of --path)",
    )
    p.set_defaults(run=_pin)
    args = ap.parse_args(argv)
    try:
        args.run(args)
    except MemrecallError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
