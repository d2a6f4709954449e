"""Yes/no references ("Yes."): the response's first yes/no word must agree; without one, its
statement of the question's own claim ("You do have a spare screwdriver", "you did not visit with
a friend") or a bare "You do!" says which. Either-or questions
("A or B?"): for which-came-first questions, the option the response places first ("B came
first", "A happened after that"); otherwise the response names the reference's option, and names
it first if it names both (the alternatives restated, "between A and B", name neither).
Questions that list three or more options: the response names the reference's option first.
Superlative questions ("Which ... the most ...?"): the response's first statement with the
question's superlative names its answer."""

from __future__ import annotations

import re

from ...abstention import plain, says_missing
from .normalise import STOPWORDS, content_tokens, normalize, tokens
from .numbers import DAYS_LEAST_MOST, quantities
from .phrases import ANNOUNCEMENT, EPISTEMIC_HEDGE, GREETING, LEAD_IN
from .response import (
    asked_part,
    closing_paragraph,
    conclusion,
    first_sentence,
    says_only_no_later_change,
    sentences,
)
from .verdict import RuleVerdict


def polarity(text: str) -> str | None:
    """The response's yes or no, read from its conclusion when it reasons first. "no" as a
    determiner ("there is no mention of ...", a line that opens "No mention of ...") is not an
    answer: an answering "no" stands alone ("No, ...", "no.") or opens a line and a clause ("No
    I didn't"), also emphasised or before a dash ("the answer is **no** — ..."); a "Yes/No:"
    label names both. Without either word, an opening "Correct", "Yep", "Indeed", "Nope", "Not
    really", "Definitely not" answers too, and so does "I think so" or "I don't believe so"
    wherever it stands."""
    s = normalize(conclusion(text))
    s = re.sub(r"\byes ?(?:/|or) ?no\b", " ", s)  # "Yes/No: No": the label names both
    for m in re.finditer(r"\b(yes|no)\b", s):
        if (
            m.group(1) == "yes"
            # stands alone: before punctuation or a dash, after closing emphasis or a quote
            or re.match(r"[*_\"')\]]*\s*(?:[,.!;:?]|-\s|$)", s[m.end() :])
            or (
                re.search(r"(?:^|\n)[\W_]*$", s[: m.start()])
                and not _NO_BEFORE_NOUN.match(s[m.end() :])
            )
        ):
            return m.group(1)
    for word, pattern in _OPENING_POLARITY.items():
        if pattern.search(s):
            return word
    said = _PRO_FORM.search(s)
    if said:
        return "no" if said.group(1) or said.group(2) else "yes"
    return None


# "I think so", "I don't believe so", "I believe not": the "so" or "not" stands for the question's
# own claim, so the clause answers it wherever it stands ("Sure! I believe so.").
_PRO_FORM = re.compile(r"\bi (?:(don't|do not) )?(?:think|believe|guess|suppose) (?:(not)|so)\b")


def stated_polarity(question: str, text: str) -> str | None:
    """The response's yes or no (`polarity`), or, where it says neither word, what it says of the
    question's own claim: "You do!" or "You don't." opening it, or the first statement that
    restates more than half of the question's content words, negated or not ("Therefore, you
    received a higher discount from HelloFresh"; "you do not go to the gym more often now").
    A statement that the information is missing, a question, an indirect question ("whether you
    ...") and the responder speaking of itself ("I'd be happy to compare grocery lists") restate
    without answering."""
    said = polarity(text)
    if said is not None:
        return said
    statements = [
        s for s in re.split(r"(?<=[.!?;:])\s+|\n+", plain(conclusion(text)).strip()) if s.strip()
    ]
    bare = _BARE_AUXILIARY.match(statements[0]) if statements else None
    if bare and not says_missing(statements[0], instead=False):  # "You never mentioned one."
        return "no" if bare.group(1) or bare.group(2) or bare.group(3) else "yes"
    wanted = set(content_tokens(asked_part(question)))
    for sentence in statements:
        if sentence.rstrip(" *_").endswith("?") or says_missing(sentence, instead=False):
            continue
        # "If I recall correctly, you ..." says how sure it is; the claim is what follows
        sentence = EPISTEMIC_HEDGE.sub(" ", sentence)
        words = tokens(sentence)
        hits = [i for i, w in enumerate(words) if w in wanted]
        if len({words[i] for i in hits}) * 2 <= len(wanted):
            continue
        before = set(words[: hits[0]])
        if before & _NOT_A_CLAIM:
            continue
        # a negation before the last restated word: "you did not visit with a friend", and "the
        # museum visit was not with a friend"
        negated = bool(set(words[: hits[-1]]) & _NEGATION) != _turns_comparison(question, sentence)
        return "no" if negated else "yes"
    return None


# A comparison restated the other way round answers no: "Do I go to the gym more often than
# before?" - "you go to the gym less often than before".
_OPPOSITES = {
    "more": ("less", "fewer"),
    "less": ("more",),
    "fewer": ("more",),
    "higher": ("lower",),
    "lower": ("higher",),
    "bigger": ("smaller",),
    "smaller": ("bigger", "larger"),
    "larger": ("smaller",),
    "longer": ("shorter",),
    "shorter": ("longer",),
    "faster": ("slower",),
    "slower": ("faster",),
    "better": ("worse",),
    "worse": ("better",),
    "earlier": ("later",),
    "later": ("earlier",),
    "cheaper": ("pricier",),
}


def _turns_comparison(question: str, sentence: str) -> bool:
    asked = set(re.findall(r"[a-z]+", plain(question)))
    said = set(re.findall(r"[a-z]+", sentence))
    return any(
        word in asked and word not in said and said.intersection(_OPPOSITES[word])
        for word in _OPPOSITES
    )


# "You do!", "You don't.", "You did not": a bare auxiliary answering a "Do I ...?" question;
# "You do have one", "You did not go": an emphatic or negated "do" before its verb; "You no
# longer have it", "You don't seem to have one": a no.
_BARE_AUXILIARY = re.compile(
    rf"^[\W_]*{LEAD_IN}?"
    r"you (?:(?:sure|certainly|definitely|indeed) )?"
    r"(?:(?:do|did|have|had|are|were|can|will|should)( not)?[\W_]*(?:$|[.!;:,—–-])"
    r"|(?:do|did)( not)? (?!not\b|seem|appear|look)[a-z]|(no longer|never|(?:do|does|did) not "
    r"(?:seem|appear) to)\b)"
)
_NEGATION = frozenset({"not", "never", "no", "cannot"})
_NOT_A_CLAIM = frozenset({"whether", "if", "i", "me", "let", "we"})


# "No mention of ...", "No specific information ...": a "no" that opens a line before a word
# that cannot open a clause is a determiner, not an answer ("No I didn't", "No, ..." answer);
# so is one hyphened to its noun ("No-shows: ...").
_NO_BEFORE_NOUN = re.compile(
    r"[ \t]+(?!(?:i|you|he|she|it|we|they|that|this|there|not|never|sorry|unfortunately|"
    r"actually|but|because|since|as|nothing|none|nobody|neither|nor)\b)[a-z]|-[a-z]"
)


# Other words for yes and no, read only where a response opens (or a line does): inside a
# sentence "true" or "right" is seldom an answer. A greeting ("Sure! "), an apology for an earlier
# turn, a list's number or a lead-in before them leaves them where the response opens.
_OPENS = rf"(?:^|\n)[\W_]*(?:(?:{GREETING}!|{ANNOUNCEMENT}|\d+[.)]\s|{LEAD_IN})[\W_]*){{0,3}}"
_OPENING_POLARITY = {
    word: re.compile(rf"{_OPENS}(?:{alternatives})\b(?![ -](?:to|of|that|me)\b)")
    for word, alternatives in {
        "no": r"(?:definitely|absolutely|certainly|of course|i'm afraid|unfortunately|sadly) not|"
        r"not that i(?:'m| am)? (?:know|aware) of|(?:it )?(?:doesn't|does not) (?:look|seem) "
        r"like it|"
        r"nope|nah|not really|not quite|not at all|negative|false|incorrect|that(?:'s| is) "
        r"(?:not (?:right|correct|true)|incorrect|wrong)",
        "yes": r"yep|yeah|yup|correct|indeed|absolutely|definitely|affirmative|true|sure do|"
        r"(?:it )?(?:looks|seems) (?:like it|like you do|so)|"
        r"that(?:'s| is) (?:right|correct|true)",
    }.items()
}


def yes_no_gold(answer: str) -> str | None:
    words = re.findall(r"[a-z]+", normalize(answer))
    if (
        words
        and words[0] in ("yes", "no")
        and (len(words) <= 4 or re.match(r"\s*(?:yes|no)\s*[,.;:!]", answer.lower()))
    ):
        return words[0]
    return None


def _either_or_options(question: str) -> tuple[list[str], list[str]] | None:
    q = asked_part(question).rstrip("?").strip()
    idx = q.lower().rfind(" or ")
    if idx < 0:
        return None
    left, right = q[:idx].rstrip(" ,"), q[idx + 4 :]
    if "," in left:
        frame, left = left.rsplit(",", 1)
    else:  # "increase or decrease the limit": one word each side
        words = left.split()
        frame, left = (" ".join(words[:-1]), words[-1]) if words else ("", "")
        right = right.split()[0] if right.split() else ""
    a, b = content_tokens(left), content_tokens(right)
    # "did I switch to more water per tablespoon, or less?": the elided option answers its
    # opposite, and the rest of the left side ("switch", "water") belongs to both.
    if len(b) == 1 and set(_OPPOSITES.get(b[0], ())) & set(a):
        a = [w for w in a if w in _OPPOSITES[b[0]]][:1]
    # Words both options share, or that the question's frame already has ("Which trip did I take
    # first, the one to Europe or the solo trip to Thailand?": "trip"), identify neither option.
    common = (set(a) & set(b)) | set(content_tokens(frame))
    a, b = [t for t in a if t not in common], [t for t in b if t not in common]
    return (a, b) if a and b else None


def _mentions(option: list[str], hyp: list[str]) -> int | None:
    """First position of the option in the response, when at least half its words appear."""
    found = [hyp.index(t) for t in option if t in hyp]
    return min(found) if len(found) * 2 >= len(option) and found else None


def names_an_option(question: str, answer: str, text: str) -> bool:
    """Does `text` name one of the options of an either-or question whose reference picks one?
    True for any other question: what a response says it changed to ("updated it to 5 ounces
    of water") answers "more water or less?" only when it names more or less."""
    options = _options_of(question, answer)
    hyp = tokens(text)
    return options is None or any(_mentions(option, hyp) is not None for option in options)


def _options_of(question: str, answer: str) -> tuple[list[str], list[str]] | None:
    """The question's either-or options, the one the reference picks first; None when it asks
    none or the reference picks neither ("How many did I buy or borrow?": "4")."""
    options = _either_or_options(question)
    if options is None:
        return None
    gold = set(content_tokens(answer))
    share = [sum(t in gold for t in opt) / len(opt) for opt in options]
    if max(share) < 0.5 or share[0] == share[1]:
        return None
    return (options[0], options[1]) if share[0] > share[1] else (options[1], options[0])


def either_or_verdict(question: str, answer: str, hypothesis: str) -> RuleVerdict | None:
    options = _options_of(question, answer)
    if options is None:
        return None
    right, wrong = options
    stated = _stated_choice(question, hypothesis, right, wrong)
    if stated is not None:
        return RuleVerdict(
            stated is right, f"either-or: states '{' '.join(stated)}' {_direction(question)}"
        )
    placed = _placed_by_times(question, hypothesis, right, wrong)
    if placed is not None:
        return RuleVerdict(
            placed is right,
            f"either-or: its times ago place '{' '.join(placed)}' {_direction(question)}",
        )
    if says_missing(first_sentence(hypothesis), instead=False):
        # No "X came first" statement and it opens by saying something is missing: the options
        # it names are the question's own words, not a choice.
        return RuleVerdict(False, "either-or: says the information is missing, chooses neither")
    concluded = _conclusion(hypothesis, right, wrong, set(tokens(question)))
    if concluded is not hypothesis and says_missing(concluded, instead=False):
        # "You met Mark and Sarah a month ago. However, there is no record of Tom, so I'm unable
        # to tell who you met first": the sentence it concludes in places neither option.
        return RuleVerdict(False, "either-or: concludes that the information is missing")
    hyp = _without_alternatives(tokens(concluded), right, wrong)
    hyp = _without_denied(hyp, right + wrong)
    pos_right, pos_wrong = _mentions(right, hyp), _mentions(wrong, hyp)
    if pos_right is None:
        return RuleVerdict(False, f"either-or: '{' '.join(right)}' not chosen")
    if pos_wrong is not None and pos_wrong < pos_right:
        return RuleVerdict(False, f"either-or: names '{' '.join(wrong)}' first")
    return RuleVerdict(True, f"either-or: chose '{' '.join(right)}'")


def _placed_by_times(
    question: str, hypothesis: str, right: list[str], wrong: list[str]
) -> list[str] | None:
    """The option a which-came-first (or last) response places by the times before now it gives
    each, in clauses that name one option and one time: "You set up the mesh network 3 weeks
    ago, and the smart thermostat a month ago" places the thermostat first, whatever order it
    names them in. None unless both options have such a time and the two cannot overlap (a
    month is 28 to 31 days: "a month ago" and "4 weeks ago" place neither)."""
    ask = _asked_order(question)
    if ask is None:
        return None
    earliest = ask == "early"
    spans: dict[int, set[tuple[float, float]]] = {0: set(), 1: set()}
    for clause in _statements(hypothesis):
        words = tokens(clause)
        named = [
            i for i, option in enumerate((right, wrong)) if _mentions(option, words) is not None
        ]
        agos = [
            q for q in quantities(clause) if q.ago and not q.denied and q.unit in DAYS_LEAST_MOST
        ]
        if len(named) == 1 and len(agos) == 1:
            least, most = DAYS_LEAST_MOST[agos[0].unit]
            spans[named[0]].add((agos[0].value * least, agos[0].value * most))
    if len(spans[0]) != 1 or len(spans[1]) != 1:
        return None
    (r_lo, r_hi), (w_lo, w_hi) = spans[0].pop(), spans[1].pop()
    if r_lo > w_hi:  # the right option is further back
        return right if earliest else wrong
    if w_lo > r_hi:
        return wrong if earliest else right
    return None


def _without_denied(hyp: list[str], option_words: list[str]) -> list[str]:
    """The response's words without an option it denies ("Not the thermostat — the router"):
    a denied option is not the one it names."""
    out: list[str] = []
    for w in hyp:
        back = out[-2:] if len(out) >= 2 and out[-1] in _DETERMINER else out[-1:]
        if w in option_words and back and back[0] == "not":
            continue
        out.append(w)
    return out


def _without_alternatives(hyp: list[str], a: list[str], b: list[str]) -> list[str]:
    """The response's words without the question's alternatives restated ("either a bus or a
    train", "between a bus and a train"): naming both options as the choice offered is no
    choice, so neither counts as named there."""
    only_a, only_b = set(a) - set(b), set(b) - set(a)
    out, i = list(hyp), 0
    while i < len(out):
        w = out[i]
        joins = w == "or" or (w == "and" and "between" in out[max(0, i - 6) : i])
        if joins:
            left, right = out[max(0, i - 5) : i], out[i + 1 : i + 6]
            for x, y in ((only_a, only_b), (only_b, only_a)):
                lpos = [j for j, t in enumerate(left) if t in x]
                rpos = [j for j, t in enumerate(right) if t in y]
                if lpos and rpos:
                    start, end = max(0, i - 5) + lpos[0], i + 1 + rpos[0]
                    while end + 1 < len(out) and out[end + 1] in y:
                        end += 1
                    del out[start : end + 1]
                    i = start - 1
                    break
        i += 1
    return out


# Which-came-first questions ("Which did I buy first, A or B?"): words that place an event early
# or late. A response answers by attaching one to an option ("B came first", "A happened after
# that", "B predates A").
_EARLY = frozenset(
    "first earlier earliest before sooner prior predate predated predates "
    "preceded precede precedes".split()
)
_LATE = frozenset(
    "last latest later after recent recently afterward afterwards newer subsequently second "
    "followed follows".split()
)
_QUESTION_EARLY = re.compile(r"\b(?:first|earlier|earliest|sooner)\b", re.IGNORECASE)
_QUESTION_LATE = re.compile(
    r"\b(?:last|latest|later|more recently|most recently|recent)\b", re.IGNORECASE
)
# "last week", "the first day", "the twins' first birthday": a time or an adjective, not a
# placing ("3 wks before" as well).
_TIME_NOUN = frozenset(
    (
        "day days week weeks weekend month months year years summer winter "
        "minute minutes hour hours min mins hr hrs wk wks mo mos yr yrs "
        "spring fall autumn night time times session sessions "
        "conversation conversations monday tuesday wednesday thursday "
        "friday saturday sunday birthday birthdays anniversary anniversaries"
    ).split()
)
_DETERMINER = frozenset("the a an my your his her their its our this that".split())
# An indirect question or a comparison it cannot make is not a statement ("I can't tell whether
# A or B came first"), nor is what the history does not say (says_missing, the shared phrase
# list: "There is no mention of you taking a bus more recently", "You did not mention taking a
# bus recently").
_NOT_A_STATEMENT = re.compile(
    r"\b(?:whether|if|which|compare|comparison|determine|unclear|not sure|can't|cannot|unable)\b"
)


def states_a_choice(question: str, answer: str, text: str) -> bool:
    """Does the response place one option of a which-came-first question whose reference picks
    one ("I cannot determine which you finished first. ... you likely finished The Hate U Give
    first")? Then it answers, whatever it says of its certainty."""
    options = _options_of(question, answer)
    return options is not None and _stated_choice(question, text, *options) is not None


def concludes_a_choice(question: str, hypothesis: str) -> bool:
    """Does the response's last sentence place one option of a which-came-first question ("...
    Therefore, Alex became a parent first")? For a question the history cannot answer, that is
    an answer, whatever it said was missing before it. A last sentence that asks the user ("Or
    is the Porsche a more recent project?") concludes nothing, and a closing offer or note after
    it ("Nothing later changes this.") is no conclusion."""
    options = _either_or_options(question)
    said = sentences(closing_paragraph(hypothesis))
    while said and says_only_no_later_change(said[-1]):
        said.pop()
    if options is None or not said or said[-1].rstrip(" *_").endswith("?"):
        return False
    return _stated_choice(question, said[-1], *options) is not None


def _asked_order(question: str) -> str | None:
    """ "early" for a which-came-first question, "late" for a which-came-last one, else None."""
    if _QUESTION_EARLY.search(question):
        return "early"
    return "late" if _QUESTION_LATE.search(question) else None


def _direction(question: str) -> str:
    """How a verdict's reason says which end the question asks about."""
    return "came first" if _asked_order(question) == "early" else "came last"


# Where a sentence's clauses part: a clause mark, or a turn ("but", "while", "whereas").
_CLAUSE_MARK = re.compile(r"[;,:(—–]|\bbut\b|\bwhile\b|\bwhereas\b")


def _statements(hypothesis: str):
    """The clauses of the response's sentences (one definition of a sentence's end: "vs." ends
    none) that state something: not an indirect question or a comparison it cannot make, nor
    what the history does not say."""
    for sent in sentences(hypothesis):
        for clause in _CLAUSE_MARK.split(sent):
            if (
                clause
                and not _NOT_A_STATEMENT.search(normalize(clause))
                and not says_missing(clause, instead=False)
            ):
                yield clause


def _stated_choice(
    question: str, hypothesis: str, right: list[str], wrong: list[str]
) -> list[str] | None:
    """The option the response places first (or last, as the question asks), read from its
    statements: in each clause, a placing word ("first", "before", "more recent") belongs to the
    nearest option named before it. Statements with the question's own word win over synonyms
    ("first" for a "first" question); among them the last one counts, so a response that
    corrects itself ("Wait, ... so the case came first") is read from its correction."""
    ask = _asked_order(question)
    if ask is None:
        return None
    own_words = {w for w in re.findall(r"[a-z]+", question.lower()) if w in (_EARLY | _LATE)}
    only_right = set(right) - set(wrong)
    only_wrong = set(wrong) - set(right)

    def named(word: str) -> list[str] | None:
        """The option a word names, if any."""
        toks = set(tokens(word))
        return right if toks & only_right else wrong if toks & only_wrong else None

    def named_after(words: list[str]) -> list[str] | None:
        """The option named first in `words`, past a determiner."""
        words = [x for x in words if x not in _DETERMINER]
        return named(words[0]) if words else None

    exact, other = [], []
    for clause in _statements(hypothesis):
        # Raw words: normalisation would read "first" as the number 1.
        words = re.findall(r"[a-z]+|\d+", _TELLING_TIME.sub(" ", plain(clause)))
        last_option, last_at = None, 0
        for i, w in enumerate(words):
            if w in _EARLY or w in _LATE:
                nxt = words[i + 1] if i + 1 < len(words) else ""
                prev = words[i - 1] if i else ""
                if w.startswith("follow") and nxt == "by":
                    w = "before"  # "the router, followed by the thermostat": the router first
                # A placing denied ("the car did not come first", "wasn't the first") places
                # the other option.
                denied = last_option is not None and bool(_NEGATION & set(words[last_at:i]))
                # "the first day" describes; "the dryer was (not) the first repair" places.
                verb = [x for x in words[max(0, i - 4) : i - 1] if x not in _NEGATION][-1:]
                copula = prev in _DETERMINER and verb in (["was"], ["is"], ["were"])
                if last_option is None and w in ("before", "after"):
                    # "Before salsa, you took up pottery", "a month after your pottery class":
                    # a preposition places the option after it the other way round.
                    ahead = next(filter(None, map(named, words[i + 1 : i + 5])), None)
                    if ahead is not None:
                        early = w == "after"
                        other_option = wrong if ahead is right else right
                        chosen = ahead if early == (ask == "early") else other_option
                        (exact if w in own_words else other).append(chosen)
                    continue
                if last_option is None:
                    # "The most recent mode of transport you used was a train": the option the
                    # placing word's noun phrase is said to be.
                    ahead = words[i + 1 : i + 10]
                    at = next((j for j, x in enumerate(ahead) if x in ("was", "is", "were")), None)
                    said = named_after(ahead[at + 1 : at + 3]) if at is not None else None
                    if said is not None:
                        (exact if w in own_words else other).append(
                            said
                            if (w in _EARLY) == (ask == "early")
                            else (wrong if said is right else right)
                        )
                    continue
                if nxt in _TIME_NOUN or (prev in _DETERMINER and not copula):
                    continue
                # "the rug two weeks before (June 10)", "the book club a month before": a time
                # before or after a date places nothing; "two weeks before the lamp" does.
                if (
                    w in ("before", "after")
                    and prev in _TIME_NOUN
                    and not any(map(named, words[i + 1 : i + 5]))
                ):
                    continue
                chosen = (
                    last_option
                    if ((w in _EARLY) == (ask == "early")) != denied
                    else (wrong if last_option is right else right)
                )
                (exact if w in own_words else other).append(chosen)
                continue
            option = named(w)
            if option is not None:
                last_option, last_at = option, i + 1
    picked = exact or other
    return picked[-1] if picked else None


# Words that mark the sentence giving the answer to an either-or question.
# ("To answer your question:" and "In answer to it," lead in; "the answer is" decides)
_DECISION = re.compile(
    r"\b(?:first|earlier|earliest|before|after|later|latest|last|recent|"
    r"recently|so|therefore|thus|conclude|(?<!\b[Tt]o )(?<!\b[Ii]n )answer|came|happened|"
    r"(?:that|this|which) leaves)\b"
)
# "I first thought of the car", "At first I assumed ...", "at first glance", "you first
# mentioned the car", "then later said it was the bike": when it was thought or told, not when
# the event happened.
_TELLING_TIME = re.compile(
    r"(?i)\b(?:(?:i|you|we) (?:first|later|earlier)|at first,? i) (?:thought|assumed|believed|"
    r"guessed|figured|suspected|considered|read|misread|understood|said|told me|mentioned|"
    r"stated|noted)\b|\bat first glance\b|\blater,? (?:you )?(?:said|told me|mentioned|stated)\b|"
    r"\b(?:the|your|my|an?) (?:latest|most recent|newest|last|final|first|earliest|earlier|later) "
    r"(?:answer|message|note|mention|update|entry|record|reply)s?\b"
)


def _decides(sentence: str) -> bool:
    """Does the sentence carry a decision word, other than one that dates a time ("as of our
    last conversation", "the first week")? Raw words: normalisation would read "first" as "1st"
    and miss it."""
    said = _TELLING_TIME.sub(" ", plain(sentence))
    for m in _DECISION.finditer(said):
        after = re.match(r"[\W_]*(\w+)", said[m.end() :])
        if not (after and after.group(1) in _TIME_NOUN):
            return True
    return False


def _comparing_else(words: list[str], a: list[str], b: list[str], asked: set[str]) -> list[str]:
    """The words without a bare comparative option ("more water per tablespoon, or less?": the
    options are "more" and "less") where it compares something the question does not ask about:
    "stronger and more concentrated" names neither option, "less water" and "less." do."""
    bare = {o[0] for o in (a, b) if len(o) == 1 and o[0] in _OPPOSITES}
    return [
        w
        for w, after in zip(words, words[1:] + [""])
        if not (w in bare and after and after not in STOPWORDS and after not in asked)
    ]


def _conclusion(hypothesis: str, a: list[str], b: list[str], asked: set[str]) -> str:
    """The part of the response that answers: a short response is its own answer; a response
    that reasons over both options answers in its last sentence naming one of them with a
    decision word ("so the train was more recent"), else its last sentence naming one. A
    sentence where a comparative option compares something else does not name it."""
    naming = [
        x
        for x in sentences(hypothesis)
        if _names_either(_comparing_else(tokens(x), a, b, asked), a, b)
    ]
    if not naming:
        return hypothesis
    if len(naming) == 1:
        # one sentence names the options: it answers in its clause after a turn, if it has one
        # ("It might look like A, but the later conversation shows it's actually B")
        turned = _after_turn(naming[0], a, b)
        return turned if turned is not None else hypothesis
    # What the history does not say answers nothing ("You most recently used a train. There is no
    # mention of a bus after that date."), while another sentence decides.
    stated = [x for x in naming if not says_missing(x, instead=False)]
    if any(_decides(x) for x in stated):
        naming = stated
    decisive = [x for x in naming if _decides(x)]
    last = (decisive or naming)[-1]
    # "X was discussed first, but the dates show Y came first": the clause after the turn.
    turned = _after_turn(last, a, b)
    return turned if turned is not None else last


def _after_turn(sentence: str, a: list[str], b: list[str]) -> str | None:
    """The sentence's last clause after a turn ("but", "however", "actually") that names an
    option; None when no clause after a turn names one."""
    clauses = re.split(r"\b(?:but|however|actually)\b", sentence, flags=re.IGNORECASE)
    named = [c for c in clauses[1:] if _names_either(tokens(c), a, b)]
    return named[-1] if named else None


def _names_either(words: list[str], a: list[str], b: list[str]) -> bool:
    return _mentions(a, words) is not None or _mentions(b, words) is not None


# A question that lists three or more options ("6S, MAJA, and Sen2Cor are all algorithms ...
# which one is implemented in SIAC_GEE?"): items of one to four words joined by commas and a
# closing "and" or "or".
_ITEM = r"[^\s,;:.?!]+(?: [^\s,;:.?!]+){0,3}"
_LISTED = re.compile(rf"((?:{_ITEM}, ){{2,}}(?:(?:and|or) )?{_ITEM})")


def _after_last_stopword(words: list[str]) -> list[str]:
    stops = [i for i, w in enumerate(words) if w.lower() in STOPWORDS]
    return words[stops[-1] + 1 :] if stops else words


def _before_first_stopword(words: list[str]) -> list[str]:
    stops = [i for i, w in enumerate(words) if w.lower() in STOPWORDS]
    return words[: stops[0]] if stops else words


def listed_choice_verdict(question: str, answer: str, hypothesis: str) -> RuleVerdict | None:
    """For a question that lists its options and a reference that only repeats the question's
    words ("The 6S algorithm is implemented in the SIAC_GEE tool."), the answer is the option
    the reference names: the response must name it before any other option, the options
    restated together ("6S, MAJA, and Sen2Cor are all ...") naming none. The reference's other
    words frame the choice ("tool", "algorithm") and need not be repeated."""
    lists = list(_LISTED.finditer(question))  # cheap, and most questions list nothing
    if not lists:
        return None
    wanted = set(tokens(question))
    gold = content_tokens(answer)
    if not gold or any(t not in wanted for t in gold):
        return None
    for listed in lists:
        items = [
            x.split() for x in re.split(r",\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+", listed.group(1))
        ]
        # the list's edges run into the sentence: the first item is its words after the last
        # stopword ("you mentioned that 6S"), the last its words before the first ("Sen2Cor are
        # all algorithms")
        items[0] = _after_last_stopword(items[0])
        items[-1] = _before_first_stopword(items[-1])
        options = [o for o in map(content_tokens, map(" ".join, items)) if o]
        if len(options) < 3:
            continue
        # an item's words that other items share ("the 6S algorithm", "the MAJA algorithm")
        # name no single option
        counts = {t: sum(t in o for o in options) for o in options for t in o}
        options = [[t for t in o if counts[t] == 1] for o in options]
        named = [o for o in options if o and all(t in gold for t in o)]
        if len(named) != 1:
            continue
        right = named[0]
        first = None
        for sentence in sentences(hypothesis):
            words = tokens(sentence)
            hits = {i for i, o in enumerate(options) if o and all(t in words for t in o)}
            if len(hits) == 1:  # several options in one sentence restate the list
                first = options[hits.pop()]
                break
        if first is None:
            return RuleVerdict(False, f"listed options: '{' '.join(right)}' not chosen")
        return RuleVerdict(first is right, f"listed options: chose '{' '.join(first)}'")
    return None


# A degree superlative makes a "which ..." question pick one of several ("Which platform did I
# gain the most followers on?"). "first"/"last" are the either-or and order rules' business (and
# often dates: "last week"); "most recent" is a time, not a degree.
_SUPERLATIVE = re.compile(
    r"\b(most|least|highest|lowest|biggest|largest|smallest|longest|shortest|best|worst|"
    r"fewest|cheapest|farthest|furthest|closest|fastest)\b(?! recent)"
)


def superlative_verdict(question: str, answer: str, hypothesis: str) -> RuleVerdict | None:
    """For a "which/what/who/where ... most ..." question whose reference is a name (two content
    words at most), the response's answer is its first statement that carries the question's
    superlative ("Bluesky is where you gained the most followers"); when that statement names
    something else, the reference named later as a compared option does not answer. None (the
    other rules decide) when there is no such statement, or it is negated or says something is
    missing, or it names the reference. A statement that restates the question ("to see which
    platform grew the most, ...") is not one; a reasoning transcript is read from its
    conclusion."""
    q = plain(asked_part(question))
    word = _SUPERLATIVE.search(q)
    if not re.match(r"\s*(?:which|what|who|where)\b", q) or word is None:
        return None
    asked = set(tokens(question))
    gold = [t for t in content_tokens(answer) if t not in asked]
    if not gold or len(content_tokens(answer)) > 2:
        return None
    # (a sentence in bold ends after its closing marks: "**Twitter grew the most.** ...")
    said_apart = sentences(conclusion(hypothesis))
    for sentence in (part for s in said_apart for part in re.split(r"(?<=;)\s+", s)):
        s = plain(sentence)
        if not re.search(rf"\b{word.group(1)}\b", s) or re.search(r"\b(?:which|whether)\b", s):
            continue
        if says_missing(s, instead=False) or re.search(
            r"\b(?:not|no|cannot|if)\b", EPISTEMIC_HEDGE.sub(" ", s)
        ):
            return None  # negated or conditional: "if you count X, Y grew the most"
        said = set(tokens(sentence))
        if all(t in said for t in gold):
            return None
        return RuleVerdict(
            False, f"superlative: the statement with '{word.group(1)}' names something else"
        )
    return None
