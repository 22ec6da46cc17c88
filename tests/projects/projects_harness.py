"""Helpers for Projects clients against the real reference service: a test-only bearer
auth and scope expansion (one plain OAuth refresh — the transport's BearerAuth and
CredentialManager are tested on their own), settings per route, and a transport that lets
a test arm service faults at an exact point of a request sequence."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx

from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.embedded import EmbeddedService
from jupyter_design_projects.settings import Settings
from jupyter_design_projects.transport.http import loopback_tls

FULL_SCOPES = ("user:profile user:inference user:mcp_servers user:file_upload "
               "user:design:read user:design:write user:projects:read user:projects:write")
NOTICE = "Added the Projects scopes to your sign-in."


class StaticBearer(httpx.Auth):
    """Attaches the current access token unless the request carries its own header."""

    def __init__(self) -> None:
        self.token: Secret | None = None

    def auth_flow(self, request: httpx.Request):
        if "authorization" not in request.headers and self.token is not None:
            request.headers["Authorization"] = f"Bearer {self.token.reveal()}"
        yield request


class Expander:
    """The `ensure_scopes` callback: one full-scope refresh of the service's credential."""

    def __init__(self, service: EmbeddedService, auth: StaticBearer) -> None:
        self.service = service
        self.auth = auth
        self.calls = 0

    async def __call__(self) -> str | None:
        self.calls += 1
        stored = json.loads(Path(self.service.credentials_file).read_text())
        if "user:projects:write" in stored["scopes"]:
            self.auth.token = Secret(stored["access_token"])
            return None
        async with httpx.AsyncClient(verify=loopback_tls()) as plain:
            answer = await plain.post(self.service.base_url + "/v1/oauth/token", json={
                "grant_type": "refresh_token", "refresh_token": stored["refresh_token"],
                "client_id": stored["client_id"], "scope": FULL_SCOPES})
        answer.raise_for_status()
        body = answer.json()
        self.auth.token = Secret(body["access_token"])
        stored.update(access_token=body["access_token"], refresh_token=body["refresh_token"],
                      scopes=body["scope"].split())
        Path(self.service.credentials_file).write_text(json.dumps(stored))
        return NOTICE


def settings_for(service: EmbeddedService, route: str, **overrides) -> Settings:
    values = {"api_base_url": service.base_url, "project_uuid": service.project_uuid}
    if route == "remote-session":
        values["session_jwt"] = service.session_jwt
    values.update(overrides)
    return Settings.resolve({}, values)


class Arming(httpx.AsyncBaseTransport):
    """A real loopback transport that shows each request to `before(op)` and, once
    answered, to `after(op)` — `op` being the remote-session op or `METHOD path` — so
    tests arm service faults at an exact point of a sequence."""

    def __init__(self, before: Callable[[str], None] | None = None,
                 after: Callable[[str], None] | None = None) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.before = before or (lambda op: None)
        self.after = after or (lambda op: None)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()  # a big body is streamed (JsonBody): read it to peek
        body = json.loads(request.content) if request.content else {}
        op = body.get("op") if isinstance(body, dict) and "op" in body else \
            f"{request.method} {request.url.path}"
        self.before(op)
        response = await self.inner.handle_async_request(request)
        self.after(op)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()
