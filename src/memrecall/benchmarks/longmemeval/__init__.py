"""LongMemEval (Wu et al., ICLR 2025): 500 questions, each with a haystack of past chat sessions
between a user and an assistant; six question types plus abstention (`_abs` ids).

Modules: data (parse, validate, normalise in memory), stream (the download stage's streaming
normaliser, for M's 2.7 GB), card (the data card), categories (types, abstention rule), prompts
(reader prompts), judge (the own-wording LLM judge), official (judge=official: the official
prompts from the user's checkout), interchange (the official metrics script's rules), sample
(the bundled sample's builder).
"""

from __future__ import annotations

from pathlib import Path

from ..base import Benchmark, OfficialJudge, Prepared
from .categories import QUESTION_TYPES, SHORT_NAMES

OFFICIAL_REPO = "https://github.com/xiaowu0162/LongMemEval"
OFFICIAL_MODEL = "gpt-4o-2024-08-06"
RULE_CAVEAT = (
    "**This run was scored by the `rule` judge** (deterministic per-type rules). A "
    "rule-judged score is not comparable with LLM-judged published numbers: "
    "LongMemEval's official judge is gpt-4o-2024-08-06."
)


class LongMemEval(Benchmark):
    def recognises(self, path: Path) -> bool:
        from ...data.jsonfile import first_item

        item = first_item(path)
        return isinstance(item, dict) and ("question_id" in item or "haystack_sessions" in item)

    def prepare(
        self, cfg: dict, source: dict, file: Path, *, turns_out: Path, write_kw: dict
    ) -> Prepared:
        from ...data.subset import select
        from .card import render
        from .stream import normalise_file, scan

        # Streamed: LongMemEval-M (2.7 GB) never sits in memory whole.
        sc = scan(file)  # every question validated, even those the subset drops
        chosen, steps = select(sc.light, cfg, str(file), types=self.categories)
        ds = normalise_file(
            file, {r["question_id"] for r in chosen}, sc, turns_out=turns_out, write_kw=write_kw
        )
        summary = ds.summary()
        return Prepared(
            ds.questions,
            ds.sessions,
            render(cfg, source, summary, steps, len(sc.light)),
            summary,
            len(sc.light),
        )

    def question_records(self, file: Path) -> list[dict]:
        from .stream import scan

        return scan(file).light

    def reader_prompts(self) -> dict:
        from .prompts import PROMPTS

        return PROMPTS

    def rule_verdict(self, item: dict):
        from ...judge.rules import judge_item

        return judge_item(item)

    def rule_referral(self, item: dict, label):
        from ...judge.rules.referral import referral

        return referral(item, label)

    @property
    def rule_hash(self) -> str:
        from ...judge.rules.verdict import RULES_HASH

        return RULES_HASH

    def judge_prompt(self, item: dict, wording: str = "strict"):
        from .judge import build_prompt

        return build_prompt(
            item["question_type"],
            item["question"],
            item["answer"],
            item["hypothesis"],
            is_abstention=item["is_abstention"],
            wording=wording,
        )

    def judge_templates(self, wording: str = "strict") -> dict[str, str]:
        from .judge import templates

        return templates(wording)

    def judge_official(self, items: list[dict], judge_cfg: dict, client) -> tuple[list, dict]:
        from .official import judge_official

        return judge_official(items, judge_cfg, client)

    def errata_makers(self) -> dict:
        from .errata import main_diff

        return {"diff": main_diff}  # the corrections between two releases of a file

    def judge_lines(self, metrics: dict) -> list[str]:
        from ...report.tables import referral_line

        j = metrics["judge"]
        lines = [f"Judge: `{j['name']}` ({j['model']}).", *referral_line(j)]
        if j["kind"] == "rule":
            lines.append(RULE_CAVEAT)
        elif not j["comparable_to_published"]:
            lines.append(
                f"Comparability with published LongMemEval numbers: "
                f"{j.get('comparability') or 'not comparable'}. Only `judge=official` "
                f"(the official prompts with {OFFICIAL_MODEL}) is comparable."
            )
        else:
            lines.append(
                f"The official LongMemEval judge (script sha256 "
                f"{str(j.get('official_script_sha256'))[:12]}…): comparable with "
                f"published numbers. Its strict yes/no parse differs on "
                f"{j.get('strict_parse_disagreements', 0)} answers."
            )
        return lines

    def by_type_markdown(self, metrics: dict, qa: dict) -> str:
        from ...report.tables import by_type_markdown

        return by_type_markdown(metrics, qa, self.judge_lines(metrics))


BENCHMARK = LongMemEval(
    name="longmemeval",
    title="LongMemEval",
    categories=QUESTION_TYPES,
    short_names=SHORT_NAMES,
    official_judge=OfficialJudge(OFFICIAL_REPO, "official_script", OFFICIAL_MODEL),
    retrieval_title="# Retrieval (official LongMemEval metrics)",
)
