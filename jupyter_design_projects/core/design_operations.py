"""The eighteen Design operations of PROTOCOL §3, declared once: each one's name, the
description the reference service advertises, its input schema (required fields first),
its write-risk class and whether repeating it is harmless.

Pure data, imported by both sides: the reference service registers its MCP tools from
this table (`server/design/mcp.py`), and the client's known-operation floor reads it
(`design/schemas.py`). The service's `readOnlyHint`/`destructiveHint` start from `floor`,
but what it advertises is still data on the wire: the fault routes can replace a
`tools/list` answer, which is how the tests of lying hints make the two disagree.
Content fields exempt from the client's 4,096-byte string cap carry `"x-body": true`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .hints import ClientFloor


@dataclasses.dataclass(frozen=True)
class DesignOperation:
    name: str
    #: what the service's tools/list says the operation does
    description: str
    #: the client's floor, and the readOnlyHint/destructiveHint the service advertises
    floor: ClientFloor
    #: the service's idempotentHint
    idempotent: bool
    #: the inputs as a JSON schema, required fields first (treat as read-only)
    schema: dict[str, Any]


def _string(**extra: Any) -> dict[str, Any]:
    return {"type": "string", **extra}


def _integer() -> dict[str, Any]:
    return {"type": "integer"}


def _paths() -> dict[str, Any]:
    return {"type": "array", "items": _string()}


def _entries(required: list[str], **properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array",
            "items": {"type": "object", "properties": properties, "required": required}}


def _schema(required: list[str], **properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


READ = ClientFloor(read_only=True, destructive=False)
WRITE = ClientFloor(read_only=False, destructive=False)
DESTROY = ClientFloor(read_only=False, destructive=True)

#: membership and sharing take a plan_token the PROTOCOL §3 table does not list: optional in
#: the service's schema (so a call without one is a plan refusal, not a schema error)
SENSITIVE_PLAN_TOKEN = ("plan_token (not in the published input table): a finalize_plan token "
                        "for this project, with any path sets; the call is refused without "
                        "one.")

#: the catalogue, in PROTOCOL §3's order
DESIGN_OPERATIONS: tuple[DesignOperation, ...] = (
    DesignOperation(
        "get_claude_design_prompt", "The working prompt for Claude Design, in markdown.",
        READ, True, _schema([], design_system_id=_string(), project_id=_string())),
    DesignOperation(
        "list_design_systems", "List the design systems; one is the default.",
        READ, True, _schema([])),
    DesignOperation(
        "list_projects", "List Design projects, a page at a time (cursor = last id).",
        READ, True, _schema([], limit=_integer(), cursor=_string())),
    DesignOperation(
        "get_project", "A project's name, type, URL, sharing and whether you can edit it.",
        READ, True, _schema(["project_id"], project_id=_string())),
    DesignOperation(
        "create_project", "Create an empty Design project.",
        WRITE, False, _schema(["name"], name=_string(), design_system_id=_string())),
    DesignOperation(
        "list_files", "List a project's files and directories with sizes and etags.",
        READ, True, _schema(["project_id"], project_id=_string(), path=_string(),
                            depth=_integer())),
    DesignOperation(
        "read_file", "Read a file (at most 256 KiB per call) as untrusted content.",
        READ, True, _schema(["project_id", "path"], project_id=_string(), path=_string(),
                            offset=_integer(), limit=_integer())),
    DesignOperation(
        "finalize_plan", "Register the exact paths you will write and delete; returns a plan "
        "token valid for 15 minutes.",
        WRITE, False, _schema(["project_id"], project_id=_string(), writes=_paths(),
                              deletes=_paths(), scope=_string(enum=["paths", "project"]))),
    DesignOperation(
        "write_files", "Write files all-or-nothing; if_match guards against lost updates.",
        DESTROY, False, _schema(
            ["project_id", "files"], project_id=_string(),
            files=_entries(["path", "data"], path=_string(), data=_string(**{"x-body": True}),
                           encoding=_string(enum=["base64"]), if_match=_string()),
            plan_token=_string())),
    DesignOperation(
        "create_support_js", "Create the project's support.js helper script.",
        WRITE, True, _schema(["project_id"], project_id=_string(), path=_string(),
                             plan_token=_string())),
    DesignOperation(
        "copy_files", "Copy files, possibly from another project; needs a plan token.",
        DESTROY, False, _schema(
            ["project_id", "files", "plan_token"], project_id=_string(),
            files=_entries(["src", "dest"], src=_string(), dest=_string(),
                           src_project_id=_string()),
            plan_token=_string())),
    DesignOperation(
        "delete_files", "Delete files; needs a plan token.",
        DESTROY, False, _schema(["project_id", "plan_token", "paths"], project_id=_string(),
                                plan_token=_string(), paths=_paths())),
    DesignOperation(
        "render_preview", "Render a page: its text, failed requests and a PNG picture.",
        READ, True, _schema(
            ["project_id", "path"], project_id=_string(), path=_string(),
            viewport=_schema(["width", "height"], width=_integer(), height=_integer()))),
    DesignOperation(
        "list_members", "List the project's members and their roles.",
        READ, True, _schema(["project_id"], project_id=_string())),
    DesignOperation(
        "add_member", "Add a member by email with a role. Needs " + SENSITIVE_PLAN_TOKEN,
        DESTROY, False, _schema(["project_id", "role", "email"], project_id=_string(),
                                role=_string(), email=_string())),
    DesignOperation(
        "update_member_role", "Change a member's role. Needs " + SENSITIVE_PLAN_TOKEN,
        DESTROY, True, _schema(["project_id", "account_uuid", "role"], project_id=_string(),
                               account_uuid=_string(), role=_string())),
    DesignOperation(
        "remove_member", "Remove a member. Needs " + SENSITIVE_PLAN_TOKEN,
        DESTROY, True, _schema(["project_id", "account_uuid"], project_id=_string(),
                               account_uuid=_string())),
    DesignOperation(
        "update_sharing", "Change who can open the project (scope, link_permission). Needs "
        + SENSITIVE_PLAN_TOKEN,
        DESTROY, True, _schema(["project_id"], project_id=_string(), scope=_string(),
                               link_permission=_string())),
)

BY_NAME: dict[str, DesignOperation] = {op.name: op for op in DESIGN_OPERATIONS}
