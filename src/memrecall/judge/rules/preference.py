"""single-session-preference: the reference is a rubric. Correct when the response uses the
user's own details the rubric names: one proper noun or number from its positive sentences
(Sony, Luna, 9:30; a name of several words said as a name, not one of its everyday words alone:
"Rivers" for "Julia Rivers", never "rivers"), or one two-word detail (turbinado sugar; its words
may come apart or turned round: "granulated sugar for turbinado"), or three distinct single
detail words. Rubric boilerplate (prefer, suggestions, high-quality, ...), the question's words
and the words its negative sentences use for what the user would not want ("more true crime
podcasts") don't count. A response that says the advice it gives is general ("I can offer some
general tips") is not personalised, whatever names it lists, and nor is one that opens by
offering generic options ("Here are some popular options") and nowhere draws on the user's
history."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...abstention import says_missing
from .normalise import STOPWORDS, THOUSANDS_COMMA, normalize, stem, tokens
from .numbers import quantities, same_time_of_day
from .phrases import TURN
from .response import sentences, without_notes
from .verdict import RuleVerdict

# A rubric sentence that says what the user would not prefer: its own preference verb negated
# ("They might not prefer ...", "would not be interested in", "wouldn't want"). A negation inside
# what they do prefer ("suggestions that do not require a car") leaves the sentence positive.
# Or its own verb says so without a negation: "They would dislike ...", "Responses should avoid
# ...", "The user would find generic tips unhelpful". Only as the sentence's own verb, after its
# subject: "The user would prefer suggestions that help them avoid caffeine" prefers.
_RUBRIC_NEGATIVE = re.compile(
    r"\b(?:not prefer|not be interested|not interested|wouldn't|"
    r"(?:would|might|may|will|do|does)(?: not|n't) (?:\w+ )?(?:prefer|like|want|appreciate|"
    r"enjoy|find|be|care|benefit|need|value|welcome))\b|"
    r"^\W*(?:they|the user|responses?|suggestions?|answers?|recommendations?)"
    r"(?: (?:would|might|may|will|should|could))?(?: (?:also|likely|probably|generally))?"
    r" (?:dislikes?|avoid|find\b[^.]*\b(?:unhelpful|irrelevant|frustrating|off-putting))\b",
    re.IGNORECASE,
)
# Where what a negative sentence says the user would not want ends: at a negation of its own
# ("suggestions that do not take into account their turbinado sugar", "hotels without these
# features", "advice unrelated to their experiences": what follows is what they do want), at its
# reason ("..., as these activities have been affecting their sleep"), or where it turns to what
# they would want (", and would likely appreciate responses that utilize ...").
_DISLIKED_END = re.compile(
    r"\b(?:that|which)(?: \w+)? (?:do not|don't|does not|doesn't|did not|didn't|are not|aren't|"
    r"is not|isn't|fail|ignore|lack|deviate)|\bwithout\b|\bunrelated\b|\bnot related\b|"
    r"\bdifferent\b|,? as (?:they|the user|these|this|it)\b|"
    r",? and (?:would|might|may|will|could) (?:\w+ )?(?:prefer|like|appreciate|enjoy|want|value)",
    re.IGNORECASE,
)


def _disliked_words(negations: list[re.Match[str]]) -> set[str]:
    """The tokens of what the rubric's negative sentences (their _RUBRIC_NEGATIVE matches) say the
    user would not want ("general podcast topics such as true crime or self-improvement"). A word
    the rubric also uses for what the user wants ("new podcasts or audiobooks") does not tell the
    one from the other, so it is no detail of theirs."""
    out: set[str] = set()
    for said in negations:
        sent = said.string
        # (from its start: "They would find X that ignores Y unhelpful" holds X and Y)
        end = _DISLIKED_END.search(sent, said.start())
        out.update(tokens(sent[said.start() : end.start() if end else len(sent)]))
    return out


_RUBRIC_GENERIC = frozenset(
    stem(w)
    for w in """
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
""".split()
)

# Prepositions and particles the general stopwords leave out: they say where or how, not what
# ("stirring up dust", "around the sink"), so no rubric detail is one.
_PREPOSITIONS = frozenset(
    stem(w)
    for w in """up down out off around within without across through throughout along among
amongst beyond behind below above near upon via per against between beside besides""".split()
)

# The response says what it offers is general advice: by its own account it does not use the
# user's details, even when it lists names a rubric mentions (the official preference judge asks
# whether the response recalls and utilises the user's personal information). "They don't provide
# general tips" describes something else, so a negated verb does not count.
_SAYS_GENERAL = re.compile(
    r"(?<!not )(?<!n't )\b(?:provide|give|offer|share|here are|here is|these are) (?:you )?"
    r"(?:a |some )?(?:[*_]*[a-z-]+[*_]* )?[*_]*general (?:answer|tips|advice|suggestions|"
    r"recommendations|ideas|resources)\b",
    re.IGNORECASE,
)


# A response that opens by offering generic options ("Here are some popular options that are sure
# to please a crowd", "There are several strategies you can adopt") and nowhere draws on the
# user's history offers what anyone would get: not personalised, whatever rubric words its list
# happens to name (a "Pimm's Cup" among the popular cocktails).
_GENERIC_OPENING = re.compile(
    r"\b(?:popular|common|general|classic|standard|well-known|typical|various|several|many|"
    r"a range of|a variety of|a few)\b(?: [\w-]+){0,2} (?:tips|ideas|options|strategies|"
    r"suggestions|ways|recommendations|choices|activities|resources|approaches|methods|steps|"
    r"practices|hotels|places)\b|\bthere are (?:many|several|plenty of|lots of|numerous)\b|"
    r"\bsure to please\b|\bcater to a range\b",
    re.IGNORECASE,
)
# Signs that a response draws on what it knows of the user, anywhere in it: it says what the user
# told it or did ("you mentioned", "since you loved", "you've been", "building on your"), or speaks
# of them from its notes ("the user's", "Session 3"). A bare claim of having looked ("Based on our
# previous conversations", "If I recall correctly") is a house style and names nothing of them.
# Broader than _RECALLS_USER below, which asks of one sentence whether it tells the user a detail
# it recalls.
DRAWS_ON_HISTORY = re.compile(
    r"\byou(?:'ve| have| had)? (?:\w+ )?(?:mentioned|said|told|shared|noted|described|asked|"
    r"expressed|indicated|brought up|talked|discussed)\b|"
    r"\b(?:as|since|because|like|now that|given that|considering) you(?:'re| are|'ve| have| had|"
    r" did| do| were| already| recently| own| use| enjoy| love| like| prefer| \w+ed)\b|"
    r"\byou(?:'ve| have) (?:been|already|recently|started|got|gotten|bought|tried|used|found|"
    r"had|\w+ed)\b|\byou (?:loved|enjoyed|liked)\b|\byou already\b|\bearlier,? you\b|"
    r"\b(?:i|we)(?:'ve| have)? (?:\w+ )?(?:discussed|talked about)\b|\blast time\b|"
    r"\bas (?:we |you )?(?:discussed|mentioned|noted)\b|"
    r"\b(?:conversation|discussion|chat)s? (?:about|on|regarding)\b|"
    r"\b(?:based on|given|building on|build on) (?:your|what you)\b(?! (?:previous |past |earlier |"
    r"prior |recent )?(?:conversation|chat|discussion|session|message|question|request|histor))|"
    r"\byour (?:existing|current|new|own|recent)\b|"
    r"\bthe user(?:'s| has| had| is| was| mentioned| already| previously)\b|\bsession \d",
    re.IGNORECASE,
)


# "I wouldn't give you general tips" offers none, and "I recommended several resources" reports
# what was offered before.
_NOT_AN_OFFER = re.compile(
    r"\b(?:not|no|never)\b|n't\b|"
    r"\b(?:i|we)(?:'ve| have)? (?:recommended|suggested|provided|shared|gave|listed|mentioned)\b",
    re.IGNORECASE,
)


# A title in bold on its own line ("**Answer**", "**Suggestions for you:**"): the opening goes on
# after it, as it does after a Markdown heading.
_BOLD_TITLE = re.compile(r"^\s*\*\*[^*\n]+\*\*:?[ \t]*\n")


def _offers_generic(text: str) -> bool:
    """Does the response's opening (its words before its first list, heading or blank line,
    with a title in bold before them) offer generic options?"""
    text = text.strip()
    title = _BOLD_TITLE.match(text)
    rest = "\n" + text[title.end() :].strip() if title else text
    opening = re.split(r"\n\s*\n|\n\s*(?:[-*•#]|\d+[.)])", rest, maxsplit=1)[0]
    if title:
        opening = title.group(0).strip() + " " + opening
    for m in _GENERIC_OPENING.finditer(opening):
        clause = re.split(r"[.!?;:,]|\bbut\b", opening[: m.start()])[-1]
        if not _NOT_AN_OFFER.search(clause):
            return True
    return False


# The response's name for the record it searched ("your conversation history", "based on your
# history", "chat histories"): no detail of the user, where a rubric's "history" is one (a
# favourite subject, a podcast genre).
_RECORD = re.compile(
    r"\b(?:(?:your|the|our|my)\s+(?:(?:past|previous|recent|stored|saved|entire|full)\s+)?"
    r"(?:(?:conversation|chat|message|search|memory|session|interaction)s?\s+)?|"
    r"(?:conversation|chat|message|search|memory|session|interaction)s?\s+)histor(?:y|ies)\b",
    re.IGNORECASE,
)


# A question back to the user ("Which camera do you use (Sony, Canon, Fujifilm)?", "Do you have
# a Suica card yet?") asks for their details: the names in it are options, not details recalled.
# A question that recalls ("Do you still shoot with your Sony?") or suggests ("Have you tried
# Premiere Pro's masterclass?", "Why not revisit the lemon cake?") keeps its names.
# (from a colon on: "To answer your question: which camera do you use?" asks what follows it)
_QUESTION = re.compile(r"[^.!?:\n]*\?[*_ ]*(?:\([^)\n]*\))?")
_RECALLS_OR_SUGGESTS = re.compile(
    r"\byour\b|\byou(?:'ve| have (?:been|already)| had| mentioned| said| told)\b|"
    r"\b(?:tried|considered|thought about|why not|how about|what about|like to try|want to try)\b",
    re.IGNORECASE,
)


def without_questions_to_user(text: str) -> str:
    """The text, typographic apostrophes made plain, without its questions to the user."""
    return _QUESTION.sub(
        lambda m: m.group(0) if _RECALLS_OR_SUGGESTS.search(m.group(0)) else " ",
        text.replace("’", "'"),
    )


# A name: capitalised words in a row, a number among them ("iPhone 13 Pro", "Six Flags Magic
# Mountain", "Knott's Berry Farm").
_CAPITALISED = r"[A-Za-z'’]*[A-Z][A-Za-z'’]*"
_NAME_RUN = re.compile(rf"{_CAPITALISED}(?:[ \t]+(?:\d+(?![\d:.,]\d)|{_CAPITALISED}))*")
# What may stand before a sentence's first word: quotes, emphasis, a list's marker.
_OPENING = " \t'\"‘“*_(#>•–-0123456789.)"


def _names(sentence: str) -> list[list[str]]:
    """The tokens of each name the sentence writes, its first word aside: a capital there
    opens the sentence, it names nothing."""
    out = []
    for run in _NAME_RUN.finditer(sentence):
        words = run.group(0).split()
        if not sentence[: run.start()].strip(_OPENING):
            words = words[1:]
        toks = [t for t in tokens(" ".join(words)) if t not in STOPWORDS]
        if toks:
            out.append(toks)
    return out


@dataclass(frozen=True)
class _Name:
    """A name of several words in the rubric. Each of its words can be an everyday word too
    ("Brandon Flowers", "iPhone 13 Pro", "Free Solo"), so one of them alone, in lower case or in
    another name ("Premiere Pro"), is not the name: the response says it with two of its words
    side by side, or writes a name made only of its words ("Flowers", "iPhone"). Either way with
    a word of its own, not one the question or the rubric's boilerplate holds."""

    words: tuple[str, ...]
    own: frozenset[str]

    def said(self, pairs: set[tuple[str, str]], names: list[set[str]]) -> bool:
        return any(
            p in pairs and self.own.intersection(p) for p in zip(self.words, self.words[1:])
        ) or any(name <= set(self.words) and name & self.own for name in names)


def rubric_terms(rubric: str, question: str):
    """(anchors, names of several words, numbers, times of day, detail words, detail bigrams)
    from the rubric's positive sentences. A number inside a name ("Six Flags", "iPhone 13") is
    part of it, no number of the user's."""
    parts = sentences(rubric)
    negated = {s: _RUBRIC_NEGATIVE.search(s) for s in parts}
    positive = [s for s in parts if not negated[s]] or parts[:1]
    q_tokens = set(tokens(question))
    # "before 9:30 pm" or "9:30 PM": the time is the detail, its "pm" no name or detail of its own
    skip = STOPWORDS | _RUBRIC_GENERIC | q_tokens | {"am", "pm"} | _PREPOSITIONS
    skip |= _disliked_words([m for s, m in negated.items() if m and s not in positive])
    anchors: set[str] = set()
    names: set[_Name] = set()
    numbers: set[str] = set()
    details: set[str] = set()
    bigrams: set[tuple[str, str]] = set()
    for sent in positive:
        sent = re.sub(r"\bbuild(?:s|ing)? (?:up)?on\b", " ", sent, flags=re.IGNORECASE)
        for toks in _names(sent):
            own = frozenset(t for t in toks if t not in skip and not t.isdigit())
            if len(toks) > 1 and own:
                names.add(_Name(tuple(toks), own))
            else:
                anchors.update(own)
        outside_names = THOUSANDS_COMMA.sub("", _NAME_RUN.sub(" ", sent))  # "$1,200" is 1200
        numbers.update(re.findall(r"\d+(?:[:.]\d+)?", outside_names))
        toks = tokens(sent)
        details.update(t for t in toks if t not in skip and not t.isdigit())
        for a, b in zip(toks, toks[1:]):
            if a not in skip and b not in skip and not a.isdigit() and not b.isdigit():
                bigrams.add((a, b))
    times = [q for q in quantities(" ".join(positive)) if q.clock]
    in_names = {t for name in names for t in name.words}
    return anchors, names, numbers, times, details - anchors - in_names, bigrams


# A two-word detail written apart or turned round ("granulated sugar for turbinado" for
# "turbinado sugar"): both words within this many content words of each other.
_PAIR_WINDOW = 3


def _near_pairs(words: list[str]) -> set[tuple[str, str]]:
    """Each pair of content words within _PAIR_WINDOW of each other, both ways round."""
    content = [t for t in words if t not in STOPWORDS]
    return {
        pair
        for i, a in enumerate(content)
        for b in content[i + 1 : i + 1 + _PAIR_WINDOW]
        for pair in ((a, b), (b, a))
    }


# A sentence that tells the user what it found of theirs: "you mentioned", "you've been
# experimenting with", "I did come across a mention that you ...", "I can see you ...". Said to
# the user, not of "the user" in a reasoning transcript's notes.
_RECALLS_USER = re.compile(
    r"\byou(?:'ve| have)? (?:\w+ )?(?:mentioned|shared|said|told|noted|described|recalled|"
    r"discussed|explored|experimented|tried|enjoyed|been \w+ing)\b|"
    r"\bi (?:did |also |can )?(?:find|found|notice|noticed|see|saw|came across|come across)\b"
    r"(?=.*\byou)",
    re.IGNORECASE,
)


def _recalls_a_detail(text: str, bigrams: set[tuple[str, str]]) -> bool:
    """Whether a sentence that tells the user what it recalls of them, and does not say
    something is missing, names a two-word rubric detail. A sentence says what follows its last
    turn: "I didn't find anything on reunions, but I did find that you were on the debate team"
    recalls, "You mentioned the orchestra once, but I couldn't find any details" does not."""
    return any(
        _RECALLS_USER.search(said)
        and not says_missing(said, instead=False)
        and bigrams & _near_pairs(tokens(said))
        for said in (TURN.split(sent)[-1] for sent in sentences(text))
    )


def preference_verdict(question: str, rubric: str, hypothesis: str) -> RuleVerdict:
    anchors, names, numbers, times, details, bigrams = rubric_terms(rubric, question)
    hypothesis = without_questions_to_user(without_notes(hypothesis))
    hyp = tokens(_RECORD.sub(" ", hypothesis))
    hyp_set = set(hyp)
    hyp_norm = normalize(hypothesis)
    if _SAYS_GENERAL.search(hypothesis):  # apostrophes already plain
        return RuleVerdict(False, "preference: says its advice is general, not the user's")
    if _offers_generic(hypothesis) and not DRAWS_ON_HISTORY.search(hypothesis):
        return RuleVerdict(False, "preference: offers generic options, recalls nothing of the user")
    hit_anchor = sorted(anchors & hyp_set)
    if names:  # (most rubrics name nothing of several words: the response's names go unread)
        hyp_pairs = set(zip(hyp, hyp[1:]))
        hyp_names = [set(n) for sent in sentences(hypothesis) for n in _names(sent)]
        hit_anchor += sorted(" ".join(n.words) for n in names if n.said(hyp_pairs, hyp_names))
    hit_anchor += sorted(
        n for n in numbers if re.search(rf"(?<![\d:]){re.escape(n)}(?![\d:])", hyp_norm)
    )
    if not hit_anchor and times:
        # a time the rubric names, in another notation: "before 9:30 pm" is "by 21:30"
        said = [q for q in quantities(hypothesis) if q.clock]
        hit_anchor = [
            f"{t.value // 60:02d}:{t.value % 60:02d}"
            for t in times
            if any(same_time_of_day(t, q) for q in said)
        ]
    if hit_anchor:
        return RuleVerdict(True, f"preference: uses the user's {', '.join(hit_anchor)}")
    if says_missing(hypothesis, instead=False) and not _recalls_a_detail(hypothesis, bigrams):
        # "I don't have your history, but here are general tips": it says it cannot recall the
        # user's information, so it does not use it. The user's names or numbers (above) win,
        # and so does a two-word detail in a sentence that tells the user it recalls it.
        # Only words that say so count: advice "rather than" something names nothing missing.
        return RuleVerdict(False, "preference: says it lacks the user's information")
    hit_pairs = sorted(bigrams & _near_pairs(hyp))
    if hit_pairs:
        return RuleVerdict(
            True, "preference: uses the user's " + ", ".join(" ".join(p) for p in hit_pairs)
        )
    hit = sorted(details & hyp_set)
    if len(hit) >= 3:
        return RuleVerdict(True, f"preference: uses the user's details {', '.join(hit)}")
    wanted = sorted(anchors) + sorted(" ".join(n.words) for n in names) or sorted(details)[:6]
    return RuleVerdict(
        False, "preference: does not use the user's details (" + ", ".join(wanted) + ")"
    )
