"""BM25 over one question's haystack, with the bm25s library.

Each question gets its own index over its haystack's units (as LongMemEval's flat-bm25 does), so
IDF reflects that haystack. Tokenisation: lowercase, words of 2+ word characters (bm25s's
default pattern), optional stopword list (`bm25_stopwords`: en = Lucene's 33 words, en_plus =
bm25s's longer list, none) and optional Snowball stemming (`bm25_stemmer`: english needs the
PyStemmer package, none). Texts are tokenised once per run and reused across questions, and
the last index is reused while the haystack is the same (questions that share a conversation's
sessions index it once).
"""

from __future__ import annotations

import logging
import re
import sys
from dataclasses import dataclass

import bm25s
import numpy as np
from bm25s import stopwords as _sw

from ..errors import ConfigError

# bm25s sets its own logger to DEBUG, which prints a line per index built: keep it quiet.
logging.getLogger("bm25s").setLevel(logging.WARNING)

TOKEN = re.compile(r"(?u)\b\w\w+\b")
STOPWORDS = {"en": _sw.STOPWORDS_EN, "en_plus": _sw.STOPWORDS_EN_PLUS, "none": ()}
STEMMERS = ("none", "english")
METHODS = ("lucene", "robertson", "atire", "bm25l", "bm25+")
MEMO_TEXTS = 50_000  # tokenised texts kept for reuse (a haystack's sessions recur across questions)


@dataclass(frozen=True)
class BM25Settings:
    stopwords: str
    stemmer: str
    k1: float
    b: float
    method: str


def bm25_settings(cfg: dict | BM25Settings) -> BM25Settings:
    """The retrieval group's bm25_* keys, checked (settings pass through unchanged)."""
    if isinstance(cfg, BM25Settings):
        return cfg
    sw = str(cfg["bm25_stopwords"])
    if sw not in STOPWORDS:
        raise ConfigError("retrieval.bm25_stopwords", sw, list(STOPWORDS))
    stem = str(cfg["bm25_stemmer"])
    if stem not in STEMMERS:
        raise ConfigError("retrieval.bm25_stemmer", stem, list(STEMMERS))
    k1, b = float(cfg["bm25_k1"]), float(cfg["bm25_b"])
    method = str(cfg["bm25_method"])
    if method not in METHODS:
        raise ConfigError("retrieval.bm25_method", method, list(METHODS))
    return BM25Settings(sw, stem, k1, b, method)


class BM25Scorer:
    def __init__(self, settings: dict | BM25Settings):
        s = bm25_settings(settings)
        self.stopwords = frozenset(STOPWORDS[s.stopwords])
        self.stem = None
        if s.stemmer == "english":
            try:
                import Stemmer
            except ImportError:
                raise ConfigError(
                    "retrieval.bm25_stemmer",
                    s.stemmer,
                    hint="needs the PyStemmer package (pip install PyStemmer)",
                ) from None
            self.stem = Stemmer.Stemmer("english").stemWords
        self.k1, self.b, self.method = s.k1, s.b, s.method
        self._tokens: dict[str, list[str]] = {}
        self._last: tuple[tuple[str, ...], object] | None = None  # (docs, their index)

    def tokenize(self, text: str) -> list[str]:
        toks = self._tokens.get(text)
        if toks is None:
            toks = [t for t in TOKEN.findall(text.lower()) if t not in self.stopwords]
            if self.stem is not None:
                toks = self.stem(toks)
            # One string object per distinct token, and a bounded memo: at LongMemEval-M's
            # size (~10^5 unique session texts of ~400 tokens) an unbounded memo of token
            # lists grows to gigabytes.
            toks = [sys.intern(t) for t in toks]
            if len(self._tokens) >= MEMO_TEXTS:
                self._tokens.clear()
            self._tokens[text] = toks
        return toks

    def scores(self, query: str, docs: list[str]) -> np.ndarray:
        """BM25 score of every doc for the query (an index over exactly these docs)."""
        if not docs:
            return np.zeros(0, dtype=np.float64)
        q = self.tokenize(query)
        corpus = [self.tokenize(d) for d in docs]
        if not any(corpus):  # no unit has a token (bm25s cannot index an empty vocabulary)
            return np.zeros(len(docs), dtype=np.float64)
        key = tuple(docs)
        if self._last is not None and self._last[0] == key:
            index = self._last[1]
        else:
            index = bm25s.BM25(k1=self.k1, b=self.b, method=self.method)
            index.index(corpus, show_progress=False)
            self._last = (key, index)
        q = [t for t in q if t in index.vocab_dict]
        if not q:
            return np.zeros(len(docs), dtype=np.float64)
        return np.asarray(index.get_scores(q), dtype=np.float64)
