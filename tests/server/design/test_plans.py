"""Plan tokens: bound to one user, one project, exact path sets and 15 minutes; a token
naming a reserved target or no path at all is spent by the first call it authorizes."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from jupyter_design_projects.server.database import Database
from jupyter_design_projects.server.design import store as design_store
from jupyter_design_projects.server.design.errors import PlanRefused
from jupyter_design_projects.server.design.plans import PLAN_TTL_SECONDS, PlanBook, single_use

START = 1_700_000_000.25


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def book(tmp_path: Path) -> tuple[PlanBook, Clock]:
    db = Database(tmp_path / "plans.sqlite3")
    db.migrate(design_store.SCHEMA)
    clock = Clock()
    return PlanBook(db, clock), clock


def issue(book: PlanBook) -> dict:
    return book.issue("alice", "p1", ["index.html", "slides/a.html"], ["old.html"],
                      {"index.html": "e1", "slides/a.html": "0", "old.html": "e2"})


def test_plan_answer_carries_every_protocol_field(book: tuple[PlanBook, Clock]) -> None:
    plan = issue(book[0])
    assert set(plan) == {"plan_token", "project_id", "scope", "writes", "deletes",
                         "expires_at", "base_etags"}
    assert plan["scope"] == "paths"
    assert plan["expires_at"] == int(START) + PLAN_TTL_SECONDS


def test_plan_never_lives_longer_than_fifteen_minutes(book: tuple[PlanBook, Clock]) -> None:
    assert issue(book[0])["expires_at"] - START <= 900


@pytest.mark.parametrize(("writes", "deletes"), [
    (["index.html"], []), (["slides/a.html"], ["old.html"]),
    (["index.html", "slides/a.html"], ["old.html"]), ([], [])])
def test_covering_token_is_accepted_for_its_paths_and_refused_one_path_beyond(
        book: tuple[PlanBook, Clock], writes: list[str], deletes: list[str]) -> None:
    plans, _ = book
    token = issue(plans)["plan_token"]
    for _ in range(2):  # a plan covers its paths for its whole life, not once
        assert plans.require(token, user_id="alice", project_id="p1", writes=writes,
                             deletes=deletes) is None
    with pytest.raises(PlanRefused) as refused:
        plans.require(token, user_id="alice", project_id="p1",
                      writes=[*writes, "beyond.html"], deletes=deletes)
    assert refused.value.reason == "not_covered"
    assert "beyond.html" in str(refused.value)


def test_token_is_accepted_just_before_expiry_and_refused_at_it(
        book: tuple[PlanBook, Clock]) -> None:
    plans, clock = book
    plan = issue(plans)
    clock.now = plan["expires_at"] - 0.001
    assert plans.require(plan["plan_token"], user_id="alice", project_id="p1",
                         writes=["index.html"]) is None
    clock.now = plan["expires_at"]
    with pytest.raises(PlanRefused) as refused:
        plans.require(plan["plan_token"], user_id="alice", project_id="p1",
                      writes=["index.html"])
    assert refused.value.reason == "expired"


def test_issuing_a_plan_forgets_the_expired_ones(book: tuple[PlanBook, Clock]) -> None:
    plans, clock = book
    old = issue(plans)
    clock.now = old["expires_at"]
    fresh = issue(plans)
    rows = plans.db.read().execute("SELECT expires_at FROM design_plans").fetchall()
    assert [row["expires_at"] for row in rows] == [fresh["expires_at"]]
    with pytest.raises(PlanRefused) as refused:
        plans.require(old["plan_token"], user_id="alice", project_id="p1")
    assert refused.value.reason == "unknown"


def test_token_is_refused_at_expiry(book: tuple[PlanBook, Clock]) -> None:
    plans, clock = book
    plan = issue(plans)
    clock.now = plan["expires_at"]
    with pytest.raises(PlanRefused) as refused:
        plans.require(plan["plan_token"], user_id="alice", project_id="p1")
    assert refused.value.reason == "expired"


@pytest.mark.parametrize(("user", "project", "writes", "deletes", "reason"), [
    ("alice", "p2", [], [], "other_project"),
    ("bob", "p1", [], [], "unknown"),
    ("alice", "p1", ["index.html", "other.html"], [], "not_covered"),
    ("alice", "p1", ["old.html"], [], "not_covered"),
    ("alice", "p1", [], ["index.html"], "not_covered"),
])
def test_token_does_not_cover_other_targets(book: tuple[PlanBook, Clock], user: str,
                                            project: str, writes: list[str],
                                            deletes: list[str], reason: str) -> None:
    plans, _ = book
    token = issue(plans)["plan_token"]
    with pytest.raises(PlanRefused) as refused:
        plans.require(token, user_id=user, project_id=project, writes=writes, deletes=deletes)
    assert refused.value.reason == reason


@pytest.mark.parametrize(("token", "reason"), [
    (None, "missing"), ("", "missing"), ("dpt_not-a-token", "unknown")])
def test_missing_or_unknown_token_is_refused(book: tuple[PlanBook, Clock], token: str | None,
                                             reason: str) -> None:
    with pytest.raises(PlanRefused) as refused:
        book[0].require(token, user_id="alice", project_id="p1")
    assert refused.value.reason == reason


def test_tokens_are_stored_only_as_digests(book: tuple[PlanBook, Clock]) -> None:
    plans, _ = book
    token = issue(plans)["plan_token"]
    rows = plans.db.read().execute("SELECT * FROM design_plans").fetchall()
    assert rows and all(token not in str(tuple(row)) for row in rows)


# ---------------------------------------------------------------- single-use tokens


@pytest.mark.parametrize(("writes", "deletes", "once"), [
    ([], [], True), (["CLAUDE.md"], [], True), ([], [".claude/x.json"], True),
    (["index.html", "notes/Claude.md"], [], True), (["index.html"], ["old.html"], False),
    (["claude.md.html"], [], False), (["notes/claude/x.html"], [], False)])
def test_a_plan_is_single_use_exactly_when_it_names_a_reserved_target_or_nothing(
        writes: list[str], deletes: list[str], once: bool) -> None:
    assert single_use(writes, deletes) is once


def test_a_reserved_plan_authorizes_once_then_answers_spent(
        book: tuple[PlanBook, Clock]) -> None:
    plans, _ = book
    token = plans.issue("alice", "p1", ["CLAUDE.md"], [], {})["plan_token"]
    assert plans.require(token, user_id="alice", project_id="p1",
                         writes=["CLAUDE.md"]) is None
    with pytest.raises(PlanRefused) as refused:
        plans.require(token, user_id="alice", project_id="p1", writes=["CLAUDE.md"])
    assert refused.value.reason == "spent"


def test_a_spent_plan_says_spent_after_its_expiry_too(book: tuple[PlanBook, Clock]) -> None:
    plans, clock = book
    plan = plans.issue("alice", "p1", [], [], {})
    plans.require_pathless(plan["plan_token"], user_id="alice", project_id="p1")
    clock.now = plan["expires_at"] + 1
    with pytest.raises(PlanRefused) as refused:
        plans.require_pathless(plan["plan_token"], user_id="alice", project_id="p1")
    assert refused.value.reason == "spent"


@pytest.mark.parametrize(("writes", "deletes"), [
    (["index.html"], []), ([], ["old.html"]), (["CLAUDE.md"], [])])
def test_a_plan_naming_paths_never_authorizes_a_pathless_call(
        book: tuple[PlanBook, Clock], writes: list[str], deletes: list[str]) -> None:
    plans, _ = book
    token = plans.issue("alice", "p1", writes, deletes, {})["plan_token"]
    with pytest.raises(PlanRefused) as refused:
        plans.require_pathless(token, user_id="alice", project_id="p1")
    assert refused.value.reason == "paths_not_allowed"


@pytest.mark.parametrize(("user", "project", "reason"), [
    ("bob", "p1", "unknown"), ("alice", "p2", "other_project")])
def test_a_pathless_plan_of_another_user_or_project_is_refused_and_kept(
        book: tuple[PlanBook, Clock], user: str, project: str, reason: str) -> None:
    plans, _ = book
    token = plans.issue("alice", "p1", [], [], {})["plan_token"]
    with pytest.raises(PlanRefused) as refused:
        plans.require_pathless(token, user_id=user, project_id=project)
    assert refused.value.reason == reason
    assert plans.require_pathless(token, user_id="alice", project_id="p1") is None


def test_of_two_calls_that_both_saw_the_plan_unspent_exactly_one_spends_it(
        book: tuple[PlanBook, Clock], monkeypatch: pytest.MonkeyPatch) -> None:
    """Both threads pass every check before either spends: the spend itself decides."""
    plans, _ = book
    token = plans.issue("alice", "p1", [], [], {})["plan_token"]
    both_checked = threading.Barrier(2, timeout=30)
    live = plans._live

    def checked_then_wait(*args: object) -> object:
        row = live(*args)  # type: ignore[arg-type]
        both_checked.wait()
        return row

    monkeypatch.setattr(plans, "_live", checked_then_wait)
    outcomes: list[str] = []

    def call() -> None:
        try:
            plans.require_pathless(token, user_id="alice", project_id="p1")
            outcomes.append("ok")
        except PlanRefused as refused:
            outcomes.append(refused.reason)

    threads = [threading.Thread(target=call) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == ["ok", "spent"]


def test_revoking_consent_forgets_spent_plans_with_the_plans(
        book: tuple[PlanBook, Clock]) -> None:
    plans, clock = book
    token = plans.issue("alice", "p1", [], [], {})["plan_token"]
    plans.require_pathless(token, user_id="alice", project_id="p1")
    design_store.DesignStore(plans.db, clock).revoke_consent("alice")
    conn = plans.db.read()
    assert conn.execute("SELECT count(*) FROM design_spent_plans").fetchone()[0] == 0
    with pytest.raises(PlanRefused) as refused:
        plans.require_pathless(token, user_id="alice", project_id="p1")
    assert refused.value.reason == "unknown"
