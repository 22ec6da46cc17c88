"""The error tree: every error has its own row in the guidance table, and its fields are
exactly what it declares, set through the one constructor."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from jupyter_design_projects import errors
from jupyter_design_projects.errors import (
    GUIDANCE,
    DownloadSizeMismatch,
    JdpError,
    ProjectsTransportFailed,
    ScopeExpansionFailed,
    TransportError,
    UnknownOperation,
    guidance,
    reasons,
)
from jupyter_design_projects.errors.base import declared_fields
from jupyter_design_projects.errors.remedy import Remedy
from jupyter_design_projects.errors.transport import REASONS

ERRORS = sorted((obj for obj in vars(errors).values()
                 if inspect.isclass(obj) and issubclass(obj, JdpError)),
                key=lambda cls: cls.__name__)


@pytest.mark.parametrize("cls", ERRORS, ids=lambda cls: cls.__name__)
def test_every_error_has_its_own_line_and_next_step(cls: type[JdpError]) -> None:
    assert cls.__name__ in GUIDANCE
    assert cls.__name__ in errors.__all__


def test_the_guidance_table_has_no_stray_rows() -> None:
    assert set(GUIDANCE) == {cls.__name__ for cls in ERRORS}


def test_class_names_in_the_tree_are_unique() -> None:
    """The table is keyed by class name, so two classes of one name would share a row."""
    assert len({cls.__name__ for cls in ERRORS}) == len(ERRORS)


def test_a_class_without_a_row_is_worded_by_its_nearest_ancestor() -> None:
    class Special(UnknownOperation):
        pass

    error = Special("frobnicate", "not_in_catalogue")
    assert error.message == UnknownOperation("frobnicate", "not_in_catalogue").message
    assert error.remedy == Remedy("list_operations")


def test_with_message_keeps_the_class_and_fields_and_only_rewords() -> None:
    error = UnknownOperation("craete_file", "not_in_catalogue")
    twin = error.with_message("Did you mean 'create_file'?")
    assert type(twin) is UnknownOperation
    assert twin.fields == error.fields == {"operation": "craete_file",
                                           "reason": "not_in_catalogue"}
    assert (twin.operation, twin.reason) == ("craete_file", "not_in_catalogue")
    assert twin.message == "Did you mean 'create_file'?"
    assert str(twin) == f"Did you mean 'create_file'? Next: {error.next_step}."
    assert twin.args == ("Did you mean 'create_file'?",)
    assert twin.next_step == error.next_step and twin.remedy == error.remedy
    assert repr(twin) == repr(error)
    assert error.message != twin.message  # the original is left as it was


def test_with_message_keeps_derived_fields() -> None:
    """A field a subclass's constructor derives (here `reason`, from `sizes`) is carried
    over as it is, not derived again from arguments it does not take."""
    error = DownloadSizeMismatch("f-1", [(3, 4), (3, 5)])
    twin = error.with_message("changed")
    assert twin.fields == error.fields
    assert twin.to_dict() == {**error.to_dict(), "message": "changed"}


def test_with_message_goes_through_the_constructor() -> None:
    """The twin is built by the root's constructor, which checks the fields: a field the
    error no longer declares is refused there, as it would be when raised."""
    error = UnknownOperation("x", "not_in_catalogue")
    error.fields = {**error.fields, "stray": 1}
    with pytest.raises(TypeError):
        error.with_message("y")


def test_reworded_is_with_message() -> None:
    error = TransportError("design list", "connect", detail="ConnectError talking to the "
                           "service")
    twin = guidance.reworded(error, "could not connect")
    assert (type(twin), twin.fields, twin.message) == (TransportError, error.fields,
                                                       "could not connect")


@pytest.mark.parametrize(("module", "imported"), [
    (guidance, ["reasons", "remedy"]), (reasons, ["remedy"])], ids=["guidance", "reasons"])
def test_the_guidance_table_imports_no_error_class(module, imported) -> None:
    """The root imports the table, so the table may not import the tree (no circle): it
    imports only its reason codes' words and the remedies, which are data."""
    import ast

    tree = ast.parse(Path(module.__file__).read_text())
    relative = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
    assert relative == imported


@pytest.mark.parametrize("reason", sorted(REASONS))
def test_a_transport_failure_carries_a_reason_code(reason: str) -> None:
    assert TransportError("design list", reason).reason == reason


def test_a_transport_failure_refuses_words_as_its_reason() -> None:
    with pytest.raises(ValueError):
        TransportError("design list", "ConnectError talking to the service")


@pytest.mark.parametrize(("reason", "connection"), [
    ("connect", True), ("timeout", False), ("network", False), ("deadline", False),
    ("http_status", False)])
def test_a_connection_failure_is_told_by_its_code(reason: str, connection: bool) -> None:
    error = TransportError("design list", reason, detail="ConnectError talking to the service")
    assert guidance.is_connection_failure(error) is connection
    failed = ProjectsTransportFailed("info", reason, "org", detail="ConnectError …")
    assert guidance.is_connection_failure(failed) is connection


def test_a_transport_failure_is_worded_by_its_detail_else_its_code() -> None:
    worded = TransportError("design list", "connect", detail="ConnectError talking to the "
                            "service")
    assert worded.message == "design list: ConnectError talking to the service"
    bare = ProjectsTransportFailed("info", "deadline", "org")
    assert bare.message == ("Projects info (org route) got no usable answer: no complete "
                            "answer within the request deadline.")
    detailed = ProjectsTransportFailed("info", "connect", "org", detail="ConnectError "
                                       "talking to the service")
    assert detailed.message == ("Projects info (org route) got no usable answer: "
                                "ConnectError talking to the service.")


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
    assert error.remedy == Remedy("login")


def test_no_error_bypasses_its_parents_constructor() -> None:
    folder = Path(errors.__file__).parent
    for module in folder.glob("*.py"):
        assert "Error.__init__(self" not in module.read_text(), module.name
