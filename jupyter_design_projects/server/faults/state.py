"""The switches of one reference-service run (`ctx.faults`): the rules set through the
/_faults routes, what a rule can match inside a request (`peek`), the answer a `fail` rule
gives (`canned_answer`), and the counts per route. No I/O and no service context: the
middleware in `switches` applies them."""

from __future__ import annotations

import dataclasses
import gzip
import io
import json
from collections import Counter
from typing import Any, NamedTuple

from .. import paths
from .echo import Echo
from .hostile import Hostile

#: rules that replace the answer (at most one applies); "latency" only delays it
TERMINAL_KINDS = ("fail", "sse", "drip", "oversize", "gzip-bomb")
GZIP_BOMB_BYTES = 64 * 1024 * 1024


class Peek(NamedTuple):
    """What a rule can match inside a POST body: the JSON-RPC method and tool name of an
    MCP call, the `op` of a remote-session call (None where absent or not a string)."""

    rpc_method: str | None = None
    tool: str | None = None
    op: str | None = None


def _json_object(body: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def canned_answer(rule: Rule, request_body: bytes) -> Any:
    """A `fail` rule's answer. A canned JSON-RPC envelope answers the request it replaces,
    as a service would: its `id` becomes the request's, unless the rule says `echo_id:
    false` (to test a client against an answer to another request)."""
    answer = rule.params["body"]
    if not (rule.params["echo_id"] and isinstance(answer, dict) and "jsonrpc" in answer):
        return answer
    request = _json_object(request_body)
    if request is None or "id" not in request:
        return answer
    return {**answer, "id": request["id"]}


def peek(method: str, path: str, body: bytes) -> Peek:
    """The matchable facts of a request's body (nothing for other routes and methods)."""
    if method != "POST" or path not in (paths.DESIGN_MCP, paths.REMOTE_SESSION):
        return Peek()
    message = _json_object(body)
    if message is None:
        return Peek()
    if path == paths.REMOTE_SESSION:
        return Peek(op=_text(message.get("op")))
    rpc_method = _text(message.get("method"))
    params = message.get("params")
    tool = _text(params.get("name")) if rpc_method and isinstance(params, dict) else None
    return Peek(rpc_method=rpc_method, tool=tool)


@dataclasses.dataclass
class Rule:
    kind: str
    path: str
    count: int
    method: str | None = None
    rpc_method: str | None = None
    tool: str | None = None
    op: str | None = None
    params: dict[str, Any] = dataclasses.field(default_factory=dict)

    def matches(self, method: str, path: str, facts: Peek) -> bool:
        """A path ending in `*` is a prefix; every matcher that is set must hold."""
        if self.path.endswith("*"):
            if not path.startswith(self.path[:-1]):
                return False
        elif path != self.path:
            return False
        return ((self.method is None or self.method.upper() == method)
                and (self.rpc_method is None or self.rpc_method == facts.rpc_method)
                and (self.tool is None or self.tool == facts.tool)
                and (self.op is None or self.op == facts.op))


class FaultState:
    """The switches of one service run (ctx.faults)."""

    def __init__(self) -> None:
        self.rules: list[Rule] = []
        self.counts: Counter[str] = Counter()
        self.misreport: set[str] = set()
        self.narrowed: set[str] = set()
        #: project uuid -> its (max_knowledge_size, threshold, search_enabled) before faults
        self.saved_projects: dict[str, tuple[int, int, int]] = {}
        #: read-only Design operations served beyond the table (reset stops them)
        self.extra_operations: set[str] = set()
        #: the hostile-content switch (`faults/hostile.py`); None: off
        self.hostile: Hostile | None = None
        #: the echo switch (`faults/echo.py`): the credentials seen, echoed while on
        self.echo = Echo()
        self._bomb: bytes | None = None

    def narrowed_scopes(self) -> frozenset[str]:
        return frozenset(self.narrowed)

    def take_misreport(self, file_uuid: str) -> bool:
        """True once after POST /_faults/misreport-size for this file."""
        if file_uuid in self.misreport:
            self.misreport.discard(file_uuid)
            return True
        return False

    def count(self, method: str, path: str, facts: Peek) -> None:
        """One more request on this route (and on its MCP method, tool or session op)."""
        self.counts[f"{method} {path}"] += 1
        if facts.rpc_method is not None:
            self.counts[f"mcp:{facts.rpc_method}"] += 1
            if facts.rpc_method == "tools/call" and facts.tool is not None:
                self.counts[f"mcp:tools/call:{facts.tool}"] += 1
        if facts.op is not None:
            self.counts[f"session:{facts.op}"] += 1

    def take(self, method: str, path: str, facts: Peek) -> tuple[Rule | None, Rule | None]:
        """The latency rule and the terminal rule for this request, each used up once."""
        latency = self._take_first(method, path, facts, ("latency",))
        terminal = self._take_first(method, path, facts, TERMINAL_KINDS)
        return latency, terminal

    def _take_first(self, method: str, path: str, facts: Peek,
                    kinds: tuple[str, ...]) -> Rule | None:
        for rule in self.rules:
            if rule.kind in kinds and rule.matches(method, path, facts):
                rule.count -= 1
                if rule.count <= 0:
                    self.rules.remove(rule)
                return rule
        return None

    def gzip_bomb(self) -> bytes:
        """A small gzip body that inflates to GZIP_BOMB_BYTES of JSON whitespace."""
        if self._bomb is None:
            out = io.BytesIO()
            with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9) as packer:
                packer.write(b'{"padding":"')
                block = b" " * (1024 * 1024)
                for _ in range(GZIP_BOMB_BYTES // len(block)):
                    packer.write(block)
                packer.write(b'"}')
            self._bomb = out.getvalue()
        return self._bomb
