"""What the card of one Projects change shows of its content, as pure rules: a create's size
and the knowledge budget after it, a replace's unified diff against the doc it replaces, a
delete's first lines — each cut to the card's budget by whole lines, and the cut said."""

from __future__ import annotations

import dataclasses
import difflib

from .budgets import estimate_tokens
from .plans import CARD_LIMIT

#: lines of context around each change in a replace's diff
DIFF_CONTEXT = 3
#: how many of a deleted doc's first lines its card shows
LOST_LINES = 10
#: the most characters of a diff a card shows in full (its collapsible section); past it
#: the section is cut too, and says so
WHOLE_DIFF_MAX_CHARS = 200_000


@dataclasses.dataclass(frozen=True)
class Excerpt:
    """Some whole lines of a text: `shown` of `total` lines, `cut` when some were left out."""

    text: str
    shown: int
    total: int

    @property
    def cut(self) -> bool:
        return self.shown < self.total

    @property
    def note(self) -> str:
        """The cut in words ('' when nothing was left out)."""
        if not self.cut:
            return ""
        return f"cut: {self.shown:,} of {self.total:,} lines shown"


def excerpt(text: str, limit: int, max_lines: int | None = None) -> Excerpt:
    """The first whole lines of `text` that fit `limit` characters (and `max_lines`); a first
    line longer than the limit is cut inside, and still counts as not shown whole."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    used = 0
    for line in lines:
        if max_lines is not None and len(out) >= max_lines:
            break
        if used + len(line) > limit:
            if not out:  # one long line: a part of it, marked as cut
                return Excerpt(line[:limit], 0, len(lines))
            break
        out.append(line)
        used += len(line)
    return Excerpt("".join(out), len(out), len(lines))


def unified_diff(old: str, new: str, path: str) -> str:
    """The replace as a unified diff (`--- a/PATH` / `+++ b/PATH`), lines ending in \\n."""
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 f"a/{path}", f"b/{path}", n=DIFF_CONTEXT)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)


def diff_shown(diff: str, limit: int = CARD_LIMIT) -> Excerpt:
    """The part of a diff the card shows before its collapsible section."""
    return excerpt(diff, limit)


def whole_diff(diff: str) -> Excerpt:
    """The diff the collapsible section holds: all of it up to WHOLE_DIFF_MAX_CHARS."""
    return excerpt(diff, WHOLE_DIFF_MAX_CHARS)


def lost_lines(content: str, limit: int = CARD_LIMIT) -> Excerpt:
    """The first lines of a doc a delete removes."""
    return excerpt(content, limit, LOST_LINES)


def size_line(n_bytes: int) -> str:
    return f"{n_bytes:,} bytes (~{estimate_tokens(n_bytes):,} estimated tokens)"


def budget_line(before: int, after: int, maximum: int) -> str:
    return f"{before:,} → {after:,} of {maximum:,} estimated tokens"
