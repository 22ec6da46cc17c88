"""The reference service as existing clients of the hosted APIs expect it (issue 13), on
loopback: a claude.ai Projects client that only knows the org routes lists, creates,
updates, uploads and deletes with a bearer token and nothing else (a plain httpx script,
as such a client is); and a standard MCP client discovers the authorize and token
endpoints from the MCP endpoint's 401 with the official SDK's OAuth discovery, then signs
in with PKCE S256 and calls the endpoint."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
import secrets
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp.client.auth.utils import (
    build_oauth_authorization_server_metadata_discovery_urls,
    build_protected_resource_metadata_discovery_urls,
    create_oauth_metadata_request,
    extract_resource_metadata_from_www_auth,
    handle_auth_metadata_response,
    handle_protected_resource_response,
    validate_metadata_issuer,
)

from jupyter_design_projects.core.owner_proof import authorize_proof
from jupyter_design_projects.embedded import EmbeddedService
from jupyter_design_projects.transport.http import loopback_tls
from tests.sign_in_page import click_authorize, redirect_fields

FULL_SCOPES = ("user:profile user:inference user:mcp_servers user:file_upload "
               "user:design:read user:design:write user:projects:read user:projects:write")
PROJECT_KEYS = {"uuid", "name", "description", "prompt_template", "is_private", "archived_at",
                "created_at", "updated_at"}
DOC_KEYS = {"uuid", "file_name", "content", "created_at", "updated_at",
            "estimated_token_count"}
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


def signed_in(service: EmbeddedService) -> dict[str, str]:
    """The Authorization header of a client that signed in with every scope (a refresh of
    the service's first credential asking for the full list, as PROTOCOL §1 has it)."""
    stored = json.loads(Path(service.credentials_file).read_text())
    answer = httpx.post(service.base_url + "/v1/oauth/token", json={
        "grant_type": "refresh_token", "refresh_token": stored["refresh_token"],
        "client_id": stored["client_id"], "scope": FULL_SCOPES}, verify=loopback_tls())
    answer.raise_for_status()
    body = answer.json()
    stored.update(access_token=body["access_token"], refresh_token=body["refresh_token"],
                  scopes=body["scope"].split())
    Path(service.credentials_file).write_text(json.dumps(stored))
    return {"Authorization": f"Bearer {body['access_token']}"}


# ---------------------------------------------------------------- claude.ai Projects clients


def test_organizations_carry_capabilities(service) -> None:
    orgs = httpx.get(service.base_url + "/api/organizations", headers=signed_in(service),
                     verify=loopback_tls()).json()
    assert [set(o) for o in orgs] == [{"uuid", "name", "capabilities"}]
    assert orgs[0]["capabilities"] == ["chat", "claude_pro"]


def test_a_bearer_client_lists_creates_updates_uploads_and_deletes(service) -> None:
    """The script an existing claude.ai Projects client runs, with no other adapter."""
    auth = signed_in(service)
    with httpx.Client(base_url=service.base_url, headers=auth, verify=loopback_tls()) as web:
        org = next(o["uuid"] for o in web.get("/api/organizations").json()
                   if "chat" in o["capabilities"])
        listed = web.get(f"/api/organizations/{org}/projects")
        assert listed.status_code == 200
        handbook = next(p for p in listed.json() if p["uuid"] == service.project_uuid)
        assert set(handbook) == PROJECT_KEYS
        assert (handbook["name"], handbook["is_private"], handbook["archived_at"]) == (
            "Team Handbook", True, None)
        assert RFC3339.match(handbook["created_at"]) and RFC3339.match(handbook["updated_at"])

        created = web.post(f"/api/organizations/{org}/projects",
                           json={"name": "Field notes", "description": "from a client",
                                 "is_private": False})
        assert created.status_code == 201
        project = created.json()
        assert set(project) == PROJECT_KEYS
        assert (project["name"], project["description"], project["is_private"]) == (
            "Field notes", "from a client", False)
        listed_now = [p["uuid"] for p in web.get(f"/api/organizations/{org}/projects").json()]
        assert project["uuid"] in listed_now and service.project_uuid in listed_now

        base = f"/api/organizations/{org}/projects/{project['uuid']}"
        updated = web.put(base, json={"name": "Field notes (2026)",
                                      "description": "updated",
                                      "prompt_template": "Answer briefly."})
        assert updated.status_code == 200
        assert (updated.json()["name"], updated.json()["prompt_template"]) == (
            "Field notes (2026)", "Answer briefly.")
        assert web.get(f"{base}/detail").json()["prompt_template"] == "Answer briefly."

        uploaded = web.post(f"{base}/docs", json={"file_name": "notes/day-1.md",
                                                  "content": "# Day 1\nzebra sighting\n"})
        assert uploaded.status_code == 201
        docs = web.get(f"{base}/docs").json()
        assert [set(d) for d in docs] == [DOC_KEYS]
        assert (docs[0]["file_name"], docs[0]["content"]) == ("notes/day-1.md",
                                                              "# Day 1\nzebra sighting\n")

        assert web.delete(f"{base}/docs/{docs[0]['uuid']}").status_code == 204
        assert web.get(f"{base}/docs").json() == []


def test_every_doc_of_a_project_comes_with_its_content(service) -> None:
    auth = signed_in(service)
    base = (f"{service.base_url}/api/organizations/{service.org_uuid}"
            f"/projects/{service.project_uuid}")
    docs = httpx.get(f"{base}/docs", headers=auth, verify=loopback_tls()).json()
    detail = httpx.get(f"{base}/detail", headers=auth, verify=loopback_tls()).json()
    assert sorted(d["uuid"] for d in docs) == sorted(d["uuid"] for d in detail["documents"])
    assert all(d["content"] for d in docs)


@pytest.mark.parametrize(("method", "tail", "body", "status"), [
    ("GET", "", None, 401), ("POST", "", {"name": "x"}, 401),
    ("PUT", "/{project}", {"name": "x"}, 401), ("GET", "/{project}/docs", None, 401),
])
def test_the_org_routes_need_a_bearer(service, method, tail, body, status) -> None:
    url = (f"{service.base_url}/api/organizations/{service.org_uuid}/projects"
           + tail.format(project=service.project_uuid))
    answer = httpx.request(method, url, json=body, verify=loopback_tls())
    assert answer.status_code == status
    assert answer.json()["error"]["type"] == "authentication_error"


def test_a_read_only_token_cannot_create_or_update(service) -> None:
    stored = json.loads(Path(service.credentials_file).read_text())
    answer = httpx.post(service.base_url + "/v1/oauth/token", json={
        "grant_type": "refresh_token", "refresh_token": stored["refresh_token"],
        "client_id": stored["client_id"], "scope": "user:profile user:projects:read"},
        verify=loopback_tls())
    body = answer.json()
    stored.update(access_token=body["access_token"], refresh_token=body["refresh_token"])
    Path(service.credentials_file).write_text(json.dumps(stored))
    auth = {"Authorization": f"Bearer {body['access_token']}"}
    org = f"{service.base_url}/api/organizations/{service.org_uuid}/projects"
    assert httpx.get(org, headers=auth, verify=loopback_tls()).status_code == 200
    assert httpx.post(org, headers=auth, json={"name": "x"},
                      verify=loopback_tls()).status_code == 403
    assert httpx.put(f"{org}/{service.project_uuid}", headers=auth,
                     json={"name": "x"}, verify=loopback_tls()).status_code == 403


def test_a_session_token_sees_only_its_project_and_cannot_create(service) -> None:
    auth = {"Authorization": f"Bearer {service.session_jwt}"}
    org = f"{service.base_url}/api/organizations/{service.org_uuid}/projects"
    assert [p["uuid"] for p in httpx.get(org, headers=auth,
                                         verify=loopback_tls()).json()] == [service.project_uuid]
    assert httpx.post(org, headers=auth, json={"name": "x"},
                      verify=loopback_tls()).status_code == 403


# ---------------------------------------------------------------- standard MCP clients


async def _discover(service: EmbeddedService) -> tuple[Any, Any]:
    """What the MCP SDK's client-side OAuth does on a 401: the resource metadata named in
    WWW-Authenticate (else the well-known URLs), then the authorization server's."""
    mcp_url = service.base_url + "/v1/design/mcp"
    async with httpx2.AsyncClient() as http:
        refused = await http.post(mcp_url, json={"jsonrpc": "2.0", "id": 1,
                                                 "method": "initialize", "params": {}},
                                  headers={"accept": "application/json, text/event-stream"})
        assert refused.status_code == 401
        named = extract_resource_metadata_from_www_auth(refused)
        assert named == service.base_url + "/.well-known/oauth-protected-resource/v1/design/mcp"
        resource = None
        for url in build_protected_resource_metadata_discovery_urls(named, mcp_url):
            resource = await handle_protected_resource_response(
                await http.send(create_oauth_metadata_request(url)))
            if resource is not None:
                break
        assert resource is not None
        issuer = str(resource.authorization_servers[0])
        server = None
        for url in build_oauth_authorization_server_metadata_discovery_urls(issuer, mcp_url):
            found, server = await handle_auth_metadata_response(
                await http.send(create_oauth_metadata_request(url)))
            if server is not None or not found:
                break
        assert server is not None
        validate_metadata_issuer(server, issuer)
        return resource, server


@pytest.mark.asyncio
async def test_the_mcp_sdk_discovers_the_authorize_and_token_endpoints(service) -> None:
    resource, server = await _discover(service)
    assert str(resource.resource) == service.base_url + "/v1/design/mcp"
    assert set(resource.scopes_supported) == {"user:design:read", "user:design:write"}
    assert str(server.authorization_endpoint) == service.base_url + "/oauth/authorize"
    assert str(server.token_endpoint) == service.base_url + "/v1/oauth/token"
    assert server.code_challenge_methods_supported == ["S256"]
    assert "authorization_code" in server.grant_types_supported


@pytest.mark.parametrize("path", ["/.well-known/oauth-protected-resource",
                                  "/.well-known/oauth-protected-resource/v1/design/mcp",
                                  "/.well-known/oauth-authorization-server"])
def test_the_well_known_documents_need_no_token(service, path) -> None:
    answer = httpx.get(service.base_url + path, verify=loopback_tls())
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/json")


@pytest.mark.asyncio
async def test_a_client_signs_in_through_the_discovered_endpoints(service) -> None:
    """PKCE S256 against what discovery found, then the MCP endpoint admits the token."""
    resource, server = await _discover(service)
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(
        hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    state = secrets.token_urlsafe(12)
    redirect = "http://127.0.0.1/callback"
    client_id = "jdp-notebook-client"
    url = str(httpx.URL(str(server.authorization_endpoint), params={
        "response_type": "code", "client_id": client_id, "redirect_uri": redirect,
        "scope": " ".join(resource.scopes_supported), "state": state,
        "code_challenge": challenge, "code_challenge_method": "S256",
        # the service's owner opens it: a link with the owner's proof for this attempt
        # (as their notebook or Jupyter server makes it; anyone else gets a 403 page)
        "owner_proof": authorize_proof(service.owner_secret().reveal(), state, challenge)}))
    # a person clicks Authorize; the page sends the browser to the client's loopback URI
    target, fields = redirect_fields(await asyncio.to_thread(click_authorize, url,
                                                             follow=False))
    assert (target, fields["state"]) == (redirect, state)
    code = fields["code"]
    # the first MCP request builds the service's endpoint (the SDK's import: up to seconds
    # on a loaded machine), past httpx's default 5 s
    with httpx.Client(timeout=60.0, verify=loopback_tls()) as http:
        token = http.post(str(server.token_endpoint), json={
            "grant_type": "authorization_code", "code": code, "code_verifier": verifier,
            "client_id": client_id, "redirect_uri": redirect, "state": state})
        assert token.status_code == 200
        access = token.json()["access_token"]
        answer = http.post(str(resource.resource), headers={
            "Authorization": f"Bearer {access}",
            # a generic MCP client sends the Design API's version as a configured header
            # (MCP Inspector: --header "anthropic-version: 2023-06-01")
            "anthropic-version": "2023-06-01",
            "accept": "application/json, text/event-stream"}, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                       "clientInfo": {"name": "generic-client", "version": "1"}}})
    assert answer.status_code == 200
    assert answer.headers.get("mcp-session-id")
