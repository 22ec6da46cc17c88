"""The `list` view's bookkeeping: the catalogue hash, one-sentence summaries, and the
small LRU that remembers which catalogue hash each agent was last shown."""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any

#: how many agent keys remember their last catalogue hash (spec §4)
CATALOGUE_LRU_SIZE = 64

#: a summary never runs longer than this, even when the description has no full stop
SUMMARY_LIMIT = 200

_SENTENCE_END = re.compile(r"(?<=[.!?])\s|[。！？]|\n")


def catalogue_hash(operations: Iterable[Mapping[str, Any]]) -> str:
    """A stable hash of the served operations, independent of their order."""
    ordered = sorted(operations, key=lambda op: str(op.get("name", "")))
    canonical = json.dumps(ordered, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    import hashlib  # here: the magics need only first_sentence at `%load_ext`

    return "sha256:" + hashlib.sha256(canonical.encode("ascii")).hexdigest()[:32]


def first_sentence(description: str) -> str:
    """The description's first sentence (up to its full stop), capped at SUMMARY_LIMIT."""
    text = description.strip()
    match = _SENTENCE_END.search(text)
    sentence = text[: match.end()].strip() if match else text
    if len(sentence) > SUMMARY_LIMIT:
        sentence = sentence[: SUMMARY_LIMIT - 1].rstrip() + "…"
    return sentence


class HashMemory:
    """Which catalogue hash each agent key was last shown; the oldest key is forgotten
    once more than `size` keys are remembered."""

    def __init__(self, size: int = CATALOGUE_LRU_SIZE) -> None:
        if size < 1:
            raise ValueError("size must be at least 1")
        self._size = size
        self._hashes: OrderedDict[str, str] = OrderedDict()

    def seen(self, key: str, digest: str) -> bool:
        """True when `key` was last shown exactly `digest` (and refreshes its recency)."""
        if self._hashes.get(key) != digest:
            return False
        self._hashes.move_to_end(key)
        return True

    def remember(self, key: str, digest: str) -> None:
        self._hashes[key] = digest
        self._hashes.move_to_end(key)
        while len(self._hashes) > self._size:
            self._hashes.popitem(last=False)

    def __contains__(self, key: object) -> bool:
        return key in self._hashes

    def __len__(self) -> int:
        return len(self._hashes)
