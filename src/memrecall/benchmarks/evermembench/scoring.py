"""Scoring as the released evaluator does it (EverMind-AI/EverMemBench, eval/src/core/).

Multiple choice, two steps, both reproduced rule for rule:
- answerer.py `_parse_mc_answer` turns the reader's reply into a letter: a failed call is
  "[FAILED]", an empty reply "[EMPTY]"; else, on the upper-cased reply, a lone letter; the first
  letter followed by `.`, `)`, `:`, `,` or a space; "answer/choice/option/select" then a letter;
  a letter that starts or ends the reply as a word; else "[INVALID]".
- evaluator.py `_evaluate_mc` compares: the gold letter (the first of "B. text"), against the
  FIRST character of the parsed answer that is one of A-D. So "[INVALID]" and "[FAILED]" count
  as "A" (their first such letter); `official_mc` says when that happened (`quirk`).
Open answers: evaluator.py `_parse_judge_response` reads the judge's reply: the JSON in a
```json block, a ``` block or between the first "{" and the last "}", its "label" upper-cased
== "CORRECT"; when that is not JSON, "CORRECT" in the reply and "WRONG" not.
"""

from __future__ import annotations

import json
import re

FAILED, EMPTY, INVALID = "[FAILED]", "[EMPTY]", "[INVALID]"
_LETTER_DELIM = re.compile(r"\b([ABCD])[.):,\s]")
_LETTER_WORD = re.compile(r"(?:answer|choice|option|select)[:\s]+([ABCD])\b", re.IGNORECASE)


def parse_letter(reply: str | None, *, failed: bool = False) -> str:
    """The released answerer's letter for a multiple-choice reply (or a bracketed marker)."""
    if failed:
        return FAILED
    r = (reply or "").strip().upper()
    if not r:
        return EMPTY
    if len(r) == 1 and r in "ABCD":
        return r
    for pattern in (_LETTER_DELIM, _LETTER_WORD):
        m = pattern.search(r)
        if m:
            return m.group(1).upper()
    if r[0] in "ABCD" and (len(r) == 1 or not r[1].isalpha()):
        return r[0]
    if r[-1] in "ABCD" and not r[-2].isalpha():
        return r[-1]
    return INVALID


def gold_letter(answer: str) -> str:
    g = answer.strip().upper()
    if len(g) > 1 and g[0] in "ABCD" and g[1] in ".):":
        g = g[0]
    return g


def official_mc(parsed: str, answer: str) -> tuple[bool, bool]:
    """(correct, quirk): the released evaluator's comparison of a parsed answer with the gold;
    quirk = a marker ("[INVALID]", "[FAILED]") was read as a letter."""
    g = parsed.strip().upper()
    letter = next((c for c in g if c in "ABCD"), None)
    chosen = letter if letter is not None else g
    return chosen == gold_letter(answer), letter is not None and len(g) > 1 and g.startswith("[")


def json_label(reply: str | None) -> bool | None:
    """The judge's JSON label alone ({"label": "CORRECT"} / "WRONG"), None when the reply has
    no such JSON: the strict reading kept beside the released one (which falls back to looking
    for the words)."""
    import re as _re

    m = _re.search(r'"label"\s*:\s*"\s*(CORRECT|WRONG)\s*"', reply or "", _re.IGNORECASE)
    return None if m is None else m.group(1).upper() == "CORRECT"


def official_judge_label(reply: str) -> bool:
    """The released evaluator's reading of an LLM judge's reply: CORRECT or not."""
    content = reply or ""
    try:
        if "```json" in content:
            start = content.find("```json") + 7
            text = content[start : content.find("```", start)].strip()
        elif "```" in content:
            start = content.find("```") + 3
            text = content[start : content.find("```", start)].strip()
        elif "{" in content and "}" in content:
            text = content[content.find("{") : content.rfind("}") + 1]
        else:
            text = content
        result = json.loads(text)
        if not isinstance(result, dict):
            return False  # the released code raises here, retries the call, then says False
        label = result.get("label", "WRONG")
        if isinstance(label, dict):
            label = label.get("label", "WRONG")
        label = label.strip().upper() if isinstance(label, str) else "WRONG"
        return label == "CORRECT"
    except (json.JSONDecodeError, KeyError):
        upper = content.upper()
        return "CORRECT" in upper and "WRONG" not in upper
