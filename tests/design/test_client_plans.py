"""The Design tool's path plans and membership changes against an in-memory Design
service: expiry, coverage, cards wider than shown, and one-off plans."""

import pytest

from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from jupyter_design_projects.errors import InvalidArguments, PermissionRefused
from tests.fakes.design import NOW, P1, Clock, FakeDesign, client_for, write

# --------------------------------------------------------------------- plans

@pytest.mark.asyncio
async def test_approved_plan_lets_its_paths_through_until_the_exact_expiry():
    service = FakeDesign()
    clock = Clock()
    client = client_for(service, clock=clock)
    pending = await client.call("finalize_plan", {"project_id": P1, "deletes": ["old.html"]})
    assert pending.request.kind == "plan" and pending.request.deletes == ("old.html",)
    plan = await client.resume(pending, approved=True)
    token = plan.data["plan_token"]
    expires = (await client.status())["approved_plans"][0]["expires_at_ms"]
    assert expires == NOW + 900_000
    clock.now = expires - 1
    args = {"project_id": P1, "plan_token": token, "paths": ["old.html"]}
    outcome = await client.call("delete_files", args)
    assert outcome.data == {"deleted": 1}
    clock.now = expires
    again = await client.call("delete_files", args)
    assert isinstance(again, PendingApproval) and again.request.reason == "plan_token_expired"


@pytest.mark.asyncio
async def test_plan_token_does_not_cover_another_path():
    service = FakeDesign()
    client = client_for(service)
    plan = await client.resume(
        await client.call("finalize_plan", {"project_id": P1, "deletes": ["old.html"]}),
        approved=True)
    args = {"project_id": P1, "plan_token": plan.data["plan_token"], "paths": ["index.html"]}
    pending = await client.call("delete_files", args)
    assert pending.request.reason == "plan_token_does_not_cover"
    assert "index.html" in service.files[P1]


@pytest.mark.asyncio
async def test_plan_wider_than_its_card_is_not_registered():
    service = FakeDesign()
    service.plan_extra_writes = ["sneaky.html"]
    client = client_for(service)
    await client.resume(await client.call("finalize_plan", {"project_id": P1,
                                                            "writes": ["a.html"]}),
                        approved=True)
    assert (await client.status())["approved_plans"] == []


@pytest.mark.asyncio
async def test_per_batch_plan_wider_than_its_card_writes_nothing():
    service = FakeDesign()
    service.plan_extra_writes = ["sneaky.html"]
    client = client_for(service)
    pending = await client.call("write_files", write())
    outcome = await client.resume(pending, approved=True, durable=False)
    assert isinstance(outcome.error, PermissionRefused)
    assert outcome.error.reason == "plan_mismatch"
    assert service.calls() == ["get_project", "finalize_plan"]
    assert (await client.status())["approved_plans"] == []


@pytest.mark.asyncio
async def test_batch_over_the_review_limits_is_asked_and_sent_once_spec_s7():
    service = FakeDesign(name="Ac\u200bme")
    files = [{"path": f"f{i}.html", "data": "x"} for i in range(21)]
    client = client_for(service)
    pending = await client.call("write_files", {"project_id": P1, "files": files})
    assert isinstance(pending, PendingApproval)
    assert pending.request.reason == "over_limit_too_many_writes"
    assert not pending.request.allows_durable
    assert "more than 20 writes" in pending.request.text
    # before the card only the existence check looked (no grant offered: no identity)
    assert service.calls() == ["get_project"]
    outcome = await client.resume(pending, approved=True)
    assert not outcome.is_error, outcome.blocks
    assert service.calls() == ["get_project", "finalize_plan", "write_files"]
    assert (await client.status())["approved_plans"] == []


@pytest.mark.asyncio
async def test_tokenless_delete_card_plans_then_deletes_exactly_what_it_showed():
    service = FakeDesign(grants=[P1])
    client = client_for(service)
    pending = await client.call("delete_files", {"project_id": P1, "plan_token": "made-up",
                                                 "paths": ["old.html"]})
    assert pending.request.kind == "operation" and pending.request.deletes == ("old.html",)
    pending.arguments["paths"].append("index.html")  # tampering after the card was shown
    outcome = await client.resume(pending, approved=True)
    assert outcome.data == {"deleted": 1}
    assert set(service.files[P1]) == {"index.html"}


@pytest.mark.asyncio
async def test_finalize_plan_scope_project_is_refused_by_validation():
    service = FakeDesign()
    outcome = await client_for(service).call(
        "finalize_plan", {"project_id": P1, "writes": ["a"], "scope": "project"})
    assert isinstance(outcome.error, InvalidArguments)
    assert (outcome.error.field, outcome.error.suggestion) == ("scope", "paths")
    assert service.calls() == []


# --------------------------------------------------------------------- membership

@pytest.mark.asyncio
async def test_membership_change_asks_every_time_and_uses_a_one_off_plan():
    service = FakeDesign(grants=[P1])
    client = client_for(service)
    await client.resume(await client.call("finalize_plan", {"project_id": P1,
                                                            "writes": ["a.html"]}),
                        approved=True)
    args = {"project_id": P1, "email": "maria@acme.example", "role": "editor"}
    pending = await client.call("add_member", args)
    assert pending.request.kind == "operation" and "email: maria@acme.example" in \
        pending.request.text
    outcome = await client.resume(pending, approved=True)
    assert outcome.data == {"account_uuid": "u1", "role": "editor"}
    assert service.members[P1] == [("maria@acme.example", "editor")]
    # a sharing change drops the project's plans and re-verifies its grant
    assert not client.engine.is_verified(P1)
    assert (await client.status())["approved_plans"] == []
    assert isinstance(await client.call("add_member", args), PendingApproval)


@pytest.mark.asyncio
async def test_a_write_card_for_a_project_the_service_does_not_know_is_never_shown():
    service = FakeDesign()
    client = client_for(service)
    outcome = await client.call("finalize_plan", {"project_id": "gone", "writes": ["a.html"]})
    assert isinstance(outcome, DesignOutcome) and outcome.error is not None
    assert (outcome.error.kind, outcome.error.field) == ("invalid_arguments", "project_id")
    assert "no project gone" in outcome.error.rule
    assert service.calls() == ["get_project"] and client.projects_seen == {}


@pytest.mark.asyncio
async def test_a_project_found_once_is_not_looked_up_again_before_its_next_card():
    service = FakeDesign()
    client = client_for(service)
    for path in ("a.html", "b.html"):
        pending = await client.call("finalize_plan", {"project_id": P1, "writes": [path]})
        assert isinstance(pending, PendingApproval)
    assert service.calls() == ["get_project"]
    assert client.projects_seen == {P1: "Quarterly Review Deck"}
