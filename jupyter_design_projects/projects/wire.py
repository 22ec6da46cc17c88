"""The one place Projects answers become values or errors: non-2xx answers of either route
become `ProjectsApiError` with a redacted body, and 2xx answers are checked for the shape
the client relies on before anything reads them."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import Any

from ..core.project_paths import is_canonical_uuid
from ..core.redaction import Secret, redact_body, redact_then_truncate
from ..errors import MalformedProjectsAnswer, ProjectsApiError, TransportError
from ..transport.http import Answer

#: how much of an error body an error keeps (after redaction)
ERROR_BODY_CHARS = 1_000


def check(answer: Answer, secrets: Iterable[Secret] = (), route: str = "") -> Answer:
    """The answer itself when 2xx; otherwise the `ProjectsApiError` it stands for."""
    if 200 <= answer.status < 300:
        return answer
    raise ProjectsApiError(answer.action, answer.status, error_body(answer, secrets), route,
                           retry_after=answer.retry_after)


def error_body(answer: Answer, secrets: Iterable[Secret] = ()) -> str:
    """`kind: message` from the org envelope or the flat remote-session error, else the raw
    text; always redacted first, then truncated."""
    try:
        parsed = json.loads(answer.body)
    except (ValueError, RecursionError):
        parsed = None
    if isinstance(parsed, dict):
        inner = parsed.get("error")
        if isinstance(inner, dict):  # {"type":"error","error":{"type","message"}}
            text = f"{inner.get('type', 'error')}: {inner.get('message', '')}"
        elif isinstance(inner, str):  # {"error": "...", "code": "..."}
            text = f"{parsed.get('code', 'error')}: {inner}"
        else:
            return redact_body(bytes(answer.body), ERROR_BODY_CHARS, secrets)
        return redact_then_truncate(text, ERROR_BODY_CHARS, secrets)
    return redact_body(bytes(answer.body), ERROR_BODY_CHARS, secrets)


def json_value(answer: Answer) -> Any:
    """A 2xx body as JSON (its bytes are released as it is parsed: each answer is read
    once); a body that is not JSON is a malformed answer."""
    try:
        return answer.take_json()
    except TransportError:
        raise MalformedProjectsAnswer(answer.action, "is not JSON") from None


def json_object(answer: Answer) -> dict[str, Any]:
    value = json_value(answer)
    if not isinstance(value, dict):
        raise MalformedProjectsAnswer(answer.action, "is not a JSON object")
    return value


def field(obj: dict[str, Any], name: str, kind: type | tuple[type, ...], action: str) -> Any:
    value = obj.get(name)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        raise MalformedProjectsAnswer(action, f"has no valid {name!r}")
    return value


@dataclasses.dataclass(frozen=True)
class DocEntry:
    uuid: str
    path: str
    created_at: str | None
    estimated_token_count: int | None


@dataclasses.dataclass(frozen=True)
class FileEntry:
    file_uuid: str
    path: str
    file_kind: str
    file_size_bytes: int | None
    mime_type: str | None
    created_at: str | None


@dataclasses.dataclass(frozen=True)
class Detail:
    """The fresh view of the attached Project every read, write and delete starts from."""

    raw: dict[str, Any]
    docs: tuple[DocEntry, ...]
    files: tuple[FileEntry, ...]
    knowledge_size: int
    max_knowledge_size: int

    def doc(self, path: str) -> DocEntry | None:
        return next((d for d in self.docs if d.path == path), None)

    def file(self, path: str) -> FileEntry | None:
        return next((f for f in self.files if f.path == path), None)

    def paths(self) -> list[str]:
        return [d.path for d in self.docs] + [f.path for f in self.files]


def parse_detail(obj: dict[str, Any], action: str = "detail") -> Detail:
    """A ProjectDetail. Ids are checked where they are used (they go into URLs), so one odd
    entry cannot hide the rest of the Project from `info`."""
    docs = []
    for item in field(obj, "documents", list, action):
        if not isinstance(item, dict):
            raise MalformedProjectsAnswer(action, "lists a doc that is not an object")
        docs.append(DocEntry(
            uuid=field(item, "uuid", str, action),
            path=field(item, "file_name", str, action),
            created_at=_optional(item, "created_at", str),
            estimated_token_count=_optional(item, "estimated_token_count", int),
        ))
    files = []
    for item in obj.get("files") or []:
        if not isinstance(item, dict):
            raise MalformedProjectsAnswer(action, "lists an upload that is not an object")
        files.append(FileEntry(
            file_uuid=field(item, "file_uuid", str, action),
            path=field(item, "file_name", str, action),
            file_kind=field(item, "file_kind", str, action),
            file_size_bytes=_optional(item, "file_size_bytes", int),
            mime_type=_optional(item, "mime_type", str),
            created_at=_optional(item, "created_at", str),
        ))
    stats = field(obj, "knowledge_stats", dict, action)
    return Detail(
        raw=obj,
        docs=tuple(docs),
        files=tuple(files),
        knowledge_size=field(stats, "knowledge_size", int, action),
        max_knowledge_size=field(stats, "max_knowledge_size", int, action),
    )


def parse_doc(obj: dict[str, Any], action: str, *, keep_content: bool = True) -> dict[str, Any]:
    """A Doc: canonical uuid, file_name and string content (dropped when the caller
    wrote it and needs only the rest: a create or replace echoes megabytes back)."""
    if not is_canonical_uuid(obj.get("uuid")):
        raise MalformedProjectsAnswer(action, "has no canonical doc UUID")
    field(obj, "file_name", str, action)
    field(obj, "content", str, action)
    if not keep_content:
        del obj["content"]
    return obj


def _optional(obj: dict[str, Any], name: str, kind: type) -> Any:
    value = obj.get(name)
    if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        return value
    return None
