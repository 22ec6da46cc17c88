"""The hub harness's kernel call (tests/browser/hub_harness.py) closes the kernel's
channels whatever happens: a connection left open when its event loop ends is a socket
for the garbage collector, whose ResourceWarning then fails a later, innocent test."""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import threading
import warnings

import pytest
import tornado.httpserver
import tornado.netutil
import tornado.web
import tornado.websocket

from tests.browser.hub_harness import _kernel_output, asyncio_run


class Kernels(tornado.web.RequestHandler):
    def post(self) -> None:
        self.set_status(201)
        self.finish({"id": "k1"})


class Kernel(tornado.web.RequestHandler):
    def delete(self, _kernel: str) -> None:
        self.set_status(204)


class Channels(tornado.websocket.WebSocketHandler):
    """Answers an execute request with `reply`, then keeps the channels open."""

    reply = ""

    def on_message(self, message: str | bytes) -> None:
        self.write_message(self.reply)


@pytest.fixture
def server_url():
    """A Jupyter server's kernel API, as far as the harness uses it, on loopback."""
    started = threading.Event()
    holder: dict[str, object] = {}

    async def serve() -> None:
        app = tornado.web.Application([
            (r"/api/kernels", Kernels), (r"/api/kernels/([^/]+)", Kernel),
            (r"/api/kernels/[^/]+/channels", Channels)])
        sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
        server = tornado.httpserver.HTTPServer(app)
        server.add_sockets(sockets)
        holder["port"] = sockets[0].getsockname()[1]
        holder["stop"] = stop = asyncio.Event()
        holder["loop"] = asyncio.get_running_loop()
        started.set()
        await stop.wait()
        server.stop()
        await server.close_all_connections()

    thread = threading.Thread(target=asyncio.run, args=(serve(),), daemon=True)
    thread.start()
    assert started.wait(10)
    yield f"http://127.0.0.1:{holder['port']}/"
    holder["loop"].call_soon_threadsafe(holder["stop"].set)  # type: ignore[attr-defined]
    thread.join(10)


def unraisable_after_collection() -> list[str]:
    """What the garbage collector finds left open (ResourceWarnings as errors)."""
    found: list[str] = []
    before = sys.unraisablehook
    sys.unraisablehook = lambda u: found.append(f"{u.exc_value}: {u.object!r}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", ResourceWarning)
            gc.collect()
    finally:
        sys.unraisablehook = before
    return found


@pytest.mark.parametrize(("reply", "failure"), [
    ("not json", json.JSONDecodeError),  # the reading loop raises
    # a message of no request's: the kernel never finishes, and the read times out
    (json.dumps({"parent_header": {}, "header": {"msg_type": "status"}}), TimeoutError),
])
def test_the_kernels_channels_are_closed_when_the_call_fails(server_url, reply, failure,
                                                             monkeypatch):
    import tests.browser.hub_harness as harness

    monkeypatch.setattr(harness, "START_DEADLINE_S", 0.5)
    Channels.reply = reply
    unraisable_after_collection()  # nothing of an earlier test's is counted here
    with pytest.raises(failure):
        asyncio_run(_kernel_output(server_url, "t", "print(1)"))
    assert unraisable_after_collection() == []
