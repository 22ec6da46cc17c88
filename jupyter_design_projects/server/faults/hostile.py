"""The hostile-content switch (only with --faults, set from loopback, off until set): while
it is on, every JSON answer of the Design and Projects routes has a payload appended to
each string a person may be shown — tool descriptions and titles, schema descriptions,
project names, paths, doc content, snippets, emails, error messages that echo input —
so a test can check that the client renders them as text. Identifiers, tokens, URLs,
times, encodings and base64 data stay as they are, so the client still works; tool names
too, unless the switch says `names` (the client must then refuse the catalogue cleanly).
Pure: bytes in, bytes out; the middleware in `switches` applies it."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from .. import paths

#: longest payload the switch takes; most keys it keeps clean on request
MAX_PAYLOAD_CHARS = 16_384
MAX_KEEP = 32
#: keys whose values (and everything below them) are protocol, not text
KEEP_KEYS = frozenset({
    "jsonrpc", "method", "protocolVersion", "type", "mimeType", "mime_type", "encoding",
    "data", "id", "uuid", "etag", "etags", "scope", "scopes", "link_permission", "required",
    "enum", "const", "format", "pattern", "$schema", "$ref", "file_kind", "status",
    "sha256", "hash", "code", "state", "capabilities", "nextCursor", "cursor",
})
#: keys whose string values are codes (an `error` object's message is text)
CODE_KEYS = frozenset({"error", "kind", "reason", "rule", "consent", "role"})
#: keys ending so are ids, URLs, times or secrets
KEEP_SUFFIXES = ("_id", "_uuid", "_url", "url", "Url", "_at", "_token", "token", "_type",
                 "_kind", "_ids")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                   r"[0-9a-fA-F]{12}")
_URL = re.compile(r"https?://\S*")
_TIME = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d\S*")


@dataclasses.dataclass(frozen=True)
class Hostile:
    """The switch's setting: the payload, whether tool names carry it too, and keys whose
    values stay clean as well (`path` and `file_name`: reads by path still find the doc,
    whose content then carries the payload)."""

    payload: str
    names: bool = False
    keep: frozenset[str] = frozenset()


def applies(path: str) -> bool:
    """Whether answers on `path` are rewritten (Design and Projects; never OAuth)."""
    return (path.startswith(paths.DESIGN_PREFIX) or path.startswith(paths.ORGANIZATIONS)
            or path == paths.REMOTE_SESSION)


def _kept(key: str | None, value: str) -> bool:
    if key is not None and (key in KEEP_KEYS or key in CODE_KEYS
                            or key.endswith(KEEP_SUFFIXES)):
        return True
    return bool(_UUID.fullmatch(value) or _URL.fullmatch(value) or _TIME.fullmatch(value))


def taint(value: Any, hostile: Hostile, key: str | None = None) -> Any:
    """`value` with the payload appended to each string a person may be shown; a string
    holding a JSON object or array (an MCP result's text) is tainted inside."""
    if isinstance(value, dict):
        is_tool = "inputSchema" in value
        return {k: (v if k == "name" and is_tool and not hostile.names
                    else v if k in KEEP_KEYS or k in hostile.keep else taint(v, hostile, k))
                for k, v in value.items()}
    if isinstance(value, list):
        return [taint(item, hostile, key) for item in value]
    if not isinstance(value, str):
        return value
    if value[:1] in ("{", "["):
        try:
            inner = json.loads(value)
        except ValueError:
            inner = None
        if isinstance(inner, dict | list):
            return json.dumps(taint(inner, hostile, key), ensure_ascii=False)
    if _kept(key, value):
        return value
    return value + hostile.payload


def rewrite(body: bytes, hostile: Hostile) -> bytes | None:
    """A JSON answer's body with the payload in its strings, or None if it is not JSON."""
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return json.dumps(taint(value, hostile), ensure_ascii=False).encode("utf-8")
