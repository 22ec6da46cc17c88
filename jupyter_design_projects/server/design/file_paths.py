"""The path rules of Design projects: what a project-relative path may be, and its one
normal form (pure; no I/O)."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from ...core.display import is_reserved_segment
from ...core.letters import segment_rule
from .errors import PathRefused, TooManyTargets

#: at most this many entries (files, paths, writes, deletes) in one call
MAX_TARGETS = 256
#: longest accepted path, in characters
MAX_PATH_CHARS = 1024


def normalise(path: object, *, reserved: bool = False) -> str:
    """The normal form of `path` (`./a//` is refused, `./a/b` → `a/b`, NFC), or PathRefused.

    A reserved segment (`CLAUDE.md`, `.claude`, any depth and case: `core.display`) is
    refused unless `reserved`: reads, plans and plan-token writes take such a path (a
    person saw it on a card, spec §8), a tokenless write under a grant never does.

    Beyond printable ASCII a segment may hold letters, marks and digits of any script
    (`café.html`, `幻灯片/01.html`); the client's rule (`core/letters.py`) refuses control,
    invisible and look-alike characters (fullwidth dots and slashes, U+2215, ...) and
    confusable script mixes, here as there.
    """
    if not isinstance(path, str):
        raise PathRefused(repr(path), "not_a_string")
    if path == "":
        raise PathRefused(path, "empty")
    path = unicodedata.normalize("NFC", path)
    if len(path) > MAX_PATH_CHARS:
        raise PathRefused(path, "too_long")
    for char in path:
        code = ord(char)
        if code < 0x20 or code == 0x7F or 0x80 <= code <= 0x9F:
            raise PathRefused(path, "control_character")
    if "\\" in path:
        raise PathRefused(path, "backslash")
    if path.startswith("/"):
        raise PathRefused(path, "absolute")
    kept: list[str] = []
    for segment in path.split("/"):
        if segment == "":
            raise PathRefused(path, "empty_segment")
        if segment == "..":
            raise PathRefused(path, "traversal")
        if segment == ".":
            continue
        foreign = segment_rule(segment)
        if foreign:
            raise PathRefused(path, foreign)
        if not reserved and is_reserved_segment(segment):
            raise PathRefused(path, "reserved")
        kept.append(segment)
    if not kept:
        raise PathRefused(path, "empty")
    return "/".join(kept)


def normalise_all(paths: Iterable[object], field: str, *, reserved: bool = False) -> list[str]:
    """Normalise every path of one call: at most MAX_TARGETS, no duplicates after normalising."""
    items = list(paths)
    if len(items) > MAX_TARGETS:
        raise TooManyTargets(field, len(items), MAX_TARGETS)
    out: list[str] = []
    seen: set[str] = set()
    for item in items:
        norm = normalise(item, reserved=reserved)
        if norm in seen:
            raise PathRefused(norm, "duplicate")
        seen.add(norm)
        out.append(norm)
    return out


def is_reserved(path: str) -> bool:
    """Whether a normalised path has a reserved segment."""
    return any(is_reserved_segment(segment) for segment in path.split("/"))


def basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def is_under(path: str, directory: str) -> bool:
    """Whether normalised `path` is `directory` itself or inside it ("" is the root)."""
    return directory == "" or path == directory or path.startswith(directory + "/")
