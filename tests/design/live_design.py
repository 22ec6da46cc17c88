"""Helpers for Design tests against the real reference service: an httpx client carrying
the service's stored access token, and an MCP session on its Design endpoint."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Iterator

import httpx

from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.design.session import McpSession
from jupyter_design_projects.transport.http import make_client
from tests.design_headers import DESIGN_HEADERS
from tests.faults_client import FaultsClient, faults

MCP_PATH = "/v1/design/mcp"


class FixedToken(httpx.Auth):
    """The stored access token on every request (the reference service's tokens are long
    lived; refresh is transport/auth.py's business, tested there)."""

    def __init__(self, token: Secret) -> None:
        self._token = token

    def auth_flow(self, request: httpx.Request) -> Iterator[httpx.Request]:
        request.headers["Authorization"] = f"Bearer {self._token.reveal()}"
        yield request


def stored_token(service) -> Secret:
    return Secret(json.loads(service.credentials_file.read_text())["access_token"])


def design_http(service) -> httpx.AsyncClient:
    """A raw client as the Design pipeline sends: the stored bearer and the identity
    headers on every request (a Design request without `anthropic-version` gets a 400)."""
    http = make_client(auth=FixedToken(stored_token(service)))
    http.headers.update(DESIGN_HEADERS)
    return http


@contextlib.asynccontextmanager
async def live_session(service, *, consent: bool = True) -> AsyncIterator[
        tuple[McpSession, FaultsClient, httpx.AsyncClient]]:
    """A fresh MCP session on the service (consent given first unless told otherwise);
    the fault switches are reset on the way out."""
    switches = faults(service)
    async with design_http(service) as http:
        if consent:
            answer = await http.post(service.base_url + "/v1/design/consent",
                                     json={"consent": "agent_design_projects"})
            assert answer.status_code == 204
        session = McpSession(http, service.base_url + MCP_PATH)
        try:
            yield session, switches, http
        finally:
            await session.close()
            switches.reset()


def delta(before: dict[str, int], after: dict[str, int], key: str) -> int:
    return after.get(key, 0) - before.get(key, 0)
