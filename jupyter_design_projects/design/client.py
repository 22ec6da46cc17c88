"""The Design tool: gates → catalogue → validation → permission decision → call → mapped
result, with approval cards as `PendingApproval`s that `resume` continues.

Every failure of a call comes back as a `DesignOutcome` carrying the error (a tool result
with is_error); only closed gates raise. Nothing remote is written unless a person saw
exactly what changes, or a registered plan or a verified grant covers it.

The client composes its parts: the MCP session (`session`), the catalogue, the permission
engine, the plan tokens it asks for (`plan_tokens`), the journaling of its writes
(`call_journal`) and the project names its cards show (`project_names`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import httpx

from ..core import call_events, display
from ..core.call_events import CallObserver
from ..core.cards import NOT_ENUMERABLE, OVER_LIMIT
from ..core.design_operations import Approval, DesignOperation
from ..core.permissions import Allow, Ask, Decision, Facts, decide, facts_of, grant_card_fallback
from ..core.results import MappedResult, map_result, spilled
from ..core.validation import validate
from ..errors import GateClosed, GrantIneligible, JdpError, NeedsConsent, NeedsProjectGrant
from ..settings import Settings
from .approval import (
    ApprovalRequest,
    DesignOutcome,
    PendingApproval,
    change_request,
    grant_request,
)
from .call import Call, Result, refused
from .call_journal import CallJournal
from .catalogue import CLIENT_OPERATIONS, LIST, PERSON, Catalogue, CatalogueOutcome
from .permissions import PermissionEngine
from .plan_tokens import PlanTokens
from .project_names import ProjectNames
from .rest import DesignRest
from .session import McpSession
from .write_journal import DesignJournal

#: the grant watcher (spec §8) looks this often while a grant card waits …
GRANT_WATCH_INTERVAL_S = 2.0
#: … and for at most this long (then the card simply keeps waiting for a click)
GRANT_WATCH_LIFETIME_S = 600.0


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class DesignClient:
    def __init__(self, http: httpx.AsyncClient, settings: Settings, *,
                 can_ask: Callable[[], bool], clock_ms: Callable[[], int] | None = None,
                 main_context: bool = True,
                 operations: Mapping[str, DesignOperation],
                 save_text: Callable[[str, str], object] | None = None,
                 journal: DesignJournal | None = None,
                 observers: Iterable[CallObserver] = ()) -> None:
        """`save_text(text, name)` writes a 0600 file in the session's directory and
        returns its path: where a result over 100,000 characters is kept whole (without
        it, such a result is cut). `journal` records every write this client sends;
        `observers` are told of every call (`core.call_events`)."""
        self._settings = settings
        #: told when each call starts and ends (the session's call history is one)
        self.observers: list[CallObserver] = list(observers)
        self._save_text = save_text
        self._can_ask = can_ask
        self._clock = clock_ms or _now_ms
        self._main = main_context
        base = settings.api_base_url.rstrip("/")
        platform = settings.client_platform
        self.session = McpSession(http, base + "/v1/design/mcp", platform=platform)
        #: the Design operations this client knows (core.design_operations)
        self.catalogue = Catalogue(self.session, operations)
        self.engine = PermissionEngine(DesignRest(http, base, platform=platform))
        self.names = ProjectNames(self.session)
        self.plan_tokens = PlanTokens(self.engine, self.catalogue.table, self._clock,
                                      self._send, self._facts)
        self.call_journal = CallJournal(self.session, journal, self.catalogue.table,
                                        self.plan_tokens.named, self.names.seen)

    @property
    def journal(self) -> DesignJournal | None:
        """The write journal that records every write this client sends (or None)."""
        return self.call_journal.journal

    @property
    def projects_seen(self) -> dict[str, str | None]:
        """Design project id -> its display-safe name (None when it has none), for each
        project the existence check before a write card found (cards show the name)."""
        return self.names.seen

    # ------------------------------------------------------------ public API

    async def list(self, *, full: bool = False, agent_key: str = PERSON) -> DesignOutcome:
        """The catalogue view (`Catalogue.list_view`); `agent_key` says whose: the person,
        the inspector or one `AgentTools` (each remembers its own catalogue hash)."""
        self._gates()
        try:
            view = await self.catalogue.list_view(agent_key=agent_key, full=full)
        except JdpError as error:
            return CatalogueOutcome.failed(LIST.name, error)
        return CatalogueOutcome.of_data(LIST.name, view)

    async def call(self, operation: str, arguments: dict, *,
                   agent_key: str = PERSON, journaled: int | None = None) -> Result:
        """Decide, then send, ask or refuse. `journaled`: the id of this call's journal
        entry, which the caller wrote ahead (`journal_entry`, several in one commit) and
        settles itself; the call is then not journaled again. The client's own operations
        (`list`) are answered here; every other call is told to the `observers`."""
        if operation in CLIENT_OPERATIONS:
            return await self.list(full=bool((arguments or {}).get("full")), agent_key=agent_key)
        return await call_events.observe(
            call_events.started(self.observers, "design", operation, arguments),
            self._call(operation, arguments, agent_key, journaled))

    async def _call(self, operation: str, arguments: dict, agent_key: str,
                    journaled: int | None) -> Result:
        self._gates()
        try:
            entry = await self.catalogue.entry(operation)
            row = self.catalogue.table.get(operation)
            checked = validate(operation, arguments, entry.input_schema,
                               row.refused_values if row is not None else (),
                               client_schema=entry.known)
            call = Call(operation, json.loads(json.dumps(checked)), agent_key,
                        journaled=journaled)
            return await self._proceed(call)
        except JdpError as error:
            return DesignOutcome.failed(str(operation), error)

    async def resume(self, pending: PendingApproval, *, approved: bool,
                     durable: bool = False) -> Result:
        """Continue a call after its card was answered. A denial sends nothing. The
        `observers` that saw the call wait are told how it goes on."""
        return await call_events.observe(call_events.resumed(self.observers, pending),
                                         self._resume(pending, approved, durable))

    async def _resume(self, pending: PendingApproval, approved: bool, durable: bool) -> Result:
        self._gates()
        op = pending.operation
        if not approved:
            return refused(op, "denied_on_card")
        call = Call(op, pending.sealed_arguments(), pending.agent_key, pending.consent_asked)
        kind = pending.request.kind
        # a card over the review limits approved this one call: nothing is registered
        register = not pending.request.reason.startswith(OVER_LIMIT)
        try:
            if kind == "consent":
                await self.engine.give_consent()
                return await self._proceed(dataclasses.replace(call, consent_asked=True))
            if kind == "grant" and durable and pending.request.allows_durable:
                return await self._write_under_grant(call)
            if pending.request.reason == NOT_ENUMERABLE:
                # no plan can name what cannot be listed: the call as shown, under its own
                # plan token or the project's grant (the decision asked only then)
                return await self._send(call, op, call.arguments)
            approval = self._approval(op)
            if approval is Approval.PLAN:
                return await self.plan_tokens.finalize(call, register=register)
            if approval is Approval.SENSITIVE:
                return await self.plan_tokens.sensitive(call)
            if approval.per_batch_plan:
                return await self.plan_tokens.per_batch(call, register=register)
            return await self._send(call, op, call.arguments)
        except JdpError as error:
            return DesignOutcome.failed(op, error)

    async def watch_grant(self, pending: PendingApproval, *, claim: Callable[[], bool],
                          interval_s: float = GRANT_WATCH_INTERVAL_S,
                          lifetime_s: float = GRANT_WATCH_LIFETIME_S) -> Result | None:
        """The grant watcher (spec §8, the `grant_watch` gate): while `pending`'s grant card
        waits, read the service's grants every `interval_s` for at most `lifetime_s`. When
        a grant for its project newer than the card's baseline appears (given elsewhere,
        e.g. in Design settings), the project joins the verified set and, if `claim()` says
        the card was not answered meanwhile, the call goes on as a click would: its result
        is returned. None when there is nothing to watch or the watch ends otherwise."""
        project_id = pending.request.project_id
        if (not self._settings.grant_watch or pending.request.kind != "grant"
                or project_id is None):
            return None
        interval = max(interval_s, 0.01)
        for _ in range(max(1, math.ceil(lifetime_s / interval))):
            await asyncio.sleep(interval)
            if await self.engine.watch_once(project_id, pending.grant_baseline):
                return await self._continue(pending) if claim() else None
        return None

    async def _continue(self, pending: PendingApproval) -> Result:
        """A grant card answered elsewhere: the call goes through the decision again, which
        now finds the verified grant."""
        call = Call(pending.operation, pending.sealed_arguments(), pending.agent_key,
                    pending.consent_asked)
        try:
            self._gates()
            return await self._proceed(call)
        except JdpError as error:
            return DesignOutcome.failed(pending.operation, error)

    async def consent(self) -> dict:
        """`%design consent`: the person typed it, so no card is needed."""
        self._gates()
        await self.engine.give_consent()
        return await self.status()

    async def revoke(self) -> dict:
        """`%design revoke`: DELETE consent; forget plans and verified grants."""
        self._gates()
        existed = await self.engine.revoke()
        return {"revoked": existed, **await self.status()}

    async def status(self) -> dict:
        """Consent and grants as the service holds them now (read when the gates are
        open; what was last read otherwise), and this process's approved plans."""
        if self._gates_open():
            await self.engine.refresh()
        return self.engine.status(self._clock())

    async def project_names(self, project_ids: Iterable[str]) -> Mapping[str, str | None]:
        """The display-safe names of these projects (`ProjectNames.names`)."""
        return await self.names.names(project_ids)

    def journal_entry(self, name: str, arguments: dict) -> dict[str, Any] | None:
        """The journal entry of a call of `name`, or None (`CallJournal.entry`)."""
        return self.call_journal.entry(name, arguments)

    async def close(self) -> None:
        await self.session.close()

    # ------------------------------------------------------------ the decision

    def _gates(self) -> None:
        for gate, open_ in self._settings.design_gates():
            if not open_:
                raise GateClosed("Design", gate)

    def _gates_open(self) -> bool:
        try:
            self._gates()
        except GateClosed:
            return False
        return True

    async def _facts(self, call: Call) -> Facts:
        entry = await self.catalogue.entry(call.operation)
        return facts_of(call.operation, entry.read_only, entry.destructive, call.arguments,
                        self.catalogue.table)

    def _approval(self, operation: str) -> Approval:
        """How a call of `operation` is approved, as the table declares it (a card for an
        operation it does not know)."""
        known = self.catalogue.table.get(operation)
        return Approval.CARD if known is None else known.approval

    async def _proceed(self, call: Call) -> Result:
        """Decide, then run, ask or refuse."""
        try:
            facts = await self._facts(call)
            await self.engine.prefetch_consent()
            pid = facts.project_id
            if (facts.approval is Approval.GRANTABLE and facts.plan_token is None
                    and isinstance(pid, str) and self._main and self.engine.consent is not False):
                await self.engine.probe_grant(pid)
            decision = self._decision(facts)
            if (not isinstance(decision, Allow) and decision.reason == "consent_not_given"
                    and await self.engine.refresh_consent()):
                # given elsewhere (the panel, another kernel) since it was last read: no
                # card and no refusal, decide on what the service holds now
                return await self._proceed(call)
            if isinstance(decision, Allow):
                return await self._send(call, call.operation, call.arguments)
            if isinstance(decision, Ask):
                return await self._ask(call, facts, decision)
            return refused(call.operation, decision.reason, decision.remedy)
        except NeedsConsent:
            return await self._consent_needed(call)

    def _decision(self, facts: Facts) -> Decision:
        snapshot = self.engine.snapshot(can_ask=self._can_ask(), main_context=self._main,
                                        now_ms=self._clock())
        return decide(snapshot, facts, self._clock())

    async def _consent_needed(self, call: Call) -> Result:
        """403 needs_consent (spec §6, the failure table): the consent bit is seeded false
        and the call that met it fails (its error names `%design consent`); the next
        permission decision shows the consent card."""
        self.engine.seed_consent_false()
        return DesignOutcome.failed(call.operation, NeedsConsent())

    async def _ask(self, call: Call, facts: Facts, decision: Ask) -> Result:
        request: ApprovalRequest | None
        if decision.card != "grant":
            request = change_request(decision.card, facts, decision.reason)
        else:
            identity = await self.names.identity(facts.project_id)
            request = (grant_request(facts, identity)
                       if isinstance(identity, display.ProjectIdentity) else None)
            if request is None:
                refused_by = identity if isinstance(identity, str) else "card_too_long"
                fallback = grant_card_fallback(facts, refused_by)
                if not isinstance(fallback, Ask):
                    return refused(call.operation, fallback.reason, prefix=(
                        f"the project's grant card cannot be shown safely ({refused_by}), "
                        "and "))
                request = change_request(fallback.card, facts, fallback.reason)
        if request.kind != "consent":
            missing = await self.names.missing(call)
            if missing is not None:
                return missing
        baseline = (self.engine.grant_seen(facts.project_id)
                    if request.kind == "grant" and isinstance(facts.project_id, str) else None)
        return PendingApproval.seal(request, call.operation, call.arguments,
                                    agent_key=call.agent_key, consent_asked=call.consent_asked,
                                    grant_baseline=baseline)

    # ------------------------------------------------------------ running

    async def _send(self, call: Call, name: str, arguments: dict) -> Result:
        """One tools/call; a 403 sends the call back through the decision once."""
        try:
            raw = await self.call_journal.tool(
                name, arguments, call.journaled if name == call.operation else None)
        except NeedsConsent:
            return await self._consent_needed(call)
        except NeedsProjectGrant:
            pid = call.arguments.get("project_id")
            self.engine.forget_grant(pid if isinstance(pid, str) else "")
            if call.grant_retried:
                raise
            return await self._proceed(dataclasses.replace(call, grant_retried=True))
        outcome = self._outcome(call, await self._mapped(raw))
        if self.plan_tokens.gone(call, arguments, outcome):
            # the service no longer holds a plan this client made (consent revoked and
            # given again elsewhere, spent, expired early): forget it and decide again,
            # which may ask with a card; once, so a second refusal is the answer
            self.engine.forget_plan(arguments["plan_token"])
            return await self._proceed(dataclasses.replace(call, plan_retried=True))
        pid = call.arguments.get("project_id")
        if (self._approval(call.operation) is Approval.SENSITIVE and not outcome.is_error
                and isinstance(pid, str)):
            self.engine.forget_project(pid)
        return outcome

    async def _write_under_grant(self, call: Call) -> Result:
        """Approved for the project: write; on needs_project_grant mint the grant and retry
        once; a project that cannot hold a grant goes to per-batch plans from now on."""
        pid = call.arguments["project_id"]
        try:
            raw = await self.call_journal.tool(call.operation, call.arguments, call.journaled)
        except NeedsProjectGrant:
            try:
                await self.engine.mint_grant(pid)
            except GrantIneligible:
                return await self._proceed(dataclasses.replace(call, grant_retried=True))
            except NeedsConsent:  # consent withdrawn while the card was open: ask again
                return await self._consent_needed(call)
            return await self._send(dataclasses.replace(call, grant_retried=True),
                                    call.operation, call.arguments)
        except NeedsConsent:
            return await self._consent_needed(call)
        return self._outcome(call, await self._mapped(raw))

    def _outcome(self, call: Call, mapped: MappedResult) -> DesignOutcome:
        """The call's outcome, with its row of this client's table (its summary line)."""
        return DesignOutcome(call.operation, mapped, row=self.catalogue.table.get(call.operation))

    async def _mapped(self, raw: object) -> MappedResult:
        """The mapped result; text over the cap saved whole, the result a preview + path."""
        mapped = map_result(raw)
        if mapped.whole_text is None or self._save_text is None:
            return mapped
        saved = await asyncio.to_thread(self._save_text, mapped.whole_text, "result.txt")
        return spilled(mapped, str(saved))
