"""BEAM's scores, computed the way the released evaluation code computes them
(compute_metrics.py; evaluation.py in the first release), written here from its description
in docs/benchmarks/beam.md, not copied:

- every ability but event ordering: each rubric item is judged on its own (1.0 / 0.5 / 0.0 in a
  JSON reply); the item scores pass through the code's cast (`int` in the released file, which
  turns 0.5 into 0; judge=official reads which cast the user's checkout uses) and the
  question's score is their sum over the number of items;
- event ordering: the answer's lines are aligned to the rubric's ordered items by an LLM
  equivalence test, then Kendall's tau-b between the two rankings over their union is
  normalised to [0, 1] (`tau_norm`); report_results.py averages tau_norm for this ability
  (final_score = tau_norm x F1 is computed and recorded, but not what the paper reports).
"""

from __future__ import annotations

import json
import math
import re
import warnings
from collections.abc import Callable

CASTS = {"int": int, "float": float}
_FENCED = re.compile(r"```(?:json)?\s*(\[.*\]|\{.*\})\s*```", re.DOTALL)
_FIRST_JSON = re.compile(r"(\{.*?\}|\[.*?\])", re.DOTALL)


class ReplyError(ValueError):
    """A judge reply the released parser cannot read (recorded as the judge's fault)."""


def parse_reply(text: str):
    """The JSON in a judge reply, found as the released parser finds it: a fenced block when the
    reply starts with a fence, the whole reply, else the first (non-greedy) object or list."""
    text = (text or "").strip()
    if text.startswith("```"):
        m = _FENCED.search(text)
        if m:
            text = m.group(1).strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    m = _FIRST_JSON.search(text)
    if m:
        try:
            return json.loads(m.group(1))
        except json.JSONDecodeError as e:
            raise ReplyError(f"found possible JSON but could not parse it: {e}") from None
    raise ReplyError("no JSON in the judge's reply")


def item_score(reply: str, cast: str = "int") -> float:
    """One rubric item's score from the judge's reply, through the code's cast."""
    obj = parse_reply(reply)
    if not isinstance(obj, dict) or "score" not in obj:
        raise ReplyError("the judge's JSON has no 'score'")
    try:
        return float(CASTS[cast](obj["score"]))
    except (TypeError, ValueError) as e:
        raise ReplyError(f"score {obj['score']!r} does not pass {cast}(): {e}") from None


def rubric_score(items: list[float], n_rubric: int) -> float:
    """A question's score from its rubric items' scores: their sum over the rubric's length."""
    return sum(items) / n_rubric


def answer_lines(response: str) -> list[str]:
    """The answer as the released code splits it for ordering: every line, empty ones kept."""
    return response.split("\n")


def align(
    reference: list[str], system: list[str], equivalent: Callable[[str, str], bool]
) -> list[str]:
    """Each answer line, in order, replaced by the first still-unused reference item the
    equivalence test accepts (`equivalent(reference_item, line)`), else kept as it is.
    Sequential: which items are used depends on every earlier match."""
    used: set[int] = set()
    out = []
    for line in system:
        hit = next(
            (i for i, ref in enumerate(reference) if i not in used and equivalent(ref, line)), None
        )
        if hit is None:
            out.append(line)
        else:
            used.add(hit)
            out.append(reference[hit])
    return out


def ordering_score(reference: list[str], aligned: list[str]) -> dict:
    """precision, recall, f1, tau_b, tau_norm, final_score of an aligned answer."""
    from scipy.stats import kendalltau

    tp = len(set(reference) & set(aligned))
    fp = sum(x not in reference for x in aligned)
    fn = sum(x not in aligned for x in reference)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    union = list(dict.fromkeys(reference + aligned))
    missing = len(union) + 1  # items absent from a list tie at the bottom

    def ranks(seq: list[str]) -> list[int]:
        pos = {}
        for i, item in enumerate(seq):  # a repeated item keeps its last position
            pos[item] = i + 1
        return [pos.get(u, missing) for u in union]

    with warnings.catch_warnings():  # a single ranked item: nan, handled by ordering_value
        warnings.simplefilter("ignore")
        tau_b = float(
            kendalltau(ranks(reference), ranks(aligned), variant="b", method="auto").statistic
        )
    tau_norm = (tau_b + 1) / 2
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "tau_b": tau_b,
        "tau_norm": tau_norm,
        "final_score": tau_norm * f1,
    }


def ordering_value(scores: dict) -> tuple[float, bool]:
    """The number report_results.py averages for event ordering (tau_norm), and whether tau was
    undefined (nan: fewer than two ranks differ). The released code would carry the nan into the
    ability's mean; we count it 0 and report how often it happened."""
    value = scores["tau_norm"]
    return (0.0, True) if math.isnan(value) else (value, False)
