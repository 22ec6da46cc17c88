"""The Design operations of PROTOCOL §3, declared once: each one's name, the description
the reference service advertises, its write-risk floor, how a call of it is approved,
which paths a call touches, the heading and lines of its approval card, what the write
journal records of it, the line that sums up its answer, the argument values the client
never sends, whether repeating it is harmless, and its typed inputs.

Pure data, imported by both sides, and everything either side knows about an operation:
the reference service registers its MCP tools from this table (`server/design/mcp.py`,
one generic registration from the typed inputs of `core.design_inputs`; its gate reads
`grantable`), and the client reads it for its known-operation floor and local schemas
(`design/schemas.py`), validation (`refused_values`), the permission decision
(`core/permissions.py`), the card (`core/cards.py`), how an approved card continues
(`design/client.py`), the journal (`design/write_journal.py`) and the answer's summary
(`notebook/views.py`). No module switches on an operation's name: the readers a row names
live in `core.design_effects`. Adding an operation is one row here and one method of the
service's `server/design/operations.DesignOperations`.

The table is injectable and required where it is used: both sides take a
`Mapping[str, DesignOperation]` (`BY_NAME`, given once where a client or service is built,
with no default anywhere below), and everything below them reads the table they hold, so
a test can serve and call one more operation with no other edit.

The service's `readOnlyHint`/`destructiveHint` start from `floor`, but what it advertises
is still data on the wire: the fault routes can replace a `tools/list` answer, which is
how the tests of lying hints make the two disagree. Content fields exempt from the
client's 4,096-byte string cap carry `"x-body": true` in the client's schema.
"""

from __future__ import annotations

import dataclasses
import enum
import types
from collections.abc import Iterable, Mapping
from typing import Any

from .design_effects import (
    ChangesOf,
    LinesOf,
    SummaryOf,
    TargetsOf,
    copy_lines,
    created_project,
    deleted_files,
    deleted_list,
    deletes_of_list,
    moved_entries,
    plan_made,
    planned,
    preview_made,
    writes_of_entries,
    writes_of_path,
    written_entries,
    written_path,
    wrote_files,
)
from .design_inputs import Input, InputType, ListOf, Record, Text, Whole, json_schema
from .hints import ClientFloor
from .plans import PLAN_TTL_MS, Targets

# ---------------------------------------------------------------- approval and targets


class Approval(enum.Enum):
    """How a call of an operation is approved: its write-risk class (spec §6–8)."""

    #: read-only: consent is enough
    READ = "read"
    #: finalize_plan: a plan card every time, for exactly its paths
    PLAN = "plan"
    #: a plan token covering its targets, or a durable project grant (tokenless writes)
    GRANTABLE = "grantable"
    #: a plan token covering its targets, or a card for this batch (deletes, copies)
    PLAN_TOKEN = "plan_token"
    #: membership and sharing: a card every time; the service wants a single-use plan token
    SENSITIVE = "sensitive"
    #: any other write (create_project): a card
    CARD = "card"

    @property
    def per_batch_plan(self) -> bool:
        """Approving its card finalizes a plan for exactly the call's targets."""
        return self in (Approval.GRANTABLE, Approval.PLAN_TOKEN)


# ---------------------------------------------------------------- the row


@dataclasses.dataclass(frozen=True)
class DesignOperation:
    name: str
    #: what the service's tools/list says the operation does
    description: str
    #: the client's floor, and the readOnlyHint/destructiveHint the service advertises
    floor: ClientFloor
    #: the service's idempotentHint
    idempotent: bool
    #: the typed inputs, required first: the service's schema, and (less the
    #: client-supplied ones) the client's local schema
    inputs: tuple[Input, ...] = ()
    #: how a call is approved (read-only operations: READ)
    approval: Approval = Approval.READ
    #: which paths a call writes and deletes (None: it touches no paths)
    targets: TargetsOf | None = None
    #: the question its approval card asks (None: "Run <name> on the Design project?")
    heading: str | None = None
    #: the card's lines about the call's arguments (None: one "key: value" line per
    #: argument that is not a path); a function answering None when one is not display-safe
    card_lines: LinesOf | None = None
    #: what the write journal records of a call, path by path (None: one line of what
    #: the call sets); read-only operations and plans are not journaled
    changes: ChangesOf | None = None
    #: the one line a person reads for its answer (None: the answer as it is)
    summary: SummaryOf | None = None
    #: argument values the client never sends: (field, value, what to use instead)
    refused_values: tuple[tuple[str, Any, str], ...] = ()
    #: the client's local input schema (derived from `inputs`; treat as read-only)
    schema: dict[str, Any] = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if (self.approval is Approval.READ) != self.floor.read_only:
            raise ValueError(f"{self.name}: a read-only floor goes with Approval.READ")
        if self.approval.per_batch_plan and self.targets is None:
            raise ValueError(f"{self.name}: a per-batch plan needs the call's targets")
        object.__setattr__(self, "schema", json_schema(self.inputs))

    @property
    def grantable(self) -> bool:
        """A durable project grant may cover a tokenless call (the service's gate answers
        needs_project_grant for it)."""
        return self.approval is Approval.GRANTABLE

    def targets_of(self, arguments: Mapping[str, Any]) -> Targets | None:
        """The paths a call writes and deletes, or None when they cannot be enumerated
        (a wrong shape); no paths for an operation that touches none."""
        return Targets() if self.targets is None else self.targets(arguments)


def heading_of(name: str, operation: DesignOperation | None) -> str:
    """The question a change card asks about one call of `name`."""
    if operation is not None and operation.heading:
        return operation.heading
    return f"Run {name} on the Design project?"


def operation_table(operations: Iterable[DesignOperation]) -> Mapping[str, DesignOperation]:
    """A read-only table by name, in the given order (what both sides take)."""
    return types.MappingProxyType({op.name: op for op in operations})


def plan_operation(table: Mapping[str, DesignOperation]) -> str | None:
    """The name of `table`'s plan operation (the row approved as Approval.PLAN), which a
    per-batch card's approval calls; None when the table has none."""
    return next((op.name for op in table.values() if op.approval is Approval.PLAN), None)


# ---------------------------------------------------------------- the catalogue

READ = ClientFloor(read_only=True, destructive=False)
WRITE = ClientFloor(read_only=False, destructive=False)
DESTROY = ClientFloor(read_only=False, destructive=True)


def _required(name: str, kind: InputType, description: str | None = None) -> Input:
    return Input(name, kind, required=True, description=description)


def _optional(name: str, kind: InputType, description: str | None = None) -> Input:
    return Input(name, kind, description=description)


TEXT = Text()
INTEGER = Whole()
PATHS = ListOf(TEXT)
#: a value the service caps at 4,096 characters
NAME = Text(max_length=4096)
PROJECT_ID = Text(max_length=4096, description="The Design project's id.")
PLAN_TOKEN = Text(max_length=65536, description="A token from finalize_plan covering the "
                  "targets.")
ROLE = Text(enum=("viewer", "commenter", "editor", "admin"))
SHARING_SCOPE = Text(enum=("private", "org", "link"))
LINK_PERMISSION = Text(enum=("view", "comment", "edit"))
#: the plan scopes finalize_plan takes (the client registers only "paths")
PLAN_SCOPE = Text(enum=("paths", "project"))

#: membership and sharing take a plan_token the PROTOCOL §3 table does not list: optional in
#: the service's schema (so a call without one is a plan refusal, not a schema error)
SENSITIVE_PLAN_TOKEN = ("plan_token (not in the published input table): a finalize_plan token "
                        "for this project finalized with no paths, spent by this call; the "
                        "call is refused without one.")
_SENSITIVE_TOKEN = Input(
    "plan_token", Text(max_length=65536), description="A finalize_plan token for this "
    "project; required, though optional in this schema.", client_supplied=True)

WRITE_ENTRY = Record("WriteEntry", (
    _required("path", TEXT), _required("data", Text(body=True)),
    _optional("encoding", Text(enum=("base64",))),
    _optional("if_match", TEXT, 'An etag, or "0": must not exist.')))
COPY_ENTRY = Record("CopyEntry", (
    _required("src", TEXT), _required("dest", TEXT), _optional("src_project_id", TEXT)))
VIEWPORT = Record("Viewport", (
    _required("width", Whole(1, 10_000)), _required("height", Whole(1, 10_000))))

#: the catalogue, in PROTOCOL §3's order
DESIGN_OPERATIONS: tuple[DesignOperation, ...] = (
    DesignOperation(
        "get_claude_design_prompt", "The working prompt for Claude Design, in markdown.",
        READ, True, (_optional("design_system_id", TEXT), _optional("project_id", TEXT))),
    DesignOperation(
        "list_design_systems", "List the design systems; one is the default.", READ, True),
    DesignOperation(
        "list_projects", "List Design projects, a page at a time (cursor = last id).",
        READ, True, (_optional("limit", INTEGER), _optional("cursor", TEXT))),
    DesignOperation(
        "get_project", "A project's name, type, URL, sharing and whether you can edit it.",
        READ, True, (_required("project_id", PROJECT_ID),)),
    DesignOperation(
        "create_project", "Create an empty Design project.",
        WRITE, False, (_required("name", NAME), _optional("design_system_id", TEXT)),
        Approval.CARD, summary=created_project),
    DesignOperation(
        "list_files", "List a project's files and directories with sizes and etags.",
        READ, True, (_required("project_id", PROJECT_ID), _optional("path", TEXT),
                     _optional("depth", INTEGER))),
    DesignOperation(
        "read_file", "Read a file (at most 256 KiB per call) as untrusted content.",
        READ, True, (_required("project_id", PROJECT_ID), _required("path", TEXT),
                     _optional("offset", INTEGER), _optional("limit", INTEGER))),
    DesignOperation(
        "finalize_plan", "Register the exact paths you will write and delete; returns a plan "
        "token valid for 15 minutes.",
        WRITE, False, (_required("project_id", PROJECT_ID), _optional("writes", PATHS),
                       _optional("deletes", PATHS), _optional("scope", PLAN_SCOPE)),
        Approval.PLAN, planned("writes", "deletes"),
        "Finalize a Design plan: these exact changes may then run without asking again for "
        f"up to {PLAN_TTL_MS // 60_000} minutes.", summary=plan_made,
        refused_values=(("scope", "project", "paths"),)),
    DesignOperation(
        "write_files", "Write files all-or-nothing; if_match guards against lost updates.",
        DESTROY, False, (_required("project_id", PROJECT_ID),
                         _required("files", ListOf(WRITE_ENTRY)),
                         _optional("plan_token", PLAN_TOKEN)),
        Approval.GRANTABLE, writes_of_entries("files", "path"),
        "Write these files in the Design project?", changes=written_entries("files"),
        summary=wrote_files),
    DesignOperation(
        "create_support_js", "Create the project's support.js helper script.",
        WRITE, True, (_required("project_id", PROJECT_ID), _optional("path", TEXT),
                      _optional("plan_token", PLAN_TOKEN)),
        Approval.GRANTABLE, writes_of_path("path", "support.js"),
        "Create support.js in the Design project?",
        changes=written_path("path", "support.js")),
    DesignOperation(
        "copy_files", "Copy files, possibly from another project; needs a plan token.",
        DESTROY, False, (_required("project_id", PROJECT_ID),
                         _required("files", ListOf(COPY_ENTRY)),
                         _required("plan_token", PLAN_TOKEN)),
        Approval.PLAN_TOKEN, writes_of_entries("files", "dest"),
        "Copy files into the Design project?", copy_lines,
        changes=moved_entries("files", "src", "dest", "copied", project="src_project_id")),
    DesignOperation(
        "delete_files", "Delete files; needs a plan token.",
        DESTROY, False, (_required("project_id", PROJECT_ID),
                         _required("plan_token", PLAN_TOKEN), _required("paths", PATHS)),
        Approval.PLAN_TOKEN, deletes_of_list("paths"),
        "Delete these files from the Design project?", changes=deleted_list("paths"),
        summary=deleted_files),
    DesignOperation(
        "render_preview", "Render a page: its text, failed requests and a PNG picture.",
        READ, True, (_required("project_id", PROJECT_ID), _required("path", TEXT),
                     _optional("viewport", VIEWPORT)), summary=preview_made),
    DesignOperation(
        "list_members", "List the project's members and their roles.",
        READ, True, (_required("project_id", PROJECT_ID),)),
    DesignOperation(
        "add_member", "Add a member by email with a role. Needs " + SENSITIVE_PLAN_TOKEN,
        DESTROY, False, (_required("project_id", PROJECT_ID), _required("role", ROLE),
                         _required("email", NAME), _SENSITIVE_TOKEN),
        Approval.SENSITIVE),
    DesignOperation(
        "update_member_role", "Change a member's role. Needs " + SENSITIVE_PLAN_TOKEN,
        DESTROY, True, (_required("project_id", PROJECT_ID), _required("account_uuid", TEXT),
                        _required("role", ROLE), _SENSITIVE_TOKEN),
        Approval.SENSITIVE),
    DesignOperation(
        "remove_member", "Remove a member. Needs " + SENSITIVE_PLAN_TOKEN,
        DESTROY, True, (_required("project_id", PROJECT_ID), _required("account_uuid", TEXT),
                        _SENSITIVE_TOKEN),
        Approval.SENSITIVE),
    DesignOperation(
        "update_sharing", "Change who can open the project (scope, link_permission). Needs "
        + SENSITIVE_PLAN_TOKEN,
        DESTROY, True, (_required("project_id", PROJECT_ID), _optional("scope", SHARING_SCOPE),
                        _optional("link_permission", LINK_PERMISSION), _SENSITIVE_TOKEN),
        Approval.SENSITIVE),
)

#: the table a client or service is given when it is not given another
BY_NAME: Mapping[str, DesignOperation] = operation_table(DESIGN_OPERATIONS)
