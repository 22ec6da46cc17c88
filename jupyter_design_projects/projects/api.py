"""The two Projects transports behind one interface: the org API (`web_base_url`, scopes
expanded before the first request) and the remote-session route (`api_base_url`, the
session token as bearer). Both answer through `wire`; neither ever takes a project id from
a caller — the attached project comes from the settings alone."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

import httpx

from ..core import budgets
from ..core.project_paths import is_canonical_uuid
from ..core.redaction import Secret
from ..errors import (
    AuthError,
    ConfigError,
    JdpError,
    MalformedProjectsAnswer,
    OriginNotAllowed,
    ProjectsApiError,
    ProjectsAuthFailed,
    ProjectsOriginRefused,
    ProjectsTransportFailed,
    ReplaceIncomplete,
    ReplaceOutcomeUnknown,
    TransportError,
)
from ..settings import Settings
from ..transport.http import Answer, JsonBody, send
from . import wire

#: spec §12: one total deadline per request, both routes
DEADLINE_S = 30.0
REMOTE_SESSION_PATH = "/v2/ccr-sessions/-/chat-project"


class ProjectsApi(Protocol):
    """What the client needs from a route. `replace_doc` is PATCH on the org API and
    delete + create on the remote-session route (ReplaceIncomplete when half done)."""

    route: str

    async def detail(self) -> dict[str, Any]: ...
    async def search(self, query: str, n: int) -> dict[str, Any]: ...
    async def read_doc(self, doc_uuid: str) -> dict[str, Any]: ...
    async def read_extracted(self, file_uuid: str) -> dict[str, Any]: ...
    async def read_raw(self, file_uuid: str, sink: Callable[[bytes], None]) -> None: ...
    async def create_doc(self, file_name: str, content: str) -> dict[str, Any]: ...
    async def replace_doc(self, doc_uuid: str, file_name: str, content: str) -> dict[str, Any]: ...
    async def delete_doc(self, doc_uuid: str) -> None: ...
    def take_notice(self) -> str | None: ...


def open_api(
    http: httpx.AsyncClient,
    settings: Settings,
    ensure_scopes: Callable[[], Awaitable[str | None]],
    secrets: Callable[[], Iterable[Secret]] = tuple,
) -> ProjectsApi:
    """The remote-session route when a session token is set, else the org API."""
    project = settings.project_uuid
    if not is_canonical_uuid(project):
        raise ConfigError("project_uuid", "must be a canonical lowercase UUID")
    if settings.session_jwt is not None:
        return SessionApi(http, settings.api_base_url, settings.session_jwt, secrets)
    return OrgApi(http, settings, ensure_scopes, secrets)


async def exchange(http: httpx.AsyncClient, method: str, url: str, *, action: str,
                   route: str, secrets: Iterable[Secret], **kwargs: Any) -> Answer:
    """One request of either route under its cap and the 30 s deadline. Every failure
    reaches the caller as a `ProjectsApiError` naming the action and the route: a non-2xx
    answer with its status, no usable answer (connect, read, cap, deadline) as
    `ProjectsTransportFailed` with the status where one was read, no usable credential (a
    401 after the one refresh, a failed refresh) as `ProjectsAuthFailed`, and a token kept
    back by the allowlist as `ProjectsOriginRefused`; the error underneath is `__cause__`."""
    try:
        answer = await send(http, method, url, action=action,
                            max_bytes=budgets.answer_max_bytes(action), deadline_s=DEADLINE_S,
                            **kwargs)
    except OriginNotAllowed as exc:
        raise ProjectsOriginRefused(action, route, exc.origin) from exc
    except AuthError as exc:
        raise auth_failed(exc, action, route) from exc
    except TransportError as exc:
        raise ProjectsTransportFailed(action, exc.reason, route, exc.status,
                                      exc.fields.get("limit"), detail=exc.detail) from None
    return wire.check(answer, secrets, route)


def auth_failed(exc: AuthError, action: str, route: str) -> ProjectsAuthFailed:
    """A credential error met by a Projects action, wrapped (a second 401 keeps its 401).
    Its message is the cause's own (already free of tokens) prefixed with the action."""
    status = 401 if exc.reason == "unauthorized_after_refresh" else None
    return ProjectsAuthFailed(action, route, exc.reason, exc.kind, status,
                              message=f"Projects {action} ({route} route): {exc.message}")


def _checked_id(value: str, action: str) -> str:
    if not is_canonical_uuid(value):
        raise MalformedProjectsAnswer(action, "names an id that is not a canonical UUID")
    return value


class OrgApi:
    route = "org"

    def __init__(
        self,
        http: httpx.AsyncClient,
        settings: Settings,
        ensure_scopes: Callable[[], Awaitable[str | None]],
        secrets: Callable[[], Iterable[Secret]] = tuple,
    ) -> None:
        self._http = http
        self._settings = settings
        self._ensure_scopes = ensure_scopes
        self._secrets = secrets
        self._scopes_ready = False
        self._notice: str | None = None
        self._prefix: str | None = None

    def take_notice(self) -> str | None:
        notice, self._notice = self._notice, None
        return notice

    async def _ready(self) -> str:
        if not self._scopes_ready:
            try:
                self._notice = await self._ensure_scopes()
            except AuthError as exc:  # the scopes could not be added (or no sign-in)
                raise auth_failed(exc, "add the Projects scopes", self.route) from exc
            self._scopes_ready = True
        if self._prefix is None:
            org = self._settings.org_uuid or await self._first_org()
            if not is_canonical_uuid(org):
                raise ConfigError("org_uuid", "must be a canonical lowercase UUID")
            self._prefix = (
                f"{self._settings.web_base_url}/api/organizations/{org}"
                f"/projects/{self._settings.project_uuid}"
            )
        return self._prefix

    async def _first_org(self) -> str:
        answer = await self._exchange("GET", f"{self._settings.web_base_url}/api/organizations",
                                      action="list organizations")
        orgs = wire.json_value(answer)
        if not isinstance(orgs, list) or not orgs or not isinstance(orgs[0], dict):
            raise MalformedProjectsAnswer("list organizations", "lists no organization")
        return str(orgs[0].get("uuid", ""))

    async def _exchange(self, method: str, url: str, *, action: str, **kwargs: Any) -> Answer:
        return await exchange(self._http, method, url, action=action, route=self.route,
                              secrets=self._secrets(), **kwargs)

    async def _call(self, method: str, tail: str, *, action: str, **kwargs: Any) -> Answer:
        prefix = await self._ready()
        return await self._exchange(method, prefix + tail, action=action, **kwargs)

    async def detail(self) -> dict[str, Any]:
        return wire.json_object(await self._call("GET", "/detail", action="detail"))

    async def search(self, query: str, n: int) -> dict[str, Any]:
        answer = await self._call("GET", "/kb/search", action="search",
                                  params={"query": query, "n": n})
        return wire.json_object(answer)

    async def read_doc(self, doc_uuid: str) -> dict[str, Any]:
        tail = f"/docs/{_checked_id(doc_uuid, 'read doc')}"
        return wire.parse_doc(wire.json_object(await self._call("GET", tail, action="read doc")),
                              "read doc")

    async def read_extracted(self, file_uuid: str) -> dict[str, Any]:
        tail = f"/files/{_checked_id(file_uuid, 'read extracted text')}/extracted"
        return wire.json_object(await self._call("GET", tail, action="read extracted text"))

    async def read_raw(self, file_uuid: str, sink: Callable[[bytes], None]) -> None:
        """The raw answer's bytes go to `sink` as they arrive (a 20 MiB file is ~27 MiB of
        JSON: never held whole)."""
        tail = f"/files/{_checked_id(file_uuid, 'download')}/raw"
        await self._call("GET", tail, action="download", sink=sink)

    async def create_doc(self, file_name: str, content: str) -> dict[str, Any]:
        answer = await self._call("POST", "/docs", action="create doc",
                                  content=JsonBody({"file_name": file_name, "content": content}))
        return wire.parse_doc(wire.json_object(answer), "create doc", keep_content=False)

    async def replace_doc(self, doc_uuid: str, file_name: str, content: str) -> dict[str, Any]:
        tail = f"/docs/{_checked_id(doc_uuid, 'replace doc')}"
        answer = await self._call("PATCH", tail, action="replace doc",
                                  content=JsonBody({"content": content}))
        return wire.parse_doc(wire.json_object(answer), "replace doc", keep_content=False)

    async def delete_doc(self, doc_uuid: str) -> None:
        await self._call("DELETE", f"/docs/{_checked_id(doc_uuid, 'delete doc')}",
                         action="delete doc")


class SessionApi:
    """The remote-session route: the session token binds org and project, so the body
    carries no project id; there is no update op, so a replace is delete then create."""

    route = "remote-session"

    def __init__(
        self,
        http: httpx.AsyncClient,
        api_base_url: str,
        session_jwt: Secret,
        secrets: Callable[[], Iterable[Secret]] = tuple,
    ) -> None:
        self._http = http
        self._url = api_base_url + REMOTE_SESSION_PATH
        self._jwt = session_jwt
        self._secrets = secrets

    def take_notice(self) -> str | None:
        return None

    async def _op(self, op: str, *, action: str, sink: Callable[[bytes], None] | None = None,
                  **args: Any) -> Answer:
        return await exchange(
            self._http, "POST", self._url, action=action, route=self.route,
            secrets=[self._jwt, *self._secrets()], content=JsonBody({"op": op, **args}),
            headers={"Authorization": f"Bearer {self._jwt.reveal()}"}, sink=sink,
        )

    async def detail(self) -> dict[str, Any]:
        return wire.json_object(await self._op("detail", action="detail"))

    async def search(self, query: str, n: int) -> dict[str, Any]:
        return wire.json_object(await self._op("kb-search", action="search", query=query, n=n))

    async def read_doc(self, doc_uuid: str) -> dict[str, Any]:
        answer = await self._op("read-doc", action="read doc",
                                doc_uuid=_checked_id(doc_uuid, "read doc"))
        return wire.parse_doc(wire.json_object(answer), "read doc")

    async def read_extracted(self, file_uuid: str) -> dict[str, Any]:
        answer = await self._op("read-file", action="read extracted text",
                                file_uuid=_checked_id(file_uuid, "read extracted text"))
        return wire.json_object(answer)

    async def read_raw(self, file_uuid: str, sink: Callable[[bytes], None]) -> None:
        await self._op("read-file-raw", action="download",
                       file_uuid=_checked_id(file_uuid, "download"), sink=sink)

    async def create_doc(self, file_name: str, content: str) -> dict[str, Any]:
        answer = await self._op("write-doc", action="create doc", file_name=file_name,
                                content=content)
        return wire.parse_doc(wire.json_object(answer), "create doc", keep_content=False)

    async def replace_doc(self, doc_uuid: str, file_name: str, content: str) -> dict[str, Any]:
        """Delete then create. Once the delete is done, a refused create is
        `ReplaceIncomplete`; a create with no usable answer may have landed, so it is
        `ReplaceOutcomeUnknown` — never reported as a plain failure or as success."""
        await self.delete_doc(doc_uuid)
        try:
            return await self.create_doc(file_name, content)
        except ProjectsTransportFailed as exc:
            raise ReplaceOutcomeUnknown(file_name, doc_uuid, exc.message) from None
        except ProjectsApiError as exc:
            raise ReplaceIncomplete(file_name, doc_uuid, exc.message) from None
        except JdpError as exc:
            raise ReplaceOutcomeUnknown(file_name, doc_uuid, exc.message) from None

    async def delete_doc(self, doc_uuid: str) -> None:
        await self._op("delete-doc", action="delete doc",
                       doc_uuid=_checked_id(doc_uuid, "delete doc"))
