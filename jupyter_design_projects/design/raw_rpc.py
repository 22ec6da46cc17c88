"""Any JSON-RPC method sent as is on the live Design session (`%design rpc`): the request
as it went (its envelope and the headers beside the bearer, which shows only as
redacted) and the answer as it came, redacted of every secret the client knows before
anything keeps it. A `tools/call` is never sent this way: the notebook routes it through
the call's permission decision (`RPC_TOOL_CALL`)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from ..core.redaction import REDACTED, redact
from .session import McpSession

#: the method that runs an operation, and so goes through the permission decision
RPC_TOOL_CALL = "tools/call"
#: how much of an answer is kept (after redaction)
ANSWER_CHARS = 200_000


@dataclasses.dataclass(frozen=True)
class RawExchange:
    method: str
    request: dict[str, Any]
    request_headers: dict[str, str]
    status: int
    answer_headers: dict[str, str]
    #: the answer's body, redacted (and cut at ANSWER_CHARS)
    answer_text: str
    #: the redacted body as JSON, or None when it is not JSON
    answer: Any

    @property
    def is_error(self) -> bool:
        return self.status >= 400 or (isinstance(self.answer, dict)
                                      and self.answer.get("error") is not None)

    def to_dict(self) -> dict[str, Any]:
        return {"request": {"headers": self.request_headers, "body": self.request},
                "answer": {"status": self.status, "headers": self.answer_headers,
                           "body": self.answer if self.answer is not None
                           else self.answer_text}}


async def send(session: McpSession, method: str, params: dict | None = None) -> RawExchange:
    """Send `method` (a `notifications/…` method as a notification, with no id)."""
    if method == RPC_TOOL_CALL:
        raise ValueError("tools/call goes through the permission decision, not raw_rpc")
    notification = method.startswith("notifications/")
    envelope, headers, answer = await session.raw(method, params, notification=notification)
    text = answer.text(ANSWER_CHARS)
    try:
        parsed = json.loads(text) if text else None
    except ValueError:
        parsed = None
    return RawExchange(method, envelope,
                       {**headers, "Authorization": f"Bearer {REDACTED}"},
                       answer.status,
                       {k: redact(v, answer.secrets) for k, v in answer.headers.items()
                        if k.lower() not in ("set-cookie", "authorization")},
                       text, parsed)
