"""LoCoMo (Maharana et al., ACL 2024): ten long conversations between two people, with questions
in five categories; category 5 (adversarial) is unanswerable and reported apart.

Modules: schema (categories, own columns), data (validate and normalise; the data card), prompts
(reader prompts for two-person conversations), judge (rule verdicts and the own-wording "J"
judge), f1 (the LoCoMo paper's F1 as its released evaluation computes it), report (per-category
accuracy and F1, the paper table).
"""

from __future__ import annotations

from pathlib import Path

from ..base import Benchmark, Prepared
from .schema import CATEGORIES, EXTRA_COLUMNS


class LoCoMo(Benchmark):
    @property
    def report_order(self) -> tuple[str, ...]:
        """Category names alphabetically, as the reports' intervals have always been drawn
        (the per-category tables follow the category numbers)."""
        return ()

    def recognises(self, path: Path) -> bool:
        from ...data.jsonfile import first_item
        from .data import is_conversation

        return is_conversation(first_item(path))

    def prepare(
        self, cfg: dict, source: dict, file: Path, *, turns_out: Path, write_kw: dict
    ) -> Prepared:
        from ...artifacts import write_table
        from ...data.jsonfile import load_records
        from ...data.subset import select
        from . import data

        records = load_records(file)  # ten conversations: small enough to load whole
        data.validate(records, str(file))
        flat = data.flatten(records)
        chosen, steps = select(flat, cfg, str(file), types=self.categories)
        ds = data.normalise(records, chosen)
        summary = data.summary(ds)
        card = data.render_card(cfg, source, summary, steps, len(flat))
        write_table(ds.turns, turns_out, table="turns", **write_kw)
        return Prepared(ds.questions, ds.sessions, card, summary, len(flat))

    def question_records(self, file: Path) -> list[dict]:
        from ...data.jsonfile import load_records
        from . import data

        records = load_records(file)
        data.validate(records, str(file))
        return data.flatten(records)

    def gold(self, questions, turns):
        """The official rule for sessions; turn-level gold is each question's own evidence
        dia_ids (every question of a conversation shares its sessions, so has_answer marks all
        of their evidence)."""
        from ...eval.gold import own_turn_gold

        return own_turn_gold(questions, turns)

    def reader_prompts(self) -> dict:
        from .prompts import PROMPTS

        return PROMPTS

    def judge_item(self, question: dict) -> dict:
        return {
            "category": question["category"],
            "adversarial_answer": question.get("adversarial_answer"),
        }

    def tempting_answer(self, question: dict) -> str | None:
        # category 5: the answer of the other speaker, or of a question never asked of either.
        # A few record "Not mentioned" there: that one tempts nothing.
        from ...abstention import says_missing

        tempting = question.get("adversarial_answer") if question.get("is_abstention") else None
        return None if says_missing(tempting) else tempting

    def rule_verdict(self, item: dict):
        from .judge import rule_verdict

        return rule_verdict(
            item["category"],
            item["question_type"],
            item["question"],
            item["answer"],
            item["hypothesis"],
        )

    @property
    def rule_hash(self) -> str:
        from .judge import RULE_HASH

        return RULE_HASH

    def judge_prompt(self, item: dict, wording: str = "strict"):
        from .judge import build_prompt

        return build_prompt(
            item["category"],
            item["question"],
            item["answer"],
            item["hypothesis"],
            item.get("adversarial_answer"),
            wording=wording,
        )

    def judge_templates(self, wording: str = "strict") -> dict[str, str]:
        from .judge import templates

        return templates(wording)

    def errata_makers(self) -> dict:
        from .errata import main_audit

        return {"locomo-audit": main_audit}  # the public audit, read from the user's clone

    def headline(self, pq, qa, ci, *, n_boot, seed):
        from .report import headline

        return headline(pq, qa, ci, n_boot=n_boot, seed=seed)

    def extra_metrics(self, questions, answers, pq):
        from .report import f1_metrics, f1_rows, qa_by_category, with_category_5

        rows = f1_rows(questions, answers)
        qa = {**qa_by_category(pq, questions), "with_category_5": with_category_5(pq, rows)}
        return {"qa": qa, "f1": f1_metrics(rows)}, rows

    def comparability(self, judge: dict) -> tuple[bool, str]:
        return False, "LoCoMo: LongMemEval's official judge does not apply"

    def judge_lines(self, metrics: dict) -> list[str]:
        from ...report.tables import referral_line
        from .report import LLM_NOTE, RULE_CAVEAT

        j = metrics["judge"]
        return [
            f"Judge: `{j['name']}` ({j['model']}).",
            *referral_line(j),
            RULE_CAVEAT if j["kind"] == "rule" else LLM_NOTE,
        ]

    def by_type_markdown(self, metrics: dict, qa: dict) -> str:
        from .report import by_category_markdown

        return by_category_markdown(metrics, self.judge_lines(metrics))

    def paper_tables(self, records: list[dict]) -> list:
        from .report import paper_table

        return [paper_table(records)]

    def trace_fields(self, question: dict) -> tuple[dict, dict]:
        inputs = {"category": question["category"]}
        if question.get("adversarial_answer"):
            inputs["adversarial_answer"] = question["adversarial_answer"]
        return inputs, {"memrecall.category": str(question["category"])}


BENCHMARK = LoCoMo(
    name="locomo",
    title="LoCoMo",
    categories=tuple(CATEGORIES.values()),
    extra_columns=EXTRA_COLUMNS,
    speaker_column="speaker",
    retrieval_title="# Retrieval (LongMemEval's metric definitions; gold = LoCoMo evidence)",
)
