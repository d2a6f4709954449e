"""LoCoMo's own QA metric, as its released evaluation computes it (snap-research/locomo,
task_eval/evaluation.py: normalize_answer, f1_score, f1, eval_question_answering).

- normalise: delete commas, lower-case, remove `string.punctuation`, remove the words a, an,
  the and "and", collapse whitespace; then stem every token with NLTK's PorterStemmer (its
  default NLTK_EXTENSIONS mode, as the released code constructs it; no NLTK data is needed).
- token F1 over the stemmed tokens (multiset overlap) for categories 2, 3 and 4; category 3
  scores only the gold answer's part before the first ';'.
- category 1 (multi-hop): prediction and gold are split on commas (before normalising), and
  the mean over gold parts of the best F1 against any predicted part is taken.
- category 5 (adversarial): 1 when the prediction contains "no information available" or
  "not mentioned" (case-insensitive), else 0.
Gold answers that are numbers are compared as strings (the download stage stores str).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from functools import lru_cache

from nltk.stem import PorterStemmer

_STEMMER = PorterStemmer()
_PUNCT = set(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
ABSTAIN_PHRASES = ("no information available", "not mentioned")


def normalize_answer(s: str) -> str:
    s = s.replace(",", "").lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", s).split())


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _STEMMER.stem(word)


def tokens(s: str) -> list[str]:
    return [_stem(w) for w in normalize_answer(s).split()]


def f1_score(prediction: str, ground_truth: str) -> float:
    pred, gold = tokens(prediction), tokens(ground_truth)
    num_same = sum((Counter(pred) & Counter(gold)).values())
    if num_same == 0:
        return 0.0
    precision, recall = num_same / len(pred), num_same / len(gold)
    return 2 * precision * recall / (precision + recall)


def multi_answer_f1(prediction: str, ground_truth: str) -> float:
    """Category 1: mean over the gold's comma-separated parts of the best F1 of any predicted
    part against it."""
    preds = [p.strip() for p in prediction.split(",")]
    golds = [g.strip() for g in ground_truth.split(",")]
    return sum(max(f1_score(p, g) for p in preds) for g in golds) / len(golds)


def locomo_score(category: int, prediction: str | None, answer: str) -> float:
    """One question's score by the released evaluation's per-category rule."""
    output = prediction or ""
    answer = str(answer)
    if category == 3:
        answer = answer.split(";")[0].strip()
    if category in (2, 3, 4):
        return f1_score(output, answer)
    if category == 1:
        return multi_answer_f1(output, answer)
    if category == 5:
        low = output.lower()
        return 1.0 if any(p in low for p in ABSTAIN_PHRASES) else 0.0
    raise ValueError(f"LoCoMo category must be 1-5, got {category!r}")
