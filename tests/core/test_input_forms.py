"""Forms from input schemas (`core.input_forms`): every operation of the table, as the
service publishes it in tools/list, and one fake row, get a form whose fields mirror the
row's typed inputs; a filled form becomes arguments the client's validation accepts, and
each limit is checked on both sides."""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any

import pytest

from jupyter_design_projects.core import input_forms as forms
from jupyter_design_projects.core.budgets import SEARCH_N_MAX, SEARCH_N_MIN
from jupyter_design_projects.core.design_inputs import Input, ListOf, Record, Text, Whole
from jupyter_design_projects.core.design_operations import (
    BY_NAME,
    DESIGN_OPERATIONS,
    WRITE,
    Approval,
    DesignOperation,
    operation_table,
)
from jupyter_design_projects.core.project_paths import MAX_PATH_CHARS
from jupyter_design_projects.core.projects_inputs import method_schema
from jupyter_design_projects.core.validation import (
    PLAN_TOKEN_MAX_BYTES,
    STRING_MAX_BYTES,
    validate,
)
from jupyter_design_projects.errors import InvalidArguments
from jupyter_design_projects.projects.client import METHODS
from jupyter_design_projects.server.design.mcp import tools

#: a row no other code knows: a record with bounds inside a list, an enum, content
FAKE = DesignOperation(
    "stamp_pages", "Stamp pages with a mark.", WRITE, False,
    (Input("project_id", Text(max_length=4096), required=True, description="The project."),
     Input("pages", ListOf(Record("Page", (
         Input("path", Text(), required=True),
         Input("size", Record("Size", (Input("width", Whole(1, 500), required=True),))))))),
     Input("mark", Text(enum=("draft", "final")), required=True),
     Input("note", Text(body=True)),
     Input("copies", Whole(0, 3))),
    Approval.CARD)
TABLE = operation_table((*DESIGN_OPERATIONS, FAKE))


def published(table: Mapping[str, DesignOperation]) -> dict[str, dict]:
    """Each row's inputSchema exactly as the reference service serves it in tools/list."""
    ops = types.SimpleNamespace(**{name: lambda *a, **k: None for name in table})
    served = tools(table, ops)  # type: ignore[arg-type]
    return {name: tool.listing.input_schema for name, tool in served.items()}


SERVED = published(TABLE)


def form(operation: DesignOperation) -> forms.FormSpec:
    return forms.form_of(operation.name, SERVED[operation.name],
                         local_schema=operation.schema, description=operation.description)


def filled(field: forms.Field) -> Any:
    """A valid value for any field, read from the field alone."""
    if field.kind == forms.CHOICE:  # the first: finalize_plan's client refuses scope project
        return field.choices[0]
    if field.kind == forms.CHECKBOX:
        return True
    if field.kind in (forms.INTEGER, forms.NUMBER):
        return field.maximum if field.maximum is not None else (field.minimum or 1)
    if field.kind == forms.TEXT:
        return "x"
    if field.kind == forms.LIST:
        assert field.item is not None
        return [filled(field.item), filled(field.item)]
    if field.kind == forms.RECORD:
        return {f.name: filled(f) for f in field.fields}
    return "{}"


def expected_kind(kind: Any) -> str:
    if isinstance(kind, Text):
        return forms.CHOICE if kind.enum else forms.TEXT
    if isinstance(kind, Whole):
        return forms.INTEGER
    return forms.LIST if isinstance(kind, ListOf) else forms.RECORD


def assert_mirrors(inputs: tuple[Input, ...], fields: tuple[forms.Field, ...]) -> None:
    """The fields are the inputs, in order, with kind, required, choices, bounds, caps."""
    assert [f.name for f in fields] == [i.name for i in inputs]
    for item, field in zip(inputs, fields, strict=True):
        assert field.kind == expected_kind(item.type), item.name
        assert field.required == item.required
        kind = item.type
        if item.description is not None:
            assert field.help == item.description
        if isinstance(kind, Text):
            if kind.enum:
                assert field.choices == kind.enum
            else:
                assert field.max_length == kind.max_length
                cap = PLAN_TOKEN_MAX_BYTES if item.name == "plan_token" else STRING_MAX_BYTES
                assert field.client_max_bytes == (None if kind.body else cap)
                assert field.body == kind.body
        if isinstance(kind, Whole):
            assert (field.minimum, field.maximum) == (kind.minimum, kind.maximum)
        if isinstance(kind, ListOf):
            assert field.item is not None
            assert field.item.kind == expected_kind(kind.item)
            if isinstance(kind.item, Record):
                assert_mirrors(kind.item.fields, field.item.fields)
        if isinstance(kind, Record):
            assert_mirrors(kind.fields, field.fields)


@pytest.mark.parametrize("operation", list(TABLE.values()), ids=list(TABLE))
def test_every_row_gets_a_form_that_mirrors_its_inputs(operation: DesignOperation) -> None:
    spec = form(operation)
    shown = tuple(i for i in operation.inputs if not i.client_supplied)
    assert_mirrors(shown, spec.fields)
    assert spec.supplied == tuple(i.name for i in operation.inputs if i.client_supplied)
    assert spec.description == operation.description


@pytest.mark.parametrize("operation", list(TABLE.values()), ids=list(TABLE))
def test_every_filled_form_passes_the_clients_validation(operation: DesignOperation) -> None:
    spec = form(operation)
    values = {f.name: filled(f) for f in spec.fields}
    arguments = forms.arguments_of(spec, values)
    assert validate(operation.name, arguments, operation.schema) == arguments
    assert forms.arguments_of(spec, forms.values_of(spec, arguments)) == arguments


@pytest.mark.parametrize("operation", list(TABLE.values()), ids=list(TABLE))
def test_every_form_left_empty_names_its_first_required_field(
        operation: DesignOperation) -> None:
    spec = form(operation)
    required = [f for f in spec.fields if f.required]
    values = {f.name: None for f in spec.fields}
    if not required:
        assert forms.arguments_of(spec, values) == {}
        return
    with pytest.raises(InvalidArguments) as refused:
        forms.arguments_of(spec, values)
    assert (refused.value.operation, refused.value.field, refused.value.rule) == (
        operation.name, required[0].name, "is required")


def test_the_local_schema_alone_gives_the_same_fields_without_the_services_limits() -> None:
    for operation in TABLE.values():
        spec = forms.form_of(operation.name, operation.schema)
        assert [f.name for f in spec.fields] == [f.name for f in form(operation).fields]


def test_blank_forms_start_empty_and_left_empty_optionals_are_left_out() -> None:
    spec = form(FAKE)
    assert forms.blanks(spec) == {"project_id": "", "pages": [], "mark": None, "note": None,
                                  "copies": None}
    values = {**forms.blanks(spec), "project_id": "p1", "mark": "draft"}
    assert forms.arguments_of(spec, values) == {"project_id": "p1", "mark": "draft"}
    with pytest.raises(InvalidArguments) as refused:
        forms.arguments_of(spec, {**values, "project_id": ""})
    assert (refused.value.field, refused.value.rule) == ("project_id", "is required")


def fake_arguments(**changes: Any) -> dict:
    spec = form(FAKE)
    values = {"project_id": "p1", "mark": "final", "pages": [{"path": "a.html"}], **changes}
    return forms.arguments_of(spec, values)


@pytest.mark.parametrize(("width", "ok"), [(0, False), (1, True), (500, True), (501, False)])
def test_a_nested_integer_is_checked_at_both_bounds(width: int, ok: bool) -> None:
    pages = [{"path": "a.html", "size": {"width": width}}]
    if ok:
        assert fake_arguments(pages=pages)["pages"][0]["size"] == {"width": width}
        return
    with pytest.raises(InvalidArguments) as refused:
        fake_arguments(pages=pages)
    assert refused.value.field == "pages[0].size.width"


@pytest.mark.parametrize(("length", "ok"), [(4096, True), (4097, False)])
def test_the_services_longest_length_is_checked_at_its_edge(length: int, ok: bool) -> None:
    if ok:
        assert len(fake_arguments(project_id="p" * length)["project_id"]) == length
        return
    with pytest.raises(InvalidArguments) as refused:
        fake_arguments(project_id="p" * length)
    assert (refused.value.field, refused.value.rule) == (
        "project_id", "is longer than 4,096 characters")


@pytest.mark.parametrize(("n_bytes", "ok"), [(STRING_MAX_BYTES, True),
                                             (STRING_MAX_BYTES + 1, False)])
def test_the_clients_own_byte_cap_is_checked_where_the_service_sets_none(
        n_bytes: int, ok: bool) -> None:
    pages = [{"path": "é" * (n_bytes // 2) + "a" * (n_bytes % 2)}]
    if ok:
        arguments = fake_arguments(pages=pages)
        assert validate(FAKE.name, arguments, FAKE.schema) == arguments
        return
    with pytest.raises(InvalidArguments) as refused:
        fake_arguments(pages=pages)
    assert (refused.value.field, refused.value.rule) == (
        "pages[0].path", f"is longer than {STRING_MAX_BYTES:,} UTF-8 bytes")


def test_content_fields_are_exempt_from_the_clients_cap_and_say_so() -> None:
    note = next(f for f in form(FAKE).fields if f.name == "note")
    assert note.client_max_bytes is None
    assert "content: no client size cap" in note.limits
    arguments = fake_arguments(note="n" * (STRING_MAX_BYTES * 2))
    assert validate(FAKE.name, arguments, FAKE.schema, client_schema=True) == arguments


def test_the_plan_token_has_the_clients_larger_cap() -> None:
    spec = form(BY_NAME["copy_files"])
    token = next(f for f in spec.fields if f.name == "plan_token")
    assert token.client_max_bytes == PLAN_TOKEN_MAX_BYTES
    assert "at most 65,536 UTF-8 bytes (the client's limit)" in token.limits


def test_a_choice_outside_its_values_is_refused() -> None:
    with pytest.raises(InvalidArguments) as refused:
        fake_arguments(mark="maybe")
    assert refused.value.field == "mark"


def test_an_empty_list_item_is_refused_with_its_index() -> None:
    with pytest.raises(InvalidArguments) as refused:
        fake_arguments(pages=[{"path": "a.html"}, None])
    assert (refused.value.field, refused.value.rule) == ("pages[1]", "is empty")


def test_sensitive_rows_leave_the_client_supplied_token_out_of_the_form() -> None:
    spec = form(BY_NAME["add_member"])
    assert "plan_token" in SERVED["add_member"]["properties"]
    assert spec.supplied == ("plan_token",)
    assert "plan_token" not in [f.name for f in spec.fields]


SHAPES = {
    "type": "object",
    "required": ["flag"],
    "properties": {
        "flag": {"type": "boolean", "description": "On or off."},
        "ratio": {"type": "number", "minimum": 0, "maximum": 1},
        "kind": {"const": "only"},
        "anything": {"type": ["string", "integer"]},
        "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "bag": {"type": "object"},
        "loop": {"$ref": "#/$defs/Loop"},
    },
    "$defs": {"Loop": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Loop"}}}},
}


def test_other_schema_shapes_become_checkboxes_numbers_choices_or_json() -> None:
    spec = forms.form_of("shapes", SHAPES)
    kinds = {f.name: f.kind for f in spec.fields}
    assert kinds == {"flag": "checkbox", "ratio": "number", "kind": "choice",
                     "anything": "json", "either": "json", "bag": "json", "loop": "record"}
    flag = spec.fields[0]
    assert (flag.required, flag.help) == (True, "On or off.")
    arguments = forms.arguments_of(spec, {"flag": False, "ratio": 1, "kind": "only",
                                          "anything": "7", "bag": '{"a": [1]}'})
    assert arguments == {"flag": False, "ratio": 1, "kind": "only", "anything": 7,
                         "bag": {"a": [1]}}
    assert validate("shapes", arguments, SHAPES) == arguments


@pytest.mark.parametrize(("ratio", "ok"), [(-0.01, False), (0, True), (1, True), (1.5, False)])
def test_a_number_is_checked_at_both_bounds(ratio: float, ok: bool) -> None:
    spec = forms.form_of("shapes", SHAPES)
    values = {"flag": True, "ratio": ratio}
    if ok:
        assert forms.arguments_of(spec, values)["ratio"] == ratio
        return
    with pytest.raises(InvalidArguments) as refused:
        forms.arguments_of(spec, values)
    assert refused.value.field == "ratio"


def test_json_that_does_not_parse_is_refused_naming_the_field() -> None:
    spec = forms.form_of("shapes", SHAPES)
    with pytest.raises(InvalidArguments) as refused:
        forms.arguments_of(spec, {"flag": True, "bag": "{nope"})
    assert (refused.value.field, refused.value.rule) == ("bag", "is not valid JSON")


def test_a_self_referencing_schema_ends_in_a_json_field() -> None:
    loop = next(f for f in forms.form_of("shapes", SHAPES).fields if f.name == "loop")
    depth = 0
    while loop.kind == forms.RECORD:
        loop, depth = loop.fields[0], depth + 1
    assert loop.kind == forms.JSON
    assert depth <= forms.MAX_DEPTH


@pytest.mark.parametrize("schema", [None, [], {"properties": []}, {"properties": {"a": 3}},
                                    {"required": "a", "properties": {"a": {"$ref": 4}}}])
def test_a_malformed_schema_gives_a_form_never_a_crash(schema: Any) -> None:
    spec = forms.form_of("odd", schema if isinstance(schema, dict) else {})
    assert all(f.kind == forms.JSON for f in spec.fields)


def test_an_optional_record_left_blank_is_left_out_and_half_filled_is_refused() -> None:
    spec = form(BY_NAME["render_preview"])
    values = {**forms.blanks(spec), "project_id": "p1", "path": "index.html"}
    assert forms.arguments_of(spec, values) == {"project_id": "p1", "path": "index.html"}
    values["viewport"] = {"width": 800, "height": None}
    with pytest.raises(InvalidArguments) as refused:
        forms.arguments_of(spec, values)
    assert (refused.value.field, refused.value.rule) == ("viewport.height", "is required")


# ---------------------------------------------------------------- the Projects methods


def project_form(name: str) -> forms.FormSpec:
    schema = method_schema(*METHODS[name])
    return forms.form_of(f"project_{name}", schema, local_schema=schema, string_cap=None)


@pytest.mark.parametrize("name", list(METHODS))
def test_every_projects_method_gets_a_form_of_the_arguments_its_client_takes(name: str) -> None:
    allowed, required = METHODS[name]
    spec = project_form(name)
    assert {f.name for f in spec.fields} == allowed
    assert {f.name for f in spec.fields if f.required} == required
    assert all(f.client_max_bytes is None for f in spec.fields)
    values = {f.name: filled(f) for f in spec.fields}
    assert set(forms.arguments_of(spec, values)) == allowed


@pytest.mark.parametrize(("n", "ok"), [(SEARCH_N_MIN - 1, False), (SEARCH_N_MIN, True),
                                       (SEARCH_N_MAX, True), (SEARCH_N_MAX + 1, False)])
def test_project_search_n_is_bounded_as_the_client_bounds_it(n: int, ok: bool) -> None:
    spec = project_form("search")
    if ok:
        assert forms.arguments_of(spec, {"query": "q", "n": n}) == {"query": "q", "n": n}
        return
    with pytest.raises(InvalidArguments) as refused:
        forms.arguments_of(spec, {"query": "q", "n": n})
    assert refused.value.field == "n"


@pytest.mark.parametrize(("length", "ok"), [(MAX_PATH_CHARS, True), (MAX_PATH_CHARS + 1, False)])
def test_a_projects_path_is_bounded_as_the_client_bounds_it(length: int, ok: bool) -> None:
    spec = project_form("read")
    if ok:
        assert forms.arguments_of(spec, {"path": "p" * length}) == {"path": "p" * length}
        return
    with pytest.raises(InvalidArguments) as refused:
        forms.arguments_of(spec, {"path": "p" * length})
    assert refused.value.field == "path"


def test_project_write_content_is_marked_content() -> None:
    content = next(f for f in project_form("write").fields if f.name == "content")
    assert content.body
    assert content.limits == ("content: no client size cap",)
