"""A judge panel's figures: several judges labelled the same answers; how far apart are they?

    stats = panel_stats(labels, ["rule", "gpt4o", "official"])
    text = panel_markdown(stats)

`labels`: one row per question with question_id, question_type and one boolean column per judge
(null: that judge gave no label: a judge error, or a reader error). Reported:
- each judge's accuracy over the questions it labelled, and over the questions every judge
  labelled ("common", the set the band is read on);
- the band: the lowest and the highest judge's accuracy on the common questions, overall and per
  type: how much of a score is the judge's;
- each pair: agreement, Cohen's kappa (agreement.cohen_kappa) and the flips, questions the first
  judge accepts and the second rejects (yes→no) and the other way (no→yes), with their rate;
- by response length (when `labels` has the answers' `words`): per band of LENGTH_BANDS, each
  judge's accuracy, the band and each pair's agreement, on the common questions. Judges part
  most on long responses (reasoning transcripts, advice), so a band that widens with length says
  the score depends on how much the reader wrote as well as on the judge.
"""

from __future__ import annotations

from itertools import combinations

import polars as pl

from ..schema import PANEL_LABEL_PREFIX
from .agreement import by_length_band, cohen_kappa, response_words
from .qa_metrics import type_order


def panel_labels(
    verdicts: pl.DataFrame, answers: pl.DataFrame | None = None
) -> tuple[pl.DataFrame, list[str]] | None:
    """(question_id, question_type and one column per member; the members) from a panel's
    verdicts (judge/panel.py), with each response's length in `words` when `answers` are given
    (null for a reader that gave none); None for a single judge's."""
    cols = [c for c in verdicts.columns if c.startswith(PANEL_LABEL_PREFIX)]
    if not cols:
        return None
    judges = [c[len(PANEL_LABEL_PREFIX) :] for c in cols]
    labels = verdicts.select(
        "question_id", "question_type", *[pl.col(c).alias(j) for c, j in zip(cols, judges)]
    )
    if answers is not None:
        words = response_words(answers)
        labels = labels.join(words, on="question_id", how="left", maintain_order="left")
    return labels, judges


def _acc(col: pl.Series) -> float | None:
    v = col.drop_nulls()
    return float(v.cast(pl.Float64).mean()) if v.len() else None


def _band(accs: dict[str, float | None]) -> dict:
    vals = {j: a for j, a in accs.items() if a is not None}
    if not vals:
        return {"low": None, "high": None, "width": None, "lowest": None, "highest": None}
    lo = min(vals, key=lambda j: (vals[j], j))
    hi = max(vals, key=lambda j: (vals[j], j))
    return {
        "low": vals[lo],
        "high": vals[hi],
        "width": vals[hi] - vals[lo],
        "lowest": lo,
        "highest": hi,
    }


def panel_stats(labels: pl.DataFrame, judges: list[str]) -> dict:
    if len(judges) < 2:
        raise ValueError("a panel needs at least two judges")
    common = labels.filter(pl.all_horizontal(pl.col(j).is_not_null() for j in judges))
    types = type_order([t for t in common["question_type"].to_list() if t is not None])
    out = {
        "judges": list(judges),
        "n_questions": labels.height,
        "n_common": common.height,
        "accuracy": {},
        "accuracy_common": {},
        "by_type": {},
        "pairs": [],
    }
    for j in judges:
        out["accuracy"][j] = {"n": int(labels[j].drop_nulls().len()), "value": _acc(labels[j])}
        out["accuracy_common"][j] = _acc(common[j])
    out["band"] = _band(out["accuracy_common"])
    for t in types:
        sub = common.filter(pl.col("question_type") == t)
        accs = {j: _acc(sub[j]) for j in judges}
        out["by_type"][t] = {"n": sub.height, "accuracy": accs, "band": _band(accs)}
    out["pairs"] = [_pair(labels, a, b) for a, b in combinations(judges, 2)]
    if "words" in labels.columns:
        out["by_length"] = _by_length(common, judges)
    return out


def _pair(labels: pl.DataFrame, a: str, b: str) -> dict:
    both = labels.filter(pl.col(a).is_not_null() & pl.col(b).is_not_null())
    x, y = both[a].to_list(), both[b].to_list()
    n = len(x)
    yes_no = sum(1 for p, q in zip(x, y) if p and not q)
    no_yes = sum(1 for p, q in zip(x, y) if q and not p)
    return {
        "a": a,
        "b": b,
        "n": n,
        "agreement": (n - yes_no - no_yes) / n if n else None,
        "kappa": cohen_kappa(x, y) if n else None,
        "flips_yes_to_no": yes_no,
        "flips_no_to_yes": no_yes,
        "flip_rate": (yes_no + no_yes) / n if n else None,
    }


def _by_length(common: pl.DataFrame, judges: list[str]) -> dict:
    """Per length band, shortest first (bands without an answer left out): n, each judge's
    accuracy, the band and each pair's agreement, on the questions every judge labelled."""
    out = {}
    for name, sub in by_length_band(common):
        accs = {j: _acc(sub[j]) for j in judges}
        pairs = [_pair(sub, a, b) for a, b in combinations(judges, 2)]
        out[name] = {
            "n": sub.height,
            "accuracy": accs,
            "band": _band(accs),
            "pairs": [{k: p[k] for k in ("a", "b", "agreement", "kappa")} for p in pairs],
        }
    return out


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _f(x) -> str:
    return "–" if x is None else f"{x:.3f}"


def panel_markdown(stats: dict, title: str = "Judge panel") -> str:
    judges = stats["judges"]
    b = stats["band"]
    lines = [
        f"# {title}",
        "",
        f"{len(judges)} judges on the same {stats['n_questions']} answers; "
        f"{stats['n_common']} labelled by every judge (the band is read on those).",
        "",
        f"**Band: {_pct(b['low'])}–{_pct(b['high'])}%** (lowest {b['lowest']}, highest "
        f"{b['highest']}; {_pct(b['width'])} points apart).",
        "",
        "| type | n | " + " | ".join(judges) + " | band |",
        "|---|---:|" + "---:|" * len(judges) + "---|",
    ]
    for t, s in stats["by_type"].items():
        lines.append(
            f"| {t} | {s['n']} | "
            + " | ".join(_pct(s["accuracy"][j]) for j in judges)
            + f" | {_pct(s['band']['low'])}–{_pct(s['band']['high'])} |"
        )
    lines.append(
        f"| **all** | {stats['n_common']} | "
        + " | ".join(_pct(stats["accuracy_common"][j]) for j in judges)
        + f" | {_pct(b['low'])}–{_pct(b['high'])} |"
    )
    lines += [
        "",
        "Each judge over every answer it labelled: "
        + "; ".join(
            f"{j} {_pct(stats['accuracy'][j]['value'])}% (n {stats['accuracy'][j]['n']})"
            for j in judges
        )
        + ".",
        "",
        "| pair | n | agreement | Cohen's κ | yes→no | no→yes | flip rate |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for p in stats["pairs"]:
        lines.append(
            f"| {p['a']} → {p['b']} | {p['n']} | {_f(p['agreement'])} | "
            f"{_f(p['kappa'])} | {p['flips_yes_to_no']} | {p['flips_no_to_yes']} | "
            f"{_pct(p['flip_rate'])}% |"
        )
    lines += ["", "yes→no: answers the first judge accepts and the second rejects."]
    if stats.get("by_length"):
        lines += ["", *_length_lines(stats["by_length"], judges)]
    return "\n".join(lines) + "\n"


def _length_lines(by_length: dict, judges: list[str]) -> list[str]:
    lines = [
        "## By response length (words)",
        "",
        "| words | n | " + " | ".join(judges) + " | band | least agreeing pair |",
        "|---|---:|" + "---:|" * len(judges) + "---|---|",
    ]
    for name, s in by_length.items():
        worst = min(
            (p for p in s["pairs"] if p["agreement"] is not None),
            key=lambda p: p["agreement"],
            default=None,
        )
        least = f"{worst['a']} / {worst['b']}: {_f(worst['agreement'])}" if worst else "–"
        lines.append(
            f"| {name} | {s['n']} | "
            + " | ".join(_pct(s["accuracy"][j]) for j in judges)
            + f" | {_pct(s['band']['low'])}–{_pct(s['band']['high'])} | {least} |"
        )
    return [
        *lines,
        "",
        "On the answers every judge labelled. A band that widens with length: the score depends "
        "on how much the reader wrote, as well as on the judge.",
    ]
