"""core.validation: every local rule refuses with InvalidArguments naming field and rule."""

from __future__ import annotations

import pytest

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.core.validation import (
    FIELDS_NAMED,
    PLAN_TOKEN_MAX_BYTES,
    STRING_MAX_BYTES,
    check_operation_name,
    suggest,
    unknown_field,
    validate,
)
from jupyter_design_projects.design.schemas import local_schema
from jupyter_design_projects.errors import InvalidArguments

WRITE = local_schema("write_files", BY_NAME)
COPY = local_schema("copy_files", BY_NAME)
DELETE = local_schema("delete_files", BY_NAME)
PLAN = local_schema("finalize_plan", BY_NAME)
LIST = local_schema("list_projects", BY_NAME)


def refused_values(operation: str) -> tuple:
    """The values the operation's row never lets the client send."""
    row = BY_NAME.get(operation)
    return row.refused_values if row is not None else ()


def refusal(operation, arguments, schema) -> InvalidArguments:
    with pytest.raises(InvalidArguments) as caught:
        validate(operation, arguments, schema, refused_values(operation))
    return caught.value


def files(*entries: dict) -> dict:
    return {"project_id": "p", "files": list(entries)}


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("a", True),
        ("a" * 64, True),
        ("list_files", True),
        ("v2.render-preview", True),
        ("", False),
        ("a" * 65, False),
        ("two words", False),
        ("caf\u00e9", False),
        ("\u0661\u0662", False),
        ("op\n", False),
        ("x/y", False),
        (None, False),
    ],
)
def test_operation_name_rule(name, valid: bool) -> None:
    if valid:
        assert check_operation_name(name) == name
    else:
        with pytest.raises(InvalidArguments) as caught:
            check_operation_name(name)
        assert caught.value.field == "operation"


def test_validate_checks_the_operation_name_first() -> None:
    assert refusal("bad name", {"nope": 1}, WRITE).field == "operation"


def test_arguments_must_be_an_object() -> None:
    assert refusal("list_projects", ["x"], LIST).field == "arguments"


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("x" * STRING_MAX_BYTES, True),
        ("x" * (STRING_MAX_BYTES + 1), False),
        ("\u00e9" * (STRING_MAX_BYTES // 2), True),
        ("\u00e9" * (STRING_MAX_BYTES // 2) + "x", False),
        ("\u20ac" * 1365 + "x", True),  # 4,096 bytes in 1,366 characters
        ("\u20ac" * 1365 + "xx", False),
    ],
)
def test_ordinary_string_cap_counts_utf8_bytes(text: str, valid: bool) -> None:
    arguments = {"project_id": text}
    if valid:
        assert validate("get_project", arguments, local_schema("get_project", BY_NAME)) == arguments
    else:
        error = refusal("get_project", arguments, local_schema("get_project", BY_NAME))
        assert (error.field, error.operation) == ("project_id", "get_project")


@pytest.mark.parametrize(("size", "valid"), [(STRING_MAX_BYTES, True),
                                             (STRING_MAX_BYTES + 1, False)])
def test_array_of_strings_items_are_capped(size: int, valid: bool) -> None:
    arguments = {"project_id": "p", "plan_token": "t", "paths": ["a.html", "x" * size]}
    if valid:
        validate("delete_files", arguments, DELETE)
    else:
        assert refusal("delete_files", arguments, DELETE).field == "paths[1]"


@pytest.mark.parametrize(("size", "valid"), [(STRING_MAX_BYTES, True),
                                             (STRING_MAX_BYTES + 1, False)])
def test_entry_fields_are_capped(size: int, valid: bool) -> None:
    arguments = files({"path": "x" * size, "data": "d"})
    if valid:
        validate("write_files", arguments, WRITE)
    else:
        assert refusal("write_files", arguments, WRITE).field == "files[0].path"


def test_body_fields_of_the_clients_own_schema_are_exempt_from_the_string_cap() -> None:
    arguments = files({"path": "index.html", "data": "x" * 1_000_000})
    assert validate("write_files", arguments, WRITE, client_schema=True) == arguments


def test_the_clients_body_mark_does_not_count_unless_the_schema_is_the_clients() -> None:
    arguments = files({"path": "index.html", "data": "x" * (STRING_MAX_BYTES + 1)})
    with pytest.raises(InvalidArguments) as caught:
        validate("write_files", arguments, WRITE)
    assert caught.value.field == "files[0].data"


#: a read-only operation the service serves beyond the client's table, its schema marking
#: a field as the client marks content (spec §3: only the client's table names a body)
SERVED_WITH_A_BODY_MARK = {"type": "object", "properties": {
    "note": {"type": "string", "x-body": True},
    "pages": {"type": "array", "items": {"type": "string", "x-body": True}}}}


@pytest.mark.parametrize(("field", "value", "shown"), [
    ("note", "n" * STRING_MAX_BYTES, None),
    ("note", "n" * (STRING_MAX_BYTES + 1), "note"),
    ("note", "n" * 5_000, "note"),
    ("pages", ["p" * STRING_MAX_BYTES], None),
    ("pages", ["p" * (STRING_MAX_BYTES + 1)], "pages[0]"),
])
def test_a_services_schema_cannot_lift_the_string_cap(field, value, shown) -> None:
    arguments = {field: value}
    if shown is None:
        assert validate("served_reader", arguments, SERVED_WITH_A_BODY_MARK) == arguments
        return
    with pytest.raises(InvalidArguments) as caught:
        validate("served_reader", arguments, SERVED_WITH_A_BODY_MARK)
    assert (caught.value.field, caught.value.rule) == (
        shown, f"is longer than {STRING_MAX_BYTES:,} UTF-8 bytes")


@pytest.mark.parametrize(("size", "valid"), [(STRING_MAX_BYTES, True),
                                             (STRING_MAX_BYTES + 1, False)])
def test_field_names_are_held_to_the_string_cap(size: int, valid: bool) -> None:
    name = "k" * (size - 2) + "é"  # two UTF-8 bytes at the end: bytes, not characters
    arguments = {"free": {name: 1}}
    if valid:
        assert validate("preview_theme", arguments, None) == arguments
        return
    caught = refusal("preview_theme", arguments, None)
    assert caught.field.startswith("free.kkk") and "field name longer than" in caught.rule


@pytest.mark.parametrize(("size", "valid"), [(PLAN_TOKEN_MAX_BYTES, True),
                                             (PLAN_TOKEN_MAX_BYTES + 1, False)])
def test_plan_token_cap(size: int, valid: bool) -> None:
    arguments = {"project_id": "p", "plan_token": "t" * size, "paths": ["a"]}
    if valid:
        validate("delete_files", arguments, DELETE)
    else:
        assert refusal("delete_files", arguments, DELETE).field == "plan_token"


@pytest.mark.parametrize(("size", "valid"), [(STRING_MAX_BYTES, True),
                                             (STRING_MAX_BYTES + 1, False)])
def test_caps_apply_without_a_schema(size: int, valid: bool) -> None:
    arguments = {"nested": {"list": ["x" * size]}}
    if valid:
        validate("preview_theme", arguments, None)
    else:
        assert refusal("preview_theme", arguments, None).field == "nested.list[0]"


@pytest.mark.parametrize(
    ("arguments", "field", "suggestion"),
    [
        ({"project_id": "p", "files": [], "Plan_Token": "t"}, "Plan_Token", "plan_token"),
        ({"project_id": "p", "files": [], "plan_tokn": "t"}, "plan_tokn", "plan_token"),
        ({"projectid": "p", "files": []}, "projectid", "project_id"),
        ({"project_id": "p", "files": [], "zzz": 1}, "zzz", None),
        ({"project_id": "p", "files": [{"Path": "a", "data": "d"}]}, "files[0].Path", "path"),
        ({"project_id": "p", "files": [{"path": "a", "data": "d", "ifmatch": "0"}]},
         "files[0].ifmatch", "if_match"),
    ],
)
def test_unknown_fields_are_refused_with_a_did_you_mean(arguments, field, suggestion) -> None:
    error = refusal("write_files", arguments, WRITE)
    assert (error.field, error.suggestion) == (field, suggestion)


def test_a_nested_unknown_field_names_the_fields_of_its_object() -> None:
    error = refusal("write_files", files({"path": "a", "content": "x"}), WRITE)
    assert error.field == "files[0].content"
    assert error.rule == ("is not a known field (files[0]'s fields: path, data, encoding, "
                          "if_match)")


def test_a_top_level_unknown_field_names_the_operations_fields() -> None:
    error = refusal("write_files", {"project_id": "p", "files": [], "zzz": 1}, WRITE)
    assert error.rule == ("is not a known field (the operation's fields: project_id, files, "
                          "plan_token)")


@pytest.mark.parametrize(("count", "named", "more"), [
    (FIELDS_NAMED, FIELDS_NAMED, ""), (FIELDS_NAMED + 1, FIELDS_NAMED, " and 1 more")])
def test_an_unknown_field_names_at_most_so_many_fields(count, named, more) -> None:
    rule = unknown_field("", [f"f{i}" for i in range(count)])
    assert rule.count(", ") == named - 1 and rule.endswith(f"f{named - 1}{more})")


def test_suggest_prefers_an_exact_case_insensitive_match() -> None:
    assert suggest("PATHS", ["path", "paths"]) == "paths"


def test_overlong_unknown_field_is_shown_cut_without_a_suggestion() -> None:
    error = refusal("write_files", files() | {"p" * 5000: 1}, WRITE)
    assert len(error.field) <= 101 and error.suggestion is None


@pytest.mark.parametrize(
    ("operation", "arguments", "field"),
    [
        ("write_files", {"project_id": "p"}, "files"),
        ("write_files", files({"path": "a"}), "files[0].data"),
        ("copy_files", {"project_id": "p", "files": [{"src": "a", "dest": "b"}]}, "plan_token"),
        ("copy_files", {"project_id": "p", "plan_token": "t", "files": [{"src": "a"}]},
         "files[0].dest"),
    ],
)
def test_required_fields(operation: str, arguments: dict, field: str) -> None:
    error = refusal(operation, arguments, local_schema(operation, BY_NAME))
    assert (error.field, error.rule) == (field, "is required")


@pytest.mark.parametrize(
    ("operation", "arguments", "field"),
    [
        ("list_projects", {"limit": "10"}, "limit"),
        ("list_projects", {"limit": True}, "limit"),
        ("list_projects", {"limit": 1.5}, "limit"),
        ("list_projects", {"cursor": 3}, "cursor"),
        ("list_projects", {"cursor": None}, "cursor"),
        ("write_files", {"project_id": "p", "files": {"path": "a"}}, "files"),
        ("write_files", {"project_id": "p", "files": ["a.html"]}, "files[0]"),
        ("write_files", files({"path": "a", "data": "d", "encoding": "hex"}), "files[0].encoding"),
        ("delete_files", {"project_id": "p", "plan_token": "t", "paths": [1]}, "paths[0]"),
        ("finalize_plan", {"project_id": "p", "scope": "everything"}, "scope"),
        ("render_preview", {"project_id": "p", "path": "a", "viewport": [1, 2]}, "viewport"),
        ("render_preview", {"project_id": "p", "path": "a", "viewport": {"width": 1}},
         "viewport.height"),
        ("render_preview", {"project_id": "p", "path": "a",
                            "viewport": {"width": 1, "height": 2, "dpr": 2}}, "viewport.dpr"),
    ],
)
def test_declared_types_and_enums(operation: str, arguments: dict, field: str) -> None:
    assert refusal(operation, arguments, local_schema(operation, BY_NAME)).field == field


def test_finalize_plan_with_project_scope_is_refused() -> None:
    error = refusal("finalize_plan", {"project_id": "p", "scope": "project"}, PLAN)
    assert (error.field, error.rule) == ("scope", "scope project is not allowed")


def test_finalize_plan_with_paths_scope_is_accepted() -> None:
    arguments = {"project_id": "p", "writes": ["index.html"], "scope": "paths"}
    assert validate("finalize_plan", arguments, PLAN, refused_values("finalize_plan")) == (
        arguments)


def test_a_refused_value_is_the_rows_not_the_operations_name() -> None:
    """Any row may declare a value the client never sends; without it the value passes."""
    refused = (("mode", "everything", "listed"),)
    error = refusal_with("sweep", {"mode": "everything"}, refused)
    assert (error.operation, error.field, error.suggestion) == ("sweep", "mode", "listed")
    assert validate("sweep", {"mode": "listed"}, None, refused) == {"mode": "listed"}
    assert validate("sweep", {"mode": "everything"}, None) == {"mode": "everything"}


def refusal_with(operation, arguments, refused) -> InvalidArguments:
    with pytest.raises(InvalidArguments) as caught:
        validate(operation, arguments, None, refused)
    return caught.value


def test_valid_arguments_come_back_as_a_new_dict() -> None:
    arguments = files({"path": "a.html", "data": "<p>", "encoding": "base64", "if_match": "0"})
    result = validate("write_files", arguments, WRITE)
    assert result == arguments and result is not arguments


def test_server_schema_without_properties_checks_caps_only() -> None:
    arguments = {"anything": "goes"}
    assert validate("preview_theme", arguments, {"type": "object"}) == arguments


def fields_of(error: InvalidArguments) -> tuple:
    return (error.operation, error.field, error.rule, error.suggestion)


@pytest.mark.parametrize(("name", "shown", "rule"), [
    (None, "(invalid)", "must be a string"),
    ("", "", "must be 1-64 characters"),
    ("a" * 65, "a" * 65, "must be 1-64 characters"),
    ("x/y", "x/y", "may contain only ASCII letters, digits, '_', '.' and '-'"),
])
def test_an_operation_name_refusal_names_the_name_and_the_rule(name, shown, rule) -> None:
    with pytest.raises(InvalidArguments) as caught:
        check_operation_name(name)
    assert fields_of(caught.value) == (shown, "operation", rule, None)


@pytest.mark.parametrize(("operation", "arguments", "schema", "expected"), [
    ("list_projects", ["x"], LIST, ("list_projects", "arguments", "must be an object", None)),
    ("finalize_plan", {"project_id": "p", "scope": "project"}, PLAN,
     ("finalize_plan", "scope", "scope project is not allowed", "paths")),
    ("op", {1: "x"}, None, ("op", "?", "field names must be strings", None)),
    ("op", {"a": {2: "x"}}, None, ("op", "a.?", "field names must be strings", None)),
    ("list_projects", {"limit": "10"}, LIST, ("list_projects", "limit", "must be an integer",
                                              None)),
    ("op", {"a": 1}, {"properties": {"a": {"type": ["string", "null"]}}},
     ("op", "a", "must be of type string or null", None)),
    ("op", {"a": 1}, {"properties": {"a": {"type": ["decimal"]}}},
     ("op", "a", "must be of type decimal", None)),
    ("op", {"a": 1}, {"properties": {"a": {"type": "decimal"}}},
     ("op", "a", "must be of type decimal", None)),
    ("finalize_plan", {"project_id": "p", "scope": "all"}, PLAN,
     ("finalize_plan", "scope", "must be one of 'paths', 'project'", None)),
    ("op", {"a": "x" * (STRING_MAX_BYTES + 1)}, None,
     ("op", "a", "is longer than 4,096 UTF-8 bytes", None)),
    ("op", {"a": {"plan_token": "x" * (STRING_MAX_BYTES + 1)}}, None,
     ("op", "a.plan_token", "is longer than 4,096 UTF-8 bytes", None)),
])
def test_each_refusal_names_operation_field_rule_and_suggestion(
        operation, arguments, schema, expected) -> None:
    assert fields_of(refusal(operation, arguments, schema)) == expected


def test_a_typed_value_of_one_of_its_types_passes() -> None:
    schema = {"properties": {"a": {"type": ["string", "null"]}}}
    assert validate("op", {"a": None}, schema) == {"a": None}


def test_a_field_name_of_exactly_the_shown_length_is_shown_whole_and_suggested() -> None:
    name = "x" * 99 + "Y"
    assert suggest(name, ["x" * 99 + "y"]) == "x" * 99 + "y"
    error = refusal("op", {name: 1}, {"properties": {"x" * 99 + "y": {}}})
    assert (error.field, error.suggestion) == (name, "x" * 99 + "y")


def test_an_unknown_field_of_an_object_without_fields_says_none() -> None:
    assert unknown_field("", []) == "is not a known field (the operation's fields: none)"
    assert unknown_field("boX.", ["a"]) == "is not a known field (boX's fields: a)"
