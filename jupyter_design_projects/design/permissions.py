"""The permission engine: the process's consent cache, approved plans, verified grants and
grant-ineligible projects, and the I/O that keeps them true. The decision itself is
`core.permissions.decide`, fed a snapshot from here."""

from __future__ import annotations

from ..core.permissions import Snapshot, grant_appeared
from ..core.plans import ApprovedPlan
from ..errors import AuthError, DesignApiError, GrantIneligible, NeedsConsent, TransportError
from .rest import DesignRest


class PermissionEngine:
    """Owned by one DesignClient; nothing here outlives the process."""

    def __init__(self, rest: DesignRest) -> None:
        self._rest = rest
        self.consent: bool | None = None
        self._prefetched = False
        self._plans: dict[str, ApprovedPlan] = {}
        self._verified: set[str] = set()
        self._ineligible: set[str] = set()
        #: project_id -> created_at of the service's grants, as last read
        self._grant_times: dict[str, str] = {}

    # ------------------------------------------------------------ consent

    async def prefetch_consent(self) -> None:
        """GET the consent bit once; a failure leaves the cache empty, not an error."""
        if self._prefetched:
            return
        self._prefetched = True
        value = await self._rest.get_consent()
        if value is not None and self.consent is None:
            self.consent = value

    async def refresh_consent(self) -> bool:
        """Read the consent bit again before a consent card is shown (one GET): True when
        consent was given elsewhere (the panel, another kernel) since it was last read. A
        failed read changes nothing."""
        value = await self._rest.get_consent()
        if value is not True or self.consent is True:
            return False
        self._prefetched = True
        self.consent = True
        return True

    async def refresh(self) -> None:
        """Read consent and the grants from the service (for `%design status`), so this
        process shows what the panel and every other kernel show: consent withdrawn
        elsewhere drops the local plans and grants; the verified set becomes the service's
        grants. A failed read leaves what was last read."""
        value = await self._rest.get_consent()
        if value is False:
            self.seed_consent_false()
            return
        if value is True:
            self._prefetched = True
            self.consent = True
        try:
            grants = await self._rest.list_grants()
        except NeedsConsent:
            self.seed_consent_false()
            return
        except (TransportError, AuthError, DesignApiError):
            return
        self._grant_times = dict(grants)
        self._verified = set(grants)

    def seed_consent_false(self) -> None:
        """The service answered needs_consent: the next decision shows the consent card.
        Consent was withdrawn elsewhere (which revokes every grant with it), so the plans
        and verified grants this process holds are forgotten too."""
        self._prefetched = True
        self.consent = False
        self._plans.clear()
        self._verified.clear()

    async def give_consent(self) -> None:
        await self._rest.post_consent()
        self._prefetched = True
        self.consent = True

    async def revoke(self) -> bool:
        """DELETE consent (the service drops every grant with it) and forget every local
        authorization. False when there was no consent to revoke."""
        try:
            existed = await self._rest.delete_consent()
        finally:
            self._plans.clear()
            self._verified.clear()
        self._prefetched = True
        self.consent = False
        return existed

    # ------------------------------------------------------------ snapshot

    def snapshot(self, *, can_ask: bool, main_context: bool, now_ms: int) -> Snapshot:
        """What is authorized now. Expired plans are in it one last time (so the decision
        can say "expired") and are dropped from the store on the way."""
        plans = dict(self._plans)
        for token in [t for t, p in plans.items() if p.expired(now_ms)]:
            del self._plans[token]
        return Snapshot(
            consent=self.consent,
            plans=plans,
            verified_grants=frozenset(self._verified),
            grant_ineligible=frozenset(self._ineligible),
            can_ask=can_ask,
            main_context=main_context,
        )

    # ------------------------------------------------------------ plans

    def register(self, plan: ApprovedPlan) -> None:
        self._plans[plan.token] = plan

    def holds_plan(self, token: str) -> bool:
        return token in self._plans

    def forget_plan(self, token: str) -> None:
        """The service no longer holds this plan (it said unknown, spent or expired)."""
        self._plans.pop(token, None)

    def forget_project(self, project_id: str) -> None:
        """After a membership or sharing change: the project's plans go, its grant is
        re-verified before it is relied on again."""
        for token in [t for t, p in self._plans.items() if p.project_id == project_id]:
            del self._plans[token]
        self._verified.discard(project_id)

    # ------------------------------------------------------------ grants

    async def probe_grant(self, project_id: str) -> bool:
        """Whether the service already holds a grant for the project (GET grants). A
        failure to read the grants (a transport failure, a 429 or 5xx, a refused
        credential) means "not verified", never an error (spec §8): the grant card follows."""
        if project_id in self._verified:
            return True
        try:
            grants = await self._rest.list_grants()
        except NeedsConsent:
            self.seed_consent_false()
            return False
        except (TransportError, AuthError, DesignApiError):
            return False
        self._grant_times = dict(grants)
        self._verified.update(grants)
        return project_id in self._verified

    def grant_seen(self, project_id: str) -> str | None:
        """The project's grant `created_at` as last read from the service (None: none)."""
        return self._grant_times.get(project_id)

    async def watch_once(self, project_id: str, baseline: str | None) -> bool:
        """One look of the grant watcher (spec §8): True, and the project verified, when the
        service now holds a grant for it newer than `baseline`. A failed read is "not yet"."""
        try:
            grants = await self._rest.list_grants()
        except (NeedsConsent, TransportError, AuthError, DesignApiError):
            return False
        self._grant_times = dict(grants)
        if not grant_appeared(grants, project_id, baseline):
            return False
        self._verified.add(project_id)
        return True

    async def mint_grant(self, project_id: str) -> None:
        """POST a durable grant; a 404 marks the project grant-ineligible for good."""
        try:
            await self._rest.post_grant(project_id)
        except GrantIneligible:
            self._ineligible.add(project_id)
            self._verified.discard(project_id)
            raise
        self._verified.add(project_id)

    def forget_grant(self, project_id: str) -> None:
        """The service answered needs_project_grant: the cached grant is gone."""
        self._verified.discard(project_id)

    def is_verified(self, project_id: str) -> bool:
        return project_id in self._verified

    # ------------------------------------------------------------ status

    def status(self, now_ms: int) -> dict:
        """For `%design status` and the lab side panel (no plan tokens: they are not shown)."""
        snapshot = self.snapshot(can_ask=False, main_context=False, now_ms=now_ms)
        live = [p for p in snapshot.plans.values() if not p.expired(now_ms)]
        plans = sorted(live, key=lambda p: (p.expires_at_ms, p.project_id))
        return {
            "consent": self.consent,
            "approved_plans": [
                {
                    "project_id": p.project_id,
                    "writes": sorted(p.writes),
                    "deletes": sorted(p.deletes),
                    "expires_at_ms": p.expires_at_ms,
                    "expires_in_s": max(0, (p.expires_at_ms - now_ms) // 1000),
                }
                for p in plans
            ],
            "verified_grants": sorted(self._verified),
            "grant_ineligible": sorted(self._ineligible),
        }
