"""Playing the person on the reference service's sign-in page (`embedded_sign_in`),
against a page served on loopback: the hidden fields posted back unescaped with Authorize,
the redirect followed to the listener, and a page with no form or an Authorize answered
without a redirect refused as `login_failed`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import parse_qs

import pytest

from jupyter_design_projects.embedded_sign_in import click_authorize, form_fields
from jupyter_design_projects.errors import AuthError

PAGE = ('<form method="post"><input type="hidden" name="state" value="s&amp;1">'
        '<input type="hidden" name="client_id" value="c&lt;2&gt;">'
        '<input type="text" name="visible" value="not posted">'
        '<button name="decision" value="approve">Authorize</button></form>')


def test_the_form_is_its_hidden_inputs_unescaped() -> None:
    assert form_fields(PAGE) == {"state": "s&1", "client_id": "c<2>"}
    assert form_fields("<p>no form here</p>") == {}


class Page:
    """A loopback sign-in page: GET answers `page` with `get_status`; POST answers
    `post_status` with a Location to its own /listener; each request is kept."""

    def __init__(self, page: str, get_status: int = 200, post_status: int = 303) -> None:
        self.page, self.get_status, self.post_status = page, get_status, post_status
        self.requests: list[tuple[str, str, bytes]] = []
        self.port = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        method, target = head.split(" ")[:2]
        length = next((int(line.split(":")[1]) for line in head.split("\r\n")
                       if line.lower().startswith("content-length:")), 0)
        body = await reader.readexactly(length) if length else b""
        self.requests.append((method, target, body))
        if method == "POST":
            status, extra, text = self.post_status, (
                f"Location: http://127.0.0.1:{self.port}/listener?code=c1\r\n"), ""
        elif target.startswith("/listener"):
            status, extra, text = 200, "", "signed in"
        else:
            status, extra, text = self.get_status, "", self.page
        data = text.encode()
        writer.write((f"HTTP/1.1 {status} X\r\n{extra}Content-Type: text/html\r\n"
                      f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n").encode()
                     + data)
        await writer.drain()
        writer.close()

    @asynccontextmanager
    async def serving(self) -> AsyncIterator[str]:
        server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        try:
            yield f"http://127.0.0.1:{self.port}/authorize?client_id=c&state=s"
        finally:
            server.close()
            await server.wait_closed()


@pytest.mark.asyncio
async def test_authorize_posts_the_hidden_fields_and_follows_the_redirect() -> None:
    page = Page(PAGE)
    async with page.serving() as url:
        await click_authorize(url)
    (get, _, _), (post, posted_to, body), (follow, listener, _) = page.requests
    assert (get, post, follow) == ("GET", "POST", "GET")
    assert posted_to == "/authorize"  # the page's own path, its query left off
    assert parse_qs(body.decode()) == {"state": ["s&1"], "client_id": ["c<2>"],
                                       "decision": ["approve"]}
    assert listener == "/listener?code=c1"


@pytest.mark.asyncio
@pytest.mark.parametrize(("page", "get_status", "post_status", "requests"), [
    ("<p>no form</p>", 200, 303, 1),    # a page with no form: nothing is posted
    (PAGE, 500, 303, 1),                # a form on a failed page: nothing is posted
    (PAGE, 200, 200, 2),                # Authorize not answered with a redirect
])
async def test_a_page_that_cannot_be_authorized_fails_as_login_failed(
        page, get_status, post_status, requests) -> None:
    served = Page(page, get_status, post_status)
    async with served.serving() as url:
        with pytest.raises(AuthError) as failed:
            await click_authorize(url)
    assert failed.value.reason == "login_failed"
    assert len(served.requests) == requests  # and no listener was followed


@pytest.mark.asyncio
async def test_the_page_is_read_by_a_client_that_loads_no_ca_and_refuses_any_tls(monkeypatch
                                                                                  ) -> None:
    """The page is on loopback and plain http: the client loads no CA file (httpx's
    default context reads one for each client made), so a TLS connection opened by
    mistake would refuse every certificate."""
    import ssl

    import httpx

    made: list[object] = []

    class Recording(httpx.AsyncClient):
        def __init__(self, **kwargs) -> None:
            made.append(kwargs.get("verify", True))
            super().__init__(**kwargs)

    monkeypatch.setattr(httpx, "AsyncClient", Recording)
    page = Page(PAGE)
    async with page.serving() as url:
        await click_authorize(url)
    (verify,) = made
    assert isinstance(verify, ssl.SSLContext)
    assert verify.verify_mode == ssl.CERT_REQUIRED and verify.check_hostname
    assert verify.cert_store_stats()["x509_ca"] == 0
