"""What a grant card says matches the buttons the notebook card offers."""

from __future__ import annotations

from jupyter_design_projects.core import display
from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.core.permissions import facts_of
from jupyter_design_projects.design.approval import PendingApproval, grant_request

IDENTITY = display.ProjectIdentity("p1", "Quarterly Review Deck", "org", None,
                                   "https://design.example/p/p1")


def grant_facts(*paths: str):
    arguments = {"project_id": "p1", "files": [{"path": p, "data": "x"} for p in paths]}
    return facts_of("write_files", False, True, arguments, BY_NAME), arguments


def grant_pending(*paths: str) -> PendingApproval:
    facts, arguments = grant_facts(*paths)
    request = grant_request(facts, IDENTITY)
    assert request is not None
    return PendingApproval.seal(request, "write_files", arguments)


def test_grant_card_text_names_every_button_of_the_card():
    from jupyter_design_projects.notebook.views import outcomes as views
    from jupyter_design_projects.notebook.widgets.cards import ApprovalCard

    pending = grant_pending("a.html")
    card = ApprovalCard(pending, lambda *_: None, views.design_outcome)
    labels = [button.description for button in card.buttons.children]
    assert labels == ["Approve", "Approve for this project", "Deny"]
    for label in labels:
        assert f'"{label}"' in pending.request.text


def test_grant_request_carries_the_identity_and_normalised_writes():
    request = grant_pending("./a.html", "b/c.html").request
    assert (request.kind, request.allows_durable, request.reason) == ("grant", True, "no_grant")
    assert (request.project_name, request.sharing, request.url) == (
        "Quarterly Review Deck", "org", "https://design.example/p/p1")
    assert request.writes == ("a.html", "b/c.html")


def test_grant_card_of_2000_chars_is_shown_and_2001_refused_not_truncated():
    paths = [f"{i:03d}/" + "x" * 60 for i in range(20)]
    base = grant_request(grant_facts(*paths, "y")[0], IDENTITY)
    assert base is not None
    spare = 2000 - len(base.text)
    exact = grant_request(grant_facts(*paths, "y" * (1 + spare))[0], IDENTITY)
    over = grant_request(grant_facts(*paths, "y" * (2 + spare))[0], IDENTITY)
    assert exact is not None and len(exact.text) == 2000
    assert over is None
