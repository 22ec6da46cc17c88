"""Plan targets, registration limits, TTL and matching."""

import pytest

from jupyter_design_projects.core import plans
from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.core.plans import ApprovedPlan, Targets

NOW = 1_700_000_000_000


def targets_of(operation, arguments):
    return BY_NAME[operation].targets_of(arguments)


def plan(writes=("a.html",), deletes=(), project="p1", expires=NOW + 1000):
    return ApprovedPlan("tok", project, frozenset(writes), frozenset(deletes), expires)


@pytest.mark.parametrize(("operation", "arguments", "targets"), [
    ("write_files", {"files": [{"path": "a.html", "data": "x"}]}, Targets(("a.html",))),
    ("create_support_js", {}, Targets(("support.js",))),
    ("create_support_js", {"path": "js/support.js"}, Targets(("js/support.js",))),
    ("copy_files", {"files": [{"src": "a", "dest": "b"}]}, Targets(("b",))),
    ("delete_files", {"paths": ["a", "b"]}, Targets((), ("a", "b"))),
    ("finalize_plan", {"writes": ["a"], "deletes": ["b"]}, Targets(("a",), ("b",))),
    ("finalize_plan", {}, Targets()),
    ("add_member", {"email": "x@y.example"}, Targets()),
    ("write_files", {"files": "a.html"}, None),
    ("write_files", {"files": [{"data": "x"}]}, None),
    ("write_files", {"files": [{"path": 3}]}, None),
    ("delete_files", {"paths": [1]}, None),
    ("create_support_js", {"path": None}, None),
])
def test_targets_of_an_operation(operation, arguments, targets):
    assert targets_of(operation, arguments) == targets


def test_256_targets_are_enumerable():
    paths = [f"f{i}" for i in range(256)]
    assert targets_of("delete_files", {"paths": paths}) == Targets((), tuple(paths))


def test_257_targets_are_listed_but_never_covered_spec_s7():
    paths = [f"f{i}" for i in range(257)]
    targets = targets_of("delete_files", {"paths": paths})
    assert targets == Targets((), tuple(paths))
    plan = plans.ApprovedPlan("tok", "p1", frozenset(), frozenset(paths), NOW + 60_000)
    assert not plans.covers(plan, "p1", targets, NOW)
    assert plans.covers(plan, "p1", Targets((), tuple(paths[:256])), NOW)
    assert plans.plan_rule("p1", None, targets) == "too_many_targets"
    assert plans.review_rule(targets) == "too_many_targets"


@pytest.mark.parametrize(("server", "expected"), [
    (None, NOW + 900_000),
    ((NOW + 60_000) / 1000, NOW + 60_000),             # server sooner: server wins
    ((NOW + 3_600_000) / 1000, NOW + 900_000),         # server later: 15 minutes wins
    ((NOW + 900_000) / 1000, NOW + 900_000),
    ((NOW - 5_000) / 1000, NOW - 5_000),               # already past
    ((NOW + 1_500) / 1000 + 0.0004, NOW + 1_500),      # sub-millisecond rounds down
    ("2030-01-01", NOW + 900_000),
    (True, NOW + 900_000),
    (float("nan"), NOW + 900_000),
])
def test_plan_ttl_is_the_sooner_of_server_and_15_minutes(server, expected):
    assert plans.plan_expiry_ms(server, NOW) == expected


def test_plan_is_live_one_millisecond_before_expiry():
    assert not plan(expires=NOW + 1).expired(NOW)
    assert plans.covers(plan(expires=NOW + 1), "p1", Targets(("a.html",)), NOW)


def test_plan_is_expired_at_the_exact_millisecond():
    assert plan(expires=NOW).expired(NOW)
    assert not plans.covers(plan(expires=NOW), "p1", Targets(("a.html",)), NOW)


@pytest.mark.parametrize(("project", "targets", "covered"), [
    ("p1", Targets(("a.html",)), True),
    ("p1", Targets(("./a.html",)), True),
    ("p1", Targets(("a.html", "b.html")), False),
    ("p1", Targets((), ("a.html",)), False),          # a write plan never covers a delete
    ("p2", Targets(("a.html",)), False),              # other project
    ("p1", None, False),                              # not enumerable
    ("p1", Targets(("../a.html",)), False),
    ("p1", Targets(()), True),
])
def test_plan_covers_only_its_project_and_paths(project, targets, covered):
    assert plans.covers(plan(), project, targets, NOW) is covered


def test_delete_plan_covers_its_deletes():
    assert plans.covers(plan(writes=(), deletes=("old.html",)), "p1",
                        Targets((), ("old.html",)), NOW)


def paths(n, length=10):
    return tuple(f"{i:03d}" + "x" * (length - 3) for i in range(n))


@pytest.mark.parametrize(("project", "scope", "targets", "rule"), [
    ("p1", None, Targets(paths(20), paths(20)), None),
    ("p1", "paths", Targets(paths(1)), None),
    ("p1", None, Targets(paths(21)), "too_many_writes"),
    ("p1", None, Targets((), paths(21)), "too_many_deletes"),
    ("p1", "project", Targets(paths(1)), "scope_not_paths"),
    ("p1", None, None, "targets_not_enumerable"),
    ("p1", None, Targets(paths(1, 80)), None),
    ("p1", None, Targets(paths(1, 81)), "path_too_long"),
    ("p1", None, Targets(("CLAUDE.md.",)), "path_reserved"),
    ("p1", None, Targets(("a\u202e.html",)), "path_invisible_character"),
    ("p1", None, Targets(("caf\u00e9.html", "\u5e7b\u706f\u7247/01.html")), None),
    ("p\u200b1", None, Targets(paths(1)), "unsafe_project_id"),
])
def test_plan_registration_limits(project, scope, targets, rule):
    assert plans.plan_rule(project, scope, targets) == rule


SHOWN = Targets(("a.html", "b.html"), ("old.html",))


def answer(**change):
    base = {"plan_token": "tok-1", "project_id": "p1", "scope": "paths",
            "writes": ["a.html", "b.html"], "deletes": ["old.html"],
            "expires_at": (NOW + 600_000) / 1000, "base_etags": {}}
    return {**base, **change}


def test_approved_plan_is_registered_from_the_shown_paths():
    got = plans.approved_plan(answer(), "p1", SHOWN, NOW)
    assert got == ApprovedPlan("tok-1", "p1", frozenset({"a.html", "b.html"}),
                               frozenset({"old.html"}), NOW + 600_000)


def test_plan_token_is_not_in_the_repr():
    assert "tok-1" not in repr(plans.approved_plan(answer(), "p1", SHOWN, NOW))


@pytest.mark.parametrize("change", [
    {"project_id": "p2"},
    {"scope": "project"},
    {"writes": ["a.html", "c.html"]},               # a path nobody saw
    {"deletes": ["old.html", "a.html"]},
    {"plan_token": ""},
    {"plan_token": None},
    {"plan_token": "x" * 65_537},
    {"writes": "a.html"},
])
def test_approved_plan_refuses_an_answer_wider_than_the_card(change):
    assert plans.approved_plan(answer(**change), "p1", SHOWN, NOW) is None


def test_approved_plan_takes_a_token_of_exactly_65536_bytes():
    token = "x" * 65_536
    assert plans.approved_plan(answer(plan_token=token), "p1", SHOWN, NOW).token == token


def test_approved_plan_refuses_a_non_object():
    assert plans.approved_plan("tok", "p1", SHOWN, NOW) is None


def test_change_card_lists_normalised_paths():
    text = plans.change_card("Delete?", "p1", Targets(("./a.html",), ("b",)))
    assert text.splitlines() == ["Delete?", "Project: p1", "Writes (1):", "  a.html",
                                 "Deletes (1):", "  b"]


def test_an_answer_that_leaves_out_fields_means_what_the_card_showed():
    got = plans.approved_plan({"plan_token": "tok-1"}, "p1", SHOWN, NOW)
    assert got == ApprovedPlan("tok-1", "p1", frozenset({"a.html", "b.html"}),
                               frozenset({"old.html"}), NOW + plans.PLAN_TTL_MS)


def test_a_one_time_plan_names_reserved_paths_in_their_written_form():
    shown = Targets(("./CLAUDE.md", "a.html"), (".claude/x.json",))
    got = plans.approved_plan({"plan_token": "t", "writes": ["CLAUDE.md"],
                               "deletes": ["./.claude/x.json"]}, "p1", shown, NOW)
    assert got is not None
    assert (got.writes, got.deletes) == (frozenset({"CLAUDE.md"}), frozenset({".claude/x.json"}))


@pytest.mark.parametrize("change", [{"writes": ["../a.html"]}, {"deletes": ["/old.html"]},
                                    {"deletes": ["old.html", 3]}])
def test_approved_plan_refuses_an_answer_path_with_no_normal_form(change):
    assert plans.approved_plan(answer(**change), "p1", SHOWN, NOW) is None


def test_approved_plan_refuses_when_the_shown_paths_have_no_normal_form():
    assert plans.approved_plan({"plan_token": "t"}, "p1", Targets(("a//b",)), NOW) is None
    assert plans.approved_plan({"plan_token": "t"}, "p1", Targets((), ("../b",)), NOW) is None


def test_256_writes_are_too_many_writes_not_too_many_targets():
    assert plans.review_rule(Targets(paths(256))) == "too_many_writes"
    assert plans.review_rule(Targets(paths(257))) == "too_many_targets"
