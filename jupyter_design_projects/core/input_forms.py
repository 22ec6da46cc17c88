"""A tool's input schema as a form: `form_of` reads a JSON Schema (a `tools/list`
inputSchema, with pydantic's `$defs`/`$ref` and `anyOf [T, null]` optionals, or the
client's local subset) into a tree of `Field`s, and `arguments_of` turns the values a
person filled in back into call arguments; `values_of` goes the other way (a replay).

Kinds: an enum or const is a `choice`, a boolean a `checkbox`, an integer or number with
its bounds, a string with its longest length, an array a `list` of one item field
(add/remove), an object with properties a `record` of fields; any other shape is a `json`
text the person writes. Required fields are marked, descriptions are the help, and each
field carries the client's own limit beside the service's (the 4,096-byte string cap
that content fields are exempt from, 65,536 bytes for a plan token). Given the client's
local schema, a field the service takes but the client supplies itself (a sensitive
call's plan token) is left out of the form and named in `supplied`.

Pure: no widgets, no I/O; the notebook's inspector draws what this describes.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from ..errors import InvalidArguments
from .validation import PLAN_TOKEN_MAX_BYTES, STRING_MAX_BYTES, utf8_length

CHOICE, CHECKBOX, INTEGER, NUMBER, TEXT, LIST, RECORD, JSON = (
    "choice", "checkbox", "integer", "number", "text", "list", "record", "json")
#: how deep `$ref`s are followed (a self-referencing schema becomes a json field there)
MAX_DEPTH = 8


@dataclasses.dataclass(frozen=True)
class Field:
    """One input of the form. `name` is the argument's key ("" for a list's item)."""

    name: str
    kind: str
    required: bool = False
    #: the schema's description (or title), shown as help
    help: str | None = None
    choices: tuple[Any, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    #: the service's longest length, in characters (maxLength)
    max_length: int | None = None
    #: the client's own cap in UTF-8 bytes (None: none, or content, exempt)
    client_max_bytes: int | None = None
    #: content (the client's `x-body` mark): exempt from its string cap
    body: bool = False
    #: a list's item
    item: Field | None = None
    #: a record's fields
    fields: tuple[Field, ...] = ()
    default: Any = None

    @property
    def limits(self) -> tuple[str, ...]:
        """The field's limits in words, the service's and the client's own."""
        out = []
        if self.minimum is not None and self.maximum is not None:
            out.append(f"from {self.minimum:,} to {self.maximum:,}")
        elif self.minimum is not None:
            out.append(f"at least {self.minimum:,}")
        elif self.maximum is not None:
            out.append(f"at most {self.maximum:,}")
        if self.max_length is not None:
            out.append(f"at most {self.max_length:,} characters (the service's limit)")
        if self.client_max_bytes is not None:
            out.append(f"at most {self.client_max_bytes:,} UTF-8 bytes (the client's limit)")
        elif self.body:
            out.append("content: no client size cap")
        return tuple(out)


@dataclasses.dataclass(frozen=True)
class FormSpec:
    """The form of one operation: its fields, and the ones the client supplies itself."""

    operation: str
    description: str
    fields: tuple[Field, ...]
    supplied: tuple[str, ...] = ()


def form_of(operation: str, schema: Mapping[str, Any], *,
            local_schema: Mapping[str, Any] | None = None,
            description: str = "", string_cap: int | None = STRING_MAX_BYTES) -> FormSpec:
    """The form of `operation` from its input schema (`local_schema`: the client's own,
    for a known operation: which fields it takes and which strings are content;
    `string_cap`: the client's byte cap on strings, the Design client's by default, None
    for none)."""
    reader = _Reader(schema, string_cap)
    root = reader.resolve(schema, 0)
    local = local_schema if isinstance(local_schema, Mapping) else None
    local_props = _properties(local) if local is not None else None
    fields, supplied = [], []
    for name, spec, required in _members(root):
        if local_props is not None and name not in local_props:
            supplied.append(name)
            continue
        own = local_props.get(name) if local_props is not None else None
        cap = PLAN_TOKEN_MAX_BYTES if name == "plan_token" else STRING_MAX_BYTES
        fields.append(reader.field(name, spec, required, own, cap, 0))
    return FormSpec(operation, description, tuple(fields), tuple(supplied))


def _properties(schema: Mapping[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    return dict(props) if isinstance(props, Mapping) else {}


def _members(schema: Mapping[str, Any]) -> list[tuple[str, Any, bool]]:
    required = schema.get("required")
    needed = {n for n in required if isinstance(n, str)} if isinstance(required, list) else set()
    return [(name, spec, name in needed) for name, spec in _properties(schema).items()
            if isinstance(name, str)]


class _Reader:
    """One reading of a schema: `$ref`s resolve against its root's `$defs`/`definitions`."""

    def __init__(self, root: Mapping[str, Any], string_cap: int | None) -> None:
        self.root = root
        self.string_cap = string_cap

    def resolve(self, spec: Any, depth: int) -> Mapping[str, Any]:
        if not isinstance(spec, Mapping):
            return {}
        ref = spec.get("$ref")
        if isinstance(ref, str) and depth < MAX_DEPTH:
            target: Any = self.root
            for part in ref.removeprefix("#/").split("/") if ref.startswith("#/") else ["?"]:
                target = target.get(part) if isinstance(target, Mapping) else None
            merged = {k: v for k, v in spec.items() if k != "$ref"}
            return {**self.resolve(target, depth + 1), **merged}
        return spec

    def field(self, name: str, spec: Any, required: bool, local: Any, cap: int,
              depth: int) -> Field:
        spec = self.resolve(spec, depth)
        help_text = spec.get("description")
        options = spec.get("anyOf") or spec.get("oneOf")
        if isinstance(options, list):  # pydantic's optional: [T, {"type": "null"}]
            branches = [self.resolve(o, depth) for o in options]
            real = [b for b in branches if b.get("type") != "null"]
            if len(real) == 1:
                inner = {**real[0], **{k: v for k, v in spec.items()
                                       if k not in ("anyOf", "oneOf")}}
                if "description" not in spec and "description" in real[0]:
                    inner["description"] = real[0]["description"]
                return self.field(name, inner, required, local, cap, depth + 1)
            return _json_field(name, required, help_text, spec.get("default"))
        if not isinstance(help_text, str):
            help_text = None
        default = spec.get("default")
        kind = spec.get("type")
        choices = spec.get("enum")
        if "const" in spec:
            choices = [spec["const"]]
        if isinstance(choices, list) and choices:
            return Field(name, CHOICE, required, help_text, tuple(choices), default=default)
        own = local if isinstance(local, Mapping) else {}
        if kind == "boolean":
            return Field(name, CHECKBOX, required, help_text, default=default)
        if kind in ("integer", "number"):
            return Field(name, INTEGER if kind == "integer" else NUMBER, required, help_text,
                         minimum=_number(spec.get("minimum")),
                         maximum=_number(spec.get("maximum")), default=default)
        if kind == "string":
            body = own.get("x-body") is True
            longest = spec.get("maxLength")
            return Field(name, TEXT, required, help_text,
                         max_length=longest if isinstance(longest, int) else None,
                         client_max_bytes=None if body or self.string_cap is None else cap,
                         body=body, default=default)
        if kind == "array" and depth < MAX_DEPTH:
            item = self.field("", spec.get("items"), True, own.get("items"), STRING_MAX_BYTES,
                              depth + 1)
            return Field(name, LIST, required, help_text, item=item, default=default)
        if kind == "object" and _properties(spec) and depth < MAX_DEPTH:
            own_props = _properties(own)
            fields = tuple(self.field(n, s, r, own_props.get(n), STRING_MAX_BYTES, depth + 1)
                           for n, s, r in _members(spec))
            return Field(name, RECORD, required, help_text, fields=fields, default=default)
        return _json_field(name, required, help_text, default)


def _json_field(name: str, required: bool, help_text: Any, default: Any) -> Field:
    return Field(name, JSON, required, help_text if isinstance(help_text, str) else None,
                 default=default)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


# ---------------------------------------------------------------- values ⇄ arguments


def blank(field: Field) -> Any:
    """The value a new field starts with: None (left out), False, [], or a record's
    blanks; a required text starts as ""."""
    if field.kind == CHECKBOX:
        return field.default if isinstance(field.default, bool) else False
    if field.kind == LIST:
        return []
    if field.kind == RECORD:
        return {f.name: blank(f) for f in field.fields}
    if field.kind == TEXT and field.required:
        return ""
    return None


def blanks(spec: FormSpec) -> dict[str, Any]:
    """The whole form, empty."""
    return {f.name: blank(f) for f in spec.fields}


def arguments_of(spec: FormSpec, values: Mapping[str, Any]) -> dict[str, Any]:
    """The call's arguments from a filled form: an optional field left empty (None, "",
    an empty list, a record with nothing filled in) is left out, and a required one is
    refused; a json field is parsed, and each field's limits are checked. Raises
    `InvalidArguments(operation, field, rule)` naming the field."""
    return _record(spec.operation, spec.fields, values, "")


def _record(operation: str, fields: tuple[Field, ...], values: Any, prefix: str) -> dict:
    values = values if isinstance(values, Mapping) else {}
    out: dict[str, Any] = {}
    for field in fields:
        where = prefix + field.name
        value = values.get(field.name)
        if _empty(field, value):
            if field.required:
                raise InvalidArguments(operation, where, "is required")
            continue
        out[field.name] = _value(operation, field, value, where)
    return out


def _empty(field: Field, value: Any) -> bool:
    if value is None:
        return True
    if field.kind == TEXT:  # a required text left empty is missing, as in any form
        return value == ""
    if field.kind == JSON:
        return isinstance(value, str) and not value.strip()
    if field.kind == LIST:
        return value == [] and not field.required
    if field.kind == RECORD:  # an optional record nobody filled in is left out
        return not field.required and _untouched(field, value)
    return False


def _untouched(field: Field, value: Any) -> bool:
    if value is None or value == "" or value == [] or value is False:
        return True
    if field.kind == RECORD and isinstance(value, Mapping):
        return all(_untouched(f, value.get(f.name)) for f in field.fields)
    return False


def _value(operation: str, field: Field, value: Any, where: str) -> Any:
    def fail(rule: str) -> InvalidArguments:
        return InvalidArguments(operation, where, rule)

    if field.kind == JSON:
        if not isinstance(value, str):
            return value
        try:
            return json.loads(value)
        except ValueError:
            raise fail("is not valid JSON") from None
    if field.kind == CHOICE and value not in field.choices:
        raise fail("must be one of " + ", ".join(map(repr, field.choices)))
    if field.kind in (INTEGER, NUMBER):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                field.kind == INTEGER and not isinstance(value, int)):
            raise fail("must be an integer" if field.kind == INTEGER else "must be a number")
        if field.minimum is not None and value < field.minimum:
            raise fail(f"must be at least {field.minimum:,}")
        if field.maximum is not None and value > field.maximum:
            raise fail(f"must be at most {field.maximum:,}")
    if field.kind == TEXT:
        if not isinstance(value, str):
            raise fail("must be a string")
        if field.max_length is not None and len(value) > field.max_length:
            raise fail(f"is longer than {field.max_length:,} characters")
        if field.client_max_bytes is not None and utf8_length(value) > field.client_max_bytes:
            raise fail(f"is longer than {field.client_max_bytes:,} UTF-8 bytes")
    if field.kind == CHECKBOX and not isinstance(value, bool):
        raise fail("must be true or false")
    if field.kind == LIST:
        if not isinstance(value, list) or field.item is None:
            raise fail("must be a list")
        return [_item(operation, field.item, v, f"{where}[{i}]") for i, v in enumerate(value)]
    if field.kind == RECORD:
        return _record(operation, field.fields, value, where + ".")
    return value


def _item(operation: str, item: Field, value: Any, where: str) -> Any:
    if value is None or (item.kind == JSON and isinstance(value, str) and not value.strip()):
        raise InvalidArguments(operation, where, "is empty")
    return _value(operation, item, value, where)


def values_of(spec: FormSpec, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """A form filled with `arguments` (a replay's): a json field gets its JSON text; an
    argument the form has no field for is dropped."""
    return {f.name: _shown(f, arguments.get(f.name, blank(f)))
            if f.name in arguments else blank(f) for f in spec.fields}


def _shown(field: Field, value: Any) -> Any:
    if field.kind == JSON:
        return json.dumps(value)
    if field.kind == LIST and isinstance(value, list) and field.item is not None:
        return [_shown(field.item, v) for v in value]
    if field.kind == RECORD and isinstance(value, Mapping):
        return {f.name: _shown(f, value[f.name]) if f.name in value else blank(f)
                for f in field.fields}
    return value
