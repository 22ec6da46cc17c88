"""design.schemas: the client's floor and local schemas match PROTOCOL §3 exactly."""

from __future__ import annotations

import pytest

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.design import schemas

# name: (required, optional, read_only, destructive) — PROTOCOL §3, required first
PROTOCOL = {
    "get_claude_design_prompt": ([], ["design_system_id", "project_id"], True, False),
    "list_design_systems": ([], [], True, False),
    "list_projects": ([], ["limit", "cursor"], True, False),
    "get_project": (["project_id"], [], True, False),
    "create_project": (["name"], ["design_system_id"], False, False),
    "list_files": (["project_id"], ["path", "depth"], True, False),
    "read_file": (["project_id", "path"], ["offset", "limit"], True, False),
    "finalize_plan": (["project_id"], ["writes", "deletes", "scope"], False, False),
    "write_files": (["project_id", "files"], ["plan_token"], False, True),
    "create_support_js": (["project_id"], ["path", "plan_token"], False, False),
    "copy_files": (["project_id", "files", "plan_token"], [], False, True),
    "delete_files": (["project_id", "plan_token", "paths"], [], False, True),
    "render_preview": (["project_id", "path"], ["viewport"], True, False),
    "list_members": (["project_id"], [], True, False),
    "add_member": (["project_id", "role", "email"], [], False, True),
    "update_member_role": (["project_id", "account_uuid", "role"], [], False, True),
    "remove_member": (["project_id", "account_uuid"], [], False, True),
    "update_sharing": (["project_id"], ["scope", "link_permission"], False, True),
}


def test_the_client_knows_every_operation_of_the_protocol() -> None:
    """Every PROTOCOL §3 operation has a row (a later row may add one the table there does
    not list yet: each is checked against its own row, not a count)."""
    assert set(PROTOCOL) <= set(BY_NAME)


@pytest.mark.parametrize("name", sorted(PROTOCOL))
def test_floor_matches_the_protocol(name: str) -> None:
    _, _, read_only, destructive = PROTOCOL[name]
    floor = schemas.floor(name, BY_NAME)
    assert (floor.read_only, floor.destructive) == (read_only, destructive)


@pytest.mark.parametrize("name", sorted(PROTOCOL))
def test_schema_has_exactly_the_protocol_fields_required_first(name: str) -> None:
    required, optional, _, _ = PROTOCOL[name]
    schema = schemas.local_schema(name, BY_NAME)
    assert list(schema["properties"]) == required + optional
    assert schema["required"] == required


def test_every_write_tier_operation_has_a_write_schema() -> None:
    writes = {name for name, spec in PROTOCOL.items() if not spec[2]}
    read_only = {name for name in PROTOCOL if schemas.floor(name, BY_NAME).read_only}
    assert read_only == set(PROTOCOL) - writes
    assert all(schemas.local_schema(name, BY_NAME) for name in writes)


@pytest.mark.parametrize(
    ("name", "field", "entry_fields", "entry_required"),
    [
        ("write_files", "files", ["path", "data", "encoding", "if_match"], ["path", "data"]),
        ("copy_files", "files", ["src", "dest", "src_project_id"], ["src", "dest"]),
    ],
)
def test_entry_schemas(name: str, field: str, entry_fields: list, entry_required: list) -> None:
    items = schemas.local_schema(name, BY_NAME)["properties"][field]["items"]
    assert list(items["properties"]) == entry_fields
    assert items["required"] == entry_required


def _body_fields(schema: dict, prefix: str = "") -> list[str]:
    found = []
    for name, spec in schema.get("properties", {}).items():
        if spec.get("x-body"):
            found.append(prefix + name)
        if isinstance(spec.get("items"), dict):
            found += _body_fields(spec["items"], f"{prefix}{name}[].")
    return found


def test_only_file_content_is_a_body_field() -> None:
    bodies = {name: _body_fields(schemas.local_schema(name, BY_NAME)) for name in PROTOCOL}
    assert {name: b for name, b in bodies.items() if b} == {"write_files": ["files[].data"]}


def test_finalize_plan_scope_enum_keeps_project_for_validation_to_refuse() -> None:
    scope = schemas.local_schema("finalize_plan", BY_NAME)["properties"]["scope"]
    assert scope["enum"] == ["paths", "project"]


@pytest.mark.parametrize("name", ["preview_theme", "", "list"])
def test_unknown_operation_has_no_floor_or_schema(name: str) -> None:
    assert schemas.floor(name, BY_NAME) is None and schemas.local_schema(name, BY_NAME) is None


def test_local_schema_is_a_private_copy() -> None:
    schemas.local_schema("write_files", BY_NAME)["properties"].clear()
    assert schemas.local_schema("write_files", BY_NAME)["properties"]


def test_public_schema_drops_the_private_markers() -> None:
    public = schemas.public_schema(schemas.local_schema("write_files", BY_NAME))
    assert _body_fields(public) == []
    assert public["properties"]["files"]["items"]["properties"]["data"] == {"type": "string"}
