"""`%design rpc METHOD [JSON]`: one JSON-RPC method on the live Design session, shown as
the raw request and answer (`design.raw_rpc`); a `tools/call` runs as `%design OP` does,
through the permission decision and its card."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from typing import Any

from ...design.raw_rpc import RPC_TOOL_CALL, RawExchange, send
from ...errors import BadCommand, GateClosed
from ..grammar.parse import Command
from ..views import json_tree
from ..views.outcome import SHOWN_CHARS, Outcome
from .call import Call

COMMAND = "design rpc"


class RpcOutcome(Outcome):
    """The raw request and answer of one JSON-RPC exchange (`.data`: both, as dicts)."""

    def __init__(self, exchange: RawExchange) -> None:
        super().__init__(f"{COMMAND} {exchange.method}", exchange.to_dict(),
                         is_error=exchange.is_error)
        self.exchange = exchange

    def _text(self) -> str:
        data = self.data
        return (f"→ POST {json.dumps(data['request']['headers'], indent=1)}\n"
                f"{json.dumps(data['request']['body'], indent=1)}\n"
                f"← HTTP {data['answer']['status']} "
                f"{json.dumps(data['answer']['headers'], indent=1)}\n"
                f"{_shown_text(data['answer']['body'])}")

    def _html(self) -> str:
        data = self.data

        def block(title: str, value: Any, where: str) -> str:
            return (f"<details open><summary>{html.escape(title)}</summary>"
                    f"{_shown_html(value, where)}</details>")

        return ('<div class="jdp-outcome">'
                + block("request headers", data["request"]["headers"],
                        '["request"]["headers"]')
                + block("request", data["request"]["body"], '["request"]["body"]')
                + block(f"answer: HTTP {data['answer']['status']}", data["answer"]["body"],
                        '["answer"]["body"]')
                + block("answer headers", data["answer"]["headers"], '["answer"]["headers"]')
                + "</div>")


def _whole(where: str) -> str:
    return f"the outcome's `.data{where}`"


def _shown_html(value: Any, where: str) -> str:
    """A JSON value as the collapsible tree; an answer that is not JSON as its text."""
    if isinstance(value, str):
        return f'<pre style="white-space:pre-wrap">{html.escape(_cut_text(value, where))}</pre>'
    return json_tree.tree_html(value, whole=_whole(where))


def _shown_text(value: Any) -> str:
    if isinstance(value, str):
        return _cut_text(value, '["answer"]["body"]')
    return json_tree.tree_text(value, whole=_whole('["answer"]["body"]'),
                               limits=json_tree.PLAIN_LIMITS)


def _cut_text(text: str, where: str) -> str:
    if len(text) <= SHOWN_CHARS:
        return text
    return (f"{text[:SHOWN_CHARS]}\n… {len(text) - SHOWN_CHARS:,} more characters not shown "
            f"({len(text):,} in all); the whole text is in {_whole(where)}")


def params_of(words: Any, cell: str | None) -> dict | None:
    """The params: the line's JSON (quote it: '{"name": …}') or the cell body; None
    when neither is given."""
    text = " ".join(words) if isinstance(words, list) else (words or "")
    if cell is not None and text.strip():
        raise BadCommand(COMMAND, "give the params either on the line or as the cell body")
    text = (cell if cell is not None else text).strip()
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise BadCommand(COMMAND, f"the params are not valid JSON ({exc}); quote them: "
                                  "'{\"name\": …}'") from None
    if not isinstance(value, dict):
        raise BadCommand(COMMAND, "the params must be a JSON object {…}")
    return value


def rpc_command(call: Call) -> Any:
    """`%design rpc METHOD [JSON]` (the params on the line or as the cell body)."""
    method = call.args["method"]
    params = params_of(call.args.get("params"), call.args.get("body"))
    if method == RPC_TOOL_CALL:
        return _tool_call(call, params or {})
    session = call.session
    for gate, open_ in session.settings.design_gates():  # closed: nothing is sent
        if not open_:
            raise GateClosed("Design", gate)
    exchange = session.run(send(session.design.session, method, params))
    return RpcOutcome(exchange)


def _tool_call(call: Call, params: Mapping[str, Any]) -> Any:
    """tools/call as `%design OP` runs it: its registry row, the same checks, decision
    and card."""
    name, arguments = params.get("name"), params.get("arguments", {})
    if not isinstance(name, str) or not isinstance(arguments, dict):
        raise BadCommand(COMMAND, 'tools/call needs {"name": OPERATION, "arguments": {…}}')
    return call.again(Command("design", "call", {"operation": name, "arguments": arguments}))
