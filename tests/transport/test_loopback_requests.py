"""The two plain-socket requests of a sign-in that stays in the kernel: the form POST to the
sign-in page and the browser's GET of the listener's redirect — each against a loopback
server that records the exact bytes it got and answers a given head."""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs

import pytest

from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.errors import AuthError
from jupyter_design_projects.transport.redirect_listener import (
    RedirectListener,
    follow_to_listener,
    post_form,
)

DEADLINE_S = 30.0


class Recorder:
    """A loopback server that reads one request (head and the body its content-length
    announces), keeps its bytes and answers `answer` (nothing at all when it is b"")."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self.requests: list[bytes] = []
        self.port = 0
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> Recorder:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), DEADLINE_S)
        length = 0
        for line in head.decode("latin-1").split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name.lower() == "content-length":
                length = int(value)
        body = await asyncio.wait_for(reader.readexactly(length), DEADLINE_S)
        self.requests.append(head + body)
        writer.write(self.answer)
        await writer.drain()
        writer.close()

    def only_request(self) -> tuple[str, dict[str, str], bytes]:
        """The one request: its request line, its headers as sent, its body."""
        (raw,) = self.requests
        head, _, body = raw.partition(b"\r\n\r\n")
        line, *fields = head.decode("ascii").split("\r\n")
        return line, dict(field.split(": ", 1) for field in fields), body


SEE_OTHER = (b"HTTP/1.1 303 See Other\r\nLocation: http://127.0.0.1:9/callback?code=c1\r\n"
             b"content-length: 0\r\n\r\n")


@pytest.mark.asyncio
async def test_post_form_sends_the_form_as_its_same_origin_tab_would():
    async with Recorder(SEE_OTHER) as page:
        status, location = await post_form(f"http://127.0.0.1:{page.port}/oauth/authorize",
                                           {"decision": "allow", "state": "s 1&2"})
    assert (status, location) == (303, "http://127.0.0.1:9/callback?code=c1")
    line, headers, body = page.only_request()
    assert line == "POST /oauth/authorize HTTP/1.1"
    netloc = f"127.0.0.1:{page.port}"
    assert headers == {"Host": netloc, "Origin": f"http://{netloc}",
                       "Content-Type": "application/x-www-form-urlencoded",
                       "Content-Length": str(len(body)), "Connection": "close"}
    assert parse_qs(body.decode(), strict_parsing=True) == {"decision": ["allow"],
                                                            "state": ["s 1&2"]}


@pytest.mark.asyncio
async def test_post_form_to_a_page_without_a_path_posts_to_the_root():
    async with Recorder(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n") as page:
        assert await post_form(f"http://127.0.0.1:{page.port}", {}) == (200, "")
    line, headers, body = page.only_request()
    assert line == "POST / HTTP/1.1" and headers["Content-Length"] == "0" and body == b""


@pytest.mark.asyncio
@pytest.mark.parametrize("head, expected", [
    # header names of any case, padded values, a value with a colon of its own
    (b"HTTP/1.1 302 Found\r\nLOCATION:   http://127.0.0.1:9/cb?a=b:c  \r\nX-Other: 1\r\n\r\n",
     (302, "http://127.0.0.1:9/cb?a=b:c")),
    (b"HTTP/1.1 302 Found\r\nx-location: elsewhere\r\nnot a header\r\n\r\n", (302, "")),
    (b"HTTP/1.1 abc Nonsense\r\nLocation: x\r\n\r\n", (0, "x")),
    (b"HTTP/1.1\r\nLocation: y\r\n\r\n", (0, "y")),
    (b"HTTP/1.1 302\r\nLocation: z\r\n\r\n", (302, "z")),  # no reason phrase
    (b"HTTP/1.1\t302 Found\r\n\r\n", (0, "")),  # fields are split at spaces only
    (b"", (0, "")),  # the page closed without answering
    (b"HTTP/1.1 200 OK\r\n", (0, "")),  # the page closed before the end of its head
])
async def test_post_form_reads_status_and_location_from_whatever_the_page_answers(head,
                                                                                  expected):
    async with Recorder(head) as page:
        assert await post_form(f"http://127.0.0.1:{page.port}/p", {"a": "1"}) == expected


@pytest.mark.asyncio
@pytest.mark.parametrize("url", [
    "https://127.0.0.1:1/oauth/authorize",   # not plain http
    "http://127.0.0.1/oauth/authorize",      # no port
    "/oauth/authorize",                      # no host
])
async def test_post_form_refuses_a_page_that_is_not_loopback_http_and_sends_nothing(url):
    with pytest.raises(AuthError) as info:
        await post_form(url, {"a": "1"})
    assert info.value.reason == "login_failed"
    assert info.value.message == "The sign-in page is not a loopback http page."


@pytest.mark.asyncio
async def test_follow_to_listener_gets_the_callback_with_its_query():
    async with Recorder(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n") as tab:
        assert await follow_to_listener(
            f"http://127.0.0.1:{tab.port}/callback?code=c1&state=s1") == 400
    line, headers, body = tab.only_request()
    assert line == "GET /callback?code=c1&state=s1 HTTP/1.1"
    assert headers == {"Host": f"127.0.0.1:{tab.port}", "Connection": "close"} and body == b""


@pytest.mark.asyncio
async def test_follow_to_listener_without_a_query_sends_the_bare_path():
    async with Recorder(b"HTTP/1.1 404 Not Found\r\n\r\n") as tab:
        assert await follow_to_listener(f"http://127.0.0.1:{tab.port}/callback") == 404
    assert tab.only_request()[0] == "GET /callback HTTP/1.1"


@pytest.mark.asyncio
@pytest.mark.parametrize("location", [
    "http://localhost:8123/callback?code=c1",   # a loopback name, not the listener's address
    "https://127.0.0.1:8123/callback?code=c1",  # not plain http
    "http://127.0.0.1/callback?code=c1",        # no port
    "http://evil.example:80/callback?code=c1",
])
async def test_follow_to_listener_refuses_anything_but_this_kernels_listener(location):
    with pytest.raises(AuthError) as info:
        await follow_to_listener(location)
    assert info.value.reason == "login_failed"
    assert info.value.message == ("The sign-in page redirected somewhere other than this "
                                  "kernel's loopback listener.")


@pytest.mark.asyncio
async def test_follow_to_listener_hands_the_real_listener_its_redirect():
    async with await RedirectListener.open() as listener:
        browser = asyncio.ensure_future(
            follow_to_listener(f"{listener.redirect_uri}?code=c1&state=s1"))
        callback = await listener.wait(DEADLINE_S)
        assert callback.query == Secret("code=c1&state=s1")
        await callback.answer(200, "Signed in", "You can close this tab.")
        assert await asyncio.wait_for(browser, DEADLINE_S) == 200
