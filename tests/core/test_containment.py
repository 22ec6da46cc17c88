"""Lexical containment with commonpath, never a string prefix."""

from __future__ import annotations

import pytest

from jupyter_design_projects.core.containment import (
    is_within,
    lexical_resolve,
)


@pytest.mark.parametrize(
    ("base", "path", "expected"),
    [
        ("/work", "a.txt", "/work/a.txt"),
        ("/work", "./a/../b.txt", "/work/b.txt"),
        ("/work", "../etc/passwd", "/etc/passwd"),
        ("/work", "/etc/passwd", "/etc/passwd"),
        ("/work", "a//b", "/work/a/b"),
    ],
)
def test_lexical_resolve(base: str, path: str, expected: str) -> None:
    assert lexical_resolve(base, path) == expected


@pytest.mark.parametrize(
    ("root", "candidate", "inside"),
    [
        ("/a/b", "/a/b/c", True),
        ("/a/b", "/a/b", True),
        ("/a/b", "/a/bc", False),  # the commonprefix mistake
        ("/a/b", "/a", False),
        ("/a/b", "/a/b/../c", False),
        ("/a/b", "//a/b/c", True),  # Linux reads a leading // as /
        ("/work", "//etc/passwd", False),
        ("/", "/anything", True),
        ("/a/b", "a/b/c", False),
        ("a/b", "/a/b/c", False),
    ],
)
def test_is_within(root: str, candidate: str, inside: bool) -> None:
    assert is_within(root, candidate) is inside
