"""The Design settings page: a person gives or revokes a durable grant outside the notebook
(spec §8), with a form token and a same-origin check, acting for the demo user."""

from __future__ import annotations

import re

import pytest

from jupyter_design_projects.server.design.demo import DECK_ID, PARTNER_ID

PAGE = "/design/settings"
FORM = "/design/settings/grants"


def form_token(client) -> str:
    page = client.get(PAGE)
    assert page.status_code == 200
    found = re.search(r'name="form_token" value="([^"]+)"', page.text)
    assert found is not None
    return found.group(1)


def post(client, project_id: str, action: str = "grant", token: str | None = None,
         **headers: str):
    token = form_token(client) if token is None else token
    return client.post(FORM, data={"form_token": token, "project_id": project_id,
                                   "action": action},
                       headers={"origin": "http://127.0.0.1", **headers},
                       follow_redirects=False)


def grants(client, bearer) -> list[str]:
    answer = client.get("/v1/design/grants", headers=bearer())
    return [g["project_id"] for g in answer.json()["grants"]]


@pytest.fixture
def consented(client, bearer):
    assert client.post("/v1/design/consent", headers=bearer(),
                       json={"consent": "agent_design_projects"}).status_code == 204


def test_page_lists_projects_with_a_grant_button_where_one_can_be_held_spec_s8(client):
    page = client.get(PAGE)
    assert page.headers["x-frame-options"] == "DENY"
    assert f'data-jdp="grant-{DECK_ID}"' in page.text
    assert f'data-jdp="grant-{PARTNER_ID}"' not in page.text
    assert "cannot hold a grant" in page.text


def test_a_grant_given_on_the_page_is_a_grant_of_the_service_spec_s8(client, bearer, consented):
    answer = post(client, DECK_ID)
    assert answer.status_code == 303 and answer.headers["location"] == PAGE
    assert grants(client, bearer) == [DECK_ID]
    assert f'data-jdp="revoke-{DECK_ID}"' in client.get(PAGE).text
    assert post(client, DECK_ID, "revoke").status_code == 303
    assert grants(client, bearer) == []


def test_without_consent_the_page_grants_nothing(client, bearer):
    answer = post(client, DECK_ID)
    assert answer.status_code == 403 and "consent" in answer.text
    assert grants(client, bearer) == []


def test_a_grant_ineligible_project_gets_no_grant_from_the_page(client, bearer, consented):
    assert post(client, PARTNER_ID).status_code == 404
    assert grants(client, bearer) == []


@pytest.mark.parametrize("token", ["", "forged-token", "ünïcode"])
def test_a_form_without_the_pages_token_changes_nothing(client, bearer, consented, token):
    assert post(client, DECK_ID, token=token).status_code == 403
    assert grants(client, bearer) == []


def test_a_form_posted_from_another_site_changes_nothing(client, bearer, consented):
    answer = post(client, DECK_ID, origin="http://evil.example")
    assert answer.status_code == 403
    assert grants(client, bearer) == []
