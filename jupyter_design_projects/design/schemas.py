"""What this client release knows about the Design operations: each one's write-risk
floor and its local input schema (PROTOCOL §3, required fields first).

The live catalogue comes from the server; these tables are the client's half of the
double control: a write operation can be called only with a schema from this file, and
its floor can never be lowered by server annotations (`core.hints.merge`). Content fields
exempt from the 4,096-byte string cap carry `"x-body": true`.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from ..core.hints import ClientFloor


def _string(**extra: Any) -> dict:
    return {"type": "string", **extra}


def _integer() -> dict:
    return {"type": "integer"}


def _paths() -> dict:
    return {"type": "array", "items": _string()}


def _entries(required: list[str], **properties: dict) -> dict:
    return {
        "type": "array",
        "items": {"type": "object", "properties": properties, "required": required},
    }


def _schema(required: list[str], **properties: dict) -> dict:
    return {"type": "object", "properties": properties, "required": required}


@dataclasses.dataclass(frozen=True)
class KnownOperation:
    name: str
    floor: ClientFloor
    schema: dict


_READ = ClientFloor(read_only=True, destructive=False)
_WRITE = ClientFloor(read_only=False, destructive=False)
_DESTROY = ClientFloor(read_only=False, destructive=True)

_OPERATIONS = (
    KnownOperation("get_claude_design_prompt", _READ, _schema(
        [], design_system_id=_string(), project_id=_string())),
    KnownOperation("list_design_systems", _READ, _schema([])),
    KnownOperation("list_projects", _READ, _schema([], limit=_integer(), cursor=_string())),
    KnownOperation("get_project", _READ, _schema(["project_id"], project_id=_string())),
    KnownOperation("create_project", _WRITE, _schema(
        ["name"], name=_string(), design_system_id=_string())),
    KnownOperation("list_files", _READ, _schema(
        ["project_id"], project_id=_string(), path=_string(), depth=_integer())),
    KnownOperation("read_file", _READ, _schema(
        ["project_id", "path"], project_id=_string(), path=_string(), offset=_integer(),
        limit=_integer())),
    KnownOperation("finalize_plan", _WRITE, _schema(
        ["project_id"], project_id=_string(), writes=_paths(), deletes=_paths(),
        scope=_string(enum=["paths", "project"]))),
    KnownOperation("write_files", _DESTROY, _schema(
        ["project_id", "files"], project_id=_string(),
        files=_entries(["path", "data"], path=_string(), data=_string(**{"x-body": True}),
                       encoding=_string(enum=["base64"]), if_match=_string()),
        plan_token=_string())),
    KnownOperation("create_support_js", _WRITE, _schema(
        ["project_id"], project_id=_string(), path=_string(), plan_token=_string())),
    KnownOperation("copy_files", _DESTROY, _schema(
        ["project_id", "files", "plan_token"], project_id=_string(),
        files=_entries(["src", "dest"], src=_string(), dest=_string(),
                       src_project_id=_string()),
        plan_token=_string())),
    KnownOperation("delete_files", _DESTROY, _schema(
        ["project_id", "plan_token", "paths"], project_id=_string(), plan_token=_string(),
        paths=_paths())),
    KnownOperation("render_preview", _READ, _schema(
        ["project_id", "path"], project_id=_string(), path=_string(),
        viewport=_schema(["width", "height"], width=_integer(), height=_integer()))),
    KnownOperation("list_members", _READ, _schema(["project_id"], project_id=_string())),
    KnownOperation("add_member", _DESTROY, _schema(
        ["project_id", "role", "email"], project_id=_string(), role=_string(),
        email=_string())),
    KnownOperation("update_member_role", _DESTROY, _schema(
        ["project_id", "account_uuid", "role"], project_id=_string(),
        account_uuid=_string(), role=_string())),
    KnownOperation("remove_member", _DESTROY, _schema(
        ["project_id", "account_uuid"], project_id=_string(), account_uuid=_string())),
    KnownOperation("update_sharing", _DESTROY, _schema(
        ["project_id"], project_id=_string(), scope=_string(), link_permission=_string())),
)

KNOWN_OPERATIONS: dict[str, KnownOperation] = {op.name: op for op in _OPERATIONS}

#: local input schemas of the write-tier operations: without one, a write is refused
WRITE_OP_SCHEMAS: dict[str, dict] = {
    op.name: op.schema for op in _OPERATIONS if not op.floor.read_only
}

#: local input schemas of the read-only operations (validation before discovery)
READ_OP_SCHEMAS: dict[str, dict] = {op.name: op.schema for op in _OPERATIONS if op.floor.read_only}


def floor(name: str) -> ClientFloor | None:
    """The client's floor for `name`, or None for an operation this release does not know."""
    known = KNOWN_OPERATIONS.get(name)
    return known.floor if known else None


def local_schema(name: str) -> dict | None:
    """A private copy of the local input schema of `name`, or None."""
    known = KNOWN_OPERATIONS.get(name)
    return copy.deepcopy(known.schema) if known else None


def public_schema(schema: dict) -> dict:
    """The schema as shown to the model: the client's private `x-` markers removed."""
    if not isinstance(schema, dict):
        return schema
    out: dict = {}
    for key, value in schema.items():
        if isinstance(key, str) and key.startswith("x-"):
            continue
        if isinstance(value, dict):
            value = public_schema(value)
        out[key] = value
    return out
