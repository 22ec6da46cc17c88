"""What this client release knows about the Design operations: each one's write-risk
floor and its local input schema, read from the one table of the Design operations
(`core.design_operations`, PROTOCOL §3, required fields first).

The live catalogue comes from the server; that table is the client's half of the
double control: a write operation can be called only with a schema from it, and
its floor can never be lowered by server annotations (`core.hints.merge`). Content fields
exempt from the 4,096-byte string cap carry `"x-body": true`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

from ..core.design_operations import DesignOperation
from ..core.hints import ClientFloor


def floor(name: str, table: Mapping[str, DesignOperation]) -> ClientFloor | None:
    """The client's floor for `name`, or None for an operation `table` does not know."""
    known = table.get(name)
    return known.floor if known else None


def local_schema(name: str, table: Mapping[str, DesignOperation]) -> dict | None:
    """A private copy of the local input schema of `name` in `table`, or None."""
    known = table.get(name)
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
