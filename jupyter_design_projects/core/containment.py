"""Lexical containment of one path in another, decided with `commonpath` (never a string
prefix: `/a/bc` is not inside `/a/b`) and without touching the file system."""

from __future__ import annotations

import posixpath


def lexical_resolve(base: str, path: str) -> str:
    """`path` joined to the absolute `base` and normalised (`.`, `..`, `//`), no I/O."""
    return posixpath.normpath(posixpath.join(base, path))


def is_within(root: str, candidate: str) -> bool:
    """True when `candidate` is `root` or below it; both must be absolute."""
    if not (posixpath.isabs(root) and posixpath.isabs(candidate)):
        return False
    root = posixpath.normpath(root)
    candidate = posixpath.normpath(candidate)
    return posixpath.commonpath([root, candidate]) == root
