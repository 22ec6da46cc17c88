"""The client's local schema of a Design operation's typed inputs (`core.design_inputs`)."""

from jupyter_design_projects.core.design_inputs import (
    Input,
    ListOf,
    Record,
    Text,
    Whole,
    json_schema,
)

ENTRY = Record("Entry", (Input("path", Text(), required=True),
                         Input("data", Text(body=True), required=True),
                         Input("encoding", Text(enum=("base64",)))))


def test_each_input_type_has_its_json_schema_type() -> None:
    schema = json_schema((
        Input("name", Text(max_length=10), required=True),
        Input("role", Text(enum=("viewer", "editor"))),
        Input("data", Text(body=True)),
        Input("limit", Whole(1, 5)),
        Input("paths", ListOf(Text())),
        Input("files", ListOf(ENTRY), required=True),
    ))
    assert schema == {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "role": {"type": "string", "enum": ["viewer", "editor"]},
            "data": {"type": "string", "x-body": True},
            "limit": {"type": "integer"},
            "paths": {"type": "array", "items": {"type": "string"}},
            "files": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "data": {"type": "string", "x-body": True},
                    "encoding": {"type": "string", "enum": ["base64"]},
                },
                "required": ["path", "data"],
            }},
        },
        "required": ["name", "files"],
    }


def test_a_record_input_is_an_object_of_its_fields() -> None:
    schema = json_schema((Input("viewport", Record("Viewport", (
        Input("width", Whole(1, 9), required=True),)), required=True),))
    assert schema["properties"]["viewport"] == {
        "type": "object", "properties": {"width": {"type": "integer"}}, "required": ["width"]}


def test_client_supplied_inputs_are_not_in_the_local_schema() -> None:
    schema = json_schema((Input("project_id", Text(), required=True),
                          Input("plan_token", Text(), required=True, client_supplied=True)))
    assert list(schema["properties"]) == ["project_id"]
    assert schema["required"] == ["project_id"]


def test_no_inputs_is_an_empty_object() -> None:
    assert json_schema(()) == {"type": "object", "properties": {}, "required": []}
