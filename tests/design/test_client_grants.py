"""The Design tool's durable project grants against an in-memory Design service: the
card, minting, reuse, grant-ineligible projects and hostile identities."""

import pytest

from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from jupyter_design_projects.errors import NeedsConsent, PermissionRefused
from tests.fakes.design import P1, P2, FakeDesign, client_for, write

# --------------------------------------------------------------------- grants

@pytest.mark.asyncio
async def test_grant_card_shows_the_verified_project_identity():
    pending = await client_for(FakeDesign()).call("write_files", write())
    request = pending.request
    assert (request.kind, request.allows_durable) == ("grant", True)
    assert (request.project_name, request.url, request.writes) == \
        ("Quarterly Review Deck", "https://design.example/p/p1", ("a.html",))
    assert len(request.text) <= 2000


@pytest.mark.asyncio
async def test_durable_approval_mints_the_grant_and_retries_once():
    service = FakeDesign()
    client = client_for(service)
    pending = await client.call("write_files", write())
    outcome = await client.resume(pending, approved=True, durable=True)
    assert outcome.data == {"written": 1} and service.files[P1]["a.html"] == "<p>hi</p>"
    assert service.calls().count("write_files") == 2  # 403 needs_project_grant, then retry
    assert ("POST", "/v1/design/grants") in service.sent()
    assert (await client.status())["verified_grants"] == [P1]
    # from now on ordinary writes to the project go through silently
    again = await client.call("write_files", write("b.html"))
    assert isinstance(again, DesignOutcome) and again.data == {"written": 1}


@pytest.mark.asyncio
async def test_approve_once_on_a_grant_card_plans_exactly_this_batch():
    service = FakeDesign()
    client = client_for(service)
    pending = await client.call("write_files", write("./a.html"))
    outcome = await client.resume(pending, approved=True, durable=False)
    assert outcome.data == {"written": 1}
    assert service.calls() == ["get_project", "finalize_plan", "write_files"]
    plan_args = service.log[-2][2]
    assert (plan_args["writes"], plan_args["deletes"]) == (["a.html"], [])
    assert ("POST", "/v1/design/grants") not in service.sent()


@pytest.mark.asyncio
async def test_existing_server_grant_is_reused_without_a_card():
    service = FakeDesign(grants=[P1])
    outcome = await client_for(service).call("write_files", write())
    assert outcome.data == {"written": 1}
    assert ("GET", "/v1/design/grants") in service.sent()


@pytest.mark.asyncio
async def test_existing_grant_is_reused_where_nobody_can_answer():
    service = FakeDesign(grants=[P1])
    outcome = await client_for(service, can_ask=False).call("write_files", write())
    assert outcome.data == {"written": 1}


@pytest.mark.asyncio
async def test_no_grant_is_minted_where_nobody_can_answer():
    service = FakeDesign()
    outcome = await client_for(service, can_ask=False).call("write_files", write())
    assert isinstance(outcome.error, PermissionRefused)
    assert outcome.error.reason == "nobody_can_approve"
    assert "write_files" not in service.calls()
    assert ("POST", "/v1/design/grants") not in service.sent()


@pytest.mark.asyncio
async def test_grant_ineligible_project_falls_back_to_per_batch_plans():
    service = FakeDesign()
    client = client_for(service)
    pending = await client.call("write_files", write(project=P2))
    assert pending.request.kind == "grant"
    plan_card = await client.resume(pending, approved=True, durable=True)
    assert isinstance(plan_card, PendingApproval)
    assert (plan_card.request.kind, plan_card.request.allows_durable) == ("plan", False)
    assert (await client.status())["grant_ineligible"] == [P2]
    outcome = await client.resume(plan_card, approved=True)
    assert outcome.data == {"written": 1} and "a.html" in service.files[P2]
    # the next batch goes straight to a plan card: no grant card, no POST
    posts = service.sent("POST")
    nxt = await client.call("write_files", write("b.html", project=P2))
    assert nxt.request.kind == "plan" and service.sent("POST") == posts


@pytest.mark.asyncio
async def test_revoked_grant_on_the_service_brings_the_card_back():
    service = FakeDesign(grants=[P1])
    client = client_for(service)
    assert (await client.call("write_files", write())).data == {"written": 1}
    service.grants.clear()  # revoked in Design settings
    pending = await client.call("write_files", write("b.html"))
    assert isinstance(pending, PendingApproval) and pending.request.kind == "grant"
    assert (await client.status())["verified_grants"] == []


@pytest.mark.asyncio
@pytest.mark.parametrize("name", ["Acme\u202eKCED", "\u0410cme Deck", "Ac\u200bme"])
async def test_hostile_project_name_refuses_the_grant_card(name):
    service = FakeDesign(name=name)
    pending = await client_for(service).call("write_files", write())
    assert (pending.request.kind, pending.request.allows_durable) == ("plan", False)
    assert name not in pending.request.text
    assert pending.request.reason.startswith("grant_card_refused_name_")


@pytest.mark.asyncio
async def test_durable_is_ignored_on_a_card_that_does_not_allow_it():
    service = FakeDesign(name="Ac\u200bme")
    client = client_for(service)
    pending = await client.call("write_files", write())
    outcome = await client.resume(pending, approved=True, durable=True)
    assert outcome.data == {"written": 1}
    assert ("POST", "/v1/design/grants") not in service.sent()


@pytest.mark.asyncio
async def test_consent_withdrawn_while_minting_the_grant_fails_the_call_and_asks_next():
    class WithdrawnAtMint(FakeDesign):
        def handle(self, request):
            if request.url.path == "/v1/design/grants" and request.method == "POST":
                self.consent = False  # withdrawn elsewhere between the write and the mint
            return super().handle(request)

    service = WithdrawnAtMint()
    client = client_for(service)
    pending = await client.call("write_files", write())
    failed = await client.resume(pending, approved=True, durable=True)
    # spec §6: the call that met needs_consent fails; the next decision shows the card
    assert isinstance(failed, DesignOutcome) and isinstance(failed.error, NeedsConsent)
    assert "a.html" not in service.files.get(P1, {})
    follow_up = await client.call("write_files", write())
    assert isinstance(follow_up, PendingApproval) and follow_up.request.kind == "consent"
