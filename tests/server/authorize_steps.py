"""The steps of the reference service's sign-in page as a client and a browser take them:
a PKCE pair, the authorize request, the page's form posted with a decision, and where the
answer redirects (the OAuth tests of tests/server share them)."""

from __future__ import annotations

import base64
import hashlib
import html
import re
from urllib.parse import parse_qs, urlsplit

from starlette.testclient import TestClient

TOKEN = "/v1/oauth/token"
CLIENT = "jdp-notebook-client"
BASE = "user:profile user:inference user:mcp_servers user:file_upload"
FULL = BASE + " user:projects:read user:projects:write"


def pkce() -> tuple[str, str]:
    verifier = "v" * 43 + "-._~"
    challenge = base64.urlsafe_b64encode(
        hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


LOOPBACK = "http://127.0.0.1:53682/callback"
CODE_PAGE = "http://127.0.0.1/oauth/code/callback"


def authorize(client: TestClient, challenge: str, **overrides: str):
    params = {"response_type": "code", "client_id": CLIENT, "redirect_uri": LOOPBACK,
              "scope": FULL, "state": "st4te", "code_challenge": challenge,
              "code_challenge_method": "S256", **overrides}
    return client.get("/oauth/authorize", params=params)


def form_of(page: str) -> dict[str, str]:
    """The hidden fields of the authorize page's form, as a browser would post them."""
    return {html.unescape(name): html.unescape(value) for name, value in re.findall(
        r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page)}


def decide(client: TestClient, page: str, decision: str = "approve", **changes: str):
    """Click Authorize (or Deny) on the page: the POST, not following its redirect."""
    assert page.count('type="submit"') == 2
    form = {**form_of(page), "decision": decision, **changes}
    return client.post("/oauth/authorize", data=form, follow_redirects=False)


def redirected(answer) -> tuple[str, dict[str, str]]:
    """Where the 303 sends the browser, and the fields it adds."""
    assert answer.status_code == 303
    parts = urlsplit(answer.headers["location"])
    return (f"{parts.scheme}://{parts.netloc}{parts.path}",
            {k: v[0] for k, v in parse_qs(parts.query).items()})
