"""The embedded reference service's preview browser: no Playwright driver and no chromium
until the first preview (each user server of a hub would otherwise carry both from the
start), one as it starts when `JDP_WARM_PREVIEW_BROWSER` asks, and a preview that works
after the lazy launch."""

from __future__ import annotations

import base64
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from jupyter_design_projects.embedded import EmbeddedService, start_embedded
from jupyter_design_projects.errors import ServiceStartFailed
from jupyter_design_projects.server.design.demo import PARTNER_ID
from jupyter_design_projects.settings import Settings
from jupyter_design_projects.transport.http import loopback_tls
from tests.design_headers import DESIGN_HEADERS

DEADLINE_S = 60.0


def descendants(pid: int) -> list[str]:
    """The command lines of every process below `pid` (children, theirs, ...)."""
    parents: dict[int, int] = {}
    lines: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rpartition(")")[2].split()
            lines[int(entry.name)] = (entry / "cmdline").read_bytes().replace(
                b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        parents[int(entry.name)] = int(stat[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        for child, its_parent in parents.items():
            if its_parent == parent:
                found.append(lines.get(child, ""))
                frontier.append(child)
    return found


def browser_processes(service: EmbeddedService) -> list[str]:
    """The service's Playwright driver and chromium processes."""
    assert service.process is not None
    return [line for line in descendants(service.process.pid)
            if "chromium" in line or "run-driver" in line]


def wait_for(check: Any, what: str) -> Any:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"{what} within {DEADLINE_S:g} s")


class Design:
    """A raw MCP session with the service (consent given), enough to ask for a preview."""

    def __init__(self, service: EmbeddedService) -> None:
        token = json.loads(service.credentials_file.read_text())["access_token"]
        self.auth = {"authorization": f"Bearer {token}"}
        self.headers = {**self.auth, "accept": "application/json, text/event-stream",
                        "content-type": "application/json", "accept-encoding": "identity"}
        self.http = httpx.Client(base_url=service.base_url, timeout=DEADLINE_S,
                                 headers=DESIGN_HEADERS, verify=loopback_tls())
        init = self.rpc("initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                       "clientInfo": {"name": "claude-cli-design-tool",
                                                      "version": "1"}})
        self.headers["mcp-session-id"] = init.headers["mcp-session-id"]
        self.http.post("/v1/design/mcp", headers=self.headers,
                       json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert self.http.post("/v1/design/consent", headers=self.auth, json={
            "consent": "agent_design_projects"}).status_code == 204

    def rpc(self, method: str, params: dict[str, Any]) -> httpx.Response:
        return self.http.post("/v1/design/mcp", headers=self.headers, json={
            "jsonrpc": "2.0", "id": 1, "method": method, "params": params})

    def tool(self, name: str, **arguments: Any) -> list[dict[str, Any]]:
        result = self.rpc("tools/call", {"name": name, "arguments": arguments}).json()
        assert not result["result"].get("isError"), result
        return result["result"]["content"]


@pytest.fixture
def data_dir(tmp_path, seeded_database) -> Path:
    """A service data dir holding a copy of the seeded demo database."""
    from jupyter_design_projects.server.app import DB_FILE

    folder = tmp_path / "service"
    folder.mkdir(mode=0o700)
    shutil.copyfile(seeded_database, folder / DB_FILE)
    return folder


def test_no_browser_runs_until_the_first_preview_which_then_works(data_dir, monkeypatch):
    monkeypatch.delenv("JDP_WARM_PREVIEW_BROWSER", raising=False)
    service = start_embedded(data_dir)  # the default, as a user server starts it
    try:
        design = Design(service)
        assert design.tool("list_projects")  # the service answers Design calls
        assert browser_processes(service) == []
        summary, image = design.tool("render_preview", project_id=PARTNER_ID,
                                     path="index.html")
        assert json.loads(summary["text"])["text_content"]
        assert base64.b64decode(image["data"])[:8] == b"\x89PNG\r\n\x1a\n"
        assert any("chromium" in line for line in browser_processes(service))
        design.http.close()
    finally:
        service.stop()


def test_the_warm_setting_launches_the_browser_as_the_service_starts(data_dir,
                                                                     monkeypatch):
    monkeypatch.setenv("JDP_WARM_PREVIEW_BROWSER", "1")
    service = start_embedded(data_dir)
    try:
        wait_for(lambda: any("chromium" in line for line in browser_processes(service)),
                 "a chromium below the warm service")
    finally:
        service.stop()


def test_a_bad_warm_setting_is_a_clear_start_failure_and_starts_nothing(tmp_path,
                                                                       monkeypatch):
    monkeypatch.setenv("JDP_WARM_PREVIEW_BROWSER", "warm")
    before = descendants(os.getpid())
    with pytest.raises(ServiceStartFailed) as caught:
        start_embedded(tmp_path / "service")
    assert caught.value.reason == "cannot_start"
    assert "JDP_WARM_PREVIEW_BROWSER" in caught.value.log_tail
    assert descendants(os.getpid()) == before
    assert not (tmp_path / "service").exists()


@pytest.mark.parametrize(("raw", "warm"), [("", False), ("0", False), ("off", False),
                                           ("1", True), ("yes", True)])
def test_the_warm_setting_is_read_from_the_environment(raw, warm):
    assert Settings.resolve({"JDP_WARM_PREVIEW_BROWSER": raw}).warm_preview_browser is warm
