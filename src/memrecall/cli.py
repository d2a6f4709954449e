"""`memrecall` command: compose params, show results, export paper tables, sync MLflow."""

from __future__ import annotations

import argparse
import sys

from .errors import MemrecallError


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="memrecall", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("compose", help="compose params.yaml from conf/ (Hydra overrides)")
    p.add_argument("overrides", nargs="*", help="e.g. reader=deepseek reader.prompt=con")
    p = sub.add_parser(
        "plan",
        help="what dvc repro / dvc exp run -S OVERRIDES would run and "
        "cost (LLM calls not yet cached, tokens, price, time); pays nothing",
    )
    p.add_argument("overrides", nargs="*", help="e.g. reader=deepseek (none: params.yaml)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    sub.add_parser("show", help="print the per-type table of the last run")
    p = sub.add_parser(
        "export",
        help="paper tables from DVC experiments into reports/paper/ "
        "(default: the HEAD run and its finished experiments)",
    )
    p.add_argument("names", nargs="*", help="only these experiments (HEAD: the HEAD run)")
    p.add_argument("--sweep", help="only the runs of this named sweep (their meta.sweep)")
    p.add_argument(
        "--revs",
        help="a git revision range A..B: the runs committed there and the "
        "experiments run from those commits, instead of HEAD's",
    )
    p = sub.add_parser("sync", help="sync DVC experiments into MLflow (idempotent)")
    p.add_argument("names", nargs="*", help="only these experiments (default: all)")
    sub.add_parser(
        "agreement",
        add_help=False,
        help="agreement of two labelings of the same answers (verdicts.parquet or "
        "official eval-results logs): kappa, confusion, per type",
    )
    sub.add_parser(
        "audit-judge",
        add_help=False,
        help="each judge's false-accept and false-reject rates on answers planted "
        "from the gold answers (wrong number, vague, ...; paraphrase, ...)",
    )
    sub.add_parser(
        "rejudge",
        add_help=False,
        help="score finished experiments' answers under a judge panel: each "
        "judge's accuracy, the band, kappa and flips (reports/panel/)",
    )
    sub.add_parser(
        "errata",
        add_help=False,
        help="errata overlays: corrections from two releases or a public audit, and "
        "a run's raw and corrected scores with the ceiling",
    )
    argv = sys.argv[1:] if argv is None else list(argv)
    own_parsers = {
        "audit-judge": "memrecall.audit.leniency",
        "rejudge": "memrecall.rejudge",
        "errata": "memrecall.errata.cli",
    }
    if argv[:1] and argv[0] in own_parsers:  # commands with their own argparse
        import importlib

        try:
            importlib.import_module(own_parsers[argv[0]]).main(argv[1:])
        except MemrecallError as e:
            print(f"error: {e}", file=sys.stderr)
            sys.exit(1)
        return
    if argv[:1] == ["agreement"]:  # its own argparse (memrecall.report.agreement)
        from .report.agreement import main as agreement_main

        try:
            agreement_main(argv[1:], prog="memrecall agreement")
        except MemrecallError as e:
            print(f"error: {e}", file=sys.stderr)
            sys.exit(1)
        return
    args = parser.parse_args(argv)
    try:
        if args.command == "compose":
            from .compose import compose_params

            print(f"wrote {compose_params(args.overrides)}")
        elif args.command == "plan":
            from .plan.build import main as plan_main

            plan_main(args.overrides, as_json=args.json)
        elif args.command == "show":
            from .report.aggregate import print_summary

            print_summary()
        elif args.command == "export":
            from .report.paper import export_paper_tables

            export_paper_tables(names=args.names or None, sweep=args.sweep, revs=args.revs)
        elif args.command == "sync":
            from .tracking import sync_experiments

            sync_experiments(names=args.names or None)
    except MemrecallError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
