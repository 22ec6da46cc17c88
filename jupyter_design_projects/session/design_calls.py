"""One Design operation from a script (`session.design_call`): the call, then each approval
card it needs handed to an `approve` callback, until it ends."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..core.cards import ApprovalRequest
    from ..design.approval import DesignOutcome
    from ..design.client import DesignClient
    from ..transport.loop import BackgroundLoop

#: the person's answer to a card: "once", "project" (a durable grant) or None (deny)
Approve = Callable[["ApprovalRequest"], str | None]


def design_call(design: DesignClient, loop: BackgroundLoop, operation: str,
                arguments: dict[str, Any] | None = None, *, approve: Approve | None = None,
                agent_key: str | None = None) -> DesignOutcome:
    """Run one Design operation and return its `DesignOutcome`. `agent_key` names whose
    `list` it is (each `AgentTools` passes its own; None: the person's), as each remembers
    its own catalogue hash.

    Each approval card the call needs (consent, then a grant or a plan) is handed to
    `approve(request)`, which answers "once", "project" (a durable grant, where the card
    allows one) or None (deny). Without `approve` nothing is approved: a call that needs a
    person comes back refused, as it does where no card can be shown."""
    from ..design.approval import PendingApproval

    whose: dict[str, Any] = {} if agent_key is None else {"agent_key": agent_key}
    result = loop.run(design.call(operation, dict(arguments or {}), **whose))
    while isinstance(result, PendingApproval):
        answer = approve(result.request) if approve is not None else None
        result = loop.run(design.resume(
            result, approved=answer in ("once", "project"), durable=answer == "project"))
    return result
