"""Passages: a session key cut into pieces the encoder reads whole.

A dense encoder reads `max_length` tokens and silently drops the rest: all-MiniLM-L6-v2 stops at
256 word pieces (~1,000 characters), so the tail of a long session never reaches it. At
`granularity: passage` each session key is cut into token windows of `passage_tokens` tokens
(counted with the embedder's own tokenizer), consecutive windows sharing `passage_overlap`
tokens so that a sentence cut at a window edge is whole in one of them. Every passage is
embedded (content-addressed, like any key) and retrieval scores a session by its best passage
(max pooling, as for rounds).

The first passage is the whole session key: with `passage_tokens = max_length - 2` (the
default: the model adds [CLS] and [SEP]) the encoder reads exactly the first window of it, and
its text, hence its cache entry, is the session-granularity key's. So moving from `session` to
`passage` granularity embeds only the tails of long sessions, and BM25 (which has no window)
reads the whole key from this first unit. Later passages are the windows after the first.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ..config import check_int
from ..errors import ConfigError


@lru_cache(maxsize=4)
def model_tokenizer(path: str):
    """The fast tokenizer of the model at `path` (embedders.resolve_model): tokenizer.json
    through `tokenizers` when the folder has one (no torch/transformers import), else
    transformers' AutoTokenizer (hub ids)."""
    tj = Path(path) / "tokenizer.json"
    if tj.exists():
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(tj))
    else:
        from transformers import AutoTokenizer

        tok = AutoTokenizer.from_pretrained(path, use_fast=True)._tokenizer
    # Saved tokenizers may carry the model's truncation/padding (MiniLM's: 128): count it all.
    tok.no_truncation()
    tok.no_padding()
    return tok


def passage_window(tokens, overlap, max_length: int | None) -> tuple[int, int]:
    """(`embedder.passage_tokens`, `embedder.passage_overlap`), checked against each other and
    the encoder's `max_length`."""
    budget = check_int(tokens, "embedder.passage_tokens", minimum=1)
    overlap = check_int(overlap, "embedder.passage_overlap", minimum=0)
    if overlap >= budget:
        raise ConfigError(
            "embedder.passage_overlap", overlap, hint=f"must be below passage_tokens ({budget})"
        )
    if max_length is not None and budget > int(max_length) - 2:
        raise ConfigError(
            "embedder.passage_tokens",
            budget,
            hint=(
                f"must leave the 2 special tokens inside max_length ({max_length}), or the "
                f"encoder would not read a passage whole"
            ),
        )
    return budget, overlap


class PassageSplitter:
    """split(key) -> passage texts; see the module doc. `tokenizer` is anything with
    `encode(text, add_special_tokens=False)` returning an object with `.offsets` (a
    `tokenizers.Tokenizer`, e.g. model_tokenizer(the embedder's model path)); `budget` and
    `overlap` as passage_window returns them."""

    def __init__(self, budget: int, overlap: int, tokenizer):
        self.budget, self.overlap, self.tok = budget, overlap, tokenizer

    def split(self, key: str) -> list[str]:
        """[the whole key, then the windows after the first one]."""
        offsets = self.tok.encode(key, add_special_tokens=False).offsets
        out = [key]
        stride = self.budget - self.overlap
        for start in range(stride, max(len(offsets) - self.overlap, 0), stride):
            span = offsets[start : start + self.budget]
            out.append(key[span[0][0] : span[-1][1]])
        return out
