"""The Design session's event stream: the GET a Streamable HTTP client may open on the MCP
endpoint (MCP 2025-03-26) to hear what the service sends unasked — log messages,
`notifications/tools/list_changed`, other notifications, a request. Opened only when asked
(`start`), never by a call: the default call path pays nothing for it.

It runs as one task on the session's background loop: GET with the session's id and
headers (through the session's client, so its auth, its trace and its allowlist apply),
then the answer's bytes through `core.sse` (each event capped) into `core.notifications`
(each message redacted, then kept in a bounded ring). It follows the session: a
re-initialize (a new session id) reopens it on the new one. When the stream ends it reopens
at once; a failure (no connection, 5xx) waits 1, 2, 4 … s (or the `retry` the service
asked for, at most 30 s) and after `MAX_FAILURES` in a row it stops and says why. A 405
(or a 404 on a fresh session) means the service sends no notifications, and it says so;
401, 403, 409 or an answer that is not an event stream stop it with their reason.
`tools/list_changed` marks the session's catalogue stale (the next call lists it again);
a `ping` request is answered `{}`, any other request with JSON-RPC -32601."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import httpx

from ..core.notifications import KEPT, TOOLS_CHANGED, NotificationStore, record_of
from ..core.redaction import Redactor, Secret
from ..core.sse import MAX_EVENT_BYTES, SseParser
from ..errors import JdpError
from ..transport.http import ACTION_EXTENSION, failure_reason
from ..transport.trace import iso_time
from .session import McpSession

ACTION = "design notifications"
#: consecutive failures after which the stream stops
MAX_FAILURES = 5
#: the first wait after a failure, and the longest
FIRST_WAIT_S = 1.0
LONGEST_WAIT_S = 30.0
#: how long the service may take to answer the GET's headers
OPEN_TIMEOUT_S = 60.0
#: a stream open at least this long before it ended (or one that carried an event) ended
#: normally; one that ended sooner, having carried nothing, counts as a failure
LIVED_S = 10.0
NO_NOTIFICATIONS = "this service sends no notifications"


class _Stop(Exception):
    """The stream ends for good, for the reason given."""


class NotificationStream:
    def __init__(self, session: McpSession, http: httpx.AsyncClient, *,
                 secrets: Callable[[], Iterable[Secret]] = tuple,
                 kept: int = KEPT, clock: Callable[[], float] = time.time,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
                 max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self._session = session
        self._http = http
        self._secrets = secrets
        self._clock = clock
        self._sleep = sleep
        self._max_event_bytes = max_event_bytes
        #: the loop adds, the notebook's thread reads: one lock guards the ring
        self.store = NotificationStore(kept, threading.Lock())
        #: one line saying what the stream is doing (or why it stopped)
        self.status = ("not listening (it opens when asked, on a Design session that "
                       "exists or, from Python, session.design_notifications())")
        self.reopened = 0
        self._task: asyncio.Task[None] | None = None
        self._reading: asyncio.Task[None] | None = None
        self._reading_session: str | None = None
        #: the reconnection time the service asked for (an event's `retry`), in seconds
        self._retry_s: float | None = None
        #: called with each record kept, on the session's loop (a view that shows them)
        self.on_record: list[Callable[[dict[str, Any]], None]] = []
        session.listener = self

    @property
    def listening(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Open the stream (on the session's loop), unless it is open already."""
        if self.listening:
            return
        self.status = "opening"
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            self.status = "closed (the Design session closed)"

    async def finished(self) -> None:
        """Wait until the stream has stopped for good (or was closed)."""
        task = self._task
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)

    def records(self) -> list[dict[str, Any]]:
        """The kept notifications, oldest first, redacted again with the secrets known now."""
        redact = Redactor(tuple(self._secrets()))
        return [{k: (redact(v) if isinstance(v, str) else v) for k, v in r.items()}
                for r in self.store.records()]

    def session_changed(self) -> None:
        """The session re-initialized: a stream on the old id reopens on the new one."""
        reading = self._reading
        if (reading is not None and not reading.done()
                and self._reading_session != self._session.session_id):
            reading.cancel()

    # ------------------------------------------------------------ the task

    async def _run(self) -> None:
        failures, fresh_404 = 0, False
        try:
            while True:
                try:
                    session_id, headers = await self._session.stream_headers()
                except JdpError as error:
                    raise _Stop(f"the Design session could not be opened ({error.kind})") from None
                self._reading_session = session_id
                self._reading = asyncio.ensure_future(self._listen(session_id, headers))
                try:
                    await self._reading
                except asyncio.CancelledError:
                    current = asyncio.current_task()
                    if current is not None and current.cancelling():
                        raise
                    self.reopened += 1  # the session changed: reopen on the new one
                    continue
                except _NotFound:
                    if fresh_404:
                        raise _Stop(f"{NO_NOTIFICATIONS} (HTTP 404 on GET, even on a fresh "
                                    "session)") from None
                    fresh_404 = True
                    self._session.lose(session_id)
                    continue
                except _Failed as failed:
                    failures += 1
                    if failures >= MAX_FAILURES:
                        raise _Stop(f"{failures} failed attempts in a row, the last: "
                                    f"{failed.reason}") from None
                    wait = min(LONGEST_WAIT_S, failed.retry_s or self._retry_s
                               or FIRST_WAIT_S * 2 ** (failures - 1))
                    self.status = (f"reconnecting in {wait:g} s (attempt {failures + 1} of "
                                   f"{MAX_FAILURES}): {failed.reason}")
                    await self._sleep(wait)
                    self.reopened += 1
                    continue
                except _Heard:
                    failures, fresh_404 = 0, False  # it worked for a while: ended cleanly
                    self.reopened += 1
        except _Stop as stop:
            self.status = f"stopped: {stop}"

    async def _listen(self, session_id: str | None, headers: dict[str, str]) -> None:
        """One GET: raises _Heard when the stream ended after carrying an event or living
        `LIVED_S`, _Failed when it ended sooner having carried nothing (or failed),
        _NotFound or _Stop."""
        request = self._http.build_request("GET", self._session.endpoint, headers=headers)
        request.extensions[ACTION_EXTENSION] = ACTION
        try:
            async with asyncio.timeout(OPEN_TIMEOUT_S):
                response = await self._http.send(request, stream=True)
        except TimeoutError:
            raise _Failed(f"no answer within {OPEN_TIMEOUT_S:g} s") from None
        except httpx.HTTPError as exc:
            raise _Failed(f"{failure_reason(exc)} ({type(exc).__name__})") from None
        heard = False
        opened = asyncio.get_running_loop().time()
        try:
            self._check(response)
            self.status = f"listening since {iso_time(self._clock())} (session stream open)"
            parser = SseParser(ACTION, self._max_event_bytes)
            try:
                async for chunk in response.aiter_raw():
                    for event in parser.feed(chunk):
                        heard = True
                        await self._keep(event.data, session_id)
                        if event.retry_ms is not None:
                            self._retry_s = max(0.1, event.retry_ms / 1000)
            except httpx.ReadTimeout:
                pass  # quiet for a while (no keep-alive): reopen
            except httpx.HTTPError as exc:
                raise _Failed(f"the stream broke off ({failure_reason(exc)})") from None
            except JdpError as error:  # an event over the cap
                raise _Stop(f"an event was larger than {self._max_event_bytes:,} bytes "
                            f"({error.kind})") from None
        finally:
            await response.aclose()
        if heard or asyncio.get_running_loop().time() - opened >= LIVED_S:
            raise _Heard()
        raise _Failed("the stream ended at once, having carried nothing")

    def _check(self, response: httpx.Response) -> None:
        status = response.status_code
        if status == 405:
            raise _Stop(f"{NO_NOTIFICATIONS} (HTTP 405 on GET)")
        if status == 404:
            raise _NotFound()
        if status in (401, 403):
            raise _Stop(f"the service refused the stream (HTTP {status})")
        if status == 409:
            raise _Stop("the service already has a stream open for this session (HTTP 409)")
        if status == 429 or status >= 500:
            retry = response.headers.get("retry-after", "")
            raise _Failed(f"HTTP {status}", float(retry) if retry.isdigit() else None)
        if status != 200:
            raise _Stop(f"the service answered the GET with HTTP {status}")
        encoding = response.headers.get("content-encoding", "identity").lower()
        if encoding not in ("", "identity"):
            raise _Stop(f"the stream is {encoding[:40]}-encoded; asked for identity")
        media = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if media != "text/event-stream":
            raise _Stop(f"the service answered the GET with {media[:60] or '(no type)'}, "
                        "not an event stream")

    async def _keep(self, data: str, session_id: str | None) -> None:
        redact = Redactor(tuple(self._secrets()))
        try:
            message: Any = json.loads(data)
        except (ValueError, RecursionError):
            message = {"method": None, "params": data}
        record = self.store.add(record_of(message, iso_time(self._clock()), redact))
        for tell in list(self.on_record):
            try:
                tell(record)
            except Exception:  # a view that fails must not stop the stream
                pass
        if record["method"] == TOOLS_CHANGED:
            self._session.mark_tools_stale()
        if record["kind"] == "request":
            await self._answer(message, session_id)

    async def _answer(self, request: dict[str, Any], session_id: str | None) -> None:
        """Answer a request the service sent on the stream: ping with {}, others -32601."""
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request.get("id")}
        if request.get("method") == "ping":
            reply["result"] = {}
        else:
            reply["error"] = {"code": -32601, "message": "Method not found"}
        try:
            await self._session.reply(reply, session_id)
        except JdpError:
            pass  # the request stays in the store; the service sees no answer


class _NotFound(Exception):
    pass


class _Heard(Exception):
    pass


class _Failed(Exception):
    def __init__(self, reason: str, retry_s: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_s = retry_s
