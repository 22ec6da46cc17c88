"""The answer-replacing rules' control requests (`fail`, `sse`, `latency`, `drip`,
`oversize`, `gzip-bomb`): each JSON body checked and made a `state.Rule`. Every rule takes a
`path` (a trailing `*` makes it a prefix), `count` (default 1) and the optional matchers
`method`, `rpc_method` and `tool` (a POST to the Design MCP endpoint) and `op` (a POST to
the remote-session route); the kinds' own settings are below."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import bodies
from ..envelopes import STATUS_KINDS, ApiError, envelope_body
from .state import Rule


def rule(kind: str, request_body: dict[str, Any], **params: Any) -> Rule:
    """A rule from its control request; `params` are the kind's own settings (a `body`
    among them is the answer a `fail` rule sends, hence the parameter's name)."""
    body = request_body
    path = bodies.string(body, "path", max_len=2048)
    assert path is not None
    if not path.startswith("/"):
        raise ApiError("invalid_request_error", "'path' must start with '/'.")
    return Rule(
        kind=kind, path=path,
        count=bodies.integer(body.get("count", 1), "count", low=1, high=100_000),
        method=bodies.string(body, "method", max_len=16, required=False),
        rpc_method=bodies.string(body, "rpc_method", max_len=256, required=False),
        tool=bodies.string(body, "tool", max_len=256, required=False),
        op=bodies.string(body, "op", max_len=64, required=False),
        params=params,
    )


def fail_rule(body: dict[str, Any]) -> Rule:
    """A `fail` rule: its `status`, optional `headers` and `body` (default: the §0
    envelope of that status), and `echo_id` (default true)."""
    status = bodies.integer(body.get("status"), "status", low=100, high=599)
    headers = body.get("headers", {})
    if not isinstance(headers, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and k.isascii() and v.isascii()
            for k, v in headers.items()):
        raise ApiError("invalid_request_error", "'headers' must map ASCII names to ASCII values.")
    kind = STATUS_KINDS.get(status, "api_error")
    answer = body["body"] if "body" in body else envelope_body(kind, f"Injected HTTP {status}.")
    echo_id = body.get("echo_id", True)
    if not isinstance(echo_id, bool):
        raise ApiError("invalid_request_error", "'echo_id' must be a boolean.")
    return rule("fail", body, status=status, body=answer, headers=headers, echo_id=echo_id)


#: route name -> how its body becomes a rule
RULES: dict[str, Callable[[dict[str, Any]], Rule]] = {
    "fail": fail_rule,
    "sse": lambda b: rule("sse", b),
    "latency": lambda b: rule("latency", b,
                              ms=bodies.integer(b.get("ms"), "ms", low=0, high=600_000)),
    "drip": lambda b: rule(
        "drip", b,
        bytes_per_tick=bodies.integer(b.get("bytes_per_tick"), "bytes_per_tick", low=1,
                                      high=1 << 30),
        tick_ms=bodies.integer(b.get("tick_ms"), "tick_ms", low=0, high=60_000)),
    "oversize": lambda b: rule("oversize", b, bytes=bodies.integer(
        b.get("bytes"), "bytes", low=16, high=256 * 1024 * 1024)),
    "gzip-bomb": lambda b: rule("gzip-bomb", b),
}
