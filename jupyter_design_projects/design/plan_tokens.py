"""The plan tokens a Design client asks for: `finalize_plan` for exactly the targets a
card showed, the token registered with the permission engine when the batch is within the
review limits, and the plans it made remembered (the newest 64) to name them in the
journal and to tell a plan the service no longer holds from a token from elsewhere."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from ..core.design_operations import DesignOperation, plan_operation
from ..core.permissions import Facts
from ..core.plans import (
    REVIEW_LIMITS,
    ApprovedPlan,
    Targets,
    approved_plan,
    normalised,
    plan_rule,
)
from ..core.refusals import PLAN_GONE, plan_refusal
from .approval import DesignOutcome
from .call import Call, Result, refused
from .permissions import PermissionEngine

#: how many finalized plans a client remembers by token
PLANS_REMEMBERED = 64

Send = Callable[[Call, str, dict], Awaitable[Result]]
FactsOf = Callable[[Call], Awaitable[Facts]]


class PlanTokens:
    """The plans one client finalizes. `send(call, name, arguments)` runs one tools/call
    through the client (its 403s decided again); `facts(call)` reads a call's facts."""

    def __init__(self, engine: PermissionEngine, table: Mapping[str, DesignOperation],
                 clock: Callable[[], int], send: Send, facts: FactsOf) -> None:
        self._engine = engine
        self._table = table
        self._clock = clock
        self._send = send
        self._facts = facts
        #: the plans this client finalized, by token, to name them in the journal
        self._made: dict[str, ApprovedPlan] = {}

    def named(self, token: str) -> ApprovedPlan | None:
        """The plan this client finalized under `token`, if it is one of the newest."""
        return self._made.get(token)

    def _remember(self, plan: ApprovedPlan | None) -> None:
        if plan is not None:
            self._made[plan.token] = plan
            for old in list(self._made)[:-PLANS_REMEMBERED]:
                del self._made[old]

    def gone(self, call: Call, arguments: dict, outcome: DesignOutcome) -> bool:
        """The service refused a plan this client made because it no longer holds it
        (PROTOCOL §3: `Plan token refused (unknown|spent|expired)`), and this call has not
        been decided again for that yet. A token from elsewhere, or another refusal
        (not_covered, other_project …), is the call's answer as it is."""
        token = arguments.get("plan_token")
        if not outcome.is_error or call.plan_retried or not isinstance(token, str):
            return False
        if token not in self._made and not self._engine.holds_plan(token):
            return False
        return plan_refusal(outcome.data) in PLAN_GONE

    async def for_targets(self, call: Call, targets: Targets, *,
                          register: bool = True) -> DesignOutcome | str:
        """finalize_plan for exactly the shown targets; its token (registered when the
        batch is within the review limits and `register`), or the outcome that stopped it.
        A batch over the limits was shown in full and approved: its token serves this one
        call (spec §7: the limits gate registration, not the call)."""
        pid = call.arguments.get("project_id")
        problem = plan_rule(pid, None, targets)
        if (problem and problem not in REVIEW_LIMITS) or not isinstance(pid, str):
            return refused(call.operation, problem or "unsafe_project_id")
        writes = normalised(targets.writes, reserved=True)
        deletes = normalised(targets.deletes, reserved=True)
        plan_args = {"project_id": pid, "writes": sorted(writes or ()),
                     "deletes": sorted(deletes or ())}
        planner = plan_operation(self._table)
        if planner is None:
            return refused(call.operation, "no_plan_operation")
        result = await self._send(call, planner, plan_args)
        if not isinstance(result, DesignOutcome) or result.is_error:
            return result  # type: ignore[return-value]
        plan = approved_plan(result.data, pid, targets, self._clock())
        self._remember(plan)
        if plan is None:
            return refused(call.operation, "plan_mismatch")
        if targets.count and register and problem is None:
            self._engine.register(plan)
        return plan.token

    async def per_batch(self, call: Call, *, register: bool = True) -> Result:
        """A card for this batch was approved: a plan for exactly its targets, then the
        call under that plan's token."""
        targets = (await self._facts(call)).targets
        if targets is None:
            return refused(call.operation, "targets_not_enumerable")
        return await self._under_plan(call, targets, register=register)

    async def sensitive(self, call: Call) -> Result:
        """Membership and sharing: the service wants a plan token; this one is used once
        and never registered (a card every time)."""
        return await self._under_plan(call, Targets(), register=True)

    async def _under_plan(self, call: Call, targets: Targets, *, register: bool) -> Result:
        token = await self.for_targets(call, targets, register=register)
        if not isinstance(token, str):
            return token
        return await self._send(call, call.operation, {**call.arguments, "plan_token": token})

    async def finalize(self, call: Call, *, register: bool = True) -> Result:
        """The plan card was shown and approved: finalize, and register the token unless
        the plan is over the review limits (then the person gets the token, unregistered)."""
        result = await self._send(call, call.operation, call.arguments)
        if isinstance(result, DesignOutcome) and not result.is_error:
            facts = await self._facts(call)
            plan = approved_plan(result.data, facts.project_id, facts.targets or Targets(),
                                 self._clock())
            self._remember(plan)
            if register and plan is not None and plan_rule(
                    facts.project_id, facts.scope, facts.targets) is None:
                self._engine.register(plan)
        return result
