"""Plan tokens the client uses once, and plans the service dropped (issue 32, items 2 and
3), against the in-memory Design service, which refuses plans as the reference service
words it (`Plan token refused (REASON)`) and spends single-use tokens (PROTOCOL §3).

A token naming a reserved target, or finalized for a membership or sharing change (with no
paths), is presented by exactly one call: the next such change is asked again and gets its
own. A plan the service says is unknown, spent or expired is forgotten and the call goes
back to the permission decision, once; any other refusal is the call's answer."""

from __future__ import annotations

import pytest

from jupyter_design_projects.core.design_inputs import Input, Text
from jupyter_design_projects.core.design_operations import (
    BY_NAME,
    DESIGN_OPERATIONS,
    DESTROY,
    PROJECT_ID,
    READ,
    Approval,
    DesignOperation,
    operation_table,
)
from jupyter_design_projects.core.plans import Targets
from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from jupyter_design_projects.design.client import DesignClient
from jupyter_design_projects.errors import PermissionRefused
from tests.fakes.design import P1, Clock, FakeDesign, client_for, write

MEMBERSHIP = {
    "add_member": {"project_id": P1, "email": "maria@acme.example", "role": "editor"},
    "update_member_role": {"project_id": P1, "account_uuid": "u1", "role": "viewer"},
    "remove_member": {"project_id": P1, "account_uuid": "u1"},
    "update_sharing": {"project_id": P1, "scope": "private"},
}


def sent(service: FakeDesign, name: str) -> list[dict]:
    return [args for _, called, args in service.sent("call") if called == name]


async def approved(client: DesignClient, operation: str, arguments: dict):
    pending = await client.call(operation, arguments)
    assert isinstance(pending, PendingApproval), pending
    return await client.resume(pending, approved=True)


# ---------------------------------------------------------------- used once (32.2)


@pytest.mark.asyncio
@pytest.mark.parametrize("operation", sorted(MEMBERSHIP))
async def test_a_membership_change_gets_a_pathless_token_that_it_presents_once(operation):
    service = FakeDesign(grants=[P1])
    client = client_for(service)
    for _ in range(2):  # each change asks, and each gets a token of its own
        outcome = await approved(client, operation, MEMBERSHIP[operation])
        assert isinstance(outcome, DesignOutcome) and not outcome.is_error, outcome.data
    assert sent(service, "finalize_plan") == [
        {"project_id": P1, "writes": [], "deletes": []}] * 2
    tokens = [args["plan_token"] for args in sent(service, operation)]
    assert len(tokens) == 2 and len(set(tokens)) == 2
    assert service.presented == tokens  # each token presented by exactly one call
    assert (await client.status())["approved_plans"] == []


@pytest.mark.asyncio
async def test_a_reserved_target_token_is_presented_once_and_the_next_change_asks_again():
    service = FakeDesign(grants=[P1])
    client = client_for(service)
    for _ in range(2):
        outcome = await approved(client, "write_files", write("CLAUDE.md"))
        assert isinstance(outcome, DesignOutcome) and not outcome.is_error, outcome.data
    tokens = [args["plan_token"] for args in sent(service, "write_files")]
    assert len(tokens) == 2 and len(set(tokens)) == 2
    assert service.presented == tokens and set(tokens) <= service.spent
    assert (await client.status())["approved_plans"] == []


@pytest.mark.asyncio
async def test_a_reserved_plan_from_its_card_is_never_presented_by_the_client():
    """The finalize_plan card for CLAUDE.md gives its token to the caller unregistered; a
    write carrying it is asked again and runs under a plan of its own."""
    service = FakeDesign()
    client = client_for(service)
    plan = await approved(client, "finalize_plan", {"project_id": P1, "writes": ["CLAUDE.md"]})
    token = plan.data["plan_token"]
    outcome = await approved(client, "write_files", write("CLAUDE.md", plan_token=token))
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error, outcome.data
    assert token not in service.presented and len(service.presented) == 1


# ---------------------------------------------------------------- dropped plans (32.3)


async def registered_plan(client: DesignClient) -> str:
    plan = await approved(client, "finalize_plan", {"project_id": P1, "writes": ["a.html"]})
    token = plan.data["plan_token"]
    assert client.engine.holds_plan(token)
    return token


@pytest.mark.asyncio
@pytest.mark.parametrize("reason", ["unknown", "spent", "expired"])
async def test_a_plan_the_service_no_longer_holds_is_dropped_and_the_call_asked_again(reason):
    service = FakeDesign()
    client = client_for(service)
    token = await registered_plan(client)
    service.refusal = reason
    again = await client.call("write_files", write("a.html", plan_token=token))
    assert isinstance(again, PendingApproval)
    assert (again.request.kind, again.request.reason) == ("operation", "plan_token_unknown")
    assert again.request.writes == ("a.html",)
    assert not client.engine.holds_plan(token)
    assert len(sent(service, "write_files")) == 1  # refused once, not sent again unasked
    service.refusal = None
    outcome = await client.resume(again, approved=True)
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error, outcome.data
    assert service.files[P1]["a.html"] == "<p>hi</p>"
    assert sent(service, "write_files")[-1]["plan_token"] != token


@pytest.mark.asyncio
async def test_after_consent_is_revoked_and_given_again_elsewhere_the_write_asks_again():
    service = FakeDesign()
    client = client_for(service)
    token = await registered_plan(client)
    service.forget_plans()  # the Design panel's Revoke then Give
    again = await client.call("write_files", write("a.html", plan_token=token))
    assert isinstance(again, PendingApproval)
    assert (await client.status())["approved_plans"] == []


@pytest.mark.asyncio
@pytest.mark.parametrize("reason", ["not_covered", "other_project", "missing",
                                    "paths_not_allowed"])
async def test_another_plan_refusal_is_the_calls_answer_and_keeps_the_plan(reason):
    service = FakeDesign()
    client = client_for(service)
    token = await registered_plan(client)
    service.refusal = reason
    outcome = await client.call("write_files", write("a.html", plan_token=token))
    assert isinstance(outcome, DesignOutcome) and outcome.is_error
    assert outcome.data.startswith(f"Plan token refused ({reason})")
    assert client.engine.holds_plan(token)
    assert len(sent(service, "write_files")) == 1


@pytest.mark.asyncio
async def test_an_error_that_is_no_plan_refusal_keeps_the_plan():
    service = FakeDesign()
    client = client_for(service)
    token = await registered_plan(client)

    def broken(**_):
        raise PermissionError("Path refused (reserved): 'a.html' (the plan is unknown)")

    service.op_write_files = broken
    outcome = await client.call("write_files", write("a.html", plan_token=token))
    assert isinstance(outcome, DesignOutcome) and outcome.is_error
    assert client.engine.holds_plan(token)


@pytest.mark.asyncio
async def test_the_call_is_decided_again_once_and_a_refusal_ends_it_where_nobody_can_ask():
    service = FakeDesign()
    answerable = {"now": True}
    client = DesignClient(service.client(), client_for(service)._settings,
                          can_ask=lambda: answerable["now"], clock_ms=Clock(), operations=BY_NAME)
    token = await registered_plan(client)
    service.refusal = "unknown"
    answerable["now"] = False
    outcome = await client.call("write_files", write("a.html", plan_token=token))
    assert isinstance(outcome, DesignOutcome)
    assert isinstance(outcome.error, PermissionRefused)
    assert outcome.error.reason == "nobody_can_approve"
    assert len(sent(service, "write_files")) == 1


@pytest.mark.asyncio
async def test_a_refusal_of_the_plan_made_after_asking_again_asks_once_more_not_in_a_loop():
    service = FakeDesign()
    client = client_for(service)
    token = await registered_plan(client)
    service.refusal = "unknown"  # the service refuses every plan from now on
    again = await client.call("write_files", write("a.html", plan_token=token))
    assert isinstance(again, PendingApproval)
    third = await client.resume(again, approved=True)
    assert isinstance(third, PendingApproval)  # asked again: a person decides, no loop
    assert len(sent(service, "write_files")) == 2
    assert len(sent(service, "finalize_plan")) == 2


#: a read that names a plan (what it would change): deciding it again allows it at once
PLAN_PREVIEW = DesignOperation(
    "preview_plan", "Show what a plan would change.", READ, True,
    (Input("project_id", PROJECT_ID, required=True), Input("plan_token", Text())))


class PreviewingDesign(FakeDesign):
    def __init__(self) -> None:
        super().__init__(table=operation_table((*DESIGN_OPERATIONS, PLAN_PREVIEW)))

    def op_preview_plan(self, project_id, plan_token=None):
        self.require(plan_token, project_id)
        return {"writes": []}


@pytest.mark.asyncio
async def test_a_call_decided_again_is_sent_again_at_most_once():
    service = PreviewingDesign()
    client = DesignClient(service.client(), client_for(service)._settings,
                          can_ask=lambda: True, clock_ms=Clock(), operations=service.table)
    token = await registered_plan(client)
    service.refusal = "unknown"
    outcome = await client.call("preview_plan", {"project_id": P1, "plan_token": token})
    assert isinstance(outcome, DesignOutcome) and outcome.is_error
    assert outcome.data.startswith("Plan token refused (unknown)")
    assert len(sent(service, "preview_plan")) == 2  # the first, and one after deciding again


#: a write whose targets the client cannot list: sent as written, under its own token
SWEEP = DesignOperation(
    "sweep_files", "Delete the files matching a pattern; needs a plan token.", DESTROY, False,
    (Input("project_id", PROJECT_ID, required=True), Input("pattern", Text(), required=True),
     Input("plan_token", Text(max_length=65536))),
    Approval.PLAN_TOKEN, lambda arguments: None)


class SweepingDesign(FakeDesign):
    def __init__(self) -> None:
        super().__init__(table=operation_table((*DESIGN_OPERATIONS, SWEEP)))

    def op_sweep_files(self, project_id, pattern, plan_token=None):
        self.require(plan_token, project_id)
        return {"deleted": 0}


@pytest.mark.asyncio
async def test_a_token_this_client_never_made_is_not_decided_again():
    service = SweepingDesign()
    client = DesignClient(service.client(), client_for(service)._settings,
                          can_ask=lambda: True, clock_ms=Clock(), operations=service.table)
    pending = await client.call("sweep_files", {"project_id": P1, "pattern": "*.tmp",
                                                "plan_token": "dpt_from_elsewhere"})
    assert isinstance(pending, PendingApproval)
    assert pending.request.reason == "targets_not_enumerable"
    outcome = await client.resume(pending, approved=True)
    assert isinstance(outcome, DesignOutcome) and outcome.is_error
    assert outcome.data.startswith("Plan token refused (unknown)")
    assert len(sent(service, "sweep_files")) == 1


def test_the_fakes_single_use_rule_names_no_path_or_a_reserved_one() -> None:
    """The in-memory service's rule, pinned so the tests above mean what they say."""
    service = FakeDesign()
    for writes, single in ((["a.html"], False), ([], True), (["docs/CLAUDE.md"], True),
                           ([".claude/x.md"], True)):
        token = service.op_finalize_plan(P1, writes)["plan_token"]
        service.require(token, P1, writes=writes)
        assert (token in service.spent) is single, writes
    assert Targets() == Targets((), ())
