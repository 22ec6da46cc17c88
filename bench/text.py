"""Deterministic English-like text for the figures: words drawn with Zipf-like weights from
a fixed vocabulary, in sentences and paragraphs, so FTS5 sees a realistic mix of common
and rare terms."""

from __future__ import annotations

import random
from itertools import accumulate

LETTERS = "etaoinshrdlcumwfgypbvkjxqz"
VOCABULARY_SIZE = 5000


def vocabulary(seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    words: dict[str, None] = {}
    while len(words) < VOCABULARY_SIZE:
        n = rng.choice((2, 3, 4, 5, 5, 6, 6, 7, 8, 9, 10, 12))
        words["".join(rng.choices(LETTERS[:20] if n < 6 else LETTERS, k=n))] = None
    return list(words)


class Writer:
    def __init__(self, seed: int = 11) -> None:
        self.rng = random.Random(seed)
        self.words = vocabulary()
        self.weights = list(accumulate(1.0 / (rank + 1) for rank in range(len(self.words))))

    def words_of(self, n: int) -> list[str]:
        return self.rng.choices(self.words, cum_weights=self.weights, k=n)

    def text(self, n_chars: int) -> str:
        """About `n_chars` ASCII characters (exactly that many: padded or cut)."""
        parts: list[str] = []
        total = 0
        while total < n_chars:
            sentences = [" ".join(self.words_of(self.rng.randint(6, 18))).capitalize() + "."
                         for _ in range(self.rng.randint(2, 6))]
            paragraph = " ".join(sentences) + "\n\n"
            parts.append(paragraph)
            total += len(paragraph)
        return "".join(parts)[:n_chars]

    def query(self) -> str:
        """One to three words, drawn uniformly: common and rare terms alike."""
        return " ".join(self.rng.sample(self.words, self.rng.randint(1, 3)))
