"""The `rule` judge: deterministic per-type rules that approximate LongMemEval's judge offline.

LongMemEval's official judge is gpt-4o with one prompt per question type (NOTES.md). These rules
follow the same per-type policy without a model, so the default pipeline runs offline:

- abstention (`_abs`): correct when the response says the information is missing (a phrase list:
  "never mentioned", "no information", "can't determine", "you mentioned X but not Y", ...).
- single-session-preference: the reference is a rubric. Correct when the response uses the user's
  own details the rubric names: one proper noun or number from its positive sentences (Sony,
  Luna, 9:30), or one two-word detail (turbinado sugar), or two distinct single detail words.
  Rubric boilerplate (prefer, suggestions, high-quality, ...) and the question's words don't count.
- yes/no references ("Yes."): the response's first yes/no word must agree.
- quantities ("how many/much/long/old", "what time", or a reference that is just a number): some
  number in the response equals the reference after unit conversion (weeks↔days, years↔months,
  hours↔minutes); dates, ordinals and years are not read as counts. temporal-reasoning accepts
  off-by-one for day/week/month/year counts, and the reference's own "N is also acceptable".
  Any matching number counts, so "20 before, 25 now" is right for a knowledge update to 25.
- order questions: the reference's named entities must appear in the response in that order.
- either-or questions ("A or B?"): the response names the reference's option, and names it
  first if it names both.
- otherwise: normalised containment: every content word of the reference that the question does
  not already contain must appear in the response (so a subset of a list is wrong, and extra
  information is fine). Parenthetical asides are optional; "(UCLA)"-style acronyms are aliases.

Normalisation: case, punctuation, number words ("three" → 3, "twelve thousand" → 12000,
"twice" → 2 times), thousands separators, a.m./p.m., possessives, light plural/-ed stemming.

These rules under-credit paraphrases ("Southwest" for "Southwest Airlines") and over-credit
hedges that list several numbers; tests/fixtures/judge_cases.yaml lists the known disagreements.
A rule-judged score is NOT comparable with LLM-judged published numbers; reports say so.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

RULES_VERSION = "rule-v1"


@dataclass(frozen=True)
class RuleVerdict:
    label: bool
    reason: str  # short, human-readable: which rule decided and on what


# --------------------------------------------------------------------------------------------
# Normalisation
# --------------------------------------------------------------------------------------------

_UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate(
    "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if w != "_"}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_NUMBER_WORD = "|".join(sorted([*_UNITS, *_TENS, *_SCALES], key=len, reverse=True))
_NUMBER_RUN = re.compile(rf"\b(?:{_NUMBER_WORD})(?:[\s-]+(?:{_NUMBER_WORD}))*\b")
_ORDINAL_WORDS = {w: i + 1 for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
    "twentieth".split())}
_ORDINAL_RUN = re.compile(r"\b(" + "|".join(_ORDINAL_WORDS) + r")\b")
_SUFFIX = {1: "st", 2: "nd", 3: "rd"}
_TRANSLATE = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": " - ", "—": " - ",
                            "\u00a0": " "})


def _words_value(run: str) -> int:
    total, current = 0, 0
    for w in re.split(r"[\s-]+", run):
        if w in _UNITS:
            current += _UNITS[w]
        elif w in _TENS:
            current += _TENS[w]
        elif w == "hundred":
            current = (current or 1) * 100
        else:  # thousand, million
            total += (current or 1) * _SCALES[w]
            current = 0
    return total + current


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else _SUFFIX.get(n % 10, "th")
    return f"{n}{suffix}"


@lru_cache(maxsize=4096)
def normalize(text: str) -> str:
    """Lower-cased text with number words as digits; punctuation is kept (quantities need it)."""
    s = unicodedata.normalize("NFKC", text or "").translate(_TRANSLATE).lower()
    s = re.sub(r"\b([ap])\.\s?m\.?(?!\w)", r"\1m", s)               # a.m. -> am
    s = re.sub(r"(?<=\d),(?=\d{3}\b)", "", s)                        # 12,000 -> 12000
    s = re.sub(r"\bonce\b", "1 time", s)
    s = re.sub(r"\btwice\b", "2 times", s)
    s = re.sub(r"\bthrice\b", "3 times", s)
    s = _NUMBER_RUN.sub(lambda m: str(_words_value(m.group(0))), s)
    s = _ORDINAL_RUN.sub(lambda m: _ordinal(_ORDINAL_WORDS[m.group(1)]), s)
    s = re.sub(r"\b(\d+(?:\.\d+)?)\s+(thousand|million)\b",
               lambda m: _fmt(float(m.group(1)) * _SCALES[m.group(2)]), s)
    s = re.sub(r"\bmore than\b", "over", s)
    return s


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


_STOPWORDS = frozenset("""
a an the and or but nor of to in on at for with from by about as into onto over under than then
so also just very really quite some any each every all both either neither this that these those
there here it its is are was were be been being am do does did done have has had having will would
shall should can could may might must i me my mine myself you your yours yourself we us our ours
he him his she her hers they them their theirs who whom whose which what when where why how
not no yes if while during before after again further once only own same too s t
mentioned mention said say told tell according called named recall remember remind reminded
previous previously earlier conversation chat chats discussed answer correct
finally next later
""".split())

_ABBREVIATIONS = {"st": "street", "ave": "avenue", "mt": "mount", "dept": "department",
                  "approx": "approximately", "hrs": "hours", "hr": "hour", "mins": "minutes",
                  "min": "minute", "yrs": "years", "yr": "year", "wks": "weeks", "wk": "week"}


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A deliberately light stemmer: plurals and -ed, so 'pads'/'pad', 'increased'/'increase'."""
    w = _ABBREVIATIONS.get(word, word)
    if w.isdigit() or len(w) <= 3:
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("ed") and len(w) > 4:
        w = w[:-2]
    if w.endswith("e") and len(w) > 4:
        w = w[:-1]
    return w


def tokens(text: str) -> list[str]:
    """All stemmed word and number tokens of `text`, in order (ordinal suffixes dropped)."""
    s = normalize(text)
    s = re.sub(r"'s\b", "", s)
    s = re.sub(r"\b(\d+)(?:st|nd|rd|th)\b", r"\1", s)
    s = s.replace("&", " and ")
    return [stem(t) for t in re.findall(r"[a-z]+|\d+(?:\.\d+)?", s)]


def content_tokens(text: str) -> list[str]:
    return [t for t in tokens(text) if t not in _STOPWORDS]


# --------------------------------------------------------------------------------------------
# Quantities
# --------------------------------------------------------------------------------------------

_UNIT_WORDS = {
    "minute": "minute", "minutes": "minute", "min": "minute", "mins": "minute",
    "hour": "hour", "hours": "hour", "hr": "hour", "hrs": "hour",
    "day": "day", "days": "day", "week": "week", "weeks": "week", "wk": "week", "wks": "week",
    "month": "month", "months": "month", "year": "year", "years": "year", "yr": "year",
    "yrs": "year", "time": "time", "times": "time",
    "dollar": "dollar", "dollars": "dollar", "usd": "dollar", "bucks": "dollar",
    "percent": "percent", "%": "percent",
}
# unit -> (family, size in the family's base unit); conversions only within a family.
_UNIT_SCALE = {"minute": ("clock", 1), "hour": ("clock", 60), "day": ("days", 1),
               "week": ("days", 7), "month": ("months", 1), "year": ("months", 12),
               "time": ("times", 1), "dollar": ("money", 1), "percent": ("percent", 1)}
_CALENDAR_UNITS = frozenset({"day", "week", "month", "year"})
_FILLER_BEFORE_UNIT = frozenset({"more", "additional", "full", "whole", "straight", "consecutive",
                                 "total", "extra", "separate", "different", "calendar"})
_MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split())


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str | None = None      # canonical unit (see _UNIT_SCALE) or None for a bare count
    clock: bool = False          # a time of day; value = minutes after midnight
    ampm_known: bool = True      # False for "6:00" without am/pm (compared modulo 12 hours)


def _word_before(s: str, pos: int) -> str:
    m = re.search(r"([a-z]+)\W*$", s[:pos])
    return m.group(1) if m else ""


def quantities(text: str, *, keep_years: bool = False) -> list[Quantity]:
    """Numbers with their units, skipping dates ("March 15"), ordinals ("15th") and years."""
    s = normalize(text)
    s = re.sub(r"\b(?:a|an)\s+(?=(?:single\s+)?(?:minute|hour|day|week|month|year)\b)", "1 ", s)
    out: list[Quantity] = []
    for m in re.finditer(r"\d+(?:\.\d+)?", s):
        start, end = m.span()
        prev = s[start - 1] if start else " "
        glued = prev == "-" and start > 1 and s[start - 2].isalpha()
        if prev.isalnum() or prev in ".:/" or glued:
            continue  # part of a token like "gr-90", "1.5" tail or a date "6/3"
        rest = s[end:]
        ampm = re.match(r"(?::(\d{2}))?\s?(am|pm)\b", rest)
        colon = re.match(r":(\d{2})\b", rest)
        if ampm or colon:
            hour = int(float(m.group(0)))
            minute = int((ampm or colon).group(1) or 0)
            if ampm:
                hour = hour % 12 + (12 if ampm.group(2) == "pm" else 0)
            out.append(Quantity(hour * 60 + minute, clock=True,
                                ampm_known=bool(ampm) or hour > 12))
            continue
        if re.match(r"(?:st|nd|rd|th)\b", rest) or re.match(r"[a-z]", rest):
            continue  # ordinal, or glued to letters ("5k", "200mm")
        if _word_before(s, start) in _MONTHS or re.match(r"\s+(?:of\s+)?(?:" + "|".join(_MONTHS)
                                                         + r")\b", rest):
            continue  # a date
        value = float(m.group(0))
        if re.match(r"\s?%", rest):
            out.append(Quantity(value, "percent"))
            continue
        if prev == "$" or (start >= 2 and s[start - 2:start] == "$ "):
            out.append(Quantity(value, "dollar"))
            continue
        unit = None
        words = re.findall(r"[a-z]+", rest[:40])
        for w in words[:3]:
            if w in _UNIT_WORDS:
                unit = _UNIT_WORDS[w]
                break
            if w not in _FILLER_BEFORE_UNIT:
                break
        if unit is None and not keep_years and 1900 <= value <= 2100 and value.is_integer():
            continue  # a year, not a count
        out.append(Quantity(value, unit))
    return out


def _convert(q: Quantity, unit: str) -> float | None:
    if q.unit == unit:
        return q.value
    fam_q, fam_u = _UNIT_SCALE.get(q.unit or ""), _UNIT_SCALE.get(unit)
    if fam_q and fam_u and fam_q[0] == fam_u[0]:
        return q.value * fam_q[1] / fam_u[1]
    return None


_QUANTITY_QUESTION = re.compile(
    r"\bhow (?:many|much|long|old|far)\b|\bwhat time\b|\bwhat percentage\b|"
    r"\b(?:total|combined) (?:number|amount|cost|count)\b|\bwhat (?:is|was) the (?:total|sum|"
    r"difference|number|amount|price|cost)\b", re.IGNORECASE)
_QUESTION_UNIT = re.compile(r"\bhow (?:many|much) (minute|hour|day|week|month|year|time)s?\b")


def _question_unit(question: str) -> str | None:
    q = normalize(question)
    m = _QUESTION_UNIT.search(q)
    if m:
        return m.group(1)
    if re.search(r"\bhow old\b|\byears? older\b|\byears? younger\b", q):
        return "year"
    return None


def _split_acceptable(answer: str) -> tuple[str, str]:
    """'30 days. 31 days (including the last day) is also acceptable.' -> (main, alternatives)."""
    parts = re.split(r"(?<=[.;])\s+", answer.strip())
    main = [p for p in parts if "acceptable" not in p.lower()]
    alts = [p for p in parts if "acceptable" in p.lower()]
    return " ".join(main) or answer, " ".join(alts)


def _quantity_verdict(question_type: str, question: str, answer: str,
                      hypothesis: str) -> RuleVerdict | None:
    main, alts_text = _split_acceptable(answer)
    gold_qs = quantities(main, keep_years=True)
    if not gold_qs:
        return None
    gold = gold_qs[0]
    hyp_qs = quantities(hypothesis, keep_years=gold.value >= 1900)
    if gold.clock:
        for q in hyp_qs:
            if q.clock:
                mod = 720 if not (q.ampm_known and gold.ampm_known) else 1440
                if (q.value - gold.value) % mod == 0:
                    return RuleVerdict(True, f"quantity: time of day {_clock(gold)} matched")
        return RuleVerdict(False, f"quantity: no time of day equal to {_clock(gold)}")
    unit = gold.unit or _question_unit(question)
    alts, ranges = _alternatives(alts_text, unit)
    tol = 1.0 if (question_type == "temporal-reasoning" and unit in _CALENDAR_UNITS) else 0.0
    counts = [q for q in hyp_qs if not q.clock]
    if unit in _UNIT_SCALE:
        pool = [q for q in counts if q.unit and _convert(q, unit) is not None]
        # A bare number counts only when it is the whole answer ("14", "It was 14.").
        pool = pool or [q for q in counts if q.unit is None and len(counts) == 1]
    else:
        pool = [q for q in counts if q.unit is None]
    label_unit = f" {unit}" if unit else ""
    for q in pool:
        v = _convert(q, unit) if (unit and q.unit) else q.value
        if v is None:
            continue
        if abs(v - gold.value) < 1e-9:
            return RuleVerdict(True, f"quantity: {_fmt(gold.value)}{label_unit} matched")
        for a in alts:
            if abs(v - a) < 1e-9:
                return RuleVerdict(True, f"quantity: the reference's alternative "
                                         f"{_fmt(a)}{label_unit} matched")
        for lo, hi in ranges:
            if lo - 1e-9 <= v <= hi + 1e-9:
                return RuleVerdict(True, f"quantity: {_fmt(v)}{label_unit} in the reference's "
                                         f"accepted range {_fmt(lo)}-{_fmt(hi)}")
        if tol and _off_by_one(q, v, gold.value, unit):
            return RuleVerdict(True, f"quantity: {_fmt(q.value)}{' ' + (q.unit or unit)} is "
                                     f"off by one from {_fmt(gold.value)}{label_unit} "
                                     f"(temporal-reasoning allows it)")
    seen = ", ".join(f"{_fmt(q.value)}{' ' + q.unit if q.unit else ''}" for q in pool) or "none"
    tol_note = " ±1" if tol else ""
    return RuleVerdict(False, f"quantity: expected {_fmt(gold.value)}{label_unit}{tol_note}; "
                              f"found {seen}")


def _alternatives(text: str, unit: str | None) -> tuple[list[float], list[tuple[float, float]]]:
    """Values the reference also accepts, in the reference's unit: '31 days ... also
    acceptable' -> [31]; 'ranging from 7 days to 10 days' -> a range (7, 10)."""
    if not text:
        return [], []
    ranges = []
    for m in re.finditer(r"from (.+?) to (.+?)(?= are\b| is\b|[.;]|$)", normalize(text)):
        lo, hi = quantities(m.group(1), keep_years=True), quantities(m.group(2), keep_years=True)
        if lo and hi:
            lo_v = _convert(lo[0], unit) if (unit and lo[0].unit) else lo[0].value
            hi_v = _convert(hi[0], unit) if (unit and hi[0].unit) else hi[0].value
            if lo_v is not None and hi_v is not None:
                ranges.append((lo_v, hi_v))
    if ranges:
        return [], ranges
    values = []
    for q in quantities(text, keep_years=True):
        v = _convert(q, unit) if (unit and q.unit) else q.value
        if v is not None and not q.clock:
            values.append(v)
    return values, []


def _off_by_one(q: Quantity, value: float, gold: float, unit: str) -> bool:
    """Off by one in the finer of the two units: 20 days for '3 weeks' is off by one day,
    but 4 days for '1 week' is not off by one week."""
    if q.unit is None or q.unit == unit:
        return abs(value - gold) <= 1 + 1e-9
    fine = min((q.unit, unit), key=lambda u: _UNIT_SCALE[u][1])
    a = _convert(q, fine)
    b = _convert(Quantity(gold, unit), fine)
    return a is not None and b is not None and abs(a - b) <= 1 + 1e-9


def _clock(q: Quantity) -> str:
    return f"{int(q.value) // 60:02d}:{int(q.value) % 60:02d}"


# --------------------------------------------------------------------------------------------
# Abstention
# --------------------------------------------------------------------------------------------

_ABSTAIN = re.compile("|".join(f"(?:{p})" for p in [
    r"\b(?:did not|didn't|have not|haven't|has not|hasn't|never|do not|don't|does not|doesn't)"
    r" (?:\w+ )?(?:mention|say|said|tell|told|specif|share|state|provide|discuss|talk|bring)",
    r"\bnot (?:been |be )?(?:mentioned|specified|stated|provided|available|included|discussed|"
    r"given|found|recorded|shared|known|indicated|covered)\b",
    r"\bno (?:mention|information|info|record|records|details?|indication|evidence|data|"
    r"reference|way to (?:know|tell|determine))\b",
    r"\b(?:i|we) (?:don't|do not) (?:have|know|see)\b",
    r"\b(?:can't|cannot|can not|unable to|not able to|impossible to) (?:\w+ )?(?:answer|"
    r"determine|tell|say|find|know|confirm|calculate|compute|identify|infer|work out)",
    r"\bcannot be (?:determined|answered|found|inferred|calculated)\b",
    r"\b(?:not enough|insufficient|incomplete|missing|lack of) (?:\w+ )?(?:information|info|"
    r"details|data|context)\b",
    r"\b(?:is|are|was|were) (?:not enough|insufficient|incomplete|missing)\b",
    r"\bonly (?:mentioned|talked about|told me about|said)\b",
    r"\bbut not\b",
]))


def abstains(hypothesis: str) -> bool:
    """Does the response say the asked information is missing from the history?"""
    return bool(_ABSTAIN.search(normalize(hypothesis)))


# --------------------------------------------------------------------------------------------
# Preference rubrics
# --------------------------------------------------------------------------------------------

_RUBRIC_NEGATIVE = re.compile(
    r"\b(?:not prefer|not be interested|not interested|would not|might not|may not|"
    r"wouldn't|do not|does not)\b", re.IGNORECASE)
_RUBRIC_GENERIC = frozenset(stem(w) for w in """
user users prefer preferred preference preferences would might may also appreciate appreciated
suggest suggests suggested suggestion suggestions suggesting recommend recommends recommended
recommendation recommendations response responses tip tips advice idea ideas option options
resource resources way ways specific specifically particular particularly especially such like
include includes including existing current currently previous previously prior recent recently
past mention mentioned take taking account into consider considers considering build upon
utilize utilizes utilizing utilise leverage leveraging highlight highlights highlighting focus
focuses tailored tailor relevant related interest interests interested experience experiences
enjoy enjoyed general generic vague unrelated personal personalized personalised detail details
information provide provides providing offer offers acknowledge acknowledges reference
references reflect well good great best high quality low useful practical actionable helpful new
similar different other others various more less potential possible possibly likely enhance
enhances improve help helps aware fit align aligns cater caters based show shows showcase use
using used want wants need needs step steps approach approaches explore exploring thing things
something someone able effort efforts goal goals set setup kind type types one ones fail ignore
ignores overly basic simple simplistic complex familiar unfamiliar aspect aspects solely only
desire perhaps preferably preferable additionally moreover cater regarding toward towards
""".split())


def _rubric_terms(rubric: str, question: str):
    """(anchors, detail words, detail bigrams) from the rubric's positive sentences."""
    sentences = re.split(r"(?<=[.!?])\s+", rubric.strip())
    positive = [s for s in sentences if not _RUBRIC_NEGATIVE.search(s)] or sentences[:1]
    q_tokens = set(tokens(question))
    skip = _STOPWORDS | _RUBRIC_GENERIC | q_tokens
    anchors: set[str] = set()
    numbers: set[str] = set()
    details: set[str] = set()
    bigrams: set[tuple[str, str]] = set()
    for sent in positive:
        sent = re.sub(r"\bbuild(?:s|ing)? (?:up)?on\b", " ", sent, flags=re.IGNORECASE)
        words = re.findall(r"[A-Za-z][A-Za-z'’]*|\d+(?::\d+)?", sent)
        for i, w in enumerate(words):
            if i > 0 and any(c.isupper() for c in w):
                anchors.update(t for t in tokens(w) if t not in skip)
        numbers.update(n for n in re.findall(r"\d+(?::\d+)?", sent))
        toks = tokens(sent)
        details.update(t for t in toks if t not in skip and not t.isdigit())
        for a, b in zip(toks, toks[1:]):
            if a not in skip and b not in skip and not a.isdigit() and not b.isdigit():
                bigrams.add((a, b))
    return anchors, numbers, details - anchors, bigrams


def _preference_verdict(question: str, rubric: str, hypothesis: str) -> RuleVerdict:
    anchors, numbers, details, bigrams = _rubric_terms(rubric, question)
    hyp = tokens(hypothesis)
    hyp_set = set(hyp)
    hyp_norm = normalize(hypothesis)
    hit_anchor = sorted(anchors & hyp_set) + sorted(
        n for n in numbers if re.search(rf"(?<![\d:]){re.escape(n)}(?![\d:])", hyp_norm))
    if hit_anchor:
        return RuleVerdict(True, f"preference: uses the user's {', '.join(hit_anchor)}")
    content = [t for t in hyp if t not in _STOPWORDS]
    hyp_pairs = set(zip(content, content[1:]))
    hit_pairs = sorted(bigrams & hyp_pairs)
    if hit_pairs:
        return RuleVerdict(True, "preference: uses the user's " + ", ".join(" ".join(p) for p in
                                                                             hit_pairs))
    hit = sorted(details & hyp_set)
    if len(hit) >= 2:
        return RuleVerdict(True, f"preference: uses the user's details {', '.join(hit)}")
    wanted = sorted(anchors) or sorted(details)[:6]
    return RuleVerdict(False, "preference: does not use the user's details ("
                              + ", ".join(wanted) + ")")


# --------------------------------------------------------------------------------------------
# Yes/no, order, either-or, containment
# --------------------------------------------------------------------------------------------

def _polarity(text: str) -> str | None:
    for t in re.findall(r"[a-z]+", normalize(text)):
        if t in ("yes", "no"):
            return t
    return None


def _yes_no_gold(answer: str) -> str | None:
    words = re.findall(r"[a-z]+", normalize(answer))
    if words and words[0] in ("yes", "no") and (len(words) <= 4 or re.match(
            r"\s*(?:yes|no)\s*[,.;:!]", answer.lower())):
        return words[0]
    return None


_ORDER_QUESTION = re.compile(r"\border\b|\bearliest to latest\b|\bfirst,? second\b|"
                             r"\bchronolog", re.IGNORECASE)


def _entity_groups(answer: str) -> list[list[str]]:
    """Runs of capitalised words in the reference ("Big Sur", "Museum of Modern Art")."""
    groups, current, pending = [], [], []
    for w in re.findall(r"[A-Za-z][\w'’-]*|[^\sA-Za-z]+", answer):
        toks = [t for t in tokens(w) if t not in _STOPWORDS]
        if w[:1].isupper() and toks and w.lower() not in _STOPWORDS:
            current.extend(toks)
            pending = []
        elif current and w in ("of", "de", "the") and not pending:
            pending = [w]  # "Museum of Art": a connector inside a name
        else:
            if current:
                groups.append(current)
            current, pending = [], []
    if current:
        groups.append(current)
    return groups


def _find_run(run: list[str], seq: list[str]) -> int | None:
    for i in range(len(seq) - len(run) + 1):
        if seq[i:i + len(run)] == run:
            return i
    return None


def _order_verdict(answer: str, hypothesis: str) -> RuleVerdict | None:
    groups = _entity_groups(answer)
    if len(groups) < 2:
        return None
    hyp = tokens(hypothesis)
    hyp_content = [t for t in hyp if t not in _STOPWORDS]
    positions = []
    for i, g in enumerate(groups):
        # Where the whole name appears; else where its words no other item shares appear.
        pos = _find_run(g, hyp_content)
        if pos is None:
            others = {t for j, h in enumerate(groups) if j != i for t in h}
            own = [t for t in g if t not in others]
            found = [hyp_content.index(t) for t in own if t in hyp_content]
            pos = min(found) if found else None
        if pos is None:
            return RuleVerdict(False, f"order: '{' '.join(g)}' missing")
        positions.append(pos)
    if all(a < b for a, b in zip(positions, positions[1:])):
        return RuleVerdict(True, "order: all items present in the reference order")
    return RuleVerdict(False, "order: items present but in a different order")


def _either_or_options(question: str) -> tuple[list[str], list[str]] | None:
    q = question.strip().rstrip("?").strip()
    idx = q.lower().rfind(" or ")
    if idx < 0:
        return None
    left, right = q[:idx], q[idx + 4:]
    if "," in left:
        left = left.rsplit(",", 1)[1]
    else:  # "increase or decrease the limit": one word each side
        left = left.split()[-1] if left.split() else ""
        right = right.split()[0] if right.split() else ""
    a, b = content_tokens(left), content_tokens(right)
    common = set(a) & set(b)
    a, b = [t for t in a if t not in common], [t for t in b if t not in common]
    return (a, b) if a and b else None


def _mentions(option: list[str], hyp: list[str]) -> int | None:
    """First position of the option in the response, when at least half its words appear."""
    found = [hyp.index(t) for t in option if t in hyp]
    return min(found) if len(found) * 2 >= len(option) and found else None


def _either_or_verdict(question: str, answer: str, hypothesis: str) -> RuleVerdict | None:
    options = _either_or_options(question)
    if options is None:
        return None
    gold = set(content_tokens(answer))
    share = [sum(t in gold for t in opt) / len(opt) for opt in options]
    if max(share) < 0.5 or share[0] == share[1]:
        return None
    right, wrong = (options[0], options[1]) if share[0] > share[1] else (options[1], options[0])
    hyp = tokens(hypothesis)
    pos_right, pos_wrong = _mentions(right, hyp), _mentions(wrong, hyp)
    if pos_right is None:
        return RuleVerdict(False, f"either-or: '{' '.join(right)}' not chosen")
    if pos_wrong is not None and pos_wrong < pos_right:
        return RuleVerdict(False, f"either-or: names '{' '.join(wrong)}' first")
    return RuleVerdict(True, f"either-or: chose '{' '.join(right)}'")


_OPTIONAL_PAREN = re.compile(r"^\s*(?:e\.g\.|i\.e\.|from|including|such as|for example|or|"
                             r"about|approx|roughly|which|that|as)\b", re.IGNORECASE)


def _acronym_form(text: str, paren: re.Match) -> str | None:
    """'fluid catalytic cracking (FCC), ...' -> 'FCC, ...' when the letters spell the acronym."""
    acronym = paren.group(1).strip()
    if not re.fullmatch(r"[A-Z]{2,6}", acronym):
        return None
    words = list(re.finditer(r"[A-Za-z]+", text[:paren.start()]))
    picked, i = [], len(words) - 1
    for ch in reversed(acronym.lower()):
        while i >= 0 and words[i].group(0).lower() in ("of", "and", "the", "for", "de"):
            i -= 1
        if i < 0 or words[i].group(0)[0].lower() != ch:
            return None
        picked.append(words[i])
        i -= 1
    return text[:picked[-1].start()] + acronym + text[paren.end():]


def _gold_forms(answer: str) -> list[str]:
    """The reference without its parenthetical asides, plus one form per acronym alias."""
    main, _ = _split_acceptable(answer)
    unparen = lambda t: re.sub(r"\([^()]*\)", " ", t)  # noqa: E731
    forms = [unparen(main)]
    for p in re.finditer(r"\(([^()]*)\)", main):
        if _OPTIONAL_PAREN.match(p.group(1)):
            continue
        alias = _acronym_form(main, p)
        if alias is not None:
            forms.append(unparen(alias))
        elif not main[p.end():].strip(" .") and len(p.group(1).split()) <= 3:
            forms.append(p.group(1))  # "X (Y)" at the end: Y alone may name the same thing
    return forms


def _containment_verdict(question: str, answer: str, hypothesis: str) -> RuleVerdict:
    q_tokens = set(tokens(question))
    hyp = set(tokens(hypothesis))
    best_missing: list[str] | None = None
    for form in _gold_forms(answer):
        content = content_tokens(form)
        required = [t for t in content if t not in q_tokens] or content or tokens(form)
        required = list(dict.fromkeys(required))
        missing = [t for t in required if t not in hyp]
        if not required:
            continue
        if not missing:
            return RuleVerdict(True, "contains: " + " ".join(required))
        if best_missing is None or len(missing) < len(best_missing):
            best_missing = missing
    return RuleVerdict(False, "contains: missing " + " ".join(best_missing or ["answer"]))


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------

def judge_one(question_type: str, question: str, answer: str, hypothesis: str | None, *,
              is_abstention: bool = False) -> RuleVerdict:
    """The rule verdict for one response. `answer` is the reference (or rubric/explanation)."""
    hyp = (hypothesis or "").strip()
    answer = str(answer)
    if not hyp:
        return RuleVerdict(False, "empty response")
    if is_abstention:
        if abstains(hyp):
            return RuleVerdict(True, "abstention: says the information is missing")
        return RuleVerdict(False, "abstention: answers instead of saying it is unknown")
    if question_type == "single-session-preference":
        return _preference_verdict(question, answer, hyp)
    polar = _yes_no_gold(answer)
    if polar is not None:
        said = _polarity(hyp)
        return RuleVerdict(said == polar, f"yes/no: expected {polar}, response says {said}")
    main, _ = _split_acceptable(answer)
    short = len(content_tokens(main)) <= 2
    if _QUANTITY_QUESTION.search(question) or short:
        verdict = _quantity_verdict(question_type, question, answer, hyp)
        if verdict is not None:
            return verdict
    if _ORDER_QUESTION.search(question):
        verdict = _order_verdict(main, hyp)
        if verdict is not None:
            return verdict
    verdict = _either_or_verdict(question, main, hyp)
    if verdict is not None:
        return verdict
    return _containment_verdict(question, answer, hyp)

