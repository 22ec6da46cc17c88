"""The permission engine: consent cache, plans, verified grants, grant-ineligible projects."""

import pytest

from jupyter_design_projects.core.plans import ApprovedPlan
from jupyter_design_projects.design.permissions import PermissionEngine
from jupyter_design_projects.errors import (
    DesignApiError,
    GrantIneligible,
    NeedsConsent,
    TransportError,
)

NOW = 1_700_000_000_000


class FakeRest:
    def __init__(self, consent=None, grants=(), ineligible=(), fail_grants=None):
        self.consent, self.grants, self.ineligible = consent, set(grants), set(ineligible)
        self.fail_grants = fail_grants
        self.calls = []

    async def get_consent(self):
        self.calls.append("GET consent")
        return self.consent

    async def post_consent(self):
        self.calls.append("POST consent")
        self.consent = True

    async def delete_consent(self):
        self.calls.append("DELETE consent")
        existed, self.consent = bool(self.consent), False
        self.grants.clear()
        return existed

    async def list_grants(self):
        self.calls.append("GET grants")
        if self.fail_grants:
            raise self.fail_grants
        return {p: "t" for p in self.grants}

    async def post_grant(self, project_id):
        self.calls.append("POST grant")
        if project_id in self.ineligible:
            raise GrantIneligible(project_id)
        self.grants.add(project_id)


def plan(token="t1", project="p1", expires=NOW + 1000):
    return ApprovedPlan(token, project, frozenset({"a.html"}), frozenset(), expires)


@pytest.mark.asyncio
async def test_consent_is_prefetched_once():
    rest = FakeRest(consent=True)
    engine = PermissionEngine(rest)
    await engine.prefetch_consent()
    await engine.prefetch_consent()
    assert engine.consent is True and rest.calls == ["GET consent"]


@pytest.mark.asyncio
async def test_failed_prefetch_leaves_consent_unknown():
    engine = PermissionEngine(FakeRest(consent=None))
    await engine.prefetch_consent()
    assert engine.consent is None


@pytest.mark.asyncio
async def test_needs_consent_seeds_the_cache_false_and_skips_the_prefetch():
    rest = FakeRest(consent=True)
    engine = PermissionEngine(rest)
    engine.seed_consent_false()
    await engine.prefetch_consent()
    assert engine.consent is False and rest.calls == []


@pytest.mark.asyncio
async def test_needs_consent_forgets_plans_and_verified_grants():
    engine = PermissionEngine(FakeRest(consent=True, grants=["p1"]))
    await engine.probe_grant("p1")
    engine.register(plan())
    engine.seed_consent_false()
    snapshot = engine.snapshot(can_ask=True, main_context=True, now_ms=NOW)
    assert (snapshot.consent, dict(snapshot.plans), snapshot.verified_grants) == \
        (False, {}, frozenset())


@pytest.mark.asyncio
async def test_revoke_deletes_consent_and_forgets_plans_and_grants():
    rest = FakeRest(consent=True, grants=["p1"])
    engine = PermissionEngine(rest)
    await engine.probe_grant("p1")
    engine.register(plan())
    assert await engine.revoke() is True
    snapshot = engine.snapshot(can_ask=True, main_context=True, now_ms=NOW)
    assert (snapshot.consent, dict(snapshot.plans), snapshot.verified_grants) == \
        (False, {}, frozenset())


@pytest.mark.asyncio
async def test_revoke_forgets_local_state_even_when_the_service_fails():
    class Broken(FakeRest):
        async def delete_consent(self):
            raise TransportError("design revoke consent", "connect")
    engine = PermissionEngine(Broken())
    engine.register(plan())
    with pytest.raises(TransportError):
        await engine.revoke()
    assert engine.status(NOW)["approved_plans"] == []


def test_snapshot_keeps_a_plan_until_its_last_millisecond():
    engine = PermissionEngine(FakeRest())
    engine.register(plan(expires=NOW + 1))
    assert "t1" in engine.snapshot(can_ask=True, main_context=True, now_ms=NOW).plans


def test_snapshot_drops_a_plan_at_its_expiry_millisecond():
    engine = PermissionEngine(FakeRest())
    engine.register(plan(expires=NOW))
    assert engine.status(NOW)["approved_plans"] == []
    assert engine.status(NOW - 1)["approved_plans"] == []  # dropped for good


def test_snapshot_shows_an_expired_plan_one_last_time_for_the_decision():
    engine = PermissionEngine(FakeRest())
    engine.register(plan(expires=NOW))
    assert "t1" in engine.snapshot(can_ask=True, main_context=True, now_ms=NOW).plans
    assert engine.snapshot(can_ask=True, main_context=True, now_ms=NOW).plans == {}


@pytest.mark.asyncio
async def test_probe_reuses_an_existing_server_grant():
    engine = PermissionEngine(FakeRest(grants=["p1", "p9"]))
    assert await engine.probe_grant("p1") is True
    assert engine.status(NOW)["verified_grants"] == ["p1", "p9"]


@pytest.mark.asyncio
async def test_probe_without_a_grant_verifies_nothing():
    engine = PermissionEngine(FakeRest())
    assert await engine.probe_grant("p1") is False


@pytest.mark.asyncio
async def test_probe_failure_means_not_verified():
    engine = PermissionEngine(FakeRest(fail_grants=TransportError("design grants", "connect")))
    assert await engine.probe_grant("p1") is False


@pytest.mark.asyncio
async def test_probe_answered_needs_consent_seeds_consent_false():
    engine = PermissionEngine(FakeRest(fail_grants=NeedsConsent()))
    assert await engine.probe_grant("p1") is False
    assert engine.consent is False


@pytest.mark.asyncio
async def test_mint_verifies_the_grant():
    engine = PermissionEngine(FakeRest())
    await engine.mint_grant("p1")
    assert engine.is_verified("p1")


@pytest.mark.asyncio
async def test_mint_404_marks_the_project_grant_ineligible():
    engine = PermissionEngine(FakeRest(ineligible=["p2"]))
    with pytest.raises(GrantIneligible):
        await engine.mint_grant("p2")
    assert engine.snapshot(can_ask=True, main_context=True, now_ms=NOW).grant_ineligible == \
        frozenset({"p2"})


@pytest.mark.asyncio
async def test_needs_project_grant_forgets_the_verified_grant():
    engine = PermissionEngine(FakeRest(grants=["p1"]))
    await engine.probe_grant("p1")
    engine.forget_grant("p1")
    assert not engine.is_verified("p1")


@pytest.mark.asyncio
async def test_sensitive_change_forgets_the_projects_plans_and_grant():
    engine = PermissionEngine(FakeRest(grants=["p1"]))
    await engine.probe_grant("p1")
    engine.register(plan("a", "p1"))
    engine.register(plan("b", "p2"))
    engine.forget_project("p1")
    snapshot = engine.snapshot(can_ask=True, main_context=True, now_ms=NOW)
    assert set(snapshot.plans) == {"b"} and snapshot.verified_grants == frozenset()


def test_status_shows_plans_without_their_tokens():
    engine = PermissionEngine(FakeRest())
    engine.register(plan("secret-plan-token", expires=NOW + 61_500))
    status = engine.status(NOW)
    assert status["approved_plans"] == [{"project_id": "p1", "writes": ["a.html"],
                                         "deletes": [], "expires_at_ms": NOW + 61_500,
                                         "expires_in_s": 61}]
    assert "secret-plan-token" not in repr(status)


# ---------------------------------------------------------------- one state everywhere


@pytest.mark.asyncio
@pytest.mark.parametrize("failure", [
    DesignApiError("grants", 429, 1), DesignApiError("grants", 503),
    TransportError("design grants", "connect"),
])
async def test_a_grant_lookup_that_fails_is_not_verified_never_an_error(failure):
    engine = PermissionEngine(FakeRest(consent=True, grants={"p1"}, fail_grants=failure))
    assert await engine.probe_grant("p1") is False
    assert not engine.is_verified("p1") and engine.consent is None


@pytest.mark.asyncio
async def test_a_grant_lookup_that_answers_verifies_the_grant():
    engine = PermissionEngine(FakeRest(consent=True, grants={"p1"}))
    assert await engine.probe_grant("p1") is True


@pytest.mark.asyncio
async def test_refresh_takes_consent_and_grants_from_the_service():
    rest = FakeRest(consent=True, grants={"p1"})
    engine = PermissionEngine(rest)
    await engine.mint_grant("p2")  # minted here, then revoked elsewhere
    rest.grants.discard("p2")
    await engine.refresh()
    assert engine.consent is True
    assert engine.status(NOW)["verified_grants"] == ["p1"]


@pytest.mark.asyncio
async def test_refresh_after_consent_withdrawn_elsewhere_forgets_plans_and_grants():
    rest = FakeRest(consent=True, grants={"p1"})
    engine = PermissionEngine(rest)
    await engine.probe_grant("p1")
    engine.register(plan())
    rest.consent = False
    await engine.refresh()
    status = engine.status(NOW)
    assert (status["consent"], status["verified_grants"], status["approved_plans"]) == \
        (False, [], [])
    assert rest.calls[-1] == "GET consent"  # no grants read without consent


@pytest.mark.asyncio
async def test_refresh_that_cannot_read_keeps_what_was_last_read():
    rest = FakeRest(consent=True, grants={"p1"})
    engine = PermissionEngine(rest)
    await engine.refresh()
    rest.consent, rest.fail_grants = None, DesignApiError("grants", 503)
    await engine.refresh()
    assert engine.consent is True and engine.status(NOW)["verified_grants"] == ["p1"]


@pytest.mark.asyncio
async def test_refresh_that_meets_needs_consent_seeds_it_false():
    rest = FakeRest(consent=None, grants={"p1"}, fail_grants=NeedsConsent())
    engine = PermissionEngine(rest)
    engine.register(plan())
    await engine.refresh()
    assert engine.consent is False and engine.status(NOW)["approved_plans"] == []


@pytest.mark.asyncio
@pytest.mark.parametrize(("cached", "service", "given_elsewhere"), [
    (False, True, True),    # given in the panel or another kernel
    (False, False, False),  # still not given: the card
    (False, None, False),   # the read failed: the card
    (None, True, True),     # unknown until now
])
async def test_consent_is_read_again_before_a_card(cached, service, given_elsewhere):
    rest = FakeRest(consent=service)
    engine = PermissionEngine(rest)
    engine.consent = cached
    assert await engine.refresh_consent() is given_elsewhere
    assert rest.calls == ["GET consent"]
    assert engine.consent is (True if given_elsewhere else cached)


# ---------------------------------------------------------------- consent given, the watcher


@pytest.mark.asyncio
async def test_giving_consent_posts_it_and_caches_it_without_a_prefetch():
    rest = FakeRest(consent=False)
    engine = PermissionEngine(rest)
    await engine.give_consent()
    await engine.prefetch_consent()  # the cache is set: no GET follows
    assert engine.consent is True and rest.calls == ["POST consent"]
    assert engine.status(NOW)["consent"] is True


@pytest.mark.asyncio
async def test_revoke_without_consent_says_so_and_caches_false_without_a_prefetch():
    rest = FakeRest(consent=None)
    engine = PermissionEngine(rest)
    assert await engine.revoke() is False
    await engine.prefetch_consent()
    assert engine.consent is False and rest.calls == ["DELETE consent"]


@pytest.mark.asyncio
@pytest.mark.parametrize(("grants", "baseline", "appeared"), [
    ({"p1": "2026-12-03T10:00:01Z"}, "2026-12-03T10:00:00Z", True),
    ({"p1": "2026-12-03T10:00:00Z"}, "2026-12-03T10:00:00Z", False),
    ({"p1": "2026-12-03T10:00:00Z"}, None, True),
    ({"p2": "2026-12-03T10:00:01Z"}, None, False),
])
async def test_the_watcher_verifies_a_grant_newer_than_its_baseline_only(
        grants, baseline, appeared):
    class Timed(FakeRest):
        async def list_grants(self):
            self.calls.append("GET grants")
            return dict(grants)

    rest = Timed()
    engine = PermissionEngine(rest)
    assert await engine.watch_once("p1", baseline) is appeared
    assert engine.is_verified("p1") is appeared
    assert engine.grant_seen("p1") == grants.get("p1")
    assert rest.calls == ["GET grants"]


@pytest.mark.asyncio
@pytest.mark.parametrize("failure", [NeedsConsent(), TransportError("design grants", "connect")])
async def test_a_failed_look_of_the_watcher_is_not_yet(failure):
    engine = PermissionEngine(FakeRest(fail_grants=failure))
    assert await engine.watch_once("p1", None) is False
    assert not engine.is_verified("p1") and engine.grant_seen("p1") is None


@pytest.mark.asyncio
async def test_a_grant_ineligible_project_loses_its_verified_grant():
    engine = PermissionEngine(FakeRest(grants=["p2"], ineligible=["p2"]))
    assert await engine.probe_grant("p2") is True
    with pytest.raises(GrantIneligible):
        await engine.mint_grant("p2")
    assert not engine.is_verified("p2")
    assert engine.status(NOW)["grant_ineligible"] == ["p2"]


@pytest.mark.asyncio
async def test_status_lists_live_plans_by_expiry_and_every_grant_sorted():
    engine = PermissionEngine(FakeRest(grants=["p9", "p1"], ineligible=["p7", "p3"]))
    await engine.probe_grant("p9")
    for project in ("p7", "p3"):
        with pytest.raises(GrantIneligible):
            await engine.mint_grant(project)
    engine.register(ApprovedPlan("late", "p2", frozenset({"b.html", "a.html"}),
                                 frozenset({"z.html", "y.html"}), NOW + 5_000))
    engine.register(ApprovedPlan("early", "p5", frozenset({"c.html"}), frozenset(),
                                 NOW + 999))
    engine.register(ApprovedPlan("same-b", "p4", frozenset({"d.html"}), frozenset(),
                                 NOW + 5_000))
    engine.register(ApprovedPlan("gone", "p6", frozenset({"e.html"}), frozenset(), NOW))
    status = engine.status(NOW)
    assert status["consent"] is None
    assert [(p["project_id"], p["expires_in_s"]) for p in status["approved_plans"]] == \
        [("p5", 0), ("p2", 5), ("p4", 5)]
    assert status["approved_plans"][1]["writes"] == ["a.html", "b.html"]
    assert status["approved_plans"][1]["deletes"] == ["y.html", "z.html"]
    assert status["verified_grants"] == ["p1", "p9"]
    assert status["grant_ineligible"] == ["p3", "p7"]


@pytest.mark.asyncio
async def test_consent_found_given_before_a_card_needs_no_prefetch_after():
    rest = FakeRest(consent=True)
    engine = PermissionEngine(rest)
    engine.consent = False
    assert await engine.refresh_consent() is True
    await engine.prefetch_consent()
    assert rest.calls == ["GET consent"]


@pytest.mark.asyncio
async def test_consent_read_by_a_refresh_needs_no_prefetch_after():
    rest = FakeRest(consent=True)
    engine = PermissionEngine(rest)
    await engine.refresh()
    await engine.prefetch_consent()
    assert rest.calls == ["GET consent", "GET grants"]


@pytest.mark.asyncio
async def test_a_refresh_keeps_each_grants_time_as_read():
    class Timed(FakeRest):
        async def list_grants(self):
            self.calls.append("GET grants")
            return {"p1": "2026-12-03T10:00:00Z"}

    engine = PermissionEngine(Timed(consent=True))
    await engine.refresh()
    assert engine.grant_seen("p1") == "2026-12-03T10:00:00Z"
    assert engine.grant_seen("p2") is None


@pytest.mark.parametrize(("can_ask", "main_context"), [(False, False), (True, False),
                                                       (False, True)])
def test_a_snapshot_carries_whether_a_card_can_be_shown_and_where(can_ask, main_context):
    snapshot = PermissionEngine(FakeRest()).snapshot(can_ask=can_ask,
                                                     main_context=main_context, now_ms=NOW)
    assert (snapshot.can_ask, snapshot.main_context) == (can_ask, main_context)


@pytest.mark.asyncio
async def test_a_verified_grant_is_answered_without_asking_the_service():
    rest = FakeRest(consent=True)
    engine = PermissionEngine(rest)
    await engine.mint_grant("p1")
    assert await engine.probe_grant("p1") is True
    assert rest.calls == ["POST grant"]


@pytest.mark.asyncio
async def test_a_prefetch_never_overrides_what_this_process_already_knows():
    rest = FakeRest(consent=False)
    engine = PermissionEngine(rest)
    engine.consent = True  # e.g. given here before the prefetch ran
    await engine.prefetch_consent()
    assert engine.consent is True and rest.calls == ["GET consent"]
