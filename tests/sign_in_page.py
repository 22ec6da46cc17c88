"""A person at the reference service's sign-in page, played by a real HTTP client (httpx):
open the link, click Authorize or Deny (post the page's form as a browser does), and
follow the redirect — to the notebook's loopback listener, or to the code page of the
paste-the-code fallback. Tests read as `click_authorize(card.url)`."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urlsplit

import httpx

from jupyter_design_projects.transport.http import loopback_tls

DEADLINE_S = 30.0
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


def form_on(page: str) -> dict[str, str]:
    fields = {html.unescape(k): html.unescape(v) for k, v in _HIDDEN.findall(page)}
    assert fields, "the sign-in page shows no form"
    return fields


def click_authorize(url: str, decision: str = "approve", *, follow: bool = True,
                    **changes: str) -> httpx.Response:
    """Open `url`, click the decision's button and (with `follow`) go where the service
    sends the browser; the last answer the browser got."""
    with httpx.Client(timeout=DEADLINE_S, trust_env=False, verify=loopback_tls()) as browser:
        page = browser.get(url)
        assert page.status_code == 200, page.text
        return browser.post(page.url.copy_with(query=None),
                            data={**form_on(page.text), "decision": decision, **changes},
                            follow_redirects=follow)


def redirect_fields(answer: httpx.Response) -> tuple[str, dict[str, str]]:
    """Where an unfollowed Authorize sends the browser, and the fields it adds."""
    assert answer.status_code == 303, answer.text
    parts = urlsplit(answer.headers["location"])
    return (f"{parts.scheme}://{parts.netloc}{parts.path}",
            {k: v[0] for k, v in parse_qs(parts.query).items()})


def pasted_code(url: str) -> str:
    """Click Authorize on a paste-the-code sign-in and read the `code#state` it shows."""
    shown = click_authorize(url)
    assert shown.status_code == 200, shown.text
    return html.unescape(re.search(r'<pre id="code">([^<]+)</pre>', shown.text).group(1))
