"""The Design REST routes of PROTOCOL §2: consent and durable grants."""

from __future__ import annotations

import pytest

from tests.server.design.harness import DECK_ID, PARTNER_ID, Harness

CONSENT = {"consent": "agent_design_projects"}


def assert_envelope(answer, status: int, kind: str) -> None:
    assert answer.status_code == status
    body = answer.json()
    assert body["type"] == "error" and body["error"]["type"] == kind
    assert body["request_id"].startswith("req_")


def test_consent_starts_false(h: Harness) -> None:
    answer = h.rest("GET", "/v1/design/consent")
    assert answer.status_code == 200
    assert answer.json() == {"agent_design_projects": False}


def test_posting_consent_answers_204_and_sticks(h: Harness) -> None:
    assert h.rest("POST", "/v1/design/consent", body=CONSENT).status_code == 204
    assert h.rest("GET", "/v1/design/consent").json() == {"agent_design_projects": True}


def test_consent_is_per_user(h: Harness) -> None:
    h.consent("alice")
    assert h.rest("GET", "/v1/design/consent", "bob").json() == {"agent_design_projects": False}


@pytest.mark.parametrize("body", [{}, {"consent": "everything"}, {"consent": 1}, [CONSENT]])
def test_posting_a_wrong_consent_body_is_a_400_envelope(h: Harness, body: object) -> None:
    assert_envelope(h.rest("POST", "/v1/design/consent", body=body), 400,
                    "invalid_request_error")


def test_malformed_json_is_a_400_envelope(h: Harness) -> None:
    answer = h.client.post("/v1/design/consent", content=b"{not json",
                           headers={"authorization": "Bearer alice"})
    assert_envelope(answer, 400, "invalid_request_error")


def test_deleting_consent_that_was_never_given_is_404(h: Harness) -> None:
    assert_envelope(h.rest("DELETE", "/v1/design/consent", body=CONSENT), 404,
                    "not_found_error")


def test_deleting_consent_revokes_every_grant(h: Harness) -> None:
    h.consent()
    h.grant(DECK_ID)
    assert h.rest("DELETE", "/v1/design/consent", body=CONSENT).status_code == 204
    assert h.rest("GET", "/v1/design/consent").json() == {"agent_design_projects": False}
    assert h.rest("GET", "/v1/design/grants").json() == {"grants": []}


def test_grant_needs_consent_with_a_flat_403(h: Harness) -> None:
    answer = h.rest("POST", "/v1/design/grants", body={"project_id": DECK_ID})
    assert answer.status_code == 403
    assert answer.json() == {"error": "needs_consent"}


def test_grant_is_created_and_listed(h: Harness) -> None:
    h.consent()
    answer = h.rest("POST", "/v1/design/grants", body={"project_id": DECK_ID})
    assert answer.status_code == 201
    created = answer.json()
    assert set(created) == {"project_id", "created_at"} and created["project_id"] == DECK_ID
    assert created["created_at"].endswith("Z")
    assert h.rest("GET", "/v1/design/grants").json() == {"grants": [created]}


def test_granting_twice_keeps_the_first_grant(h: Harness) -> None:
    h.consent()
    first = h.rest("POST", "/v1/design/grants", body={"project_id": DECK_ID}).json()
    h.clock.now += 60
    second = h.rest("POST", "/v1/design/grants", body={"project_id": DECK_ID}).json()
    assert first == second


def test_shared_project_is_grant_ineligible_with_a_flat_404(h: Harness) -> None:
    h.consent()
    answer = h.rest("POST", "/v1/design/grants", body={"project_id": PARTNER_ID})
    assert answer.status_code == 404
    assert answer.json() == {"error": "grant_ineligible"}


def test_grant_for_an_unknown_project_is_a_404_envelope(h: Harness) -> None:
    h.consent()
    assert_envelope(h.rest("POST", "/v1/design/grants", body={"project_id": "nope"}), 404,
                    "not_found_error")


@pytest.mark.parametrize("body", [{}, {"project_id": 7}, {"project_id": ""}])
def test_grant_without_a_project_id_is_a_400_envelope(h: Harness, body: dict) -> None:
    h.consent()
    assert_envelope(h.rest("POST", "/v1/design/grants", body=body), 400,
                    "invalid_request_error")


def test_deleting_a_grant_revokes_it(h: Harness) -> None:
    h.consent()
    h.grant(DECK_ID)
    assert h.rest("DELETE", f"/v1/design/grants/{DECK_ID}").status_code == 204
    assert h.rest("GET", "/v1/design/grants").json() == {"grants": []}


def test_deleting_a_missing_grant_is_a_404_envelope(h: Harness) -> None:
    assert_envelope(h.rest("DELETE", f"/v1/design/grants/{DECK_ID}"), 404, "not_found_error")


@pytest.mark.parametrize("user", [None, "stranger", "no-design"])
def test_without_design_scopes_the_answer_is_401_with_the_scope_challenge(
        h: Harness, user: str | None) -> None:
    answer = h.rest("GET", "/v1/design/consent", user)
    assert_envelope(answer, 401, "authentication_error")
    assert answer.headers["www-authenticate"] == \
        'Bearer scope="user:design:read user:design:write"'


def test_mcp_servers_scope_alone_is_enough(h: Harness) -> None:
    assert h.rest("GET", "/v1/design/consent", "mcp-only").status_code == 200


def test_oversized_body_is_a_413_envelope(h: Harness) -> None:
    answer = h.client.post("/v1/design/consent", content=b" " * (64 * 1024 + 1),
                           headers={"authorization": "Bearer alice"})
    assert_envelope(answer, 413, "request_too_large")


def test_body_of_exactly_64_kib_is_accepted(h: Harness) -> None:
    body = b'{"consent": "agent_design_projects"}'
    answer = h.client.post("/v1/design/consent", content=body.ljust(64 * 1024),
                           headers={"authorization": "Bearer alice"})
    assert answer.status_code == 204
