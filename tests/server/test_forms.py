"""The one form refusal both pages a person posts to share (server/forms.py): a form from
another site or with a stale token is 403, an oversized one 413, each worded with the
page's own words (what did not happen, how to get a fresh form); and each service run
has its own form token, which no repr shows."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

import pytest
from starlette.testclient import TestClient

from jupyter_design_projects.server.design.demo import DECK_ID
from jupyter_design_projects.server.forms import PageForm
from tests.server.authorize_steps import authorize, pkce

#: page -> (where it is posted, what the page says did not happen, how it says to get a
#: fresh form, its byte limit)
PAGES: dict[str, tuple[str, str, str, int]] = {
    "authorize": ("/oauth/authorize", "nothing was authorized",
                  "open the sign-in link again", 8192),
    "design-settings": ("/design/settings/grants", "nothing changed",
                        "reload the page and try again", 4096),
}


def form_shown(client: TestClient, page: str) -> dict[str, str]:
    """The hidden fields of the page's form as the page shows them (its token included)."""
    if page == "authorize":
        shown = authorize(client, pkce()[1]).text
    else:
        shown = client.get("/design/settings").text
        row = shown.index(f'data-project="{DECK_ID}"')
        shown = shown[row:shown.index("</tr>", row)]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', shown))
    assert fields.get("form_token")
    return fields


def post(client: TestClient, page: str, **changes: Any) -> Any:
    headers = {"origin": changes.pop("origin", "http://127.0.0.1")}
    form = {**form_shown(client, page), "decision": "deny", **changes}
    return client.post(PAGES[page][0], data=form, headers=headers, follow_redirects=False)


#: a refusal -> what the post changes, and the page's words for it (page's parts by index)
REFUSALS = {
    "other_site": ({"origin": "http://evil.example"},
                   "The form was posted from another site; {1}."),
    "expired": ({"form_token": "from-an-earlier-run"}, "The form has expired: {2}."),
}


@pytest.mark.parametrize("why", sorted(REFUSALS))
@pytest.mark.parametrize("page", sorted(PAGES))
def test_a_form_from_another_site_or_an_earlier_run_is_refused_in_the_pages_words(
        client: TestClient, page: str, why: str) -> None:
    changes, words = REFUSALS[why]
    answer = post(client, page, **changes)
    assert answer.status_code == 403
    assert words.format(*PAGES[page]) in answer.text


def post_sized(client: TestClient, page: str, size: int) -> Any:
    """The page's form as shown, padded to exactly `size` bytes of urlencoded body."""
    body = urlencode({**form_shown(client, page), "decision": "deny"}) + "&pad="
    body += "a" * (size - len(body))
    assert len(body.encode()) == size
    return client.post(PAGES[page][0], content=body, follow_redirects=False,
                       headers={"origin": "http://127.0.0.1",
                                "content-type": "application/x-www-form-urlencoded"})


@pytest.mark.parametrize("page", sorted(PAGES))
def test_a_form_one_byte_over_the_pages_limit_is_413_and_one_at_it_is_read(
        client: TestClient, page: str) -> None:
    limit = PAGES[page][3]
    over = post_sized(client, page, limit + 1)
    assert over.status_code == 413
    assert f"The form is too large; {PAGES[page][1]}." in over.text
    # at the limit the form is taken: Deny on the authorize page redirects; the settings
    # page refuses the grant for want of consent, not the form
    at = post_sized(client, page, limit)
    assert at.status_code in (303, 403)
    assert "The form" not in at.text


def test_each_form_has_its_own_token_and_no_repr_shows_it() -> None:
    first, second = PageForm(10, "n", "f"), PageForm(10, "n", "f")
    assert first.token != second.token
    assert first.token not in repr(first)
    assert f'value="{first.token}"' in first.token_field()
