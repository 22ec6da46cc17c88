"""An approval card as data: the fields each kind of card carries, the buttons it offers,
why each absent button is absent, and its text built from those same fields."""

from __future__ import annotations

import pytest

from jupyter_design_projects.core import cards, display
from jupyter_design_projects.core.cards import (
    APPROVE,
    APPROVE_FOR_PROJECT,
    DENY,
    NEW_PROJECT,
    NO_DURABLE_OTHERWISE,
)
from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.core.permissions import (
    Ask,
    Snapshot,
    card_of,
    decide,
    facts_of,
    grant_card_of,
)
from jupyter_design_projects.core.plans import PLAN_TTL_MS

P = "p1"
IDENTITY = display.ProjectIdentity(P, "Quarterly Review Deck", "org", "view",
                                   "https://design.example/p/p1")


def facts(operation, **arguments):
    return facts_of(operation, False, True, {"project_id": P, **arguments}, BY_NAME)


def files(*paths):
    return [{"path": p, "data": "x"} for p in paths]


#: every reason the decision table asks a change card for
CHANGE_REASONS = [
    "consent_not_given", "plan_operation", "sensitive_operation", "no_plan_token",
    "grant_ineligible", "write_operation", "plan_token_unknown", "plan_token_expired",
    "plan_token_other_project", "plan_token_does_not_cover",
    "grant_card_refused_get_project_failed", "grant_card_refused_card_too_long",
]


@pytest.mark.parametrize("reason", CHANGE_REASONS)
def test_every_reason_a_change_card_is_asked_for_says_why_it_has_no_durable_grant(reason):
    request = card_of("operation", facts("delete_files", paths=["a.html"]), reason)
    assert request.buttons == (APPROVE, DENY)
    assert not request.allows_durable
    (button, why), = request.withheld
    assert button == APPROVE_FOR_PROJECT
    assert why != NO_DURABLE_OTHERWISE
    assert why == cards.no_durable_because(reason)


def test_an_unlisted_reason_still_says_why():
    assert cards.no_durable_because("something_new") == NO_DURABLE_OTHERWISE


def test_the_grant_card_offers_all_three_buttons_and_withholds_none():
    request = grant_card_of(facts("write_files", files=files("./a.html")), IDENTITY)
    assert request.buttons == (APPROVE, APPROVE_FOR_PROJECT, DENY)
    assert request.withheld == ()
    assert request.allows_durable
    assert (request.project_id, request.project_name, request.sharing, request.url) == (
        P, "Quarterly Review Deck", "org, link: view", "https://design.example/p/p1")
    assert request.project == f"Quarterly Review Deck ({P})"
    assert request.writes == ("a.html",)
    assert request.reason == "no_grant"


def test_a_plan_card_carries_its_paths_in_normal_form_and_no_identity():
    request = card_of("plan", facts("finalize_plan", writes=["./a.html"], deletes=["b.html"]),
                      "plan_operation")
    assert (request.kind, request.operation, request.project_id) == ("plan", "finalize_plan", P)
    assert (request.writes, request.deletes) == (("a.html",), ("b.html",))
    assert (request.project_name, request.sharing, request.url) == (None, None, None)
    assert request.title == BY_NAME["finalize_plan"].heading
    assert f"{PLAN_TTL_MS // 60_000} minutes" in request.title


@pytest.mark.parametrize("reserved", ["CLAUDE.md", "docs/claude.md", ".claude/settings.json"])
def test_a_plan_card_naming_a_reserved_target_says_it_holds_for_one_call_only(reserved):
    """PROTOCOL §3: the service spends a token naming a reserved target on its first call,
    so its card never promises minutes."""
    asked = facts("finalize_plan", writes=["a.html", reserved])
    decision = decide(Snapshot(consent=True), asked, now_ms=0)
    assert decision == Ask("plan", cards.RESERVED_TARGET)
    request = card_of(decision.card, asked, decision.reason)
    assert request.title == cards.RESERVED_PLAN_HEADING
    assert "one call only" in request.title and "for that call only" in request.text
    assert "minutes" not in request.text
    assert (request.writes, request.reason) == (("a.html", reserved), cards.RESERVED_TARGET)


def test_an_ordinary_plan_card_keeps_its_fifteen_minutes():
    asked = facts("finalize_plan", writes=["a.html", "notes/claude.txt"])
    decision = decide(Snapshot(consent=True), asked, now_ms=0)
    assert decision == Ask("plan", cards.PLAN_OPERATION)
    request = card_of(decision.card, asked, decision.reason)
    assert request.title == BY_NAME["finalize_plan"].heading
    assert "for up to 15 minutes" in request.text and "one call only" not in request.text


def test_a_write_naming_a_reserved_target_keeps_its_one_call_card():
    asked = facts("write_files", files=files("CLAUDE.md"))
    request = card_of("operation", asked, cards.RESERVED_TARGET)
    assert request.title == BY_NAME["write_files"].heading
    assert request.notes == (cards.reserved_note(asked.targets),)


def test_a_per_batch_plan_card_has_its_own_title():
    request = card_of("plan", facts("write_files", files=files("a.html")), "grant_ineligible")
    assert request.title == cards.PER_BATCH_HEADING


def test_detail_lines_are_fields_of_their_own():
    request = card_of("operation", facts("add_member", email="m@acme.example", role="editor"),
                      "sensitive_operation")
    assert request.details == ("email: m@acme.example", "role: editor")
    assert request.text.splitlines()[-2:] == list(request.details)


def test_the_consent_card_names_the_operation_and_not_the_call_details():
    request = card_of("consent", facts("add_member", email="m@acme.example"),
                      "consent_not_given")
    assert (request.title, request.notes) == (cards.CONSENT_HEADING, (cards.CONSENT_NOTE,))
    assert request.details == ()
    assert request.text.splitlines() == [cards.CONSENT_HEADING, cards.CONSENT_NOTE,
                                         "Requested operation: add_member"]


def test_a_card_for_a_new_project_says_so():
    request = card_of("operation", facts_of("create_project", False, False, {"name": "X"}, BY_NAME),
                      "write_operation")
    assert request.project_id is None
    assert request.project == NEW_PROJECT
    assert f"Project: {NEW_PROJECT}" in request.text.splitlines()


def test_the_grant_text_is_built_from_the_fields():
    request = grant_card_of(facts("write_files", files=files("a.html", "b.html")), IDENTITY)
    assert request.text.splitlines() == [
        cards.GRANT_HEADING, f"Project: Quarterly Review Deck ({P})", "Sharing: org, link: view",
        "URL: https://design.example/p/p1", cards.GRANT_LIMITS, cards.GRANT_CHOICES,
        "This batch writes (2):", "  a.html", "  b.html"]


def test_a_request_is_frozen_data_equal_for_equal_facts():
    request = card_of("plan", facts("write_files", files=files("a.html")))
    with pytest.raises(AttributeError):
        request.kind = "grant"  # type: ignore[misc]
    assert request == card_of("plan", facts("write_files", files=files("a.html")))
    assert request != card_of("plan", facts("write_files", files=files("b.html")))


@pytest.mark.parametrize(("reason", "why"), [
    ("over_limit_too_many_writes", "it lists more than 20 writes"),
    ("over_limit_card_too_long", "this card is longer than 2,000 characters"),
    ("over_limit_something_new", "something_new"),
])
def test_a_card_over_the_review_limits_says_which_and_what_approving_sends(reason, why):
    request = card_of("operation", facts("write_files", files=files("a.html")), reason)
    assert request.title == BY_NAME["write_files"].heading
    assert request.notes == (
        f'Over the review limits ({why}): "{APPROVE}" sends this one call; no plan is '
        "registered and no grant is offered, so later changes ask again.",)


def test_the_reserved_note_names_every_reserved_path():
    request = card_of("operation", facts("write_files", files=files(
        "CLAUDE.md", "a.html", "./x/.claude/s.json")), "reserved_target")
    assert request.notes[0].startswith("Reserved (CLAUDE.md, x/.claude/s.json): ")


def test_a_change_request_is_not_per_batch_and_has_no_reason_unless_told():
    request = cards.change_request("plan", "write_files", P, None, (), heading="Write?")
    assert (request.title, request.reason, request.writes) == ("Write?", "", ())
    assert request.withheld == ((APPROVE_FOR_PROJECT, NO_DURABLE_OTHERWISE),)


def test_a_project_id_that_is_not_a_string_is_not_on_the_card():
    request = card_of("operation", facts_of("create_project", False, False,
                                            {"project_id": 7, "name": "X"}, BY_NAME),
                      "write_operation")
    assert request.project_id is None and request.project == NEW_PROJECT
