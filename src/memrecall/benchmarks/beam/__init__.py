"""BEAM (Tavakoli et al., 2025, "Beyond a Million Tokens"): single long user-assistant chats of
128K, 500K, 1M and 10M tokens, 20 probing questions per chat over ten abilities, each scored by
rubric (event ordering by a Kendall tau-b score). docs/benchmarks/beam.md describes the data,
the choices and the scores.

Modules: formats (the released files), source (the pinned download of the repository's chats),
normalise (the tables; a session is one released exchange), card (the data card), scoring (the
released scores), official (judge=official from the user's checkout), judges (the LLM judges),
rules (the offline judge), prompts (reader and own-wording judge), report (by ability and tier).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from ..base import Benchmark, OfficialJudge, Prepared
from .formats import ABILITIES, SHORT_NAMES
from .official import PINNED_MODEL, REPOSITORY

EXTRA_COLUMNS = {
    "questions": pa.schema(
        [
            ("conversation_id", pa.string()),
            ("tier", pa.string()),
            ("rubric", pa.list_(pa.string())),
            ("source_message_ids", pa.list_(pa.int32())),
            ("answer_turn_ids", pa.list_(pa.string())),
            ("details", pa.string()),  # the question's other released fields, JSON
        ]
    ),
    "sessions": pa.schema([("conversation_id", pa.string())]),
    "turns": pa.schema([("message_id", pa.int32()), ("message_kind", pa.string())]),
    # the question's score in [0, 1] (the released per-ability score; label = a full score),
    # the rubric judge's mean, and event ordering's parts (judges.ORDERING_PARTS)
    "verdicts": pa.schema(
        [
            ("score", pa.float64()),
            ("rubric_score", pa.float64()),
            ("eo_precision", pa.float64()),
            ("eo_recall", pa.float64()),
            ("eo_f1", pa.float64()),
            ("eo_tau_norm", pa.float64()),
            ("eo_final_score", pa.float64()),
            ("tau_undefined", pa.bool_()),
        ]
    ),
}


class Beam(Benchmark):
    @property
    def report_order(self) -> tuple[str, ...]:
        return self.categories

    # ---- data ----------------------------------------------------------------------------

    def recognises(self, path: Path) -> bool:
        from .formats import chat_folders

        return Path(path).is_dir() and bool(chat_folders(Path(path)))

    def fetch(self, cfg: dict, raw_dir: Path) -> dict:
        from .source import fetch

        return fetch(cfg, raw_dir)

    def input_files(self, path: Path) -> list[Path]:
        from .formats import QUESTIONS, chat_file, chat_folders

        return [
            f
            for folder in chat_folders(Path(path))
            for f in (folder / QUESTIONS, chat_file(folder))
        ]

    def prepare(
        self, cfg: dict, source: dict, file: Path, *, turns_out: Path, write_kw: dict
    ) -> Prepared:
        from ...artifacts import write_table_parts
        from ...data.subset import select
        from ...errors import InputError
        from .card import render_card, summarise
        from .formats import chat_folders
        from .normalise import flat_records, normalise, read_chats

        folders = chat_folders(Path(file))
        if not folders:
            raise InputError(
                "no BEAM chat folder here (a folder with probing_questions/"
                "probing_questions.json and chat.json)",
                file=str(file),
                field="dataset.path",
            )
        if cfg["chats"] is not None:  # chat folders are named by number in both layouts
            names = [str(c) for c in cfg["chats"]]
            unknown = sorted(set(names) - {f.name for f in folders})
            if unknown:
                raise InputError(
                    f"chat folders not found: {unknown}", file=str(file), field="dataset.chats"
                )
            folders = [f for f in folders if f.name in names]
        tier = cfg["tier"] if source.get("kind") == "release" else None
        chats = read_chats(folders, tier)
        flat = flat_records(chats)
        chosen, steps = select(flat, cfg, str(file), types=self.categories)
        tables, parts = normalise(
            chats,
            {r["question_id"] for r in chosen},
            self.polars_schema("questions"),
            self.polars_schema("sessions"),
        )
        write_table_parts(
            parts, turns_out, table="turns", **write_kw, extra_columns=self.extra_columns["turns"]
        )
        summary = summarise(tables)
        card = render_card(cfg, source, tables, summary, steps, len(flat))
        return Prepared(tables.questions, tables.sessions, card, summary, len(flat))

    def question_records(self, file: Path) -> list[dict]:
        from .formats import chat_folders
        from .normalise import flat_records, read_chats

        return flat_records(read_chats(chat_folders(Path(file))))

    # ---- gold ----------------------------------------------------------------------------

    def gold(self, questions, turns):
        """Gold sessions: every exchange holding one of the question's source messages (user or
        assistant: no has_answer filter on user turns); gold turns: the rounds holding them."""
        from ...eval.gold import question_gold

        own = dict(questions.select("question_id", "answer_turn_ids").iter_rows())
        return question_gold(
            questions,
            turns,
            rule="answer_sessions",
            turn_gold=lambda qid, ev: tuple(own[qid] or ()),
        )

    # ---- read ----------------------------------------------------------------------------

    def reader_prompts(self) -> dict:
        from .prompts import READER_PROMPTS

        return READER_PROMPTS

    # ---- judge ---------------------------------------------------------------------------

    def judge_item(self, question: dict) -> dict:
        return {
            "rubric": list(question["rubric"] or []),
            "conversation_id": question["conversation_id"],
            "tier": question["tier"],
        }

    def rule_verdict(self, item: dict):
        from ...judge.rules.verdict import RuleVerdict
        from .rules import judge

        got = judge(item["question_type"], item["question"], item["rubric"], item["hypothesis"])
        if got is None:
            return RuleVerdict(
                None, f"the rule judge cannot judge {item['question_type']}", score=None
            )
        return RuleVerdict(got["score"] >= 1.0, got["reason"], score=got["score"])

    @property
    def rule_hash(self) -> str:
        from .rules import RULES_HASH

        return RULES_HASH

    def judge_prompt(self, item: dict, wording: str = "strict"):
        """The own-wording judge's prompt for one answer (judge_llm sends it and scores the
        reply; the planner counts its tokens)."""
        from ...hashing import sha256_text
        from ...judge.llm_judge import JudgePrompt
        from .judges import check_wording, own_prompt
        from .prompts import TEMPLATES

        check_wording(wording)

        kind, text, _ = own_prompt(item)
        return JudgePrompt(
            [{"role": "user", "content": text}], kind, sha256_text(TEMPLATES[kind])[:12]
        )

    def judge_llm(self, items: list[dict], judge_cfg: dict, client=None):
        from .judges import judge_own

        return judge_own(items, judge_cfg, client)

    def judge_templates(self, wording: str = "strict") -> dict[str, str]:
        from .judges import check_wording
        from .prompts import TEMPLATES

        check_wording(wording)
        return TEMPLATES

    def judge_official(self, items: list[dict], judge_cfg: dict, client=None):
        from .judges import judge_official

        return judge_official(items, judge_cfg, client)

    # ---- metrics and reports ---------------------------------------------------------------

    def extra_metrics(self, questions, answers, pq):
        from .report import beam_metrics

        return {"beam": beam_metrics(questions, pq)}, None

    def by_type_markdown(self, metrics: dict, qa: dict) -> str:
        from .report import by_ability_markdown

        return by_ability_markdown(metrics, self.judge_lines(metrics))

    def paper_tables(self, records: list[dict]) -> list:
        from .report import paper_table

        return [paper_table(records)]

    def trace_fields(self, question: dict) -> tuple[dict, dict]:
        inputs = {"ability": question["question_type"], "rubric": list(question["rubric"] or [])}
        return inputs, {
            "memrecall.ability": question["question_type"],
            "memrecall.tier": str(question.get("tier")),
            "memrecall.conversation": str(question.get("conversation_id")),
        }


BENCHMARK = Beam(
    name="beam",
    title="BEAM",
    categories=ABILITIES,
    short_names=SHORT_NAMES,
    extra_columns=EXTRA_COLUMNS,
    official_judge=OfficialJudge(
        repository=REPOSITORY, script_key="official_script", pinned_model=PINNED_MODEL
    ),
    retrieval_title="# Retrieval (LongMemEval's metric definitions; gold = BEAM's "
    "source_chat_ids, abstention excluded)",
)
