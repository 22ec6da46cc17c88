"""Request bodies and arguments: the whole request body under a byte limit (an ASGI wrapper),
JSON parsing that refuses anything but an object, and typed field checks that raise 400."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from typing import Any, Literal, overload

from starlette.requests import Request

from .envelopes import ENVELOPE, ApiError, send_error
from .request_body import Disconnected, read_body, replay

#: characters that look like a path separator but do not normalise to one
_SLASH_LOOKALIKES = frozenset("\u2215\u2044\u29f8\uff0f\u2571")


class BodyLimit:
    """Refuses request bodies above `max_bytes` with a 413 before any route parses them (by
    Content-Length, and by counting when the length is not declared), in the error shape
    `shape_of(path)` names for the route."""

    def __init__(self, app: Any, max_bytes: int,
                 shape_of: Callable[[str], str] = lambda path: ENVELOPE) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.shape_of = shape_of

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        shape = self.shape_of(scope["path"])
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await _refuse(send, self.max_bytes, shape)
            return
        try:
            body = await read_body(receive, self.max_bytes)
        except Disconnected:
            return
        if body is None:
            await _refuse(send, self.max_bytes, shape)
            return
        await self.app(scope, replay(body, receive), send)


async def _refuse(send: Any, limit: int, shape: str) -> None:
    await send_error(send, 413, "request_too_large",
                     f"The request body is larger than {limit:,} bytes.", shape)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_object(raw: bytes) -> dict[str, Any]:
    """The body as a JSON object; anything else (malformed, NaN, an array) is a 400."""
    try:
        value = json.loads(raw.decode("utf-8"), parse_constant=_no_constants)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ApiError("invalid_request_error", "The request body is not valid JSON.") from None
    if not isinstance(value, dict):
        raise ApiError("invalid_request_error", "The request body must be a JSON object.")
    return value


async def read_object(request: Request) -> dict[str, Any]:
    return parse_object(await request.body())


def only(body: dict[str, Any], *allowed: str) -> dict[str, Any]:
    """The body, if it has no fields but `allowed` (a PATCH cannot rename by accident)."""
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise ApiError("invalid_request_error",
                       f"Unknown field(s) {', '.join(map(repr, unknown[:5]))}; expected "
                       f"{', '.join(map(repr, allowed))}.")
    return body


@overload
def string(body: dict[str, Any], name: str, *, min_len: int = 1, max_len: int = 4096,
           required: Literal[True] = True) -> str: ...
@overload
def string(body: dict[str, Any], name: str, *, min_len: int = 1, max_len: int = 4096,
           required: bool) -> str | None: ...
def string(body: dict[str, Any], name: str, *, min_len: int = 1, max_len: int = 4096,
           required: bool = True) -> str | None:
    """A string field of 1..max_len characters (or None when optional and absent)."""
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise ApiError("invalid_request_error", f"{name!r} must be a string.")
    if not min_len <= len(value) <= max_len:
        raise ApiError("invalid_request_error",
                       f"{name!r} must be {min_len} to {max_len:,} characters long.")
    return value


def integer(value: Any, name: str, *, low: int, high: int) -> int:
    """An integer in [low, high]; booleans and floats are not integers."""
    if isinstance(value, str):
        if not value.isascii() or not value.lstrip("-").isdigit() or len(value) > 12:
            raise ApiError("invalid_request_error", f"{name!r} must be an integer.")
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ApiError("invalid_request_error", f"{name!r} must be an integer.")
    if not low <= value <= high:
        raise ApiError("invalid_request_error", f"{name!r} must be between {low} and {high}.")
    return value


def doc_name(value: Any) -> str:
    """A doc file_name: 1-255 characters, `/`-separated segments, none empty, `.` or `..`,
    no leading slash, backslash, control/format character or look-alike separator, and
    unchanged by NFKC normalisation (so `‥` and fullwidth forms cannot pose as dots)."""
    if not isinstance(value, str):
        raise ApiError("invalid_request_error", "'file_name' must be a string.")
    if not 1 <= len(value) <= 255:
        raise ApiError("invalid_request_error", "'file_name' must be 1 to 255 characters long.")
    bad = (
        "\\" in value
        or any(c in _SLASH_LOOKALIKES for c in value)
        or any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp") for c in value)
        or unicodedata.normalize("NFKC", value) != value
        or any(segment in ("", ".", "..") for segment in value.split("/"))
        or value != value.strip()
    )
    if bad:
        raise ApiError("invalid_request_error",
                       "'file_name' must be a relative path without '.', '..' or empty "
                       "segments, backslashes or control characters.")
    return value
