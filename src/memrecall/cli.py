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
    p = sub.add_parser("plan", help="what dvc repro / dvc exp run -S OVERRIDES would run and "
                       "cost (LLM calls not yet cached, tokens, price, time); pays nothing")
    p.add_argument("overrides", nargs="*", help="e.g. reader=deepseek (none: params.yaml)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    sub.add_parser("show", help="print the per-type table of the last run")
    sub.add_parser("export", help="paper tables from DVC experiments into reports/paper/")
    p = sub.add_parser("sync", help="sync DVC experiments into MLflow (idempotent)")
    p.add_argument("names", nargs="*", help="only these experiments (default: all)")
    sub.add_parser("agreement", add_help=False,
                   help="agreement of two labelings of the same answers (verdicts.parquet or "
                        "official eval-results logs): kappa, confusion, per type")
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["agreement"]:  # its own argparse (memrecall.eval.agreement)
        from .eval.agreement import main as agreement_main
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
            export_paper_tables()
        elif args.command == "sync":
            from .tracking import sync_experiments
            sync_experiments(names=args.names or None)
    except MemrecallError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
