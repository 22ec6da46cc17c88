"""Consent, grants and the catalogue as the spec's failure rules want them, against the
reference service: a failed grant lookup is "not verified" and leads to the grant card (§8);
`needs_consent` fails the call that met it and the next decision asks (§6, the failure
table); an operation discovered before a 404 re-initialize stays known (§2, §3); and one
consent and one set of grants, seen the same by the side panel and every session."""

from __future__ import annotations

import asyncio
import json
import secrets

import pytest
from IPython.core.error import UsageError

from jupyter_design_projects.agent_tools import DESIGN_TOOL, AgentTools
from jupyter_design_projects.design.approval import DesignOutcome
from jupyter_design_projects.design.rest import DesignRest
from jupyter_design_projects.errors import NeedsConsent, PermissionRefused, UnknownOperation
from jupyter_design_projects.labserver.panel import Panel
from jupyter_design_projects.notebook.views.outcome import PendingOutcome
from jupyter_design_projects.server.design.demo import DECK_ID
from jupyter_design_projects.session import Session

from tests.reliability.battery import settings_for, signed_in_file  # isort: skip

SLIDE = "<h1>shared state</h1>"
GRANTS = "/v1/design/grants"


def path(stem: str) -> str:
    return f"slides/{stem}-{secrets.token_hex(4)}.html"


def write_args(*paths: str) -> dict:
    return {"project_id": DECK_ID, "files": [{"path": p, "data": SLIDE} for p in paths]}


def rest(session: Session) -> DesignRest:
    """The Design REST routes on `session`'s credential, outside its permission engine:
    what Design settings (or another tool) does to the service."""
    return DesignRest(session.http, session.settings.api_base_url)


def recorder(answer: str | None = None):
    """An approve callback that notes each card's kind and answers `answer`."""
    seen: list[str] = []

    def approve(request):
        seen.append(request.kind)
        return answer

    approve.seen = seen  # type: ignore[attr-defined]
    return approve


@pytest.fixture
def no_grant(live):
    """The live session with no grant on the demo deck."""
    live.run(rest(live.session).delete_grant(DECK_ID))
    return live


# ---------------------------------------------------------------- §8 a failed grant lookup


@pytest.mark.parametrize("fault", ["429", "503", "transport"])
def test_a_failed_grant_lookup_is_not_verified_and_shows_the_grant_card__spec_s8(
        no_grant, fault):
    live = no_grant
    live.answerable["now"] = True
    if fault == "transport":  # an answer past the REST byte cap: the client refuses it
        live.faults.oversize(GRANTS, size=400_000)
    else:
        live.faults.fail(GRANTS, status=int(fault), method="GET",
                         headers={"retry-after": "1"})
    before = live.faults.counts().get(f"GET {GRANTS}", 0)
    target = path("lookup")
    approve = recorder(None)  # the card is denied: nothing may be written
    outcome = live.session.design_call("write_files", write_args(target), approve=approve)
    assert live.faults.counts().get(f"GET {GRANTS}", 0) == before + 1  # the lookup failed
    assert approve.seen == ["grant"]
    assert isinstance(outcome.error, PermissionRefused)
    assert outcome.error.reason == "denied_on_card"
    assert target not in live.state.design_files(DECK_ID)
    live.check(outcome)


def test_after_a_failed_lookup_the_approved_grant_card_writes__spec_s8(no_grant):
    live = no_grant
    live.answerable["now"] = True
    live.faults.fail(GRANTS, status=503, method="GET")
    target = path("approved")
    approve = recorder("project")
    outcome = live.session.design_call("write_files", write_args(target), approve=approve)
    assert approve.seen == ["grant"]
    assert not outcome.is_error, outcome.error
    assert target in live.state.design_files(DECK_ID)
    assert DECK_ID in live.state.grants()
    live.check(outcome)


def test_an_existing_grant_is_read_and_reused_without_a_card__spec_s8(no_grant):
    live = no_grant
    live.answerable["now"] = True
    live.run(rest(live.session).post_grant(DECK_ID))  # given in Design settings
    target = path("reused")
    approve = recorder(None)
    outcome = live.session.design_call("write_files", write_args(target), approve=approve)
    assert approve.seen == []
    assert not outcome.is_error, outcome.error
    assert target in live.state.design_files(DECK_ID)
    live.check(outcome)


# ---------------------------------------------------------------- §6 needs_consent


def withdraw_consent_elsewhere(live) -> None:
    """The kernel's cache says consent is given (a first read prefetched it); then consent
    is withdrawn in Design settings."""
    first = live.session.design_call("list_files", {"project_id": DECK_ID})
    assert not first.is_error and live.session.design.engine.consent is True
    assert live.run(rest(live.session).delete_consent()) is True


def test_needs_consent_fails_the_call_that_met_it_and_the_next_one_asks__spec_s6(live):
    live.answerable["now"] = True
    withdraw_consent_elsewhere(live)
    approve = recorder("once")
    failed = live.session.design_call("list_files", {"project_id": DECK_ID}, approve=approve)
    assert approve.seen == []  # no card inside the call that met the 403
    assert isinstance(failed, DesignOutcome) and isinstance(failed.error, NeedsConsent)
    assert live.session.design.engine.consent is False
    # the next permission decision shows the consent card; approved, the call runs
    after = live.session.design_call("list_files", {"project_id": DECK_ID}, approve=approve)
    assert approve.seen == ["consent"]
    assert not after.is_error, after.error
    assert live.run(rest(live.session).get_consent()) is True
    live.check(after)


def test_consent_known_missing_before_the_call_asks_in_that_call__spec_s6(live):
    live.answerable["now"] = True
    live.run(live.session.design.revoke())  # this process knows: no 403 is needed
    approve = recorder("once")
    outcome = live.session.design_call("list_files", {"project_id": DECK_ID}, approve=approve)
    assert approve.seen == ["consent"]
    assert not outcome.is_error, outcome.error
    live.check(outcome)


def test_an_agent_gets_an_error_tool_result_for_needs_consent__spec_s6(live):
    live.answerable["now"] = True
    withdraw_consent_elsewhere(live)
    approve = recorder("once")
    tools = AgentTools(live.session, approve=approve)
    block = {"type": "tool_use", "id": "toolu_consent", "name": DESIGN_TOOL,
             "input": {"operation": "list_files", "arguments": {"project_id": DECK_ID}}}
    result = tools.handle_tool_use(block)
    assert result["is_error"] is True and approve.seen == []
    assert json.loads(result["content"][0]["text"])["error"] == "needs_consent"
    again = tools.handle_tool_use({**block, "id": "toolu_again"})
    assert again["is_error"] is False and approve.seen == ["consent"]
    live.check(again)


def test_a_cell_that_meets_needs_consent_fails_with_one_line_naming_the_command__spec_s6(
        shell_live):
    live = shell_live.live
    magics, shell = shell_live.magics, shell_live.shell
    line = f"list_files project_id={DECK_ID}"
    assert not shell_live.line("design", line).is_error
    assert live.run(rest(live.session).delete_consent()) is True
    with pytest.raises(UsageError) as caught:
        shell.run_line_magic("design", line)
    message = str(caught.value)
    assert "\n" not in message and "%design consent" in message
    assert isinstance(shell_live.errors[-1], NeedsConsent)
    assert magics.session.design.engine.consent is False
    pending = shell.run_line_magic("design", line)
    assert isinstance(pending, PendingOutcome)
    assert pending.card.pending.request.kind == "consent"
    final = pending.card.approve()
    assert not final.is_error
    live.check(final)


# ---------------------------------------------------------------- §2, §3 the hint registry


def test_a_discovered_operation_stays_known_across_a_404_reinitialize__spec_s2(live):
    live.faults.design_operation("get_design_tips", "Tips for good decks.")
    design = live.session.design
    assert not live.run(design.list()).is_error  # discovered
    dropped = live.faults.drop_mcp_sessions()
    assert dropped >= 1
    reads = live.run(design.call("list_files", {"project_id": DECK_ID}))  # 404 → re-init
    assert not reads.is_error
    listed = live.faults.counts()["mcp:tools/list"]
    tips = live.run(design.call("get_design_tips", {}))
    assert isinstance(tips, DesignOutcome) and not tips.is_error, tips.error
    assert tips.data == {"operation": "get_design_tips", "ok": True}
    assert live.faults.counts()["mcp:tools/list"] == listed  # no list was needed
    live.check(tips)


def test_an_undiscovered_operation_still_goes_back_to_list__spec_s3(live):
    live.faults.design_operation("get_design_tips", "Tips for good decks.")
    design = live.session.design
    assert not design.session.state.discovered  # nothing has listed the catalogue yet
    outcome = live.run(design.call("get_design_tips", {}))
    assert isinstance(outcome.error, UnknownOperation)
    assert outcome.error.reason == "call_list_first"
    live.check(outcome)


def test_the_next_list_replaces_the_hint_registry__spec_s2(live):
    live.faults.design_operation("get_design_tips", "Tips for good decks.")
    design = live.session.design
    live.run(design.list())
    live.faults.drop_mcp_sessions()
    live.faults.design_operation("get_design_tips", remove=True)
    assert not live.run(design.list()).is_error  # re-initializes, lists without the tips
    outcome = live.run(design.call("get_design_tips", {}))
    assert isinstance(outcome.error, UnknownOperation)
    assert outcome.error.reason == "not_in_catalogue"
    live.check(outcome)


# ---------------------------------------------------------------- one state everywhere


@pytest.fixture
def second(live, tmp_path):
    """A second session (another kernel) on the same service and user."""
    credentials = signed_in_file(live.service, tmp_path / "second")
    session = Session(settings_for(live.service, credentials), data_dir=tmp_path / "second",
                      can_ask=lambda: True)
    live.sessions.append(session)
    try:
        yield session
    finally:
        session.close()


@pytest.fixture
def panel(live, tmp_path):
    panel = Panel(live.service.client_env(), tmp_path / "panel")
    try:
        yield panel
    finally:
        panel.close()


def test_revoke_in_the_panel_shows_in_the_kernels_status__one_state(no_grant, panel):
    live = no_grant
    live.run(live.session.design.engine.mint_grant(DECK_ID))
    before = live.run(live.session.design.status())
    assert before["consent"] is True and before["verified_grants"] == [DECK_ID]
    revoked_grant = asyncio.run(panel.revoke_grant(DECK_ID))
    assert revoked_grant["grants"] == []
    assert live.run(live.session.design.status())["verified_grants"] == []
    assert asyncio.run(panel.consent(give=False))["consent"] is False
    after = live.run(live.session.design.status())
    assert (after["consent"], after["verified_grants"]) == (False, [])
    live.check(after)


def test_consent_given_in_the_panel_is_not_asked_for_again__one_state(live, panel):
    live.answerable["now"] = True
    live.run(live.session.design.revoke())  # the kernel knows consent is not given
    assert live.run(live.session.design.status())["consent"] is False
    assert asyncio.run(panel.consent(give=True))["consent"] is True
    approve = recorder(None)
    outcome = live.session.design_call("list_files", {"project_id": DECK_ID}, approve=approve)
    assert approve.seen == []  # re-read before the card: given, so nobody is asked
    assert not outcome.is_error, outcome.error
    assert live.run(live.session.design.status())["consent"] is True
    live.check(outcome)


def test_consent_withdrawn_in_the_panel_is_still_asked_for__one_state(live, panel):
    live.answerable["now"] = True
    live.run(live.session.design.revoke())
    approve = recorder(None)
    outcome = live.session.design_call("list_files", {"project_id": DECK_ID}, approve=approve)
    assert approve.seen == ["consent"]  # re-read, still not given: the card
    assert isinstance(outcome.error, PermissionRefused)
    live.check(outcome)


def test_consent_and_grants_given_in_one_kernel_are_seen_by_another__one_state(
        no_grant, second):
    live = no_grant
    live.answerable["now"] = True
    second.run(second.design.revoke())
    assert live.run(live.session.design.status())["consent"] is False
    assert second.run(second.design.status())["consent"] is False
    approve = recorder("project")
    target = path("first-kernel")
    written = live.session.design_call("write_files", write_args(target), approve=approve)
    assert approve.seen == ["consent", "grant"] and not written.is_error
    # the other kernel asks nobody: consent is re-read before its card, the grant reused
    other = recorder(None)
    again = second.design_call("write_files", write_args(path("second-kernel")),
                               approve=other)
    assert other.seen == [] and not again.is_error, again.error
    status = second.run(second.design.status())
    assert (status["consent"], status["verified_grants"]) == (True, [DECK_ID])
    live.check(again)


def test_where_nobody_can_answer_consent_given_in_the_panel_is_not_refused__one_state(
        live, panel):
    live.answerable["now"] = False  # a papermill run: a refusal would name the command
    live.run(live.session.design.revoke())
    refused = live.session.design_call("list_files", {"project_id": DECK_ID})
    assert isinstance(refused.error, PermissionRefused)
    assert refused.error.reason == "consent_not_given"
    assert asyncio.run(panel.consent(give=True))["consent"] is True
    outcome = live.session.design_call("list_files", {"project_id": DECK_ID})
    assert not outcome.is_error, outcome.error
    live.check(outcome)
