"""Playing the person's part on the embedded reference service's sign-in page: GET the
authorize page, post its form with Authorize, and follow the redirect to the loopback
listener, as a browser would (the side panel's Sign in button and the tests use it, through
`session.auth.login_embedded`).

It knows the page this project's reference service serves (hidden inputs, a `decision`
field) and nothing of any other service's page.
"""

from __future__ import annotations

import html
import re

from .errors import AuthError

#: the hidden inputs of the reference service's authorize form
_HIDDEN_INPUT = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


def form_fields(page_text: str) -> dict[str, str]:
    """The hidden fields of the authorize page's form, unescaped (empty: no form)."""
    return {html.unescape(k): html.unescape(v) for k, v in _HIDDEN_INPUT.findall(page_text)}


async def click_authorize(url: str) -> None:
    """GET the authorize page at `url`, post its form with Authorize and follow the
    redirect to the listener. The post and the redirect go over a plain socket: httpx and
    httpcore log request URLs and answer headers, and the redirect's location carries the
    code. AuthError login_failed when the page has no form or Authorize is not answered
    with a redirect."""
    import httpx

    from .transport.http import loopback_tls
    from .transport.redirect_listener import follow_to_listener, post_form

    async with httpx.AsyncClient(follow_redirects=False, trust_env=False, timeout=10.0,
                                 verify=loopback_tls()) as browser:
        page = await browser.get(url)
    form = form_fields(page.text)
    if page.status_code != 200 or not form:
        raise AuthError("login_failed", "The reference service's sign-in page "
                        f"answered HTTP {page.status_code} with no form; see its log.")
    status, location = await post_form(str(page.url.copy_with(query=None)),
                                       {**form, "decision": "approve"})
    if status not in (302, 303) or not location:
        raise AuthError("login_failed", "The reference service's sign-in page answered "
                        f"HTTP {status} to Authorize; see its log.")
    await follow_to_listener(location)
