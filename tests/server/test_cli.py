"""The service as users run it: the `jdp-server` CLI on loopback through uvicorn — the
startup line, the first credential, scope expansion, every route family over real HTTP,
restart keeping data, and SIGTERM."""

from __future__ import annotations

import json
import stat

import httpx
import pytest

from jupyter_design_projects.embedded import start_embedded
from jupyter_design_projects.server import cli
from jupyter_design_projects.transport.http import loopback_tls
from tests.design_headers import DESIGN_HEADERS
from tests.faults_client import faults

CLIENT = "jdp-notebook-client"
FULL = ("user:profile user:inference user:mcp_servers user:file_upload user:design:read "
        "user:design:write user:projects:read user:projects:write")


def expand(service) -> str:
    """The scope-expansion refresh the Projects client performs; returns the access token."""
    stored = json.loads(service.credentials_file.read_text())
    answer = httpx.post(service.base_url + "/v1/oauth/token", json={
        "grant_type": "refresh_token", "refresh_token": stored["refresh_token"],
        "client_id": CLIENT, "scope": FULL}, verify=loopback_tls())
    assert answer.status_code == 200
    body = answer.json()
    stored.update(access_token=body["access_token"], refresh_token=body["refresh_token"],
                  scopes=body["scope"].split())
    service.credentials_file.write_text(json.dumps(stored))
    return body["access_token"]


def test_the_startup_line_and_the_first_credential(reference_service) -> None:
    service = reference_service
    assert service.base_url.startswith("http://127.0.0.1:")
    assert service.org_uuid and service.project_uuid and service.session_jwt
    assert stat.S_IMODE(service.credentials_file.stat().st_mode) == 0o600
    stored = json.loads(service.credentials_file.read_text())
    assert stored["client_id"] == CLIENT
    assert "user:projects:read" not in stored["scopes"]


def test_the_first_projects_call_needs_the_scope_expansion(reference_service) -> None:
    service = reference_service
    url = (f"{service.base_url}/api/organizations/{service.org_uuid}/projects/"
           f"{service.project_uuid}/detail")
    stored = json.loads(service.credentials_file.read_text())
    before = httpx.get(url, headers={"authorization": f"Bearer {stored['access_token']}"},
                       verify=loopback_tls())
    assert before.status_code == 403
    after = httpx.get(url, headers={"authorization": f"Bearer {expand(service)}"},
                      verify=loopback_tls())
    assert after.status_code == 200 and after.json()["name"] == "Team Handbook"


def test_every_route_family_answers_over_loopback(reference_service) -> None:
    service = reference_service
    token = expand(service)
    auth = {"authorization": f"Bearer {token}"}
    # the first MCP request loads the SDK in the service (seconds on a loaded machine)
    with httpx.Client(base_url=service.base_url, timeout=60,
                      headers={"accept-encoding": "identity", **DESIGN_HEADERS},
                      verify=loopback_tls()) as h:
        assert h.get("/api/organizations", headers=auth).json()[0]["uuid"] == service.org_uuid
        search = h.get(f"/api/organizations/{service.org_uuid}/projects/"
                       f"{service.project_uuid}/kb/search",
                       params={"query": "raw event logs retention"}, headers=auth).json()
        assert search["text_results"][0]["name"] == "data-retention-policy.md"
        remote = h.post("/v2/ccr-sessions/-/chat-project", json={"op": "kb-stats"},
                        headers={"authorization": f"Bearer {service.session_jwt}"})
        assert remote.status_code == 200
        init = h.post("/v1/design/mcp", headers={
            **auth, "accept": "application/json, text/event-stream"}, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                       "clientInfo": {"name": "claude-cli-design-tool", "version": "1"}}})
        assert init.status_code == 200 and init.headers["mcp-session-id"]
        assert h.get("/v1/design/consent", headers=auth).json() == \
            {"agent_design_projects": False}
        assert h.get("/nowhere").json()["error"]["type"] == "not_found_error"
        assert h.get("/oauth/authorize").status_code == 403  # the owner's page only
    counts = faults(service).counts()
    assert counts["mcp:initialize"] == 1


def test_a_restart_keeps_data_ids_and_the_credential(tmp_path) -> None:
    first = start_embedded(tmp_path)
    try:
        token = expand(first)
        created = httpx.post(
            f"{first.base_url}/api/organizations/{first.org_uuid}/projects/"
            f"{first.project_uuid}/docs", headers={"authorization": f"Bearer {token}"},
            json={"file_name": "claude/kept.md", "content": "survives restarts"},
            verify=loopback_tls())
        assert created.status_code == 201
        credential = first.credentials_file.read_text()
    finally:
        first.stop()
    second = start_embedded(tmp_path)
    try:
        assert (second.org_uuid, second.project_uuid) == (first.org_uuid, first.project_uuid)
        assert second.credentials_file.read_text() == credential
        doc = httpx.get(f"{second.base_url}/api/organizations/{second.org_uuid}/projects/"
                        f"{second.project_uuid}/docs/{created.json()['uuid']}",
                        headers={"authorization": f"Bearer {token}"}, verify=loopback_tls())
        assert doc.json()["content"] == "survives restarts"
        names = [d["file_name"] for d in httpx.get(
            f"{second.base_url}/api/organizations/{second.org_uuid}/projects/"
            f"{second.project_uuid}/detail",
            headers={"authorization": f"Bearer {token}"},
            verify=loopback_tls()).json()["documents"]]
        assert names.count("glossary.md") == 1  # seeded once, not again
    finally:
        second.stop()


def test_sigterm_stops_the_service(tmp_path) -> None:
    service = start_embedded(tmp_path)
    service.stop()
    assert service.process.returncode is not None
    with pytest.raises(httpx.TransportError):
        httpx.get(service.base_url + "/api/organizations", timeout=2, verify=loopback_tls())


@pytest.mark.parametrize("argv", [["--port", "70000"], ["--seed", "nope"],
                                  ["--session-idle-timeout", "0"], ["--port", "x"]])
def test_bad_flags_exit_with_a_usage_error(argv, capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        cli.parse_args(argv)
    assert caught.value.code == 2


def test_flags_become_the_config(tmp_path) -> None:
    config = cli.config_from(cli.parse_args([
        "--data-dir", str(tmp_path), "--seed", "demo", "--faults", "--port", "8123",
        "--session-idle-timeout", "5"]))
    assert (config.data_dir, config.seed, config.faults, config.port,
            config.session_idle_timeout) == (tmp_path.resolve(), "demo", True, 8123, 5.0)
    assert config.warm_browser  # the service started from the command line warms it


def test_no_warm_browser_leaves_the_launch_to_the_first_preview(tmp_path) -> None:
    config = cli.config_from(cli.parse_args(["--data-dir", str(tmp_path), "--no-warm-browser"]))
    assert not config.warm_browser
    assert config.preview_browser is not None  # previews still use the browser


def test_the_faults_client_drives_a_service(reference_service) -> None:
    # its own service: expiring every token and dropping every MCP session would make
    # the next test on a shared service pay a refresh it did not ask for
    service = reference_service
    switch = faults(service)
    try:
        switch.fail("/api/organizations", status=529, count=1)
        assert httpx.get(service.base_url + "/api/organizations",
                         verify=loopback_tls()).status_code == 529
        assert httpx.get(service.base_url + "/api/organizations",
                         verify=loopback_tls()).status_code == 401
        assert switch.counts()["GET /api/organizations"] == 2
        assert switch.drop_mcp_sessions() >= 0
        assert switch.expire_tokens() >= 0
    finally:
        switch.reset()
    assert switch.counts() == {}


def test_eight_concurrent_refreshes_of_one_token_have_exactly_one_winner(
        reference_service) -> None:
    from concurrent.futures import ThreadPoolExecutor

    service = reference_service
    stored = json.loads(service.credentials_file.read_text())

    def refresh(_: int) -> int:
        return httpx.post(service.base_url + "/v1/oauth/token", json={
            "grant_type": "refresh_token", "refresh_token": stored["refresh_token"],
            "client_id": CLIENT, "scope": FULL}, timeout=30, verify=loopback_tls()).status_code

    with ThreadPoolExecutor(8) as pool:
        statuses = sorted(pool.map(refresh, range(8)))
    assert statuses == [200] + [400] * 7


def test_bound_socket_is_tcp_so_answers_are_not_held_by_nagle() -> None:
    import socket

    from jupyter_design_projects.server.cli import _bind

    sock = _bind("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
    finally:
        sock.close()
