"""The one-shot loopback listener of a native-app sign-in (RFC 8252 §7.3): it binds an
ephemeral port on 127.0.0.1, waits a bounded time for the browser's GET of its callback
path, hands that request's query over as a Secret, answers the browser with a small page
once the caller has used it, and then closes — the listening socket and every connection —
whatever happened.

    async with await RedirectListener.open() as listener:
        callback = await listener.wait(timeout_s)     # AuthError(reason="login_timeout")
        ...exchange the code in callback.query...
        await callback.answer(200, "Signed in", "You can close this tab.")

The first GET of the callback path decides the attempt; any other request (a favicon, a
second tab) gets a 404 page. A connection that sends no request head within
`READ_DEADLINE_S`, or more than `REQUEST_HEAD_MAX` bytes of it, is dropped.
"""

from __future__ import annotations

import asyncio
import html
from http import HTTPStatus
from typing import Any

from ..core.redaction import Secret
from ..errors import AuthError

HOST = "127.0.0.1"
CALLBACK_PATH = "/callback"
#: a browser's request line and headers, the blank line included; a longer head is not a
#: browser's redirect
REQUEST_HEAD_MAX = 16 * 1024
_HEAD_END = b"\r\n\r\n"
#: how long one connection may take to send its request head (preconnects send nothing)
READ_DEADLINE_S = 10.0
#: how long the browser's request is held open while the caller exchanges the code
ANSWER_DEADLINE_S = 30.0
#: loop turns between no longer accepting and closing the server: asyncio accepts a
#: connection in one turn, builds its transport in the next and hands it over in the
#: third, and a server closed before the build leaves that socket open (Python 3.11's
#: `Server._attach` asserts the server still has its sockets)
SETTLE_TURNS = 3

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;}}</style>
</head><body><h1>{title}</h1><p id="message">{message}</p></body></html>"""


def page_bytes(status: int, title: str, message: str) -> bytes:
    """A complete HTTP/1.1 answer: a small HTML page that nothing may cache or frame."""
    body = _PAGE.format(title=html.escape(title), message=html.escape(message)).encode()
    head = (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
            "content-type: text/html; charset=utf-8\r\n"
            f"content-length: {len(body)}\r\n"
            "cache-control: no-store\r\n"
            "referrer-policy: no-referrer\r\n"
            "content-security-policy: default-src 'none'; style-src 'unsafe-inline'; "
            "frame-ancestors 'none'\r\n"
            "connection: close\r\n\r\n")
    return head.encode("ascii") + body


async def _closed(writer: asyncio.StreamWriter) -> None:
    """Wait (bounded) until a closed connection's transport is gone, so a loop stopped
    right after leaves no open socket behind."""
    try:
        await asyncio.wait_for(writer.wait_closed(), READ_DEADLINE_S)
    except (ConnectionError, TimeoutError):
        pass


class Callback:
    """The browser's redirect: its query (a Secret: it carries the code) and its answer."""

    def __init__(self, query: Secret, writer: asyncio.StreamWriter) -> None:
        self.query = query
        self._writer = writer
        self.answered = asyncio.Event()

    async def answer(self, status: int, title: str, message: str) -> None:
        """Send the browser its page (once) and end the connection."""
        if self.answered.is_set():
            return
        self.answered.set()
        if self._writer.is_closing():
            return  # held past ANSWER_DEADLINE_S: the browser was already let go
        try:
            self._writer.write(page_bytes(status, title, message))
            await asyncio.wait_for(self._writer.drain(), READ_DEADLINE_S)
        except (ConnectionError, TimeoutError):
            pass  # the tab was closed: the sign-in still counts
        finally:
            self._writer.close()

    def __repr__(self) -> str:
        return "Callback(query=[redacted-oauth-token])"


class RedirectListener:
    def __init__(self) -> None:
        self._server: asyncio.Server | None = None
        self._accepting = True
        self._callback: asyncio.Future[Callback] = asyncio.get_running_loop().create_future()
        self._writers: set[asyncio.StreamWriter] = set()
        #: the connections' handlers (the loop holds tasks only weakly)
        self._handlers: set[asyncio.Task[None]] = set()
        self.port = 0

    @classmethod
    async def open(cls) -> RedirectListener:
        """Listen on 127.0.0.1 at a port the system picks; OSError when it cannot."""
        listener = cls()
        listener._server = await asyncio.start_server(
            # readuntil accepts a separator that starts at `limit`: so a head of exactly
            # REQUEST_HEAD_MAX bytes, its final blank line included, is the longest read
            listener._accepted, HOST, 0, limit=REQUEST_HEAD_MAX - len(_HEAD_END))
        listener.port = listener._server.sockets[0].getsockname()[1]
        return listener

    @property
    def redirect_uri(self) -> str:
        return f"http://{HOST}:{self.port}{CALLBACK_PATH}"

    @property
    def listening(self) -> bool:
        return self._server is not None and self._accepting and self._server.is_serving()

    async def wait(self, timeout_s: float) -> Callback:
        """The first GET of the callback path; AuthError(login_timeout) after `timeout_s`.
        Either way the listener stops accepting connections."""
        try:
            return await asyncio.wait_for(asyncio.shield(self._callback), timeout_s)
        except TimeoutError:
            raise AuthError(
                "login_timeout",
                f"No answer from the sign-in page within {timeout_s:g} s; the sign-in "
                "listener is closed.",
            ) from None
        finally:
            await self._stop_accepting()

    async def close(self) -> None:
        await self._stop_accepting()
        if self._server is not None:
            self._server.close()  # also when a second cancellation cut the one above short
        if self._callback.done() and not self._callback.cancelled():
            await self._callback.result().answer(
                503, "Sign-in stopped", "The notebook stopped waiting for this sign-in. "
                "Start the sign-in again.")
        else:
            self._callback.cancel()
        writers = list(self._writers)
        for writer in writers:
            writer.close()
        for writer in writers:  # closed now, not on a loop iteration that may never come
            await _closed(writer)
        if self._server is not None:
            await self._server.wait_closed()

    async def __aenter__(self) -> RedirectListener:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def _stop_accepting(self) -> None:
        """Accept no more connections: stop reading the listening socket, let the
        connections already accepted reach `_accepted` (SETTLE_TURNS), then close it."""
        if self._server is None or not self._accepting:
            return
        self._accepting = False
        loop = asyncio.get_running_loop()
        for sock in self._server.sockets:
            loop.remove_reader(sock.fileno())
        for _ in range(SETTLE_TURNS):
            await asyncio.sleep(0)
        self._server.close()

    def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """A connection, known from the moment it is accepted, not from its handler's first
        step: a closing loop may cancel the handler before that step runs, and `close()`
        must still end the connection (else its socket is left to the garbage collector)."""
        self._writers.add(writer)
        handler = asyncio.get_running_loop().create_task(self._connection(reader, writer))
        self._handlers.add(handler)
        handler.add_done_callback(self._handlers.discard)

    async def _connection(self, reader: asyncio.StreamReader,
                          writer: asyncio.StreamWriter) -> None:
        try:
            try:
                head = await asyncio.wait_for(reader.readuntil(_HEAD_END), READ_DEADLINE_S)
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError,
                    ConnectionError):
                return
            method, _, rest = head.partition(b"\r\n")[0].decode("latin-1").partition(" ")
            path, _, query = rest.rpartition(" ")[0].partition("?")
            if method != "GET" or path != CALLBACK_PATH or self._callback.done():
                writer.write(page_bytes(404, "Not found", "This address only takes the "
                                        "sign-in page's one redirect."))
                await asyncio.wait_for(writer.drain(), READ_DEADLINE_S)
                return
            callback = Callback(Secret(query), writer)
            self._callback.set_result(callback)
            del query, head, rest
            await asyncio.wait_for(callback.answered.wait(), ANSWER_DEADLINE_S)
        except (ConnectionError, TimeoutError):
            pass
        finally:
            writer.close()
            self._writers.discard(writer)
            await _closed(writer)



async def _exchange(host: str, port: int, request: bytes) -> tuple[int, dict[str, str]]:
    """Send one HTTP/1.1 request over a plain socket; (status, lower-cased headers)."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port),
                                            READ_DEADLINE_S)
    try:
        writer.write(request)
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(_HEAD_END),
                                      ANSWER_DEADLINE_S + READ_DEADLINE_S)
    except asyncio.IncompleteReadError:
        return 0, {}
    finally:
        writer.close()
        await _closed(writer)
    lines = head.decode("latin-1").split("\r\n")
    fields = lines[0].split(" ", 2)
    status = int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 0
    headers = dict(line.split(":", 1) for line in lines[1:] if ":" in line)
    return status, {k.strip().lower(): v.strip() for k, v in headers.items()}


async def post_form(url: str, form: dict[str, str]) -> tuple[int, str]:
    """POST an urlencoded form to a loopback page as its browser tab would (same origin),
    over a plain socket; (status, the redirect's location or ""). No HTTP client is
    used, so no client's debug log holds the answer's location, which carries the code."""
    from urllib.parse import urlencode, urlsplit

    parts = urlsplit(url)
    if parts.scheme != "http" or parts.hostname is None or parts.port is None:
        raise AuthError("login_failed", "The sign-in page is not a loopback http page.")
    body = urlencode(form).encode()
    origin = f"http://{parts.netloc}"
    status, headers = await _exchange(parts.hostname, parts.port, (
        f"POST {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\nOrigin: {origin}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode("ascii") + body)
    return status, headers.get("location", "")


async def follow_to_listener(location: str) -> int:
    """What a browser does with the authorize page's redirect to a loopback listener: one
    GET of `location` over a plain socket, answering the listener's status. No HTTP
    client is used, so no client's log line carries the URL, which holds the code."""
    from urllib.parse import urlsplit

    parts = urlsplit(location)
    if parts.scheme != "http" or parts.hostname != HOST or parts.port is None:
        raise AuthError("login_failed", "The sign-in page redirected somewhere other than "
                        "this kernel's loopback listener.")
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    status, _ = await _exchange(HOST, parts.port, (
        f"GET {target} HTTP/1.1\r\nHost: {HOST}:{parts.port}\r\n"
        "Connection: close\r\n\r\n").encode("ascii"))
    return status
