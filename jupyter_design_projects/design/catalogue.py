"""The live Design catalogue: the server's `tools/list` merged with the client's floor
into one registry of `OperationEntry`s, and the client's own `list` view of it — a row of
`CLIENT_OPERATIONS`, the operations the client answers itself and never sends, whose
answer is a `CatalogueOutcome`."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping
from typing import Any

from ..core import hints
from ..core.catalogue import HashMemory, catalogue_hash, first_sentence
from ..core.design_operations import DesignOperation
from ..core.validation import check_operation_name
from ..errors import InvalidArguments, UnknownOperation
from . import schemas
from .approval import DesignOutcome
from .session import McpSession

#: spec §4: the unchanged view says how to get the schemas back
UNCHANGED_HINT = "If the full schemas are no longer in context, call list with {full: true}."

#: whose `list` a catalogue hash is remembered for (spec §4: per agent id): the person
#: (the magics, a script's `session.design_call`), the inspector, and each `AgentTools`
#: (`agent:` and a random label of its own), so one reader's `list` never makes another's
#: answer "unchanged"
PERSON = "person"
INSPECTOR = "inspector"


@dataclasses.dataclass(frozen=True)
class ClientOperation:
    """An operation the client answers itself (never sent to the service): its name, what
    it does and its input schema."""

    name: str
    description: str
    input_schema: dict


#: `list`: the catalogue as the service offers it now (spec §2, §4)
LIST = ClientOperation(
    "list", "The Design operations the service offers now, with their input schemas and "
    "write-risk hints; unchanged since last shown: a short view (full: every schema again).",
    {"type": "object", "properties": {"full": {"type": "boolean"}},
     "additionalProperties": False})
#: the operations the client answers itself, by name
CLIENT_OPERATIONS: Mapping[str, ClientOperation] = types.MappingProxyType({LIST.name: LIST})


class CatalogueOutcome(DesignOutcome):
    """The answer of `list`: the catalogue view (`Catalogue.list_view`), shown as the
    catalogue table."""

    is_catalogue = True


@dataclasses.dataclass(frozen=True)
class OperationEntry:
    name: str
    description: str
    input_schema: dict
    read_only: bool
    destructive: bool
    #: the client has a local schema and floor for this operation
    known: bool

    @property
    def write_tier(self) -> bool:
        return not self.read_only


def build_entry(tool: dict, table: Mapping[str, DesignOperation]) -> OperationEntry:
    """One `tools/list` item merged with the client's floor (`core.hints.merge`) from
    `table`, the operations this client knows."""
    name = tool["name"]
    annotations = tool.get("annotations")
    floor = schemas.floor(name, table)
    read_only, destructive = hints.merge(
        annotations if isinstance(annotations, dict) else {}, floor
    )
    description = tool.get("description")
    if floor is not None:
        schema = schemas.local_schema(name, table) or {}
    else:  # the service's schema, without any `x-` marker: only the client's table names
        # a body field (exempt from the 4,096-byte cap)
        server_schema = tool.get("inputSchema")
        schema = schemas.public_schema(server_schema) if isinstance(server_schema, dict) else {}
    return OperationEntry(
        name=name,
        description=description if isinstance(description, str) else "",
        input_schema=schema,
        read_only=read_only,
        destructive=destructive,
        known=floor is not None,
    )


class Catalogue:
    """The operations a Design call may use, as this client and the server agree on them."""

    def __init__(self, session: McpSession, table: Mapping[str, DesignOperation]) -> None:
        self._session = session
        #: the operations this client knows (core.design_operations)
        self.table = table
        self._registry: dict[str, OperationEntry] = {}
        self._generation = -1
        #: how many tools of the last tools/list were refused for their names
        self._refused = 0
        self._shown = HashMemory()

    async def entry(self, name: str) -> OperationEntry:
        """The merged entry for `name`, or UnknownOperation saying what to do instead."""
        check_operation_name(name)
        if schemas.floor(name, self.table) is None and not self._session.state.discovered:
            raise UnknownOperation(name, "call_list_first")
        registry = await self._current()
        entry = registry.get(name)
        if entry is None:  # the server may offer it since the catalogue was read: ask again
            entry = (await self._current(refresh=True)).get(name)
        if entry is None:
            raise UnknownOperation(name, "not_in_catalogue")
        if entry.write_tier and not entry.known:
            raise UnknownOperation(name, "upgrade_client")
        return entry

    async def entries(self, *, refresh: bool = False) -> list[OperationEntry]:
        """Every operation of the catalogue, sorted by name; `refresh` lists it again."""
        registry = await self._current(refresh=refresh)
        return [registry[name] for name in sorted(registry)]

    async def list_view(self, *, agent_key: str = PERSON, full: bool = False) -> dict:
        """The `list` result: the catalogue the server offers now (tools/list runs again
        each time, spec §2, §4) with its hash, or, when this agent was already shown the
        same hash and `full` is not asked, the short unchanged view: only what spec §4
        names (the flag, the hash, each operation's name → the first sentence of its
        description, the hint), one entry per operation and no repeated keys."""
        operations = [_full_view(e) for e in await self.entries(refresh=True)]
        digest = catalogue_hash(operations)
        if not full and self._shown.seen(agent_key, digest):
            return {
                "catalog_unchanged": True,
                "catalog_hash": digest,
                "operations": {op["name"]: first_sentence(op["description"])
                               for op in operations},
                "hint": UNCHANGED_HINT,
            }
        self._shown.remember(agent_key, digest)
        view: dict[str, Any] = {"operations": operations, "catalog_hash": digest}
        if self._refused:  # never dropped silently: a name that breaks the rule is counted
            view["refused_names"] = self._refused
        return view

    async def _current(self, refresh: bool = False) -> dict[str, OperationEntry]:
        """The registry, rebuilt from scratch whenever a fresh tools/list has completed
        (`refresh` runs one)."""
        tools = await self._session.tools(refresh=refresh)
        generation = self._session.state.generation
        if generation != self._generation:
            registry: dict[str, OperationEntry] = {}
            refused = 0
            for tool in tools:
                if not _valid_name(tool.get("name")):
                    refused += 1
                elif tool["name"] not in registry:
                    registry[tool["name"]] = build_entry(tool, self.table)
            self._registry = registry
            self._refused = refused
            self._generation = generation
        return self._registry


def _valid_name(name: Any) -> bool:
    try:
        check_operation_name(name)
    except InvalidArguments:
        return False
    return True


def _full_view(entry: OperationEntry) -> dict:
    return {
        "name": entry.name,
        "description": entry.description,
        "input_schema": schemas.public_schema(entry.input_schema),
        "read_only": entry.read_only,
        "destructive": entry.destructive,
    }
