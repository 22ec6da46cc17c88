"""Approval cards: what they show, and approve / durable / deny from code and by click."""

from __future__ import annotations

import dataclasses
import html

import pytest

from jupyter_design_projects.design.approval import DesignOutcome
from jupyter_design_projects.errors import (
    ApprovalClosed,
    AwaitingApproval,
    JdpError,
    PermissionDenied,
)
from jupyter_design_projects.notebook.views import outcomes as views
from jupyter_design_projects.notebook.views.card_body import card_html, card_parts
from jupyter_design_projects.notebook.views.outcome import PendingOutcome
from jupyter_design_projects.notebook.widgets.cards import (
    APPROVED_ELSEWHERE,
    BATCH_ONCE,
    CONSENT_GIVEN,
    DENIED,
    GRANTED,
    GRANTED_ELSEWHERE,
    ONCE,
    PLAN_APPROVED,
    RESERVED_PLAN_APPROVED,
    ApprovalCard,
    answer_line,
)
from tests.fakes.session import outcome, pending, request


class Resumer:
    """Records each resume and answers from a script (a result or an exception)."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.seen = []

    def __call__(self, pending_approval, approved, durable):
        self.seen.append((pending_approval.request.kind, approved, durable))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def make(kind="grant", *answers, durable=True):
    resumer = Resumer(*answers)
    card = ApprovalCard(pending(kind, durable=durable), resumer, views.design_outcome)
    return card, resumer


def test_card_shows_operation_project_sharing_url_and_writes_escaped():
    body = card_html(request())
    assert "write_files" in body
    assert "Quarterly &lt;Review&gt; Deck" in body
    assert "org, link: view" in body
    assert 'href="https://design.example/p/p-1"' in body
    assert "slides/04.html" in body
    assert "<script>" not in body


def test_a_url_that_is_not_https_is_not_a_link():
    from dataclasses import replace

    body = card_html(replace(request(), url="javascript:alert(1)"))
    assert "href" not in body


def test_grant_card_offers_approve_for_this_project():
    card, _ = make("grant", outcome("write_files", {"written": 1}))
    assert [b.description for b in card.buttons.children] == [
        "Approve", "Approve for this project", "Deny"]


def test_card_without_durable_offers_only_approve_and_deny():
    card, _ = make("plan", outcome("write_files", {}), durable=False)
    assert [b.description for b in card.buttons.children] == ["Approve", "Deny"]


def test_approve_resumes_once_and_renders_the_result_into_the_card():
    card, resumer = make("grant", outcome("write_files", {"written": 1}))
    result = card.approve()
    assert resumer.seen == [("grant", True, False)]
    assert result is card.outcome
    assert card.outcome.data == {"written": 1}
    assert len(card.output.outputs) == 1
    assert card.buttons.children == ()


def test_without_widgets_a_card_reads_as_its_card_not_a_python_repr():
    card, _ = make("grant", outcome("write_files", {"written": 1}))
    asking = card._repr_mimebundle_()
    assert asking["text/html"] == card.header.value
    assert asking["text/plain"].startswith("Approval card: ")
    assert "VBox(" not in asking["text/plain"] and "children=" not in asking["text/plain"]
    card.deny()
    answered = card._repr_mimebundle_()["text/plain"]
    assert answered.startswith(asking["text/plain"]) and card.said[-1] in answered


def test_approve_for_this_project_resumes_durably():
    card, resumer = make("grant", outcome("write_files", {"written": 1}))
    card.approve(durable=True)
    assert resumer.seen == [("grant", True, True)]


def test_durable_approval_is_refused_on_a_card_that_does_not_offer_it():
    card, resumer = make("plan", outcome("write_files", {}), durable=False)
    with pytest.raises(PermissionDenied):
        card.approve(durable=True)
    assert resumer.seen == []
    assert card.outcome is None


def test_deny_resumes_with_approved_false():
    denied = DesignOutcome.failed("write_files", PermissionDenied("write_files", "no"))
    card, resumer = make("grant", denied)
    result = card.deny()
    assert resumer.seen == [("grant", False, False)]
    assert result.is_error
    assert isinstance(result.error, PermissionDenied)


def test_clicking_approve_does_what_approve_does():
    card, resumer = make("grant", outcome("write_files", {"written": 1}))
    card.approve_button.click()
    assert resumer.seen == [("grant", True, False)]
    assert card.outcome.data == {"written": 1}


def test_clicking_approve_for_this_project_is_durable():
    card, resumer = make("grant", outcome("write_files", {"written": 1}))
    card.durable_button.click()
    assert resumer.seen == [("grant", True, True)]


def test_clicking_deny_denies():
    card, resumer = make("grant", outcome("write_files", {}))
    card.deny_button.click()
    assert resumer.seen == [("grant", False, False)]


def test_buttons_disable_after_a_click_and_a_second_answer_is_refused():
    card, resumer = make("grant", outcome("write_files", {"written": 1}))
    buttons = (card.approve_button, card.durable_button, card.deny_button)
    card.approve_button.click()
    assert all(b.disabled for b in buttons)
    card.deny_button.click()  # a stale click on a disabled button does nothing
    assert resumer.seen == [("grant", True, False)]
    with pytest.raises(ApprovalClosed):
        card.deny()


def test_a_follow_up_request_replaces_the_card_content():
    follow_up = pending("grant")
    card, resumer = make("consent", follow_up, outcome("write_files", {"written": 1}),
                         durable=False)
    assert card.approve() is None
    assert card.outcome is None
    assert card.pending is follow_up
    assert "Approve for this project" in [b.description for b in card.buttons.children]
    card.approve(durable=True)
    assert resumer.seen == [("consent", True, False), ("grant", True, True)]
    assert card.outcome.data == {"written": 1}


def test_an_error_while_resuming_is_shown_in_the_card_as_an_error_outcome():
    card, _ = make("grant", PermissionDenied("write_files", "grant refused"))
    result = card.approve()
    assert result.is_error
    assert isinstance(result.error, JdpError)
    assert result.data["error"] == "permission_denied"


def test_pending_outcome_data_raises_awaiting_approval_until_answered():
    card, _ = make("grant", outcome("write_files", {"written": 1}))
    waiting = PendingOutcome("write_files", card)
    with pytest.raises(AwaitingApproval) as caught:
        _ = waiting.data
    assert caught.value.operation == "write_files"
    with pytest.raises(AwaitingApproval):
        waiting.to_tool_result("toolu_1")
    with pytest.raises(AwaitingApproval):
        _ = waiting.is_error
    waiting_bundle = waiting._repr_mimebundle_()
    assert set(waiting_bundle) == {"text/plain", "text/html"}
    waiting.card.approve()
    assert waiting.done
    assert waiting.data == {"written": 1}
    assert waiting.to_tool_result("toolu_1")["tool_use_id"] == "toolu_1"
    assert waiting._repr_mimebundle_()["text/html"] == card.outcome._repr_mimebundle_()[
        "text/html"]
    assert waiting._repr_mimebundle_() != waiting_bundle


# ---------------------------------------------------------------- the cards the client asks


PID = "ac430b7f-8380-5183-b550-affa13056eb5"


def real_requests():
    """One request of each kind, built by the Design client's own card builders."""
    from jupyter_design_projects.core.design_operations import BY_NAME
    from jupyter_design_projects.core.display import ProjectIdentity
    from jupyter_design_projects.core.permissions import Facts
    from jupyter_design_projects.core.plans import Targets
    from jupyter_design_projects.design.approval import change_request, grant_request

    def facts(operation, **targets):
        return Facts(operation=operation, read_only=False, destructive=True, project_id=PID,
                     targets=Targets(**targets), row=BY_NAME[operation])

    identity = ProjectIdentity(PID, "Quarterly Review Deck", "org", "view",
                               f"https://design.example/p/{PID}")
    return {
        "consent": change_request("consent", facts("write_files"), "consent_not_given"),
        "plan": change_request("plan", facts("finalize_plan", writes=("slides/a.html",),
                                             deletes=("slides/old.html",)), "plan_operation"),
        "per_batch": change_request("plan", facts("write_files", writes=("slides/b.html",)),
                                    "grant_ineligible"),
        "operation": change_request("operation", facts("delete_files",
                                                       deletes=("slides/c.html",)), "delete"),
        "grant": grant_request(facts("write_files", writes=("slides/d.html",)), identity),
    }


@pytest.mark.parametrize("kind", ["consent", "plan", "per_batch", "operation", "grant"])
def test_a_card_shows_each_fact_once(kind):
    import html as html_lib

    req = real_requests()[kind]
    body = card_html(req)
    title, _rows, _rest = card_parts(req)
    assert body.count(f">{html_lib.escape(title)}<") == 1
    for path in (*req.writes, *req.deletes):
        assert body.count(html_lib.escape(path)) == 1
    for value in (req.operation, req.project_name, req.sharing):
        if value:
            assert body.count(html_lib.escape(value)) == 1
    if req.url:
        assert body.count(f">{req.url}<") == 1


@pytest.mark.parametrize("kind", ["consent", "plan", "per_batch", "operation", "grant"])
def test_a_card_leaves_out_no_line_of_its_text(kind):
    """Every line of the text the decision measured is on the card: as the title, a field
    row, a path, or a line of its own."""
    import html as html_lib

    req = real_requests()[kind]
    title, rows, lines = card_parts(req)
    covered = {title, *(f"{k}: {v}" for k, v in rows), *req.writes, *req.deletes,
               *(line.strip() for line in lines), f"Requested operation: {req.operation}"}
    for line in filter(None, (raw.strip() for raw in req.text.splitlines())):
        headed_list = line.endswith("):") and "(" in line
        assert line in covered or headed_list, line
    body = card_html(req)
    assert all(html_lib.escape(line) in body for line in lines)


@pytest.mark.parametrize("kind", ["consent", "plan", "per_batch", "operation"])
def test_a_card_without_the_durable_button_says_why(kind):
    import html as html_lib

    req = real_requests()[kind]
    (button, why), = req.withheld
    assert button == "Approve for this project"
    assert f"No &quot;{button}&quot;: {html_lib.escape(why)}" in card_html(req)


def test_the_grant_card_withholds_no_button():
    assert "jdp-card-withheld" not in card_html(real_requests()["grant"])


def test_the_buttons_are_the_ones_the_request_lists():
    from dataclasses import replace

    card = ApprovalCard(pending("grant"), Resumer(), views.design_outcome)
    card._ask(replace(pending("grant"), request=replace(request(), buttons=("Deny",))))
    assert [b.description for b in card.buttons.children] == ["Deny"]
    assert (card.approve_button, card.durable_button) == (None, None)


def test_a_refused_durable_approval_names_why_the_card_has_none():
    card, _ = make("plan", outcome("write_files", {}), durable=False)
    with pytest.raises(PermissionDenied) as caught:
        card.approve(durable=True)
    assert caught.value.reason.endswith("a plan is <b>once</b> only.")


def test_a_detail_line_that_looks_like_a_path_heading_is_still_shown():
    """The card renders fields, never filters prose: a detail reading like a heading stays."""
    from dataclasses import replace

    body = card_html(replace(request(), details=("Writes (3):", "Project: p-1")))
    assert "<p style=\"margin:4px 0\">Writes (3):</p>" in body
    assert "<p style=\"margin:4px 0\">Project: p-1</p>" in body


def test_the_card_status_keeps_every_answer_of_a_follow_up_chain():
    card, _ = make("consent", pending("grant"), outcome("write_files", {"written": 1}),
                   durable=False)
    card.approve()
    card.approve(durable=True)
    assert card.history == ["consent: approved", "grant: approved for this project"]
    assert card.said == [CONSENT_GIVEN, GRANTED]
    assert card.status.value == f"<em>{html.escape(' → '.join(card.said))}</em>"


class Watcher:
    """A grant watcher stand-in: keeps the claim the card hands it and a Future the test
    settles, as the session's loop would."""

    def __init__(self):
        from concurrent.futures import Future

        self.future = Future()
        self.claims = []

    def __call__(self, pending_approval, claim):
        self.claims.append(claim)
        return self.future


def test_grant_card_approved_elsewhere_continues_and_says_so_spec_s8():
    from jupyter_design_projects.notebook.widgets.cards import APPROVED_ELSEWHERE

    watcher = Watcher()
    resumer = Resumer()
    card = ApprovalCard(pending("grant"), resumer, views.design_outcome, watch=watcher)
    (claim,) = watcher.claims
    assert claim() is True  # the watcher found a grant before anyone clicked
    assert card.history == [f"grant: {APPROVED_ELSEWHERE}"]
    assert GRANTED_ELSEWHERE in card.status.value
    assert all(button.disabled for button in card.buttons.children)
    watcher.future.set_result(outcome("write_files", {"written": 1}))
    assert card.outcome is not None and not card.outcome.is_error
    assert resumer.seen == []  # the call went on without a click
    with pytest.raises(ApprovalClosed):
        card.approve()


def test_a_click_first_stops_the_watcher_and_its_claim_fails_spec_s8():
    watcher = Watcher()
    card = ApprovalCard(pending("grant"), Resumer(outcome("write_files", {"written": 1})),
                        views.design_outcome, watch=watcher)
    card.approve()
    assert watcher.future.cancelled()
    assert watcher.claims[0]() is False
    assert card.history == ["grant: approved"]
    assert card.said == [BATCH_ONCE]


def test_only_grant_cards_are_watched_spec_s8():
    watcher = Watcher()
    ApprovalCard(pending("plan", durable=False), Resumer(), views.design_outcome, watch=watcher)
    assert watcher.claims == []


def test_a_grant_refused_with_404_says_so_on_the_status_line():
    """Approve for this project met a project that cannot hold a grant: the follow-up plan
    card's status line tells the truth instead of "approved for this project"."""
    from jupyter_design_projects.notebook.widgets.cards import GRANT_REFUSED

    follow_up = pending("plan", durable=False)
    follow_up = dataclasses.replace(follow_up, request=dataclasses.replace(
        follow_up.request, reason="grant_ineligible"))
    card = ApprovalCard(pending("grant"), resume=Resumer(follow_up),
                        present=views.design_outcome)
    assert card.approve(durable=True) is None
    assert GRANT_REFUSED in card.status.value
    assert GRANTED not in card.status.value
    assert card.history == ["grant: grant refused"]
    assert card.pending is follow_up and card.durable_button is None


def test_a_durable_approval_that_is_granted_keeps_its_status():
    card = ApprovalCard(pending("grant"), resume=Resumer(pending("plan", durable=False)),
                        present=views.design_outcome)
    card.approve(durable=True)
    assert GRANTED in card.status.value


def test_the_card_carries_its_stale_warning_hidden_until_disconnected():
    from jupyter_design_projects.notebook.widgets.cards import STALE_CSS, STALE_LINE

    card = ApprovalCard(pending("grant"), resume=Resumer(), present=views.design_outcome)
    assert "jdp-card-box" in card.widget._dom_classes
    assert "jdp-card-stale" in card.stale._dom_classes
    assert "jdp-card-buttons" in card.buttons._dom_classes
    assert "re-run the cell" in STALE_LINE and "re-run the cell to be asked" in card.stale.value
    assert ".jdp-card-stale{display:none}" in STALE_CSS
    assert ".jupyter-widgets-disconnected.jdp-card-box" in STALE_CSS


@pytest.mark.parametrize("path", ["caf\u00e9.html", "\u5e7b\u706f\u7247/01.html"])
def test_a_non_ascii_path_is_shown_as_written_and_escaped_beside_it(path):
    import dataclasses
    import html as html_lib

    from jupyter_design_projects.core.letters import escaped

    req = dataclasses.replace(request(), writes=(path,))
    body = card_html(req)
    assert f"<code>{html_lib.escape(path)}</code>" in body
    assert f"[{escaped(path)}]" in body and escaped(path).isascii()
    assert f"  {path}  [{escaped(path)}]" in req.text.splitlines()


def test_an_ascii_path_has_no_escaped_form_beside_it():
    assert "[" not in card_html(request()).split("slides/04.html", 1)[1].split("</li>")[0]


@pytest.mark.parametrize(("kind", "operation", "reason", "choice", "said"), [
    ("consent", "write_files", "consent_not_given", "approved", CONSENT_GIVEN),
    ("consent", "write_files", "consent_not_given", "denied", DENIED),
    ("grant", "write_files", "no_grant", "approved", BATCH_ONCE),
    ("grant", "write_files", "no_grant", "approved for this project", GRANTED),
    ("grant", "write_files", "no_grant", APPROVED_ELSEWHERE, GRANTED_ELSEWHERE),
    ("grant", "write_files", "no_grant", "denied", DENIED),
    ("plan", "finalize_plan", "plan_operation", "approved", PLAN_APPROVED),
    ("plan", "finalize_plan", "reserved_target", "approved", RESERVED_PLAN_APPROVED),
    ("plan", "finalize_plan", "over_limit_too_many_writes", "approved", BATCH_ONCE),
    ("plan", "write_files", "grant_ineligible", "approved", BATCH_ONCE),
    ("operation", "delete_files", "no_plan_token", "approved", ONCE),
    ("operation", "delete_files", "no_plan_token", "denied", DENIED),
])
def test_the_status_line_says_what_each_answer_did(kind, operation, reason, choice, said):
    asked = dataclasses.replace(request(), kind=kind, operation=operation, reason=reason)
    assert answer_line(asked, choice) == said


def test_a_plain_approve_of_a_grant_card_never_reads_as_a_grant():
    card, _ = make("grant", outcome("write_files", {"written": 1}))
    card.approve()
    shown = html.unescape(card.status.value)
    assert "no lasting grant" in shown and "grant: approved" not in shown
