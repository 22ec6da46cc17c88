"""The reference service as the figures use it: started by the embedded launcher (the
`jdp-server` subprocess a notebook starts, on loopback, in a temp data dir), the Settings
and raw clients that point at it, and its request counters (`--faults` only)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from jupyter_design_projects.design.session import identity_headers
from jupyter_design_projects.embedded import EmbeddedService, start_embedded
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings

MCP_PATH = "/v1/design/mcp"
MCP_HEADERS = {"Accept": "application/json, text/event-stream",
               "Content-Type": "application/json"}
#: the service's database file in its data dir (server/app.py's DB_FILE)
DB_FILE = "service.sqlite3"


@contextlib.contextmanager
def running(data_dir: Path, *, faults: bool = False,
            warm_browser: bool | None = None) -> Iterator[EmbeddedService]:
    """The service, with its credential file's token already expanded to the project
    scopes (by a Session, as a notebook's first Projects call does), so raw clients
    reading that file are allowed the same routes. `warm_browser`: launch its preview
    browser as it starts (None: as `JDP_WARM_PREVIEW_BROWSER` says; off by default)."""
    service = start_embedded(data_dir, faults=faults, warm_browser=warm_browser)
    try:
        with Session(settings_of(service), data_dir=data_dir / "scopes-session") as s:
            s.run(s.credentials.ensure_project_scopes(policy_allows=True))
        yield service
    finally:
        service.stop()


def env_of(service: EmbeddedService) -> dict[str, str]:
    """What a user sets to point the magics at a running service (as `tasks.py lab` does)."""
    return {"JDP_API_BASE_URL": service.base_url,
            "JDP_CREDENTIALS_FILE": str(service.credentials_file),
            "JDP_ORG_UUID": service.org_uuid or "",
            "CLAUDE_PROJECT_UUID": service.project_uuid or ""}


def settings_of(service: EmbeddedService) -> Settings:
    return Settings.resolve(env_of(service))


def token(service: EmbeddedService) -> str:
    return str(json.loads(service.credentials_file.read_text())["access_token"])


def request_headers(service: EmbeddedService) -> dict[str, str]:
    """The bearer token and the Design identity headers the client sends (spec §5), which
    every baseline sends too."""
    return {"Authorization": f"Bearer {token(service)}",
            **identity_headers(Settings.resolve({}).client_platform)}


def raw_client(service: EmbeddedService) -> httpx.Client:
    """A bare sync httpx client with `request_headers`: the baseline of every figure."""
    return httpx.Client(headers=request_headers(service), timeout=120)


def project_url(service: EmbeddedService) -> str:
    return (f"{service.base_url}/api/organizations/{service.org_uuid}"
            f"/projects/{service.project_uuid}")


def give_consent(service: EmbeddedService) -> None:
    with raw_client(service) as http:
        http.post(service.base_url + "/v1/design/consent",
                  json={"consent": "agent_design_projects"}).raise_for_status()


def raw_mcp_session(http: httpx.Client, service: EmbeddedService) -> dict[str, str]:
    """initialize + initialized by hand; the headers of every later request."""
    url = service.base_url + MCP_PATH
    init = http.post(url, headers=MCP_HEADERS, content=json.dumps({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "1"}}}))
    init.raise_for_status()
    headers = {**MCP_HEADERS, "Mcp-Session-Id": init.headers["mcp-session-id"],
               "MCP-Protocol-Version": "2025-03-26"}
    http.post(url, headers=headers, content=json.dumps(
        {"jsonrpc": "2.0", "method": "notifications/initialized"})).raise_for_status()
    return headers


def tool_call_body(tool: str, arguments: dict[str, Any] | None = None) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": tool, "arguments": arguments or {}}}).encode()


def counts(service: EmbeddedService) -> dict[str, int]:
    """The service's request counters (the /_faults routes, on with faults=True)."""
    with httpx.Client() as http:
        answer = http.get(service.base_url + "/_faults/counts")
        answer.raise_for_status()
        return dict(answer.json())


def reset_counts(service: EmbeddedService) -> None:
    with httpx.Client() as http:
        http.post(service.base_url + "/_faults/reset", json={}).raise_for_status()
