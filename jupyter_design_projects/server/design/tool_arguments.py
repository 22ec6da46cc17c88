"""A Design tool's arguments: the typed inputs of a row of `core.design_operations` as a
pydantic model of the service's own, which gives the JSON schema `tools/list` serves and
checks the arguments of each `tools/call` (nothing here comes from the MCP SDK)."""

from __future__ import annotations

import functools
import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from ...core.design_operations import Input, InputType, ListOf, Record, Text, Whole


class InvalidArguments(Exception):
    """A call's arguments do not fit the tool's schema; the message names each field and
    what is wrong with it, never the value given (it may be a token)."""


def _python_type(kind: InputType) -> Any:
    """The pydantic type of one declared input type (constraints as Field metadata)."""
    if isinstance(kind, Text):
        base: Any = Literal[kind.enum] if kind.enum else str  # type: ignore[valid-type]
        if kind.max_length is None and kind.description is None:
            return base
        return Annotated[base, Field(max_length=kind.max_length, description=kind.description)]
    if isinstance(kind, Whole):
        if kind.minimum is None and kind.maximum is None:
            return int
        return Annotated[int, Field(ge=kind.minimum, le=kind.maximum)]
    if isinstance(kind, ListOf):
        return list[_python_type(kind.item)]  # type: ignore[misc]
    return _record_model(kind)


def _record_model(record: Record) -> type[BaseModel]:
    """A record as a model of its own name that refuses unknown fields."""
    return create_model(record.name, __config__=ConfigDict(extra="forbid"),
                        **_fields(record.fields))


def _fields(inputs: tuple[Input, ...]) -> dict[str, Any]:
    """pydantic field definitions, in declared order: a required input has no default, an
    optional one is `T | None = None`; the input's own description beside its type."""
    fields: dict[str, Any] = {}
    for item in inputs:
        kind = _python_type(item.type)
        info = Field(description=item.description) if item.description else Field()
        if item.required:
            fields[item.name] = Annotated[kind, info]
        else:
            fields[item.name] = (Annotated[kind | None, info], None)
    return fields


@functools.cache
def argument_model(title: str, inputs: tuple[Input, ...]) -> tuple[type[BaseModel], str]:
    """The arguments' model, titled `title` in its schema (`<tool>Arguments`, as the
    schemas have always been titled), and that JSON schema as text. Made once per process
    (models and schemas are pydantic's slowest work, half of building an app, and the
    tests build one per test); each server parses the text afresh, so no two apps share a
    mutable dict. Unknown top-level arguments are ignored, unknown record fields refused."""
    model = create_model(title, **_fields(inputs))
    return model, json.dumps(model.model_json_schema(by_alias=True))


def _json_text_unwrapped(model: type[BaseModel], arguments: dict[str, Any]) -> dict[str, Any]:
    """A list or object sent as JSON inside a string, for an input that is not plain
    text, as the list or object (some MCP clients send `files` as `"[...]"`); a string
    that is JSON for a string or a number stays the string it is."""
    unwrapped = dict(arguments)
    for name, value in arguments.items():
        field = model.model_fields.get(name)
        if field is None or field.annotation is str or not isinstance(value, str):
            continue
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            continue
        if not isinstance(parsed, str | int | float):
            unwrapped[name] = parsed
    return unwrapped


def checked(model: type[BaseModel], arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments as the operations take them (records as dicts, every input named,
    an absent optional one as None), or InvalidArguments."""
    try:
        valid = model.model_validate(_json_text_unwrapped(model, arguments))
    except ValidationError as invalid:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or '(arguments)'}: {error['msg']}"
            for error in invalid.errors(include_url=False, include_input=False))
        raise InvalidArguments(problems) from None
    return valid.model_dump()
