"""The Design tool against an in-memory Design service: gates, reads, the catalogue view,
consent, and refusals."""

import json

import pytest

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from jupyter_design_projects.design.client import DesignClient
from jupyter_design_projects.errors import (
    GateClosed,
    InvalidArguments,
    NeedsConsent,
    PermissionRefused,
    UnknownOperation,
)
from jupyter_design_projects.errors.remedy import Remedy
from jupyter_design_projects.settings import Settings
from tests.fakes.design import BASE, P1, FakeDesign, answer, client_for, write

# --------------------------------------------------------------------- gates

@pytest.mark.asyncio
@pytest.mark.parametrize(("gates", "gate"), [
    ({"allow_design_sync": False}, "allow_design_sync"),
    ({"essential_traffic_only": True}, "essential_traffic_only"),
    ({"design_feature_flag": False}, "design_feature_flag"),
])
async def test_closed_gate_raises_and_sends_nothing(gates, gate):
    service = FakeDesign()
    client = client_for(service, **gates)
    with pytest.raises(GateClosed) as caught:
        await client.call("list_files", {"project_id": P1})
    assert (caught.value.tool, caught.value.gate) == ("Design", gate)
    assert service.log == []


@pytest.mark.asyncio
async def test_no_configured_service_is_a_closed_gate():
    client = DesignClient(FakeDesign().client(), Settings(), can_ask=lambda: True,
                          operations=BY_NAME)
    with pytest.raises(GateClosed) as caught:
        await client.list()
    assert caught.value.gate == "api_base_url"


# --------------------------------------------------------------------- reads, list

@pytest.mark.asyncio
async def test_read_only_call_runs_without_a_card():
    outcome = await client_for(FakeDesign()).call("list_files", {"project_id": P1})
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error
    assert outcome.data == [{"path": "index.html", "type": "file"},
                            {"path": "old.html", "type": "file"}]


@pytest.mark.asyncio
async def test_list_is_the_clients_catalogue_view():
    client = client_for(FakeDesign())
    first = await client.call("list", {})
    second = await client.list()
    assert len(first.data["operations"]) == len(BY_NAME)
    assert second.data["catalog_unchanged"] is True


@pytest.mark.asyncio
async def test_images_are_decoded_from_the_outcome():
    outcome = await client_for(FakeDesign()).call(
        "render_preview", {"project_id": P1, "path": "index.html"})
    assert outcome.images == [("image/png", b"\x89PNG-ish")]
    assert outcome.data is None
    result = outcome.to_tool_result("toolu_1")
    assert (result["tool_use_id"], result["is_error"]) == ("toolu_1", False)


@pytest.mark.asyncio
async def test_invalid_arguments_come_back_as_an_error_outcome():
    outcome = await client_for(FakeDesign()).call("list_files", {"project_id": P1, "pth": "x"})
    assert isinstance(outcome.error, InvalidArguments) and outcome.is_error
    assert outcome.to_tool_result("t")["is_error"] is True


@pytest.mark.asyncio
async def test_unknown_operation_before_discovery_says_call_list():
    outcome = await client_for(FakeDesign()).call("brand_new_op", {})
    assert isinstance(outcome.error, UnknownOperation)
    assert outcome.error.reason == "call_list_first"


# --------------------------------------------------------------------- consent


async def consent_card(service):
    """A client of `service`, and what its first list_files call answers (the consent card
    where consent is missing)."""
    client = client_for(service)
    return client, await client.call("list_files", {"project_id": P1})


@pytest.mark.asyncio
async def test_known_missing_consent_shows_the_consent_card_before_sending():
    service = FakeDesign(consent=False)
    _, pending = await consent_card(service)
    assert isinstance(pending, PendingApproval) and pending.request.kind == "consent"
    assert service.calls() == []


@pytest.mark.asyncio
async def test_needs_consent_fails_the_call_and_seeds_the_next_consent_card():
    service = FakeDesign(consent=False)
    service.consent_get_status = 500  # the prefetch fails: consent unknown
    client, failed = await consent_card(service)
    # spec §6 (the failure table): the call that met the 403 fails …
    assert isinstance(failed, DesignOutcome) and isinstance(failed.error, NeedsConsent)
    assert failed.to_tool_result("t")["is_error"] is True
    assert service.calls() == ["list_files"]
    assert client.engine.consent is False
    # … and the next permission decision shows the card, sending nothing
    pending = await client.call("list_files", {"project_id": P1})
    assert isinstance(pending, PendingApproval) and pending.request.kind == "consent"
    assert service.calls() == ["list_files"]


@pytest.mark.asyncio
async def test_approved_consent_is_posted_and_the_call_retried_once():
    service = FakeDesign(consent=False)
    client, pending = await consent_card(service)
    outcome = await client.resume(pending, approved=True)
    assert not outcome.is_error and outcome.data[0]["path"] == "index.html"
    assert ("POST", "/v1/design/consent") in service.sent()
    assert (await client.status())["consent"] is True


@pytest.mark.asyncio
async def test_second_needs_consent_after_approval_is_an_error_not_a_loop():
    service = FakeDesign(consent=False)
    client, pending = await consent_card(service)

    original = service.handle

    def refuse_consent(request):
        if request.method == "POST" and request.url.path == "/v1/design/consent":
            service.log.append(("POST", request.url.path))
            return answer(204)  # claims success, yet the service keeps refusing
        return original(request)
    service.handle = refuse_consent
    client = DesignClient(service.client(), Settings(api_base_url=BASE), can_ask=lambda: True,
                          operations=BY_NAME)
    outcome = await client.resume(pending, approved=True)
    assert isinstance(outcome.error, NeedsConsent)


@pytest.mark.asyncio
async def test_without_a_person_missing_consent_is_refused_naming_the_command():
    service = FakeDesign(consent=False)
    outcome = await client_for(service, can_ask=False).call("list_files", {"project_id": P1})
    assert isinstance(outcome.error, PermissionRefused)
    assert (outcome.error.reason, outcome.error.remedy) == ("consent_not_given",
                                                            Remedy("consent"))
    assert service.calls() == [] and ("POST", "/v1/design/consent") not in service.sent()


@pytest.mark.asyncio
async def test_refusal_keeps_its_code_as_reason_and_reads_as_a_sentence():
    outcome = await client_for(FakeDesign(), can_ask=False).call("write_files", write())
    folded = json.loads(outcome.to_tool_result("t")["content"][0]["text"])
    assert (folded["error"], folded["reason"], folded["remedy"]) == \
        ("permission_denied", "nobody_can_approve", outcome.error.remedy.to_dict())
    assert folded["message"] == outcome.error.message != folded["reason"]
    assert folded["next_step"] == outcome.error.next_step


@pytest.mark.asyncio
async def test_consent_withdrawn_elsewhere_drops_the_grant_and_asks_again():
    service = FakeDesign(grants=[P1])
    client = client_for(service)
    assert (await client.call("write_files", write())).data == {"written": 1}
    service.consent = False  # withdrawn in Design settings: every grant goes with it
    service.grants.clear()
    failed = await client.call("write_files", write("b.html"))
    assert isinstance(failed.error, NeedsConsent)
    assert not client.engine.is_verified(P1)
    pending = await client.call("write_files", write("b.html"))
    assert isinstance(pending, PendingApproval) and pending.request.kind == "consent"
    grant_card = await client.resume(pending, approved=True)
    assert isinstance(grant_card, PendingApproval) and grant_card.request.kind == "grant"
    assert "b.html" not in service.files[P1]


@pytest.mark.asyncio
async def test_explicit_consent_and_revoke():
    service = FakeDesign(consent=False, grants=[P1])
    client = client_for(service)
    assert (await client.consent())["consent"] is True
    status = await client.revoke()
    assert status["revoked"] is True and status["consent"] is False
    assert ("DELETE", "/v1/design/consent") in service.sent()


@pytest.mark.asyncio
async def test_denied_card_sends_nothing():
    service = FakeDesign()
    client = client_for(service)
    pending = await client.call("write_files", write())
    before = list(service.log)
    outcome = await client.resume(pending, approved=False)
    assert isinstance(outcome.error, PermissionRefused)
    assert outcome.error.reason == "denied_on_card"
    assert service.log == before and "a.html" not in service.files[P1]
