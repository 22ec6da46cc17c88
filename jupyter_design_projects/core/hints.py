"""The write-risk floor: how a server's tool annotations merge with what the client knows.

A server may add read-only operations and describe them, but it can never make an
operation the client knows to be a write read-only, nor a known destructive one harmless.
Annotations are hints: an absent `destructiveHint` means *may destroy* unless the
operation is read-only, and only an explicit boolean `true` counts as `readOnlyHint`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any


@dataclasses.dataclass(frozen=True)
class ClientFloor:
    """The client's own classification of an operation it knows."""

    read_only: bool
    destructive: bool


def server_hints(annotations: Mapping[str, Any] | None) -> tuple[bool, bool]:
    """(read_only, destructive) as the server claims them, read strictly.

    Hostile spellings (`"true"`, `1`) do not count: only the JSON boolean `true` makes an
    operation read-only, and only the JSON boolean `false` makes a write harmless.
    """
    annotations = annotations if isinstance(annotations, Mapping) else {}
    read_only = annotations.get("readOnlyHint") is True
    if read_only:
        return True, False
    return False, annotations.get("destructiveHint") is not False


def merge(server: Mapping[str, Any] | None, client: ClientFloor | None) -> tuple[bool, bool]:
    """(read_only, destructive) for one operation.

    `server` is the tool's `annotations` object from `tools/list` (None when the server has
    not listed the operation); `client` is the client's floor (None for an operation the
    client does not know). Known: read-only needs both sides, destructive needs either.
    Unknown: read-only only on an explicit `readOnlyHint: true`.
    """
    if client is None:
        return server_hints(server)
    if server is None:
        return client.read_only, client.destructive
    server_read_only, server_destructive = server_hints(server)
    return server_read_only and client.read_only, server_destructive or client.destructive
