"""Scope arithmetic: what an expansion asks for and what is missing, as tables."""

import pytest

from jupyter_design_projects.core.scopes import (
    BASE_SCOPES,
    DESIGN_SCOPES,
    LOGIN_SCOPES,
    PROJECT_SCOPES,
    expansion_scopes,
    format_scope,
    missing_project_scopes,
    parse_scope,
)

BASE = list(BASE_SCOPES)
PROJ = list(PROJECT_SCOPES)


@pytest.mark.parametrize(
    ("existing", "expected"),
    [
        ([], BASE + PROJ),
        (BASE, BASE + PROJ),
        (["user:inference"], BASE + PROJ),
        (BASE + ["user:design:read", "user:design:write"], BASE + list(DESIGN_SCOPES) + PROJ),
        (["user:design:write", "org:admin"], BASE + ["user:design:write"] + PROJ),
        (BASE + ["user:projects:read"], BASE + PROJ),
        (["user:projects:write", "user:projects:read"], BASE + ["user:projects:write",
                                                                 "user:projects:read"]),
    ],
)
def test_expansion_keeps_base_and_preservable_scopes_and_adds_project_scopes(existing, expected):
    assert list(expansion_scopes(existing)) == expected


@pytest.mark.parametrize(
    ("scopes", "missing"),
    [
        ([], PROJ),
        (BASE, PROJ),
        (["user:projects:read"], ["user:projects:write"]),
        (["user:projects:write"], ["user:projects:read"]),
        (PROJ, []),
        (LOGIN_SCOPES, []),
    ],
)
def test_missing_project_scopes_lists_what_is_absent(scopes, missing):
    assert list(missing_project_scopes(scopes)) == missing


@pytest.mark.parametrize(
    ("text", "scopes"),
    [
        ("", ()),
        ("a b", ("a", "b")),
        ("  a\tb  a ", ("a", "b")),
    ],
)
def test_parse_scope_splits_on_whitespace_without_duplicates(text, scopes):
    assert parse_scope(text) == scopes


def test_format_scope_is_space_separated_without_duplicates():
    assert format_scope(["a", "b", "a"]) == "a b"


def test_login_asks_for_base_design_and_project_scopes():
    assert set(LOGIN_SCOPES) == set(BASE_SCOPES) | set(DESIGN_SCOPES) | set(PROJECT_SCOPES)
