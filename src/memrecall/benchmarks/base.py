"""The benchmark protocol: what one benchmark supplies to the shared stages.

A benchmark is a unit: its file formats, gold rules, question categories, reader prompts, judges,
metrics and report sections live in its own folder (`memrecall/benchmarks/<name>/`), behind the
`Benchmark` class below. The shared stages (download, embed, retrieve, rerank, rewrite, read,
judge, aggregate), the LLM layer, caches, statistics and sweeps never ask which benchmark they
hold by looking at columns: the download stage records the benchmark's `name` in the metadata
of every table it writes, and each later stage gets the benchmark from there
(`memrecall.benchmarks.of_artifact`). docs/adding-a-benchmark.md walks through each method with
a worked example.

Defaults here are the shared behaviour; a benchmark overrides what differs. A method that a
benchmark cannot support raises `MemrecallError` with a message that says so (for example a
benchmark without published judge prompts has no `official_judge`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from ..errors import MemrecallError

if TYPE_CHECKING:  # imported for annotations only: the benchmark modules import these lazily
    from ..eval.gold import Gold
    from ..judge.llm_judge import JudgePrompt
    from ..judge.rules import RuleVerdict
    from ..read.prompts import ReaderPrompt


# The order the normalisers write their tables in: by question, by session, by turn.
ORDER = {
    "questions": ("question_id",),
    "sessions": ("session_id",),
    "turns": ("session_id", "turn_index"),
}


@dataclass
class Normalised:
    """A dataset file normalised into the three tables, with the normaliser's figures."""

    questions: pl.DataFrame
    sessions: pl.DataFrame
    turns: pl.DataFrame
    stats: dict = field(default_factory=dict)

    @classmethod
    def from_columns(cls, columns: dict[str, dict[str, list]], schema, stats: dict) -> Normalised:
        """The three tables from their column lists (`columns[table]`), typed by
        `schema(table)` and in the contract's order (ORDER)."""
        return cls(
            *(
                pl.DataFrame(columns[t], schema=schema(t)).sort(*ORDER[t])
                for t in ("questions", "sessions", "turns")
            ),
            stats,
        )


@dataclass
class Prepared:
    """What `Benchmark.prepare` hands back to the download stage, which writes the questions and
    sessions tables and the data card (turns are written by `prepare` itself, so a benchmark can
    stream them to disk)."""

    questions: pl.DataFrame  # contract columns, schema.EXTRA ones, then the benchmark's own
    sessions: pl.DataFrame
    card: str  # reports/data_card.md, deterministic text
    summary: dict  # n_questions, n_abstention, sessions_total, sessions_unique,
    #                          turns_total, turns_unique (printed by the stage)
    n_in_file: int  # questions in the file before the subset


@dataclass(frozen=True)
class OfficialJudge:
    """A benchmark's official judge, read from the user's checkout of its code at run time."""

    repository: str  # where users clone it from
    script_key: str  # the judge config key that points at the script (a path)
    pinned_model: str  # the model the published numbers were judged with
    provider: str = "openai"  # whose endpoint served them (llm/provenance.ENDPOINTS)


@dataclass
class Benchmark:
    """One benchmark. Subclasses set the fields and override the methods that differ."""

    name: str  # registry key, recorded in the artifacts' metadata
    title: str  # display name ("LongMemEval")
    categories: tuple[str, ...]  # question_type values, in report order
    short_names: dict = field(default_factory=dict)  # category -> column label in tables
    # Extra columns a benchmark's tables carry after the contract and schema.EXTRA ones.
    extra_columns: dict = field(default_factory=dict)  # table -> pa.Schema
    # turns column naming who spoke, for conversations between named people (None: `role`)
    speaker_column: str | None = None
    official_judge: OfficialJudge | None = None
    # what `dataset.parts` picks in this benchmark's data ("topics"); None: it has no parts
    parts: str | None = None
    retrieval_title: str = "# Retrieval"  # reports/retrieval.md's heading

    # ---- data ------------------------------------------------------------------------------

    def recognises(self, path: Path) -> bool:
        """Whether `path` (a file or folder) is in one of this benchmark's released formats.
        Cheap: looks at the shape (e.g. the first item of a JSON list), never validates."""
        raise NotImplementedError

    def prepare(
        self, cfg: dict, source: dict, file: Path, *, turns_out: Path, write_kw: dict
    ) -> Prepared:
        """Read and validate the whole file (errors name the file, question and field), take
        the subset the `dataset` config asks for (data.subset.select), normalise into the
        questions / sessions / turns tables, write turns to `turns_out`
        (artifacts.write_table or write_table_parts with `write_kw`) and render the data card.
        `source`: where the file came from (data.prepare.resolve_source)."""
        raise NotImplementedError

    def question_records(self, file: Path) -> list[dict]:
        """Every question of the file, validated, as {question_id, question_type,
        is_abstention} in file order (what data.subset.select takes): counts a run's questions
        before the download stage runs (memrecall plan)."""
        raise NotImplementedError

    def fetch(self, cfg: dict, raw_dir: Path) -> dict:
        """dataset.source=release: download the benchmark's own pinned release (for one made of
        many files, e.g. a folder per conversation) into raw_dir, verified, and return the download
        stage's source record (data.prepare.resolve_source's keys; 'file' is what `prepare`
        reads, a file or a folder)."""
        raise MemrecallError(
            f"{self.title} has no release download of its own: use dataset.source hub, url or local"
        )

    def input_files(self, path: Path) -> list[Path]:
        """The files `prepare` reads from `path`, whose content the tables' metadata hashes.
        Default: `path` itself, one file."""
        return [Path(path)]

    def polars_schema(self, table: str) -> dict:
        """The columns this benchmark writes for `table`, as polars dtypes."""
        from ..schema import polars_dtypes, polars_schema

        own = self.extra_columns.get(table)
        extra = polars_dtypes(own) if own is not None else {}
        return {**polars_schema(table), **extra}

    # ---- gold and categories ----------------------------------------------------------------

    def gold(self, questions: pl.DataFrame, turns: pl.DataFrame) -> dict[str, Gold | None]:
        """question_id -> its gold evidence (sessions, turns), None for an abstention question
        (excluded from retrieval metrics). Default: LongMemEval's official rule (eval.gold)."""
        from ..eval.gold import question_gold

        return question_gold(questions, turns)

    @property
    def report_order(self) -> tuple[str, ...]:
        """The order per-type figures are computed and shown in (bootstrap intervals resample
        the types in this order, so it is part of a run's numbers)."""
        return self.categories

    def type_order(self, types) -> list[str]:
        """`types` in report order, then any others alphabetically."""
        from ..eval.qa_metrics import type_order

        return type_order(types, self.report_order)

    def short_name(self, category: str) -> str:
        return self.short_names.get(category, category)

    # ---- read --------------------------------------------------------------------------------

    def reader_question(self, question: dict) -> str:
        """The question as the reader sees it, from a questions row. Default: its text; a
        benchmark with multiple-choice questions adds their options."""
        return question["question"]

    def reader_prompts(self) -> dict[str, ReaderPrompt]:
        """`reader.prompt` name -> prompt (read/prompts.py's ReaderPrompt)."""
        raise NotImplementedError

    # ---- judge -------------------------------------------------------------------------------

    def judge_item(self, question: dict) -> dict:
        """The fields of a questions row the judges of this benchmark read, beyond the shared
        ones (question_id, question_type, is_abstention, question, answer)."""
        return {}

    def tempting_answer(self, question: dict) -> str | None:
        """For a question the history cannot answer, the wrong answer it is built to tempt,
        where the benchmark records one (the leniency audit plants it as a committed answer).
        Default: None."""
        return None

    def fixed_verdict(self, item: dict) -> RuleVerdict | None:
        """A verdict the benchmark fixes by its own rule whichever judge is configured (rule,
        llm, official), or None to leave the item to the judge: e.g. multiple choice scored by
        exact letter match, as a benchmark's released evaluator does. `item`: as for
        rule_verdict. Default: None (every item goes to the judge)."""
        return None

    def rule_verdict(self, item: dict) -> RuleVerdict:
        """The offline rule judge's verdict on one answer. `item`: question_id, question_type,
        is_abstention, question, answer, hypothesis and the benchmark's judge_item fields."""
        raise NotImplementedError

    def rule_referral(self, item: dict, label: bool | None) -> str | None:
        """judge=routed (judge/routed.py): why the rule verdict `label` on this answer goes to
        the LLM judge, or None to keep it. `item`: as for rule_verdict. Default: an answer the
        rules cannot judge (label None), or one whose response turns or corrects itself
        (judge.rules.referral)."""
        from ..judge.rules.referral import any_referral

        return any_referral(item["hypothesis"], label)

    @property
    def rule_hash(self) -> str:
        """A hash of the rules' source: stored with every rule verdict, so a rule change shows."""
        raise NotImplementedError

    def judge_prompt(self, item: dict, wording: str = "strict") -> JudgePrompt:
        """The own-wording LLM judge's prompt for one answer (judge/llm_judge.py's JudgePrompt)
        in one of its wordings (`judge.wording`): `strict`, the benchmark's judging rules in our
        own words, or `lenient`, a deliberately generous judge (an answer about the same thing
        as the gold counts unless it contradicts it) that shows how much a score depends on
        its judge. A benchmark without a wording raises ConfigError naming the ones it has."""
        raise NotImplementedError

    def judge_llm(self, items: list[dict], judge_cfg: dict, client=None) -> tuple[list, dict]:
        """An LLM judge in our own wording: (verdict rows, stats). Default: one judge_prompt per
        answer, in the wording `judge_cfg["wording"]` names, and a yes/no label
        (judge.llm_judge.judge_with_llm). A benchmark that scores an
        answer otherwise (rubric items giving a score in [0, 1]) overrides it; its rows may
        carry `score` (a verdicts column of its extra_columns)."""
        from ..judge.llm_judge import judge_with_llm

        return judge_with_llm(self, items, judge_cfg, client)

    def judge_templates(self, wording: str = "strict") -> dict[str, str]:
        """{prompt kind: template} of the own-wording judge in `wording`, for the run's prompt
        record."""
        raise NotImplementedError

    def judge_official(self, items: list[dict], judge_cfg: dict, client) -> tuple[list, dict]:
        """judge=official: (verdict rows, stats) with the official prompts read from the user's
        checkout (stats carry the script's sha256)."""
        raise MemrecallError(
            f"{self.title} publishes no official judge: use judge=gpt4o (own "
            f"wording, the pinned model) or judge=rule"
        )

    def errata_makers(self) -> dict:
        """{`memrecall errata` subcommand: maker(argv)}: commands that write an errata overlay
        (memrecall.errata) from the user's own files of this benchmark."""
        return {}

    # ---- metrics and reports -----------------------------------------------------------------

    def headline(
        self, pq: pl.DataFrame, qa: dict, ci: dict, *, n_boot: int, seed: int
    ) -> tuple[dict, dict]:
        """qa metrics and their intervals as this benchmark reports its headline. Default: over
        every judged question (LongMemEval's print_qa_metrics)."""
        return qa, ci

    def extra_metrics(
        self, questions: pl.DataFrame, answers: pl.DataFrame, pq: pl.DataFrame
    ) -> tuple[dict, pl.DataFrame | None]:
        """(keys added to metrics.json, per-question columns keyed by question_id added to
        per_question.csv, or None): the benchmark's own metrics."""
        return {}, None

    def comparability(self, judge: dict) -> tuple[bool, str]:
        """(comparable_to_published, why) for a run judged as `judge` describes (kind, model).
        What the calls themselves record (where they were answered) is checked by the
        aggregate stage on top (report/aggregate.judge_info, llm/provenance.py)."""
        kind = judge.get("kind")
        if kind == "rule":
            return False, "rule judge: not comparable"
        if kind == "routed":
            return False, "rule judge, with an LLM judge on the answers it refers: not comparable"
        if self.official_judge is None:
            return False, f"{self.title} publishes no official judge prompt: not comparable"
        model = str(judge.get("model") or "")
        official_model = self.official_judge.pinned_model in model
        if kind == "official":
            return (
                (True, "official prompts and model: comparable")
                if official_model
                else (
                    False,
                    f"official prompts, model {model} (not "
                    f"{self.official_judge.pinned_model}): not comparable",
                )
            )
        if kind == "file":
            return False, (
                f"imported labels of {model or 'an unknown judge'}: as comparable as "
                f"the log's source (the official script with "
                f"{self.official_judge.pinned_model} is)"
            )
        if official_model:
            return False, "official model, own wording: not comparable"
        return False, "own wording, not the official model: not comparable"

    def judge_lines(self, metrics: dict) -> list[str]:
        """The lines under a report's title that say who judged and what that means."""
        from ..report.tables import referral_line

        j = metrics["judge"]
        lines = [f"Judge: `{j['name']}` ({j['model']}).", *referral_line(j)]
        if not j["comparable_to_published"]:
            lines.append(
                f"Comparability with published {self.title} numbers: "
                f"{j.get('comparability') or 'not comparable'}."
            )
        return lines

    def by_type_markdown(self, metrics: dict, qa: dict) -> str:
        """reports/by_type.md. `qa`: the qa metrics as computed (types in report order)."""
        from ..report.tables import by_type_markdown

        return by_type_markdown(metrics, qa, self.judge_lines(metrics))

    def paper_tables(self, records: list[dict]) -> list:
        """Tables of this benchmark's own the paper export adds for its runs (report.tables)."""
        return []

    def trace_fields(self, question: dict) -> tuple[dict, dict]:
        """(inputs added to a question's MLflow trace, tags added to it)."""
        return {}, {}
