"""The error tree: every error has its own row in the guidance table, and its fields are
exactly what it declares, set through the one constructor."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from jupyter_design_projects import errors
from jupyter_design_projects.errors import GUIDANCE, JdpError, ScopeExpansionFailed
from jupyter_design_projects.errors.base import declared_fields

ERRORS = sorted((obj for obj in vars(errors).values()
                 if inspect.isclass(obj) and issubclass(obj, JdpError)),
                key=lambda cls: cls.__name__)


@pytest.mark.parametrize("cls", ERRORS, ids=lambda cls: cls.__name__)
def test_every_error_has_its_own_line_and_next_step(cls: type[JdpError]) -> None:
    assert cls in GUIDANCE
    assert cls.__name__ in errors.__all__


def test_the_guidance_table_has_no_stray_rows() -> None:
    assert set(GUIDANCE) == set(ERRORS)


def test_a_field_set_but_not_declared_is_refused() -> None:
    class Sloppy(JdpError):
        kind = "sloppy"
        path: str

    with pytest.raises(TypeError):
        Sloppy(path="a", status=3)
    with pytest.raises(TypeError):
        Sloppy()
    assert Sloppy(path="a").fields == {"path": "a"}


def test_a_declared_field_is_always_set() -> None:
    error = ScopeExpansionFailed("refresh_refused", "invalid_grant")
    assert declared_fields(ScopeExpansionFailed) == ("reason", "detail")
    assert (error.reason, error.detail) == ("refresh_refused", "invalid_grant")
    assert error.next_step == "%design login"


def test_no_error_bypasses_its_parents_constructor() -> None:
    folder = Path(errors.__file__).parent
    for module in folder.glob("*.py"):
        assert "Error.__init__(self" not in module.read_text(), module.name
