"""`memrecall rejudge`: score finished experiments' answers under a judge panel, without rerunning
them: how much of each run's score is its judge's?

    memrecall rejudge --judge rule --judge gpt4o [NAMES ...] [--sweep NAME] [--revs A..B]

For each selected experiment (memrecall.experiments.collect), its questions and answers are read
from its own commit (artifacts/*.parquet through DVC, so the local DVC cache must hold them), the
panel's judges label the answers (judge/panel.py; LLM calls cached: a rejudge never pays twice),
and the experiment's own verdicts join as one more member, "<its judge> (recorded)". Writes
reports/panel/<experiment>.{md,json} (eval/panel.py) and prints each band.
"""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import polars as pl

from .artifacts import atomic_write_text
from .errors import MemrecallError
from .eval.panel import panel_labels, panel_markdown, panel_stats
from .experiments import RevReader, collect
from .judge.panel import judge_panel, member_configs
from .judge.stage import _judge
from .paths import project_root
from .schema import PANEL_LABEL_PREFIX

OUT_DIR = "reports/panel"
QUESTIONS = "artifacts/questions.parquet"
ANSWERS = "artifacts/answers.parquet"
VERDICTS = "artifacts/verdicts.parquet"


def _table(reader: RevReader, path: str, exp: str) -> pl.DataFrame | None:
    try:
        return pl.read_parquet(io.BytesIO(reader.read_bytes(path)))
    except FileNotFoundError:
        return None
    except Exception as e:  # not in the local DVC cache, or unreadable
        raise MemrecallError(
            f"experiment '{exp}': cannot read {path} from its commit ({e}); `dvc pull` or rerun it"
        ) from None


def _benchmark(reader: RevReader, exp: str):
    """The benchmark the run's questions were downloaded for (their recorded metadata)."""
    import tempfile

    from . import benchmarks

    try:
        data = reader.read_bytes(QUESTIONS)
    except Exception as e:
        raise MemrecallError(
            f"experiment '{exp}': cannot read {QUESTIONS} from its commit "
            f"({e}); `dvc pull` or rerun it"
        ) from None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "questions.parquet"
        path.write_bytes(data)
        return benchmarks.of_artifact(path)


def rejudge(
    specs: list[str],
    *,
    root: Path | None = None,
    names=None,
    sweep=None,
    revs=None,
    out_dir: str | Path | None = None,
) -> dict[str, dict]:
    """{experiment: panel stats} for the selected experiments (see the module docstring)."""
    root = Path(root or project_root())
    out = Path(out_dir) if out_dir is not None else root / OUT_DIR
    members = member_configs(specs, root=root)
    results = {}
    for exp in collect(root, names=names, sweep=sweep, revs=revs):
        reader = RevReader(root, exp.ref.rev)
        try:
            bench = _benchmark(reader, exp.name)
            q = _table(reader, QUESTIONS, exp.name)
            a = _table(reader, ANSWERS, exp.name)
            recorded = _table(reader, VERDICTS, exp.name)
        finally:
            reader.close()
        if q is None or a is None:
            raise MemrecallError(
                f"experiment '{exp.name}' has no {QUESTIONS} or {ANSWERS} "
                "in its commit: nothing to rejudge"
            )
        verdicts, _ = judge_panel(
            bench, q, a, members, _judge, answers_file=f"{exp.name}:{ANSWERS}"
        )
        if recorded is not None:
            own = str((exp.params.get("judge") or {}).get("name") or "judge")
            col = f"{PANEL_LABEL_PREFIX}{own} (recorded)"
            verdicts = verdicts.join(
                recorded.select("question_id", pl.col("label").alias(col)),
                on="question_id",
                how="left",
                maintain_order="left",
            )
        labels, judges = panel_labels(verdicts, a)
        stats = panel_stats(labels, judges)
        results[exp.name] = stats
        stem = exp.name.replace("/", "_").replace(" ", "_")
        atomic_write_text(
            out / f"{stem}.json", json.dumps(stats, indent=2, sort_keys=True, default=float) + "\n"
        )
        atomic_write_text(out / f"{stem}.md", panel_markdown(stats, f"Judge panel: {exp.name}"))
        b = stats["band"]
        print(
            f"{exp.name}: band {100 * (b['low'] or 0):.1f}-{100 * (b['high'] or 0):.1f}% "
            f"({b['lowest']} .. {b['highest']}) on {stats['n_common']} answers; "
            f"wrote {out / stem}.md"
        )
    return results


def main(argv: list[str] | None = None, prog: str = "memrecall rejudge") -> None:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", help="only these experiments (HEAD: the HEAD run)")
    p.add_argument(
        "--judge",
        action="append",
        dest="judges",
        metavar="OPTION",
        required=True,
        help='a panel member: a judge option ("gpt4o") or Hydra overrides '
        '("official judge.official_script=PATH"); repeat',
    )
    p.add_argument("--sweep", help="only the runs of this named sweep")
    p.add_argument("--revs", help="a git revision range A..B instead of HEAD's experiments")
    p.add_argument("--out", help=f"folder for the reports (default {OUT_DIR})")
    args = p.parse_args(argv)
    rejudge(
        args.judges, names=args.names or None, sweep=args.sweep, revs=args.revs, out_dir=args.out
    )
