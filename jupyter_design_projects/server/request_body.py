"""Buffering an ASGI request body once, and replaying it unchanged to the app behind."""

from __future__ import annotations

from typing import Any


class Disconnected(Exception):
    """The client went away before the whole body arrived."""


async def read_body(receive: Any, limit: int | None = None) -> bytes | None:
    """The whole request body; None once it passes `limit` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Disconnected
        chunk = message.get("body", b"")
        size += len(chunk)
        if limit is not None and size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def replay(body: bytes, receive: Any) -> Any:
    """A `receive` that yields `body` once, then defers to the real one (disconnects)."""
    sent = False

    async def receive_again() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return receive_again
