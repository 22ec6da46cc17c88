"""A tiny scripted HTTP/1.1 server on loopback for what the reference service cannot be
made to do: reset a connection before or during a body, cut a body short, send a chunked
body past a cap, answer from another origin, or serve arbitrary (hypothesis-generated)
JSON-RPC answers. Each connection serves one request and closes."""

from __future__ import annotations

import dataclasses
import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

MAX_REQUEST_BYTES = 4 * 1024 * 1024


@dataclasses.dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None


# a reply is a list of steps: ("send", bytes) | ("sleep", seconds) | ("reset",) | ("close",)
Reply = list[tuple]
Script = Callable[[Request], Reply]


def response(status: int, body: bytes | str | Any, *, content_type: str = "application/json",
             headers: dict[str, str] | None = None, length: int | None = None) -> bytes:
    """A whole HTTP/1.1 response (a JSON value is encoded; `length` overrides the
    Content-Length header, to lie about it)."""
    if not isinstance(body, (bytes, str)):
        body = json.dumps(body)
    data = body.encode() if isinstance(body, str) else body
    lines = [f"HTTP/1.1 {status} X", f"Content-Type: {content_type}",
             f"Content-Length: {len(data) if length is None else length}", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + data


def chunked_head(status: int = 200, content_type: str = "application/json") -> bytes:
    return (f"HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\n"
            "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n").encode()


def chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


class LoopbackServer:
    """Serves `script(request)` on host:port (loopback) until closed; `requests` keeps
    every request it received."""

    def __init__(self, script: Script, host: str = "127.0.0.1") -> None:
        self.script = script
        self.requests: list[Request] = []
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, 0))
        self._sock.listen(64)
        self._sock.settimeout(0.2)
        self.base_url = f"http://{host}:{self._sock.getsockname()[1]}"
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._open: set[socket.socket] = set()
        self._accepter = threading.Thread(target=self._accept, daemon=True)
        self._accepter.start()

    def __enter__(self) -> LoopbackServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._stop.set()
        self._accepter.join(5)
        for conn in list(self._open):  # a connection waiting for a request: let it go
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for thread in self._threads:
            thread.join(5)
        self._sock.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except (TimeoutError, OSError):
                continue
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        conn.settimeout(10)
        self._open.add(conn)
        try:
            request = _read_request(conn)
            if request is None:
                return
            self.requests.append(request)
            for step in self.script(request):
                if self._stop.is_set():
                    break
                if step[0] == "send":
                    conn.sendall(step[1])
                elif step[0] == "sleep":
                    self._stop.wait(step[1])
                elif step[0] == "reset":  # RST instead of FIN
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                    struct.pack("ii", 1, 0))
                    break
                elif step[0] == "close":
                    break
        except OSError:
            pass
        finally:
            self._open.discard(conn)
            conn.close()


def _read_request(conn: socket.socket) -> Request | None:
    data = b""
    deadline = time.monotonic() + 10
    while b"\r\n\r\n" not in data:
        if time.monotonic() > deadline or len(data) > MAX_REQUEST_BYTES:
            return None
        chunk_ = conn.recv(65536)
        if not chunk_:
            return None
        data += chunk_
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or 0)
    while len(body) < length:
        chunk_ = conn.recv(65536)
        if not chunk_:
            break
        body += chunk_
    return Request(method, path, headers, body)


# ---------------------------------------------------------------- a scripted MCP service


class McpScript:
    """A well-behaved Design endpoint (initialize, initialized, tools/list from the real
    catalogue, tools/call) in which one JSON-RPC method can be given a hostile answer:
    `override[method] = lambda request, rpc_id: reply`."""

    SESSION_ID = "hostile-session-1"

    def __init__(self, tools: list[dict], call_result: dict | None = None) -> None:
        self.tools = tools
        self.call_result = call_result or {"content": [{"type": "text", "text": "[]"}]}
        self.override: dict[str, Callable[[Request, Any], Reply]] = {}

    def __call__(self, request: Request) -> Reply:
        message = request.json()
        if not isinstance(message, dict):
            return [("send", response(400, {"error": "bad"}))]
        method, rpc_id = message.get("method"), message.get("id")
        if request.method != "POST":
            return [("send", response(405, {"error": "method"}))]
        if method in self.override:
            return self.override[method](request, rpc_id)
        if method == "initialize":
            return [("send", response(200, {"jsonrpc": "2.0", "id": rpc_id, "result": {
                "protocolVersion": "2025-03-26", "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile", "version": "1"}}},
                headers={"Mcp-Session-Id": self.SESSION_ID}))]
        if method == "notifications/initialized":
            return [("send", response(202, b""))]
        if method == "tools/list":
            return [("send", response(200, {"jsonrpc": "2.0", "id": rpc_id,
                                             "result": {"tools": self.tools}}))]
        return [("send", response(200, {"jsonrpc": "2.0", "id": rpc_id,
                                         "result": self.call_result}))]
