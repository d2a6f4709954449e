"""EverMemBench (Hu et al., arXiv 2602.01313): multi-party workplace group chats, five topics of
about a million tokens each, 2,400 questions in nine sub-tasks (recall: F_SH, F_MH, F_TP, open
answers; memory awareness: MA_C, MA_P, MA_U, and profile: P_Style, P_Skill, P_Role, multiple
choice). The paper's headline, "Average", is the unweighted mean of the nine sub-task scores.

Modules: subtasks (the nine, by id prefix), layouts (the two released layouts, read and
validated), schema (own columns), data (normalise; the data card), prompts (reader prompts),
scoring (the released evaluator's rules), judge (rule, own-wording LLM judge, the fixed
multiple-choice verdict), official (judge=official: the released prompts from the user's
checkout), report (sub-task scores, Average, recall apart, forms apart, the paper table).
docs/benchmarks/evermembench.md describes the mapping.
"""

from __future__ import annotations

from pathlib import Path

from ..base import Benchmark, OfficialJudge, Prepared
from .official import PINNED_MODEL, REPOSITORY
from .schema import EXTRA_COLUMNS
from .subtasks import CODES


class EverMemBench(Benchmark):
    def recognises(self, path: Path) -> bool:
        from .layouts import layout_of

        return layout_of(Path(path)) is not None

    def _units(self, cfg: dict, path: Path):
        from .layouts import read_dataset, unit_folders

        parts = cfg["parts"]
        if parts is not None:
            # YAML reads 01 as the number 1: a number names the folder of that number
            names = [f.name for f in unit_folders(Path(path))]
            parts = [
                next((n for n in names if n.isdigit() and int(n) == p), f"{p:02d}")
                if isinstance(p, int) and not isinstance(p, bool)
                else str(p)
                for p in ([parts] if isinstance(parts, (str, int)) else list(parts))
            ]
        return read_dataset(Path(path), parts)

    def prepare(
        self, cfg: dict, source: dict, file: Path, *, turns_out: Path, write_kw: dict
    ) -> Prepared:
        from ...artifacts import write_table
        from ...data.subset import select
        from . import data

        units = self._units(cfg, file)
        flat = data.flatten(units)
        chosen, steps = select(flat, cfg, str(file), types=self.categories)
        if cfg["parts"] is not None:
            steps = [f"parts ({self.parts}): {', '.join(u.name for u in units)}", *steps]
        ds = data.normalise(units, chosen)
        summary = data.summary(ds)
        card = data.render_card(cfg, source, summary, steps, len(flat))
        write_table(ds.turns, turns_out, table="turns", **write_kw)
        return Prepared(ds.questions, ds.sessions, card, summary, len(flat))

    def question_records(self, file: Path) -> list[dict]:
        from . import data
        from .layouts import read_dataset

        return data.flatten(read_dataset(Path(file)))

    def gold(self, questions, turns):
        """Sessions and turns named by each question's evidence R; none without R."""
        from ...eval.gold import own_turn_gold

        return own_turn_gold(questions, turns)

    def reader_prompts(self) -> dict:
        from .prompts import PROMPTS

        return PROMPTS

    def reader_question(self, question: dict) -> str:
        from .prompts import reader_question

        return reader_question(question["question"], question.get("options"))

    def judge_item(self, question: dict) -> dict:
        return {"form": question["form"], "options": list(question.get("options") or [])}

    def fixed_verdict(self, item: dict):
        from .judge import fixed_verdict

        return fixed_verdict(item)

    def rule_verdict(self, item: dict):
        from .judge import rule_verdict

        return rule_verdict(item)

    @property
    def rule_hash(self) -> str:
        from .judge import RULE_HASH

        return RULE_HASH

    def judge_prompt(self, item: dict, wording: str = "strict"):
        from .judge import build_prompt

        return build_prompt(item["question"], item["answer"], item["hypothesis"], wording)

    def judge_templates(self, wording: str = "strict") -> dict[str, str]:
        from .judge import templates

        return templates(wording)

    def judge_official(self, items: list[dict], judge_cfg: dict, client) -> tuple[list, dict]:
        from .official import judge_official

        return judge_official(items, judge_cfg, client)

    def extra_metrics(self, questions, answers, pq):
        from .report import extra_metrics

        return extra_metrics(questions, answers, pq)

    def comparability(self, judge: dict) -> tuple[bool, str]:
        ok, why = super().comparability(judge)
        return ok, why + (
            "; multiple choice is scored by the released letter rule under every judge"
        )

    def judge_lines(self, metrics: dict) -> list[str]:
        from .report import judge_lines

        return judge_lines(metrics)

    def by_type_markdown(self, metrics: dict, qa: dict) -> str:
        from .report import by_subtask_markdown

        return by_subtask_markdown(metrics)

    def paper_tables(self, records: list[dict]) -> list:
        from .report import paper_table

        return [paper_table(records)]

    def trace_fields(self, question: dict) -> tuple[dict, dict]:
        inputs = {"form": question["form"], "topic": question["topic"]}
        if question.get("options"):
            inputs["options"] = list(question["options"])
        return inputs, {
            "memrecall.subtask": question["question_type"],
            "memrecall.form": question["form"],
        }


BENCHMARK = EverMemBench(
    name="evermembench",
    title="EverMemBench",
    categories=CODES,
    extra_columns=EXTRA_COLUMNS,
    speaker_column="speaker",
    official_judge=OfficialJudge(
        repository=REPOSITORY, script_key="official_script", pinned_model=PINNED_MODEL
    ),
    parts="topics",
    retrieval_title="# Retrieval (LongMemEval's metric definitions; gold = EverMemBench "
    "evidence R)",
)
