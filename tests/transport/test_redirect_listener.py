"""The one-shot loopback listener on a real socket: the first GET of /callback decides,
anything else gets a 404 or is dropped, the request head is capped at its exact limit, and
closing it answers a waiting browser and frees the port."""

from __future__ import annotations

import asyncio

import pytest

from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.transport.redirect_listener import (
    REQUEST_HEAD_MAX,
    RedirectListener,
    page_bytes,
)

DEADLINE_S = 30.0


async def send_head(port: int, head: bytes) -> bytes:
    """Send a request head; everything the listener answers before it closes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head)
    await writer.drain()
    try:
        return await asyncio.wait_for(reader.read(), DEADLINE_S)
    finally:
        writer.close()


def head_of(size: int, target: bytes = b"/callback?code=c1&state=s1") -> bytes:
    """A GET head of exactly `size` bytes, its final blank line included."""
    start, end = b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ", b"\r\n\r\n"
    return start + b"a" * (size - len(start) - len(end)) + end


async def answered(listener: RedirectListener, head: bytes) -> tuple[bytes, Secret]:
    """Send `head` and answer its callback: what the browser got, and the query."""
    browser = asyncio.ensure_future(send_head(listener.port, head))
    callback = await listener.wait(DEADLINE_S)
    await callback.answer(200, "Signed in", "You can close this tab.")
    return await browser, callback.query


@pytest.mark.asyncio
async def test_the_first_callback_hands_over_its_query_and_gets_its_page():
    async with await RedirectListener.open() as listener:
        assert listener.redirect_uri == f"http://127.0.0.1:{listener.port}/callback"
        page, query = await answered(listener, head_of(200))
        assert query == Secret("code=c1&state=s1") and "c1" not in repr(query)
        assert page.startswith(b"HTTP/1.1 200 OK\r\n") and b"You can close this tab." in page
        assert b"cache-control: no-store" in page and b"connection: close" in page
    assert not listener.listening


@pytest.mark.asyncio
@pytest.mark.parametrize("head", [
    b"GET /favicon.ico HTTP/1.1\r\n\r\n",
    b"POST /callback?code=c&state=s HTTP/1.1\r\n\r\n",
    b"GET /callback/ HTTP/1.1\r\n\r\n",
])
async def test_other_requests_get_404_and_the_listener_keeps_waiting(head: bytes):
    async with await RedirectListener.open() as listener:
        assert (await send_head(listener.port, head)).startswith(b"HTTP/1.1 404 ")
        assert listener.listening
        _, query = await answered(listener, head_of(200))
        assert query == Secret("code=c1&state=s1")


@pytest.mark.asyncio
async def test_a_request_head_of_exactly_the_limit_is_read():
    async with await RedirectListener.open() as listener:
        page, _ = await answered(listener, head_of(REQUEST_HEAD_MAX))
        assert page.startswith(b"HTTP/1.1 200 ")


@pytest.mark.asyncio
async def test_a_request_head_one_byte_over_the_limit_is_dropped_unanswered():
    async with await RedirectListener.open() as listener:
        assert await send_head(listener.port, head_of(REQUEST_HEAD_MAX + 1)) == b""
        assert listener.listening
        _, query = await answered(listener, head_of(200))  # the real redirect still counts
        assert query == Secret("code=c1&state=s1")


@pytest.mark.asyncio
async def test_closing_answers_a_browser_still_waiting_and_frees_the_port():
    listener = await RedirectListener.open()
    browser = asyncio.ensure_future(send_head(listener.port, head_of(200)))
    await listener.wait(DEADLINE_S)
    await listener.close()
    assert (await browser).startswith(b"HTTP/1.1 503 ")
    with pytest.raises(OSError):
        await asyncio.open_connection("127.0.0.1", listener.port)


def test_the_page_escapes_what_it_shows():
    page = page_bytes(400, "<b>t</b>", "<script>x</script>")
    assert b"<script>x" not in page and b"&lt;script&gt;" in page
    assert b"content-length: " + str(len(page.split(b"\r\n\r\n", 1)[1])).encode() in page
