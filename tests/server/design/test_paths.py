"""The Design path rules: one normal form, and every refusal with its rule."""

from __future__ import annotations

import pytest

from jupyter_design_projects.server.design.errors import PathRefused, TooManyTargets
from jupyter_design_projects.server.design.file_paths import (
    MAX_PATH_CHARS,
    MAX_TARGETS,
    is_under,
    normalise,
    normalise_all,
)


@pytest.mark.parametrize(("given", "normal"), [
    ("index.html", "index.html"),
    ("./a", "a"),
    ("./slides/./01-title.html", "slides/01-title.html"),
    ("slides/01-title.html", "slides/01-title.html"),
    ("claude.md.bak", "claude.md.bak"),
    ("docs/claude-notes.md", "docs/claude-notes.md"),
    (".claudeish/x", ".claudeish/x"),
    ("a" * MAX_PATH_CHARS, "a" * MAX_PATH_CHARS),
    ("caf\u00e9.html", "caf\u00e9.html"),
    ("Cafe\u0301.html", "Caf\u00e9.html"),
    ("\u5e7b\u706f\u7247/01.html", "\u5e7b\u706f\u7247/01.html"),
])
def test_accepted_paths_take_their_normal_form(given: str, normal: str) -> None:
    assert normalise(given) == normal


@pytest.mark.parametrize(("given", "rule"), [
    ("", "empty"),
    (".", "empty"),
    ("/etc/passwd", "absolute"),
    ("../x", "traversal"),
    ("a/../../x", "traversal"),
    ("a//b", "empty_segment"),
    ("a/", "empty_segment"),
    ("./", "empty_segment"),
    ("a\\b", "backslash"),
    ("a\x00b", "control_character"),
    ("a\nb", "control_character"),
    ("a\x7fb", "control_character"),
    ("a\x85b", "control_character"),
    ("a\u2215b", "not_a_letter"),
    ("\uff0e\uff0e/x", "not_a_letter"),
    ("a\u200bb", "invisible_character"),
    ("CLAUDE.md", "reserved"),
    ("claude.md", "reserved"),
    ("docs/Claude.MD", "reserved"),
    (".claude/settings.json", "reserved"),
    ("deep/er/.CLAUDE/x", "reserved"),
    ("./.claude", "reserved"),
    ("a" * (MAX_PATH_CHARS + 1), "too_long"),
])
def test_refused_paths_name_their_rule(given: str, rule: str) -> None:
    with pytest.raises(PathRefused) as refused:
        normalise(given)
    assert refused.value.rule == rule


def test_non_string_path_is_refused() -> None:
    with pytest.raises(PathRefused) as refused:
        normalise(3)
    assert refused.value.rule == "not_a_string"


def test_exactly_256_paths_are_accepted() -> None:
    assert len(normalise_all([f"p{i}" for i in range(MAX_TARGETS)], "paths")) == MAX_TARGETS


def test_257_paths_are_refused() -> None:
    with pytest.raises(TooManyTargets) as refused:
        normalise_all([f"p{i}" for i in range(MAX_TARGETS + 1)], "paths")
    assert (refused.value.field, refused.value.count) == ("paths", MAX_TARGETS + 1)


def test_paths_equal_after_normalising_are_duplicates() -> None:
    with pytest.raises(PathRefused) as refused:
        normalise_all(["a/b", "./a/b"], "writes")
    assert refused.value.rule == "duplicate"


@pytest.mark.parametrize(("path", "directory", "inside"), [
    ("a/b", "", True),
    ("a/b", "a", True),
    ("a", "a", True),
    ("ab/c", "a", False),
    ("b/a", "a", False),
])
def test_is_under_compares_whole_segments(path: str, directory: str, inside: bool) -> None:
    assert is_under(path, directory) is inside
