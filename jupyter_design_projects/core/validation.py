"""Local argument validation for Design operations: everything is checked before a byte
is sent, and every refusal is an `InvalidArguments` naming the field and the rule.

Schemas are a small JSON-Schema subset: `type` (a name or a list of names), `properties`,
`required`, `items`, `enum`, and the client's own marker `"x-body": true` for content
fields (such as `write_files.files[].data`) that are exempt from the string cap. The
marker counts only in the client's own schema (`client_schema=True`, a row of its table):
a service's schema cannot lift the 4,096-byte cap, whatever it marks. Field names are
held to the same cap as the strings they name.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import InvalidArguments

OPERATION_NAME_MAX = 64
STRING_MAX_BYTES = 4_096
PLAN_TOKEN_MAX_BYTES = 65_536
#: field names longer than this are shown cut, and get no did-you-mean
FIELD_SHOWN_MAX = 100
#: an unknown-field refusal names at most this many of the valid fields
FIELDS_NAMED = 12

_OPERATION_NAME = re.compile(r"[\w.-]+", re.ASCII)

_TYPES: dict[str, tuple[str, Any]] = {
    "string": ("must be a string", lambda v: isinstance(v, str)),
    "integer": ("must be an integer", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    "number": (
        "must be a finite number",
        lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
    ),
    "boolean": ("must be true or false", lambda v: isinstance(v, bool)),
    "array": ("must be an array", lambda v: isinstance(v, list)),
    "object": ("must be an object", lambda v: isinstance(v, dict)),
    "null": ("must be null", lambda v: v is None),
}


def check_operation_name(operation: object) -> str:
    """The operation name rule: 1–64 characters of `[A-Za-z0-9_.-]`."""
    if not isinstance(operation, str):
        raise InvalidArguments("(invalid)", "operation", "must be a string")
    shown = _shown(operation)
    if not 1 <= len(operation) <= OPERATION_NAME_MAX:
        raise InvalidArguments(shown, "operation", f"must be 1-{OPERATION_NAME_MAX} characters")
    if not _OPERATION_NAME.fullmatch(operation):
        raise InvalidArguments(
            shown, "operation", "may contain only ASCII letters, digits, '_', '.' and '-'"
        )
    return operation


def validate(operation: str, arguments: Any, schema: Mapping[str, Any] | None,
             refused: Iterable[tuple[str, Any, str]] = (), *,
             client_schema: bool = False) -> dict:
    """Check `arguments` for `operation` against `schema` (None: size caps only) and the
    operation's `refused` values ((field, value, what to use instead): its row's
    `refused_values`), and return them as a new dict. Raises `InvalidArguments` on the
    first broken rule. `client_schema`: the schema is the client's own (its table), the
    only one whose `x-body` marks may exempt a field from the string cap."""
    check_operation_name(operation)
    if not isinstance(arguments, dict):
        raise InvalidArguments(operation, "arguments", "must be an object")
    _Walker(operation, client_schema).object(arguments, schema or {}, prefix="",
                                             top_level=True)
    for field, value, instead in refused:
        if field in arguments and arguments[field] == value:
            raise InvalidArguments(operation, field, f"{field} {value} is not allowed",
                                   instead)
    return dict(arguments)


def suggest(name: str, candidates: list[str]) -> str | None:
    """A case-insensitive did-you-mean: an exact match ignoring case first, then the
    closest spelling (difflib), or None."""
    if len(name) > FIELD_SHOWN_MAX:
        return None
    lowered = {c.lower(): c for c in candidates}
    if name.lower() in lowered:
        return lowered[name.lower()]
    close = difflib.get_close_matches(name.lower(), list(lowered), n=1)
    return lowered[close[0]] if close else None


def unknown_field(prefix: str, known: list[str]) -> str:
    """The rule an unknown field breaks, naming the fields its object takes (for a nested
    one, `files[0].content`, where the schema is not at hand, that is the useful part)."""
    where = f"{prefix.rstrip('.')}'s" if prefix else "the operation's"
    names = [_shown(str(name)) for name in known[:FIELDS_NAMED]]
    more = f" and {len(known) - FIELDS_NAMED} more" if len(known) > FIELDS_NAMED else ""
    listing = ", ".join(names) + more if names else "none"
    return f"is not a known field ({where} fields: {listing})"


def utf8_length(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _shown(name: str) -> str:
    return name if len(name) <= FIELD_SHOWN_MAX else name[:FIELD_SHOWN_MAX] + "…"


class _Walker:
    """One validation pass: walks the arguments and the schema side by side."""

    def __init__(self, operation: str, client_schema: bool = False) -> None:
        self.operation = operation
        #: whether `x-body` marks count (only in the client's own schema)
        self.bodies = client_schema

    def fail(self, field: str, rule: str, suggestion: str | None = None) -> None:
        raise InvalidArguments(self.operation, _shown(field), rule, suggestion)

    def object(
        self, value: dict, schema: Mapping[str, Any], *, prefix: str, top_level: bool = False
    ) -> None:
        properties = schema.get("properties")
        for key in value:
            if not isinstance(key, str):
                self.fail(prefix + "?", "field names must be strings")
            if utf8_length(key) > STRING_MAX_BYTES:
                self.fail(prefix + key, f"is a field name longer than {STRING_MAX_BYTES:,} "
                          "UTF-8 bytes")
            if isinstance(properties, Mapping) and key not in properties:
                self.fail(prefix + key, unknown_field(prefix, list(properties)),
                          suggest(key, list(properties)))
        # a schema is the service's: a part of the wrong shape is ignored, never a crash
        required = schema.get("required")
        for name in required if isinstance(required, list) else ():
            if isinstance(name, str) and name not in value:
                self.fail(prefix + name, "is required")
        for key, item in value.items():
            spec = properties.get(key) if isinstance(properties, Mapping) else None
            cap = PLAN_TOKEN_MAX_BYTES if top_level and key == "plan_token" else STRING_MAX_BYTES
            self.value(item, spec if isinstance(spec, Mapping) else {}, field=prefix + key,
                       cap=cap)

    def value(self, value: Any, spec: Mapping[str, Any], *, field: str, cap: int) -> None:
        declared = spec.get("type")
        if isinstance(declared, str):
            names = [declared]
        elif isinstance(declared, list):
            names = [name for name in declared if isinstance(name, str)]
        else:
            names = []
        if names:
            if not any(_TYPES[name][1](value) for name in names if name in _TYPES):
                rule = _TYPES[names[0]][0] if len(names) == 1 and names[0] in _TYPES else (
                    "must be of type " + " or ".join(map(str, names))
                )
                self.fail(field, rule)
        enum = spec.get("enum")
        if isinstance(enum, list) and value not in enum:
            self.fail(field, "must be one of " + ", ".join(map(repr, enum)))
        if isinstance(value, str):
            body = self.bodies and spec.get("x-body") is True
            if not body and utf8_length(value) > cap:
                self.fail(field, f"is longer than {cap:,} UTF-8 bytes")
        elif isinstance(value, list):
            declared_items = spec.get("items")
            items = declared_items if isinstance(declared_items, Mapping) else {}
            for index, item in enumerate(value):
                self.value(item, items, field=f"{field}[{index}]", cap=STRING_MAX_BYTES)
        elif isinstance(value, dict):
            self.object(value, spec, prefix=field + ".")
