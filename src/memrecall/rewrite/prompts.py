"""Prompts and output parsing for the rewrite stage: query variants (`rewrite.prompt`) and the
time range a question refers to (`rewrite.time_aware`, after LongMemEval §5.4).

Model output is untrusted text: parsing accepts the usual shapes (a JSON list, numbered or
bulleted lines, code fences, a chatty preamble) and reports anything else as an error, in
which case the caller falls back to the original question alone.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date, timedelta

from ..dates import parse_date
from ..errors import ConfigError

# --- query variants -----------------------------------------------------------------------

MULTIANGLE_SYSTEM = (
    "You help a search engine find an old chat conversation between a user and an assistant. "
    "The user now asks a question about something they mentioned in that conversation. Write "
    "{n} different search queries that could match the words of that old conversation: use "
    "synonyms and related concepts, and write at least one the way the user would have said it "
    "in the chat (a first-person statement, not a question). Output exactly {n} lines, one query "
    "per line, and nothing else."
)
# One worked example in the conversation: small models copy its format much better than they
# follow the instruction alone.
MULTIANGLE_EXAMPLE = (
    "What breed is the dog I adopted?",
    "I just adopted a puppy from the shelter\n"
    "my new dog's breed and temperament\n"
    "tips for training a rescue retriever mix",
)


@dataclass(frozen=True)
class VariantPrompt:
    name: str
    system: str
    example: tuple[str, str] | None

    def messages(self, question: str, n: int) -> list[dict]:
        msgs = [{"role": "system", "content": self.system.format(n=n)}]
        if self.example:
            q, a = self.example
            msgs += [
                {"role": "user", "content": f"Question: {q}"},
                {"role": "assistant", "content": "\n".join(a.split("\n")[:n])},
            ]
        msgs.append({"role": "user", "content": f"Question: {question}"})
        return msgs

    def parse(self, text: str | None, question: str, n: int) -> tuple[list[str], str | None]:
        # Small models echo the worked example; its lines are never variants of this question.
        echo = self.example[1].split("\n") if self.example else []
        return parse_variants(text, question, n, exclude=echo)


VARIANT_PROMPTS = {"multiangle": VariantPrompt("multiangle", MULTIANGLE_SYSTEM, MULTIANGLE_EXAMPLE)}


def get_variant_prompt(name) -> VariantPrompt:
    if name not in VARIANT_PROMPTS:
        raise ConfigError("rewrite.prompt", name, list(VARIANT_PROMPTS))
    return VARIANT_PROMPTS[name]


_FENCE = re.compile(r"```[a-zA-Z]*")
_LEAD = re.compile(
    r"^\s*(?:[-*\u2022>#]+|\(?\d{1,2}\s*[.):\]]|"
    r"(?:variant|rewrite|query|question|search query)\s*\d*\s*[:.)\-])\s*",
    re.IGNORECASE,
)
_PREAMBLE = re.compile(r"^(?:here (?:are|is)|sure|okay|ok|certainly|of course)\b", re.IGNORECASE)
MAX_VARIANT_CHARS = 300
ECHO_JACCARD = 0.6  # word overlap above which a line counts as a copy of an excluded one


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _candidates(text: str) -> list[str]:
    body = _FENCE.sub("", text).strip()
    start, end = body.find("["), body.rfind("]")
    if 0 <= start < end:
        try:
            data = json.loads(body[start : end + 1])
            if isinstance(data, list) and all(isinstance(x, str) for x in data):
                return data
        except json.JSONDecodeError:
            pass
    out = []
    for line in body.splitlines():
        line = line.strip()
        prev = None
        while prev != line:  # "1. - Query 2: foo" → "foo"
            prev, line = line, _LEAD.sub("", line, count=1).strip()
        line = line.strip().strip("\"'`\u201c\u201d").strip()
        if not line or line.endswith(":") or _PREAMBLE.match(line):
            continue
        out.append(line)
    return out


def parse_variants(
    text: str | None, question: str, n: int, exclude=()
) -> tuple[list[str], str | None]:
    """Up to n distinct usable variants (not the question itself, nor any `exclude` line), and
    an error when there is none to use."""
    if not text or not text.strip():
        return [], "empty variant list from the model"
    seen = {_norm(question)}
    echoes = [set(_norm(x).split()) for x in exclude]
    variants = []
    for cand in _candidates(text):
        key = _norm(cand)
        if len(key.replace(" ", "")) < 3 or len(cand) > MAX_VARIANT_CHARS or key in seen:
            continue
        words = set(key.split())
        if any(len(words & e) / len(words | e) >= ECHO_JACCARD for e in echoes):
            continue  # a copy (or near copy) of an excluded line
        seen.add(key)
        variants.append(cand)
        if len(variants) == n:
            break
    if not variants:
        return [], f"no usable variant in the model output: {text.strip()[:160]!r}"
    return variants, None


# --- time range (time-aware query expansion) -----------------------------------------------

TIME_SYSTEM = (
    "You will see a question a user asks about their own past, and the date the question is "
    'asked. If the question points to a period of time ("last week", "in June", "two '
    'months ago"), give the date range in which the events it asks about most likely '
    'happened, as a JSON object {"start": "YYYY/MM/DD", "end": "YYYY/MM/DD"}. If the '
    "question has no such time reference, do not guess: answer N/A. Output nothing else."
)
TIME_EXAMPLES = [
    (
        "2023/08/14 (Mon) 10:02",
        "Which restaurant did I try last week?",
        '{"start": "2023/08/07", "end": "2023/08/13"}',
    ),
    (
        "2023/03/02 (Thu) 18:40",
        "How much did I pay for the concert tickets in February?",
        '{"start": "2023/02/01", "end": "2023/02/28"}',
    ),
    ("2023/10/20 (Fri) 09:15", "How many plants do I have on my balcony now?", "N/A"),
    (
        "2023/06/05 (Mon) 21:30",
        "What did I cook for my parents three weekends ago?",
        '{"start": "2023/05/12", "end": "2023/05/16"}',
    ),
    ("2023/01/09 (Mon) 08:00", "How long have I been learning Spanish?", "N/A"),
]


def prompt_records(variant_prompt: str | None, n_variants: int, time_range: bool) -> dict:
    """{prompt id: {stage, name, messages}} of the chat templates the rewrite stage sent
    (placeholders for the question and its date): its record for MLflow's prompt registry."""
    import hashlib

    used = {}
    if variant_prompt is not None:
        used[variant_prompt] = get_variant_prompt(variant_prompt).messages("{question}", n_variants)
    if time_range:
        used["time_range"] = time_range_messages("{question}", "{question_date}")
    out = {}
    for name, messages in used.items():
        digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()[:12]
        out[f"{name}:{digest}"] = {"stage": "rewrite", "name": name, "messages": messages}
    return out


def time_range_messages(question: str, question_date: str) -> list[dict]:
    msgs = [{"role": "system", "content": TIME_SYSTEM}]
    for qdate, q, a in TIME_EXAMPLES:
        msgs += [
            {"role": "user", "content": f"Question date: {qdate}\nQuestion: {q}"},
            {"role": "assistant", "content": a},
        ]
    msgs.append(
        {"role": "user", "content": f"Question date: {question_date}\nQuestion: {question}"}
    )
    return msgs


@dataclass(frozen=True)
class TimeRange:
    start: date
    end: date

    def widened(self, days: int) -> "TimeRange":
        return TimeRange(self.start - timedelta(days=days), self.end + timedelta(days=days))

    def contains(self, day: date) -> bool:
        return self.start <= day <= self.end

    def __str__(self) -> str:
        return f"{self.start:%Y/%m/%d}..{self.end:%Y/%m/%d}"


_DAY = re.compile(r"\d{4}[/-]\d{1,2}[/-]\d{1,2}")
_NA = re.compile(r"\bN\s*/?\s*A\b|\bnone\b|\bnull\b", re.IGNORECASE)


def parse_time_range(text: str | None) -> tuple[TimeRange | None, str | None]:
    """(range, None); (None, None) for N/A; (None, error) for output that is neither."""
    if not text or not text.strip():
        return None, "empty time-range output from the model"
    body = _FENCE.sub("", text).strip()
    days = []
    obj = re.search(r"\{.*?\}", body, re.DOTALL)
    if obj:
        try:
            data = json.loads(obj.group(0))
            if isinstance(data, dict):
                days = [str(data.get("start", "")), str(data.get("end", ""))]
        except json.JSONDecodeError:
            pass
    if len(days) != 2 or not all(_DAY.search(d) for d in days):
        days = _DAY.findall(body)[:2]
    parsed = [parse_date(d) for d in days]
    if len(parsed) == 2 and all(parsed):
        a, b = sorted(p.date() for p in parsed)
        return TimeRange(a, b), None
    if _NA.search(body):
        return None, None
    return None, f"unparseable time range: {text.strip()[:160]!r}"
