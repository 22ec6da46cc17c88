"""The Design calls that change a project, journaled: each written ahead in the write
journal (what it changes and under what authority, never the token), sent, and settled
done or withdrawn by its answer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from ..core.design_operations import Approval, DesignOperation
from ..core.plans import ApprovedPlan
from ..errors import DesignRpcError, NeedsConsent, NeedsProjectGrant
from .session import McpSession
from .write_journal import BY_CARD, BY_GRANT, BY_PLAN, DesignJournal, changes_of, plan_detail

#: the plan a client finalized under a token (`PlanTokens.named`), or None
PlanNamed = Callable[[str], ApprovedPlan | None]


class CallJournal:
    """Sends one client's tools/calls, journaling each that changes a project in `journal`
    (none: nothing is journaled). `names` are the project names its cards found."""

    def __init__(self, session: McpSession, journal: DesignJournal | None,
                 table: Mapping[str, DesignOperation], plan_named: PlanNamed,
                 names: Mapping[str, str | None]) -> None:
        self._session = session
        self.journal = journal
        self._table = table
        self._plan_named = plan_named
        self._names = names

    async def tool(self, name: str, arguments: dict, journaled: int | None = None) -> Any:
        """One tools/call; a call that changes a project is journaled ahead and settled
        (done, or withdrawn when the service refused it or stopped it with a 403), unless
        its caller journaled it (`journaled`)."""
        journal = self.journal if journaled is None else None
        entry_fields = None if journal is None else self.entry(name, arguments)
        if journal is None or entry_fields is None:
            return await self._session.call_tool(name, arguments)
        entry = await asyncio.to_thread(journal.ahead, **entry_fields)
        try:
            raw = await self._session.call_tool(name, arguments)
        except (NeedsConsent, NeedsProjectGrant, DesignRpcError):  # refused: nothing changed
            await asyncio.to_thread(journal.settle, entry, done=False)
            raise
        failed = isinstance(raw, Mapping) and raw.get("isError") is True
        await asyncio.to_thread(journal.settle, entry, done=not failed)
        return raw

    def entry(self, name: str, arguments: dict) -> dict[str, Any] | None:
        """The journal entry of a call of `name` (`DesignJournal.ahead`'s keyword
        arguments): what it changes and under what authority; None for a call that
        changes nothing (a read, a plan)."""
        known = self._table.get(name)
        if known is None or known.approval in (Approval.READ, Approval.PLAN):
            return None
        pid = arguments.get("project_id")
        authority, detail = self._authority(known.approval, arguments)
        return {"operation": name, "project_id": pid if isinstance(pid, str) else "",
                "authority": authority, "detail": detail,
                "changes": changes_of(known, name, arguments),
                "project_name": self._names.get(pid) if isinstance(pid, str) else None}

    def _authority(self, approval: Approval, arguments: dict) -> tuple[str, str]:
        """Under what a write runs: the plan its token names, the durable grant, or a
        card (as words for the journal; never the token)."""
        token = arguments.get("plan_token")
        if approval is Approval.SENSITIVE:
            return BY_CARD, "its approval card (a single-use plan)"
        if isinstance(token, str):
            plan = self._plan_named(token)
            if plan is None:
                return BY_PLAN, "a plan token the caller supplied"
            return BY_PLAN, plan_detail(len(plan.writes), len(plan.deletes),
                                        plan.expires_at_ms)
        if approval is Approval.GRANTABLE:
            return BY_GRANT, "the project's durable grant"
        return BY_CARD, "its approval card"
