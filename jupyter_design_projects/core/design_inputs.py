"""The typed inputs of a Design operation, declared as data: strings (with a length cap,
allowed values, content marker), integers (with bounds), lists and named records. The
reference service builds its argument models and published schemas from them
(`server/design/mcp.py`); `json_schema` gives the client's local schema."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any


@dataclasses.dataclass(frozen=True)
class Text:
    """A string input: its longest length, its allowed values, a description of the type
    itself (kept inside an optional input's string branch), and whether it is content
    (exempt from the client's 4,096-byte cap)."""

    max_length: int | None = None
    enum: tuple[str, ...] = ()
    description: str | None = None
    body: bool = False


@dataclasses.dataclass(frozen=True)
class Whole:
    """An integer input, with its bounds."""

    minimum: int | None = None
    maximum: int | None = None


@dataclasses.dataclass(frozen=True)
class ListOf:
    """An array input of one item type."""

    item: InputType


@dataclasses.dataclass(frozen=True)
class Record:
    """An object input: the type's name (the service's schema names it) and its fields;
    unknown fields are refused."""

    name: str
    fields: tuple[Input, ...]


InputType = Text | Whole | ListOf | Record


@dataclasses.dataclass(frozen=True)
class Input:
    """One input of an operation (or one field of a Record)."""

    name: str
    type: InputType
    required: bool = False
    #: the input's own description (beside, not inside, an optional input's type)
    description: str | None = None
    #: the service takes it, but the client never does from a caller: it finalizes its own
    #: (so it is not in the client's local schema)
    client_supplied: bool = False


def json_schema(inputs: Iterable[Input]) -> dict[str, Any]:
    """The client's local schema of these inputs: types, required fields first as declared,
    enums and the `x-body` marker (the service's own schema is built in server/design/mcp)."""
    shown = [i for i in inputs if not i.client_supplied]
    return {"type": "object", "properties": {i.name: _type_schema(i.type) for i in shown},
            "required": [i.name for i in shown if i.required]}


def _type_schema(kind: InputType) -> dict[str, Any]:
    if isinstance(kind, Text):
        out: dict[str, Any] = {"type": "string"}
        if kind.enum:
            out["enum"] = list(kind.enum)
        if kind.body:
            out["x-body"] = True
        return out
    if isinstance(kind, Whole):
        return {"type": "integer"}
    if isinstance(kind, ListOf):
        return {"type": "array", "items": _type_schema(kind.item)}
    return json_schema(kind.fields)
