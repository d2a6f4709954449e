"""reports/data_card.md of a LongMemEval run: what data it used, and which release its numbers
come from. Deterministic text (no timestamps): the same data gives the same card."""

from __future__ import annotations

from ...data.card import file_rows, num
from .categories import QUESTION_TYPES

RELEASES = {
    "cleaned": "LongMemEval **cleaned** release (xiaowu0162/longmemeval-cleaned, the current "
    "official data). Numbers are not directly comparable with the paper's, which were "
    "computed on the original release.",
    "original": "LongMemEval **original** release (xiaowu0162/longmemeval), on which the "
    "paper's numbers were computed.",
}


def release_line(release: str | None) -> str:
    return RELEASES.get(
        release or "",
        "**unknown** release (a local file; set "
        "`dataset.release=cleaned` or `original` to record which).",
    )


def render(cfg: dict, source: dict, summary: dict, subset_steps: list[str], n_in_file: int) -> str:
    s = summary
    lines = [
        f"# Data card: {cfg['name']}",
        "",
        f"Release: {release_line(cfg['release'])}",
        "",
        "## Source",
        "",
        "| | |",
        "|---|---|",
        f"| dataset | `{cfg['name']}` (source: {source['kind']}) |",
    ]
    if source["kind"] == "hub":
        lines += [
            f"| hub repo | `{source['repo_id']}` (dataset) |",
            f"| file | `{source['filename']}` (local copy: `{source['shown']}`) |",
            f"| revision | `{source['revision']}` → commit `{source['commit'] or 'unknown'}` |",
        ]
    else:
        lines.append(f"| file | `{source['shown']}` |")
        lines.append("| revision | n/a (not from the hub) |")
    lines += [
        *file_rows(source, subset_steps, n_in_file),
        "",
        "## Questions",
        "",
        "| question type | questions | abstention |",
        "|---|---:|---:|",
    ]
    for t in QUESTION_TYPES:
        c = s["by_type"][t]
        lines.append(f"| {t} | {c['questions']:,} | {c['abstention']:,} |")
    lines += [
        f"| **total** | **{s['n_questions']:,}** | **{s['n_abstention']:,}** |",
        "",
        "## Haystacks",
        "",
        "| | min | median | max |",
        "|---|---:|---:|---:|",
    ]
    for label, key in (
        ("sessions per haystack", "sessions_per_haystack"),
        ("evidence sessions per question", "evidence_per_question"),
    ):
        m = s[key]
        lines.append(f"| {label} | {num(m['min'])} | {num(m['median'])} | {num(m['max'])} |")
    lines += [
        "",
        "| | in haystacks | unique |",
        "|---|---:|---:|",
        f"| sessions | {s['sessions_total']:,} | {s['sessions_unique']:,} |",
        f"| turns | {s['turns_total']:,} | {s['turns_unique']:,} |",
        "",
        f"- Evidence sessions (answer_session_ids): {s['evidence_total']:,}; of those in "
        f"non-abstention questions, {s['evidence_not_gold']:,} have no user turn marked "
        f"has_answer and so are not gold for retrieval metrics (official LongMemEval rule).",
        "- Sessions stored once: deduplicated across haystacks by (session_id, sha256 of their "
        "turns); a session id with different text in two haystacks is an error.",
        f"- Sessions dated differently in different haystacks: {s['sessions_multi_date']:,}. "
        f"Each haystack's own dates are in questions.haystack_dates (aligned with "
        f"haystack_session_ids); sessions.date is the earliest.",
        f"- Sessions listed twice in one haystack (repeat dropped): "
        f"{s['duplicates_in_haystack']:,}.",
        f"- Sessions whose has_answer marks differ between haystacks (merged with OR): "
        f"{s['has_answer_merged']:,}.",
    ]
    missing = s["evidence_missing_from_haystack"]
    if missing:
        lines.append(
            f"- Questions whose evidence sessions are not all in their haystack: "
            f"{len(missing):,} ({', '.join(missing[:10])}{' …' if len(missing) > 10 else ''})."
        )
    return "\n".join(lines) + "\n"
