"""Where the Design client meets the spec clause by clause (§2, §5, §7, §8), against the
real reference service on loopback: the identity headers, the transport defaults, the
live catalogue, the review limits that gate registration (not the call), and the
grant_ineligible answer."""

from __future__ import annotations

import asyncio
import inspect
import re
import uuid
from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.core.grant_watch import grant_appeared
from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from jupyter_design_projects.design.client import DesignClient
from jupyter_design_projects.design.rest import DesignRest
from jupyter_design_projects.design.session import McpSession
from jupyter_design_projects.embedded import EmbeddedService
from jupyter_design_projects.errors import (
    GrantIneligible,
    ResponseTooLarge,
    UnexpectedContentType,
    UnknownOperation,
)
from jupyter_design_projects.server.design.demo import DECK_ID, PARTNER_ID
from jupyter_design_projects.settings import Settings
from jupyter_design_projects.transport.http import loopback_tls, make_client
from tests.design.live_design import FixedToken, design_http, stored_token
from tests.faults_client import faults

MCP = "/v1/design/mcp"
MISSING_VERSION = {"type": "invalid_request_error",
                   "message": "anthropic-version: header is required"}


@pytest_asyncio.fixture
async def http(reference_service: EmbeddedService) -> AsyncIterator[httpx.AsyncClient]:
    async with design_http(reference_service) as client:
        yield client


def design(http: httpx.AsyncClient, service: EmbeddedService, **settings) -> DesignClient:
    return DesignClient(http, Settings(api_base_url=service.base_url, **settings),
                        can_ask=lambda: True, operations=BY_NAME)


async def consent(http: httpx.AsyncClient, service: EmbeddedService) -> None:
    answer = await http.post(service.base_url + "/v1/design/consent",
                             json={"consent": "agent_design_projects"})
    assert answer.status_code == 204


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}.html"


async def paths_of(client: DesignClient, project: str) -> set[str]:
    outcome = await client.call("list_files", {"project_id": project, "depth": 5})
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error
    return {entry["path"] for entry in outcome.data}


# ---------------------------------------------------------------- §5 the identity headers


@pytest.mark.asyncio
async def test_every_design_request_names_version_and_platform_spec_s5(reference_service):
    service = reference_service
    async with make_client(auth=FixedToken(stored_token(service))) as bare:  # no defaults
        client = design(bare, service, client_platform="nb_test.platform-1")
        assert (await client.consent())["consent"] is True  # REST: POST, GET grants …
        outcome = await client.call("list_projects", {})  # MCP: the handshake and a call
        assert isinstance(outcome, DesignOutcome) and not outcome.is_error
        await client.close()  # MCP DELETE
    counts = faults(service).counts()
    design_requests = sum(n for key, n in counts.items()
                          if key.split(" ", 1)[-1].startswith("/v1/design/")
                          and not key.startswith(("mcp:", "design:")))
    assert design_requests >= 6
    assert counts["design:anthropic-version:2023-06-01"] == design_requests
    assert counts["design:anthropic-client-platform:nb_test.platform-1"] == design_requests


def test_client_platform_defaults_to_the_package_and_is_checked_spec_s5():
    from jupyter_design_projects.errors import ConfigError

    assert Settings.resolve({}).client_platform == "jupyter_design_projects"
    assert Settings.resolve({"JDP_CLIENT_PLATFORM": "lab"}).client_platform == "lab"
    assert Settings.resolve({}, {"client_platform": "a" * 64}).client_platform == "a" * 64
    for bad in ("a" * 65, "two words", "bad\r\nheader"):
        with pytest.raises(ConfigError) as caught:
            Settings.resolve({}, {"client_platform": bad})
        assert caught.value.setting == "client_platform"


@pytest.mark.parametrize("route", ["/v1/design/consent", "/v1/design/grants", MCP])
def test_design_request_without_anthropic_version_is_a_400_spec_s5(reference_service, route):
    service = reference_service
    auth = {"authorization": f"Bearer {stored_token(service).reveal()}",
            "accept": "application/json, text/event-stream"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    with httpx.Client(base_url=service.base_url, timeout=30.0, verify=loopback_tls()) as raw:
        missing = raw.post(route, headers=auth, json=body) if route == MCP else raw.get(
            route, headers=auth)
        assert missing.status_code == 400
        assert missing.json()["type"] == "error"
        assert missing.json()["error"] == MISSING_VERSION
        unknown_auth = {**auth, "anthropic-version": "2099-01-01"}
        unknown = raw.post(route, headers=unknown_auth, json=body) if route == MCP else \
            raw.get(route, headers=unknown_auth)
        assert unknown.status_code == 400
        assert "is not a valid version" in unknown.json()["error"]["message"]
        if route != MCP:
            named = raw.get(route, headers={**auth, "anthropic-version": "2023-06-01"})
            assert named.status_code == 200
        # the Projects routes are not Design routes: no version header needed there
        orgs = raw.get("/api/organizations", headers=auth)
        assert orgs.status_code != 400


def test_design_transport_defaults_are_60_s_and_2080000_bytes_spec_s5():
    parameters = inspect.signature(McpSession).parameters
    assert parameters["timeout_s"].default == 60.0
    assert parameters["max_bytes"].default == 2_080_000 == 16 * 130_000


@pytest.mark.asyncio
@pytest.mark.parametrize(("size", "too_large"), [(2_080_000, False), (2_080_001, True)])
async def test_answer_cap_is_2080000_bytes_at_the_boundary_spec_s5(
        reference_service, http, size, too_large):
    session = McpSession(http, reference_service.base_url + MCP)
    await session.tools()
    faults(reference_service).oversize(MCP, size=size)
    with pytest.raises(Exception) as caught:
        await session.call_tool("list_design_systems", {})
    assert isinstance(caught.value, ResponseTooLarge) is too_large
    if too_large:
        assert caught.value.limit == 2_080_000
    await session.close()


@pytest.mark.asyncio
async def test_sse_refusal_keeps_the_http_status_spec_s5(reference_service, http):
    await consent(http, reference_service)
    client = design(http, reference_service)
    await client.list()
    faults(reference_service).sse(MCP, tool="list_design_systems")
    outcome = await client.call("list_design_systems", {})
    assert isinstance(outcome.error, UnexpectedContentType)
    assert outcome.error.content_type == "text/event-stream"
    assert outcome.error.status == 200
    assert outcome.error.to_dict()["status"] == 200
    await client.close()


# ---------------------------------------------------------------- §2 the live catalogue


@pytest.mark.asyncio
async def test_list_reads_the_catalogue_the_server_offers_now_spec_s2(reference_service, http):
    switches = faults(reference_service)
    client = design(http, reference_service)
    first = (await client.list()).data
    before = switches.counts()["mcp:tools/list"]
    again = (await client.list()).data
    assert switches.counts()["mcp:tools/list"] == before + 1  # listed again, not cached
    assert again["catalog_unchanged"] is True
    assert again["catalog_hash"] == first["catalog_hash"]
    assert switches.design_operation("get_design_tips", "Tips for good decks. Read-only.")
    grown = (await client.list()).data
    assert "catalog_unchanged" not in grown
    assert grown["catalog_hash"] != first["catalog_hash"]
    tips = [op for op in grown["operations"] if op["name"] == "get_design_tips"]
    assert tips and tips[0]["read_only"] is True
    await client.close()


@pytest.mark.asyncio
async def test_operation_added_mid_session_is_discovered_once_more_spec_s2(
        reference_service, http):
    switches = faults(reference_service)
    await consent(http, reference_service)
    client = design(http, reference_service)
    await client.list()
    switches.design_operation("get_design_tips", "Tips for good decks.")
    before = switches.counts()["mcp:tools/list"]
    outcome = await client.call("get_design_tips", {})
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error, outcome.blocks
    assert outcome.data == {"operation": "get_design_tips", "ok": True}
    assert switches.counts()["mcp:tools/list"] == before + 1
    # now cached: the next call needs no discovery
    await client.call("get_design_tips", {})
    assert switches.counts()["mcp:tools/list"] == before + 1
    # an operation the server does not offer: one more discovery, then the refusal
    missing = await client.call("get_design_tricks", {})
    assert isinstance(missing.error, UnknownOperation)
    assert missing.error.reason == "not_in_catalogue"
    assert switches.counts()["mcp:tools/list"] == before + 2
    await client.close()


# ---------------------------------------------------------------- §7 review limits


@pytest.mark.asyncio
async def test_approved_21_file_batch_on_a_grant_ineligible_project_lands_spec_s7(
        reference_service, http):
    await consent(http, reference_service)
    client = design(http, reference_service)
    names = [unique(f"bulk{i}") for i in range(21)]
    files = [{"path": name, "data": "<p>x</p>"} for name in names]
    pending = await client.call("write_files", {"project_id": PARTNER_ID, "files": files})
    assert isinstance(pending, PendingApproval)
    request = pending.request
    assert request.reason == "over_limit_too_many_writes"
    assert request.buttons == ("Approve", "Deny")  # every button shown does what it says
    assert "no plan is registered and no grant is offered" in request.text
    outcome = await client.resume(pending, approved=True)
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error, outcome.blocks
    assert outcome.data["written"] == 21
    assert set(names) <= await paths_of(client, PARTNER_ID)
    status = await client.status()
    assert status["approved_plans"] == [] and status["verified_grants"] == []
    await client.close()


@pytest.mark.asyncio
async def test_finalize_plan_over_the_limits_is_sent_but_not_registered_spec_s7(
        reference_service, http):
    await consent(http, reference_service)
    client = design(http, reference_service)
    writes = [unique(f"plan{i}") for i in range(21)]
    pending = await client.call("finalize_plan", {"project_id": DECK_ID, "writes": writes})
    assert isinstance(pending, PendingApproval)
    assert pending.request.reason == "over_limit_too_many_writes"
    outcome = await client.resume(pending, approved=True)
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error, outcome.blocks
    token = outcome.data["plan_token"]
    assert (await client.status())["approved_plans"] == []
    # the token was not registered: a write that carries it is put to a person again
    again = await client.call("write_files", {"project_id": DECK_ID, "plan_token": token,
                                              "files": [{"path": writes[0], "data": "x"}]})
    assert isinstance(again, PendingApproval)
    assert again.request.reason == "plan_token_unknown"
    await client.close()


@pytest.mark.asyncio
async def test_grant_reuse_has_the_plans_80_char_path_limit_spec_s7(reference_service, http):
    await consent(http, reference_service)
    assert (await http.post(reference_service.base_url + "/v1/design/grants",
                            json={"project_id": DECK_ID})).status_code == 201
    client = design(http, reference_service)
    fits = "long/" + "a" * 70 + ".html"  # 80 characters
    over = "long/" + "b" * 71 + ".html"  # 81 characters
    assert (len(fits), len(over)) == (80, 81)
    silent = await client.call("write_files", {"project_id": DECK_ID,
                                               "files": [{"path": fits, "data": "x"}]})
    assert isinstance(silent, DesignOutcome) and not silent.is_error, silent.blocks
    asked = await client.call("write_files", {"project_id": DECK_ID,
                                              "files": [{"path": over, "data": "x"}]})
    assert isinstance(asked, PendingApproval)
    assert asked.request.reason == "over_limit_path_too_long"
    assert not asked.request.allows_durable
    done = await client.resume(asked, approved=True)
    assert isinstance(done, DesignOutcome) and not done.is_error, done.blocks
    assert {fits, over} <= await paths_of(client, DECK_ID)
    await client.close()


# ---------------------------------------------------------------- §8 grant_ineligible


@pytest.mark.asyncio
async def test_grant_ineligible_404_is_answered_and_named_spec_s8(reference_service, http):
    await consent(http, reference_service)
    raw = await http.post(reference_service.base_url + "/v1/design/grants",
                          json={"project_id": PARTNER_ID})
    assert raw.status_code == 404
    assert raw.json() == {"error": "grant_ineligible"}
    rest = DesignRest(http, reference_service.base_url)
    with pytest.raises(GrantIneligible) as caught:
        await rest.post_grant(PARTNER_ID)
    assert caught.value.kind == "grant_ineligible"
    assert caught.value.project_id == PARTNER_ID
    assert caught.value.to_dict()["error"] == "grant_ineligible"


# ---------------------------------------------------------------- §8 the grant watcher


async def grant_on_settings_page(service: EmbeddedService, project_id: str) -> None:
    """What a person does in Design settings outside the notebook: load the page, press
    Grant (a form post with the page's token)."""
    async with httpx.AsyncClient(base_url=service.base_url, timeout=30.0,
                                 verify=loopback_tls()) as browser:
        await browser.get(service.settings_link())  # the owner's link leaves the cookie
        page = await browser.get("/design/settings")
        token = re.search(r'name="form_token" value="([^"]+)"', page.text)
        assert token is not None
        answer = await browser.post("/design/settings/grants", data={
            "form_token": token.group(1), "project_id": project_id, "action": "grant"},
            headers={"origin": service.base_url})
        assert answer.status_code == 303


async def grant_card(client: DesignClient, path: str) -> PendingApproval:
    pending = await client.call("write_files", {"project_id": DECK_ID,
                                                "files": [{"path": path, "data": "x"}]})
    assert isinstance(pending, PendingApproval) and pending.request.kind == "grant"
    return pending


@pytest.mark.asyncio
async def test_grant_given_elsewhere_continues_the_waiting_call_spec_s8(
        reference_service, http):
    await consent(http, reference_service)
    client = design(http, reference_service)
    path = unique("elsewhere")
    pending = await grant_card(client, path)
    assert pending.grant_baseline is None
    claims: list[bool] = []

    def claim() -> bool:
        claims.append(True)
        return True

    watcher = asyncio.ensure_future(client.watch_grant(pending, claim=claim, interval_s=0.05,
                                                       lifetime_s=30.0))
    await grant_on_settings_page(reference_service, DECK_ID)
    outcome = await asyncio.wait_for(watcher, 30.0)
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error, outcome
    assert claims == [True]
    assert path in await paths_of(client, DECK_ID)
    assert DECK_ID in (await client.status())["verified_grants"]
    await client.close()


@pytest.mark.asyncio
async def test_watcher_sends_nothing_when_the_card_was_answered_first_spec_s8(
        reference_service, http):
    await consent(http, reference_service)
    client = design(http, reference_service)
    path = unique("answered")
    pending = await grant_card(client, path)
    watcher = asyncio.ensure_future(client.watch_grant(pending, claim=lambda: False,
                                                       interval_s=0.05, lifetime_s=30.0))
    await grant_on_settings_page(reference_service, DECK_ID)
    assert await asyncio.wait_for(watcher, 30.0) is None
    assert path not in await paths_of(client, DECK_ID)
    await client.close()


@pytest.mark.asyncio
async def test_watcher_is_bounded_by_its_lifetime_spec_s8(reference_service, http):
    await consent(http, reference_service)
    client = design(http, reference_service)
    pending = await grant_card(client, unique("bounded"))
    switches = faults(reference_service)
    before = switches.counts().get("GET /v1/design/grants", 0)
    assert await client.watch_grant(pending, claim=lambda: True, interval_s=0.05,
                                    lifetime_s=0.25) is None
    assert switches.counts()["GET /v1/design/grants"] - before == 5
    await client.close()


@pytest.mark.asyncio
async def test_grant_watch_off_watches_nothing_spec_s8(reference_service, http):
    await consent(http, reference_service)
    client = design(http, reference_service, grant_watch=False)
    pending = await grant_card(client, unique("off"))
    switches = faults(reference_service)
    before = switches.counts().get("GET /v1/design/grants", 0)
    assert await client.watch_grant(pending, claim=lambda: True, interval_s=0.05,
                                    lifetime_s=5.0) is None
    assert switches.counts().get("GET /v1/design/grants", 0) == before
    await client.close()


def test_a_grant_counts_only_when_newer_than_the_baseline_spec_s8():
    old, new = "2026-12-03T09:00:00.000Z", "2026-12-03T09:00:00.001Z"
    assert grant_appeared({DECK_ID: old}, DECK_ID, None)
    assert not grant_appeared({}, DECK_ID, None)
    assert not grant_appeared({DECK_ID: old}, DECK_ID, old)
    assert grant_appeared({DECK_ID: new}, DECK_ID, old)
    assert not grant_appeared({DECK_ID: "yesterday"}, DECK_ID, old)
    assert not grant_appeared({PARTNER_ID: new}, DECK_ID, None)
