"""Entities of a text, for the graph rerank: named things, key phrases and numbers.

`offline` (the default, no model): deterministic and language-general, no rule looks at any
benchmark's questions.
- capitalised spans: runs of capitalised words ("Golden Gate Park", "Dr Smith"), except a run that
  is one function word (a sentence's "The", "I", "My");
- content words: every word of 3+ letters that is not a stopword (bm25s' English list), as in
  RAKE's candidate split (Rose et al., 2010) but one word at a time, so that a question's "dog"
  meets a session's "adopted two dogs" (multi-word phrases rarely recur word for word);
- numbers (1,024 / 3.5 / 12) with the word that follows when it is not a stopword ("3 cats").
Each entity is normalised (normal_form): lowercase, each word Snowball-stemmed, so "Dogs" and
"dog" meet in one node. A session keeps its `max_entities` most frequent entities (ties: first
seen first), so one very long session does not become a hub of the graph.

`llm`: a model lists the entities (prompt below), one per line; each line is normalised the same
way. Calls go through memrecall.llm.LLMClient: cached by request hash, priced, never paid twice;
a failed call leaves that text without entities (counted, retried on the next run).
"""

from __future__ import annotations

import logging
import re
import sys
from collections import Counter

from bm25s import stopwords as _sw

log = logging.getLogger(__name__)

EXTRACTORS = ("offline", "llm")
STOPWORDS = frozenset(_sw.STOPWORDS_EN_PLUS)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*|\d[\d,]*(?:\.\d+)?")
_CAP = re.compile(r"\b(?:[A-Z][\w'’\-]*)(?:\s+(?:of\s+|the\s+|de\s+)?[A-Z][\w'’\-]*)*")
_NUMBER = re.compile(r"\b\d[\d,]*(?:\.\d+)?\b(?:\s+([A-Za-z]{3,}))?")

PROMPT = (
    "List the entities in the text below: people, places, organisations, products, titles, "
    "events, dates, quantities and the key topics (short noun phrases).\n"
    "Write one entity per line, as it appears in the text, with no numbering or comments. "
    "If there is none, write NONE.\n\nText:\n{text}\n\nEntities:"
)

_stemmer = None


def _stem(word: str) -> str:
    global _stemmer
    if _stemmer is None:
        import Stemmer

        _stemmer = Stemmer.Stemmer("english")
    return _stemmer.stemWord(word)


def normal_form(entity: str) -> str:
    """lowercase, punctuation dropped, each word stemmed: the key of an Entity node."""
    words = [w.strip("'’-") for w in _WORD.findall(entity.lower())]
    return " ".join(_stem(w) if w[:1].isalpha() else w.replace(",", "") for w in words if w)


def _content_words(text: str) -> list[str]:
    return [
        w
        for w in (w.lower() for w in _WORD.findall(text))
        if len(w) >= 3 and w[:1].isalpha() and w not in STOPWORDS
    ]


def offline_entities(text: str) -> list[str]:
    """Every entity mention of `text`, in order (repeats kept: they count in frequency)."""
    found: list[str] = []
    for m in _CAP.finditer(text):
        span = m.group(0)
        if " " not in span and span.lower() in STOPWORDS:
            continue  # a capitalised function word: "The", "I", "My"
        found.append(span)
    for m in _NUMBER.finditer(text):
        unit = m.group(1)
        found.append(
            m.group(0) if unit and unit.lower() not in STOPWORDS else m.group(0).split()[0]
        )
    found.extend(_content_words(text))
    return found


def top_entities(mentions: list[str], max_entities: int) -> list[str]:
    """The normal forms of the `max_entities` most frequent mentions (ties: first seen)."""
    counts = Counter(n for n in (normal_form(m) for m in mentions) if n)
    order = {n: i for i, n in reversed(list(enumerate(normal_form(m) for m in mentions)))}
    ranked = sorted(counts, key=lambda n: (-counts[n], order[n]))
    return ranked[:max_entities]


def entity_messages(text: str) -> list[dict]:
    return [{"role": "user", "content": PROMPT.format(text=text)}]


def parse_entities(text: str | None) -> list[str]:
    """The model's list → entity mentions ([] for NONE or an empty answer)."""
    out = []
    for line in (text or "").splitlines():
        line = line.strip().lstrip("-*•").strip()
        line = re.sub(r"^\d+[.)]\s+", "", line).strip()
        if line and line.upper().rstrip(".") != "NONE":
            out.append(line)
    return out


class EntityExtractor:
    """entities(texts) -> [normal forms] per text; `extractor` offline or llm (`client`: an
    LLMClient, or None to build one from `llm_cfg` when first needed)."""

    def __init__(self, extractor: str, max_entities: int, llm_cfg: dict | None = None, client=None):
        self.extractor, self.max_entities = extractor, max_entities
        self.llm_cfg, self._client = llm_cfg, client
        self.failed = 0

    @property
    def client(self):
        if self._client is None:
            from ...llm import LLMClient

            self._client = LLMClient(self.llm_cfg, stage="rerank", where="reranker.graph.llm")
        return self._client

    def entities(self, texts: list[str], desc: str = "entities") -> list[list[str]]:
        if self.extractor == "offline":
            return [top_entities(offline_entities(t), self.max_entities) for t in texts]
        # Empty texts ask nothing: a session without user turns has no entities.
        asked = [i for i, t in enumerate(texts) if t.strip()]
        results = self.client.complete_many([entity_messages(texts[i]) for i in asked], desc=desc)
        out: list[list[str]] = [[] for _ in texts]
        for i, res in zip(asked, results):
            if res.error is not None:
                self.failed += 1
                log.warning("entity extraction failed: %s", res.error)
                continue
            out[i] = top_entities(parse_entities(res.text), self.max_entities)
        if self.failed:
            print(
                f"rerank: entity extraction failed for {self.failed} text(s) (left without "
                f"entities; retried next run)",
                file=sys.stderr,
            )
        return out
