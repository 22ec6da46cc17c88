"""The permission decision table, one row per case of spec §6–8."""

import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jupyter_design_projects.core import display
from jupyter_design_projects.core.cards import (
    APPROVE,
    APPROVE_FOR_PROJECT,
    DENY,
    PER_BATCH_HEADING,
)
from jupyter_design_projects.core.design_operations import (
    BY_NAME,
    DESTROY,
    Approval,
    DesignOperation,
)
from jupyter_design_projects.core.permissions import (
    Allow,
    Ask,
    Deny,
    Snapshot,
    card_of,
    card_text,
    decide,
    facts_of,
    grant_card_fallback,
    grant_card_of,
)
from jupyter_design_projects.core.plans import CARD_LIMIT, ApprovedPlan, Targets
from jupyter_design_projects.core.refusals import REFUSALS, explain
from jupyter_design_projects.errors.remedy import Remedy

NOW = 1_700_000_000_000
P = "p1"
LIVE = ApprovedPlan("tok", P, frozenset({"a.html", "support.js"}), frozenset({"old.html"}),
                    NOW + 60_000)
EXPIRED = ApprovedPlan("old", P, frozenset({"a.html"}), frozenset({"old.html"}), NOW)
OTHER = ApprovedPlan("oth", "p2", frozenset({"a.html"}), frozenset({"old.html"}), NOW + 60_000)
PLANS = {"tok": LIVE, "old": EXPIRED, "oth": OTHER}

READ_ONLY = {"list_files", "get_project", "read_file", "render_preview", "list_members"}
DESTRUCTIVE = {"write_files", "copy_files", "delete_files", "add_member",
               "update_member_role", "remove_member", "update_sharing"}


def snap(consent=True, grants=(), ineligible=(), can_ask=True, main=True):
    return Snapshot(consent, PLANS, frozenset(grants), frozenset(ineligible), can_ask, main)


def write(*paths, token=None, project=P):
    args = {"project_id": project, "files": [{"path": p, "data": "x"} for p in paths]}
    return ("write_files", args | ({"plan_token": token} if token else {}))


def delete(*paths, token=None):
    return ("delete_files", {"project_id": P, "paths": list(paths)}
            | ({"plan_token": token} if token else {}))


def copy(dest, token=None):
    return ("copy_files", {"project_id": P, "files": [{"src": "a.html", "dest": dest}]}
            | ({"plan_token": token} if token else {}))


def plan(writes=(), deletes=(), scope=None):
    args = {"project_id": P, "writes": list(writes), "deletes": list(deletes)}
    return ("finalize_plan", args | ({"scope": scope} if scope else {}))


CONSENT_CMD = Remedy("consent")

TABLE = [
    # --- consent: the entry to every call
    ("read-only, consent unknown: allowed, the server gates",
     snap(consent=None), ("list_files", {"project_id": P}), Allow("read_only")),
    ("read-only, consent given", snap(), ("get_project", {"project_id": P}),
     Allow("read_only")),
    ("consent false: consent card", snap(consent=False), ("list_files", {"project_id": P}),
     Ask("consent", "consent_not_given")),
    ("consent false on a write: consent card first", snap(consent=False), write("a.html"),
     Ask("consent", "consent_not_given")),
    ("consent false, nobody can answer: deny naming the consent remedy",
     snap(consent=False, can_ask=False), ("list_files", {"project_id": P}),
     Deny("consent_not_given", CONSENT_CMD)),
    ("consent false in a sub-context: deny naming the consent remedy",
     snap(consent=False, main=False), write("a.html"), Deny("consent_not_given", CONSENT_CMD)),
    ("write, consent unknown: the other rows decide, the server gates consent",
     snap(consent=None), write("a.html"), Ask("grant", "no_grant")),
    ("write, consent unknown, verified grant", snap(consent=None, grants=[P]), write("a.html"),
     Allow("grant")),
    # --- finalize_plan: always a card
    ("finalize_plan asks for a plan card", snap(), plan(["a.html"], ["b.html"]),
     Ask("plan", "plan_operation")),
    ("finalize_plan even with a live grant", snap(grants=[P]), plan(["a.html"]),
     Ask("plan", "plan_operation")),
    ("finalize_plan scope project is refused", snap(), plan(["a.html"], scope="project"),
     Deny("scope_not_paths")),
    ("finalize_plan with 21 writes is asked as one call, spec s7", snap(),
     plan([f"f{i}" for i in range(21)]), Ask("plan", "over_limit_too_many_writes")),
    ("finalize_plan with 20 writes is shown", snap(), plan([f"f{i}" for i in range(20)]),
     Ask("plan", "plan_operation")),
    ("finalize_plan with 21 deletes is asked as one call, spec s7", snap(),
     plan(deletes=[f"f{i}" for i in range(21)]), Ask("plan", "over_limit_too_many_deletes")),
    ("finalize_plan with 20 deletes is shown", snap(),
     plan(deletes=[f"f{i}" for i in range(20)]), Ask("plan", "plan_operation")),
    ("finalize_plan scope paths is shown", snap(), plan(["a.html"], scope="paths"),
     Ask("plan", "plan_operation")),
    ("finalize_plan with an 80-char path is shown", snap(), plan(["p/" + "a" * 78]),
     Ask("plan", "plan_operation")),
    ("finalize_plan with an 81-char path is asked as one call, spec s7", snap(),
     plan(["p/" + "a" * 79]), Ask("plan", "over_limit_path_too_long")),
    ("finalize_plan with an 80-char path is a plan", snap(), plan(["p/" + "a" * 78]),
     Ask("plan", "plan_operation")),
    ("finalize_plan with a 1025-char path cannot be shown", snap(), plan(["p/" + "a" * 1023]),
     Deny("path_too_long")),
    ("finalize_plan with .. is refused", snap(), plan(["a/../b.html"]),
     Deny("path_traversal")),
    ("finalize_plan with a control character is refused", snap(), plan(["a\x1bb.html"]),
     Deny("path_control_character")),
    ("finalize_plan with fullwidth dots and slash is refused", snap(),
     plan(["\uff0e\uff0e\uff0fx"]), Deny("path_not_a_letter")),
    ("finalize_plan with an unsafe project id is refused", snap(),
     ("finalize_plan", {"project_id": "p\u202e1", "writes": ["a.html"]}),
     Deny("unsafe_project_id")),
    ("finalize_plan with a bidi path is refused", snap(), plan(["a\u202egnp.html"]),
     Deny("path_invisible_character")),
    ("finalize_plan on a reserved path is asked as one call, spec s8", snap(),
     plan([".Claude/x"]), Ask("plan", "reserved_target")),
    ("finalize_plan with a mixed-script segment is refused", snap(),
     plan(["\u0430pple.html"]), Deny("path_mixed_script")),
    ("finalize_plan in another script is a plan", snap(),
     plan(["\u5e7b\u706f\u7247/01.html", "caf\u00e9.html"]), Ask("plan", "plan_operation")),
    ("finalize_plan nobody can answer", snap(can_ask=False), plan(["a.html"]),
     Deny("nobody_can_approve")),
    # --- plan tokens
    ("write covered by a live plan", snap(), write("a.html", token="tok"), Allow("plan")),
    ("write covered after normalising", snap(), write("./a.html", token="tok"),
     Allow("plan")),
    ("create_support_js covered by a plan", snap(),
     ("create_support_js", {"project_id": P, "plan_token": "tok"}), Allow("plan")),
    ("delete covered by a live plan", snap(), delete("old.html", token="tok"), Allow("plan")),
    ("copy dest covered by a live plan", snap(), copy("a.html", token="tok"), Allow("plan")),
    ("write of a path outside the plan asks", snap(), write("a.html", "b.html", token="tok"),
     Ask("operation", "plan_token_does_not_cover")),
    ("write of a path the plan only deletes asks", snap(), write("old.html", token="tok"),
     Ask("operation", "plan_token_does_not_cover")),
    ("256 targets, every one in the plan", snap(), write(*["a.html"] * 256, token="tok"),
     Allow("plan")),
    ("257 targets are refused: the service takes at most 256 a call", snap(),
     write(*["a.html"] * 257, token="tok"), Deny("too_many_targets")),
    ("256 targets a token covers are matched, spec s7", snap(),
     write(*["a.html"] * 256, token="tok"), Allow("plan")),
    ("256 targets of a covered path are matched", snap(),
     write(*["a.html"] * 256, token="tok"), Allow("plan")),
    ("a token never covers a traversal path, and no card shows one", snap(),
     write("a/../a.html", token="tok"), Deny("path_traversal")),
    ("delete of a written path asks", snap(), delete("a.html", token="tok"),
     Ask("operation", "plan_token_does_not_cover")),
    ("expired plan asks", snap(), write("a.html", token="old"),
     Ask("operation", "plan_token_expired")),
    ("other project's plan asks", snap(), write("a.html", token="oth"),
     Ask("operation", "plan_token_other_project")),
    ("unregistered token asks", snap(), delete("old.html", token="made-up"),
     Ask("operation", "plan_token_unknown")),
    ("uncovered with a grant still asks: a token is not tokenless", snap(grants=[P]),
     write("b.html", token="tok"), Ask("operation", "plan_token_does_not_cover")),
    ("uncovered, nobody can answer", snap(can_ask=False), delete("x.html", token="tok"),
     Deny("nobody_can_approve")),
    # --- deletes and copies never ride on a grant
    ("tokenless delete asks", snap(grants=[P]), delete("old.html"),
     Ask("operation", "no_plan_token")),
    ("tokenless copy always asks", snap(grants=[P]), copy("b.html"),
     Ask("operation", "no_plan_token")),
    ("tokenless delete nobody can answer", snap(can_ask=False), delete("old.html"),
     Deny("nobody_can_approve")),
    ("delete of 21 paths is asked as one call, spec s7", snap(),
     delete(*[f"f{i}" for i in range(21)]), Ask("operation", "over_limit_too_many_deletes")),
    ("delete of a reserved path is asked as one call", snap(), delete("CLAUDE.md."),
     Ask("operation", "reserved_target")),
    ("copy from a hostile source", snap(),
     ("copy_files", {"project_id": P, "files": [{"src": "a\u200b", "dest": "b"}]}),
     Deny("unsafe_detail")),
    # --- grants: tokenless write_files / create_support_js
    ("tokenless write with a verified grant", snap(grants=[P]), write("a.html", "b.html"),
     Allow("grant")),
    ("tokenless write of 256 files with a grant", snap(grants=[P]),
     write(*[f"f{i}" for i in range(256)]), Allow("grant")),
    ("tokenless write of 257 files is refused before anything is sent", snap(grants=[P]),
     write(*[f"f{i}" for i in range(257)]), Deny("too_many_targets")),
    ("tokenless write of 256 files rides on the verified grant", snap(grants=[P]),
     write(*[f"f{i}" for i in range(256)]), Allow("grant")),
    ("a plan of 200 writes and 100 deletes: each list within 256, asked as one call", snap(),
     plan([f"w{i}" for i in range(200)], [f"d{i}" for i in range(100)]),
     Ask("plan", "over_limit_too_many_targets")),
    ("a plan of 257 deletes is refused", snap(), plan((), [f"d{i}" for i in range(257)]),
     Deny("too_many_targets")),
    ("tokenless write of 21 files rides on a verified grant", snap(grants=[P]),
     write(*[f"f{i}" for i in range(21)]), Allow("grant")),
    ("tokenless write of 21 files offers no grant, spec s7", snap(),
     write(*[f"f{i}" for i in range(21)]), Ask("operation", "over_limit_too_many_writes")),
    ("reserved target never rides on a grant: asked per batch", snap(grants=[P]),
     write("docs/CLAUDE.md"), Ask("operation", "reserved_target")),
    ("reserved .claude in any case", snap(grants=[P]), write(".Claude/settings.json"),
     Ask("operation", "reserved_target")),
    ("a grant covers paths in other scripts", snap(grants=[P]),
     write("\u5e7b\u706f\u7247/01.html"), Allow("grant")),
    ("a grant covers cafe with its accent", snap(grants=[P]), write("caf\u00e9.html"),
     Allow("grant")),
    ("a grant does not cover a mixed-script segment", snap(grants=[P]),
     write("p\u0430ypal.html"), Deny("path_mixed_script")),
    ("tokenless write without a grant: grant card", snap(), write("a.html"),
     Ask("grant", "no_grant")),
    ("tokenless create_support_js: grant card", snap(),
     ("create_support_js", {"project_id": P}), Ask("grant", "no_grant")),
    ("grant-ineligible project: per-batch plan card", snap(ineligible=[P]), write("a.html"),
     Ask("plan", "grant_ineligible")),
    ("grant-ineligible with 21 writes is asked as one call, spec s7", snap(ineligible=[P]),
     write(*[f"f{i}" for i in range(21)]), Ask("plan", "over_limit_too_many_writes")),
    ("no grant, nobody can answer: none is minted", snap(can_ask=False), write("a.html"),
     Deny("nobody_can_approve")),
    ("existing grant reused where nobody can answer", snap(grants=[P], can_ask=False),
     write("a.html"), Allow("grant")),
    ("existing grant reused where nobody can answer, create_support_js",
     snap(grants=[P], can_ask=False), ("create_support_js", {"project_id": P}), Allow("grant")),
    ("no grant in a sub-context", snap(main=False), write("a.html"),
     Deny("grant_needs_main_context")),
    ("an existing grant is not used in a sub-context", snap(grants=[P], main=False),
     write("a.html"), Deny("grant_needs_main_context")),
    ("a grant covers only reviewable paths: bidi", snap(grants=[P]),
     write("evil\u202egnp.html"), Deny("path_invisible_character")),
    ("a grant covers only reviewable paths: zero-width", snap(grants=[P]),
     write("CLAUDE\u200b.md"), Deny("path_invisible_character")),
    ("a grant covers only reviewable paths: traversal", snap(grants=[P]),
     write("../other/a.html"), Deny("path_traversal")),
    ("grant reuse has the plans' path limit: 81 chars ask once, spec s7", snap(grants=[P]),
     write("p/" + "a" * 79), Ask("operation", "over_limit_path_too_long")),
    ("grant reuse covers an 80-char path", snap(grants=[P]), write("p/" + "a" * 78),
     Allow("grant")),
    ("reserved CLAUDE.md. (trailing dot) never rides on a grant", snap(grants=[P]),
     write("CLAUDE.md."), Ask("operation", "reserved_target")),
    ("reserved target with nobody to ask is still refused", snap(grants=[P], can_ask=False),
     ("create_support_js", {"project_id": P, "path": ".claude/support.js"}),
     Deny("nobody_can_approve")),
    ("another project's grant does not cover", snap(grants=["p2"]), write("a.html"),
     Ask("grant", "no_grant")),
    ("grant card with a hostile path", snap(), write("a\u2215b.html"),
     Deny("path_not_a_letter")),
    # --- membership and sharing: a card every time
    ("add_member asks", snap(grants=[P]),
     ("add_member", {"project_id": P, "email": "x@acme.example", "role": "editor"}),
     Ask("operation", "sensitive_operation")),
    ("update_sharing asks even with a live token", snap(),
     ("update_sharing", {"project_id": P, "scope": "link", "plan_token": "tok"}),
     Ask("operation", "sensitive_operation")),
    ("update_member_role asks even with a verified grant", snap(grants=[P]),
     ("update_member_role", {"project_id": P, "account_uuid": "u1", "role": "viewer"}),
     Ask("operation", "sensitive_operation")),
    ("remove_member nobody can answer", snap(can_ask=False),
     ("remove_member", {"project_id": P, "account_uuid": "u1"}), Deny("nobody_can_approve")),
    ("add_member with a hostile email", snap(),
     ("add_member", {"project_id": P, "email": "x@\u0430cme.example", "role": "editor"}),
     Deny("unsafe_detail")),
    # --- any other write-tier operation
    ("create_project asks", snap(), ("create_project", {"name": "Launch deck"}),
     Ask("operation", "write_operation")),
    ("create_project with a hostile name", snap(), ("create_project", {"name": "De\u202eck"}),
     Deny("unsafe_detail")),
    ("hostile project id", snap(), write("a.html", project="p\u200b1"),
     Deny("unsafe_project_id")),
]


@pytest.mark.parametrize(("snapshot", "call", "decision"),
                         [row[1:] for row in TABLE], ids=[row[0] for row in TABLE])
def test_decision_table(snapshot, call, decision):
    operation, arguments = call
    facts = facts_of(operation, operation in READ_ONLY, operation in DESTRUCTIVE, arguments,
                     BY_NAME)
    assert decide(snapshot, facts, NOW) == decision


def facts(call):
    return facts_of(call[0], False, True, call[1], BY_NAME)


def test_plan_is_honoured_one_millisecond_before_expiry():
    assert decide(snap(), facts(write("a.html", token="tok")), NOW + 59_999) == Allow("plan")


def test_plan_asks_at_the_exact_expiry_millisecond():
    assert decide(snap(), facts(write("a.html", token="tok")), NOW + 60_000) == \
        Ask("operation", "plan_token_expired")


def long_paths(n, length):
    return [f"{i:02d}/" + "x" * (length - 3) for i in range(n)]


def card_length(call):
    return len(card_text("plan", facts(call)))


def test_card_near_the_limit_is_shown():
    call = plan(long_paths(20, 80), long_paths(2, 80))
    assert card_length(call) <= 2000
    assert decide(snap(), facts(call), NOW) == Ask("plan", "plan_operation")


def test_card_over_the_limit_is_shown_in_full_for_one_call_spec_s7():
    call = plan(long_paths(20, 80), long_paths(3, 80))
    assert card_length(call) > 2000
    assert decide(snap(), facts(call), NOW) == Ask("plan", "over_limit_card_too_long")


def test_card_of_exactly_2000_chars_is_a_plan_and_2001_one_call_spec_s7():
    deletes = long_paths(2, 80)
    spare = 2000 - card_length(plan(long_paths(20, 80), deletes + ["d"]))
    fits = plan(long_paths(20, 80), deletes + ["d" * (spare + 1)])
    over = plan(long_paths(20, 80), deletes + ["d" * (spare + 2)])
    assert card_length(fits) == 2000 and card_length(over) == 2001
    assert decide(snap(), facts(fits), NOW) == Ask("plan", "plan_operation")
    assert decide(snap(), facts(over), NOW) == Ask("plan", "over_limit_card_too_long")


def test_operation_card_shows_exactly_what_changes():
    text = card_text("operation", facts(copy("b.html")))
    assert "  b.html" in text.splitlines()
    assert "  copy a.html -> b.html" in text.splitlines()


def test_membership_card_shows_the_role_and_email():
    call = ("add_member", {"project_id": P, "email": "x@acme.example", "role": "editor"})
    lines = card_text("operation", facts(call)).splitlines()
    assert "email: x@acme.example" in lines and "role: editor" in lines


# ---------------------------------------------------------------- refusals in words

DENIALS = sorted({row[3].reason for row in TABLE if isinstance(row[3], Deny)})


@pytest.mark.parametrize("reason", DENIALS)
def test_every_refusal_of_the_table_has_a_sentence(reason):
    assert reason in REFUSALS


@pytest.mark.parametrize("rule", sorted(display.PATH_RULES))
def test_every_path_rule_has_a_sentence(rule):
    assert f"path_{rule}" in REFUSALS


@pytest.mark.parametrize("reason", sorted({"denied_on_card", "plan_mismatch",
                                           "grant_needs_main_context", "unsafe_detail"}))
def test_refusals_of_the_client_have_a_sentence(reason):
    assert reason in REFUSALS


def test_explain_gives_the_sentence_of_a_known_code():
    assert explain("too_many_writes") == REFUSALS["too_many_writes"]


def test_explain_keeps_an_unknown_code_visible():
    assert "brand_new_rule" in explain("brand_new_rule")


def test_consent_refusal_says_to_give_consent_and_names_no_magic():
    said = explain("consent_not_given")
    assert "Give consent" in said and "%design" not in said


# ---------------------------------------------------------------- the grant card

IDENTITY = display.ProjectIdentity(P, "Quarterly Review Deck", "org", "view",
                                   "https://design.example/p/p1")


def test_grant_card_names_the_buttons_it_has():
    text = grant_card_of(facts(write("a.html")), IDENTITY).text
    for label in (APPROVE, APPROVE_FOR_PROJECT, DENY):
        assert f'"{label}"' in text
    assert "Approve once" not in text


def test_grant_card_shows_identity_and_the_batch():
    lines = grant_card_of(facts(write("./a.html")), IDENTITY).text.splitlines()
    assert "Project: Quarterly Review Deck (p1)" in lines
    assert "Sharing: org, link: view" in lines
    assert "URL: https://design.example/p/p1" in lines
    assert "  a.html" in lines


# ---------------------------------------------------------------- a grant card that cannot be shown

FALLBACK = [
    ("unsafe name: this batch as a plan card", write("a.html"), "name_invisible_character",
     Ask("plan", "grant_card_refused_name_invisible_character")),
    ("20 writes still fit one plan card", write(*[f"f{i}" for i in range(20)]),
     "card_too_long", Ask("plan", "grant_card_refused_card_too_long")),
    ("21 writes: one call, no plan", write(*[f"f{i}" for i in range(21)]), "url_not_https",
     Ask("operation", "over_limit_too_many_writes")),
    ("an 81-char path: one call, no plan", write("p/" + "a" * 79), "get_project_failed",
     Ask("operation", "over_limit_path_too_long")),
]


@pytest.mark.parametrize(("call", "refused", "decision"), [row[1:] for row in FALLBACK],
                         ids=[row[0] for row in FALLBACK])
def test_grant_card_fallback(call, refused, decision):
    assert grant_card_fallback(facts(call), refused) == decision


@pytest.mark.parametrize(("created", "baseline", "appeared"), [
    ("2026-12-03T09:00:00.000Z", None, True),             # no grant when the card was shown
    ("2026-12-03T09:00:00.000Z", "2026-12-03T09:00:00.000Z", False),   # the same grant
    ("2026-12-03T09:00:00.001Z", "2026-12-03T09:00:00.000Z", True),    # 1 ms newer
    ("2026-12-03T10:00:00+01:00", "2026-12-03T09:00:00Z", False),      # same instant
    ("2026-12-03T10:00:01+01:00", "2026-12-03T09:00:00Z", True),
    ("2026-12-03T08:59:59Z", "2026-12-03T09:00:00Z", False),           # older
    ("yesterday", "2026-12-03T09:00:00Z", False),                      # unreadable
    ("2026-13-03T09:00:00Z", "2026-12-03T09:00:00Z", False),           # no such month
])
def test_grant_watcher_counts_only_a_newer_grant_spec_s8(created, baseline, appeared):
    from jupyter_design_projects.core.grant_watch import grant_appeared

    assert grant_appeared({"p1": created}, "p1", baseline) is appeared
    assert grant_appeared({"p2": created}, "p1", baseline) is False


EARLIEST, LATEST = datetime.datetime(1601, 1, 2), datetime.datetime(2399, 12, 30)


def _rfc3339(moment, offset_minutes: int, *, fraction: bool, zulu: str) -> str:
    zone = datetime.timezone(datetime.timedelta(minutes=offset_minutes))
    local = moment.astimezone(zone)
    text = local.strftime("%Y-%m-%dT%H:%M:%S")
    if fraction:
        text += f".{local.microsecond:06d}"
    if offset_minutes == 0 and zulu:
        return text + zulu
    sign = "+" if offset_minutes >= 0 else "-"
    return text + f"{sign}{abs(offset_minutes) // 60:02d}:{abs(offset_minutes) % 60:02d}"


@given(st.datetimes(min_value=EARLIEST,
                    max_value=LATEST),
       st.datetimes(min_value=EARLIEST,
                    max_value=LATEST),
       st.integers(-14 * 60, 14 * 60), st.integers(-14 * 60, 14 * 60),
       st.booleans(), st.sampled_from(["Z", "z", ""]))
def test_grant_watcher_orders_any_two_rfc3339_instants_as_the_clock_does(
        created, baseline, created_offset, baseline_offset, fraction, zulu):
    from jupyter_design_projects.core.grant_watch import grant_appeared

    utc = datetime.UTC
    created, baseline = created.replace(tzinfo=utc), baseline.replace(tzinfo=utc)
    if not fraction:
        created, baseline = created.replace(microsecond=0), baseline.replace(microsecond=0)
    later = grant_appeared(
        {"p1": _rfc3339(created, created_offset, fraction=fraction, zulu=zulu)}, "p1",
        _rfc3339(baseline, baseline_offset, fraction=fraction, zulu=zulu))
    assert later is (created > baseline)


@pytest.mark.parametrize(("created", "readable"), [
    ("2024-02-29T12:00:00Z", True), ("2000-02-29T12:00:00Z", True),
    ("2026-12-31T23:59:60Z", True),                      # a leap second
    ("2026-00-10T00:00:00Z", False), ("2026-12-32T00:00:00Z", False),
    ("2026-12-10T24:00:00Z", False), ("2026-12-10T23:60:00Z", False),
    ("2026-12-10T23:59:61Z", False), ("2026-12-10T23:59:59", False),
    ("2026-12-10 23:59:59Z", True), ("2026-12-10t23:59:59Z", True),
])
def test_grant_watcher_reads_a_timestamp_only_within_rfc3339s_ranges(created, readable):
    from jupyter_design_projects.core.grant_watch import grant_appeared

    # any readable stamp is newer than one from 1601; an unreadable one never is
    assert grant_appeared({"p1": created}, "p1", "1601-01-02T00:00:00Z") is readable


@given(st.datetimes(min_value=EARLIEST, max_value=LATEST), st.integers(-14 * 60, 14 * 60),
       st.booleans())
def test_an_rfc3339_stamp_reads_as_the_clocks_seconds_since_the_epoch(moment, offset,
                                                                       fraction):
    from jupyter_design_projects.core.grant_watch import _instant

    moment = moment.replace(tzinfo=datetime.UTC)
    if not fraction:
        moment = moment.replace(microsecond=0)
    stamp = _rfc3339(moment, offset, fraction=fraction, zulu="Z")
    assert _instant(stamp) == pytest.approx(moment.timestamp(), abs=1e-5)


# ---------------------------------------------------------------- which card the limit measures


def write_with_notes(note_chars):
    """20 writes of 80-character paths and two note arguments (card detail lines)."""
    name, args = write(*long_paths(20, 80))
    return name, args | {"a": "x" * 120, "b": "y" * note_chars}


def plan_card_one_over_the_limit():
    """A tokenless write whose per-batch plan card is 2,001 characters long."""
    for chars in range(1, 121):
        call = write_with_notes(chars)
        if card_length(call) == CARD_LIMIT + 1:
            return facts(call)
    raise AssertionError("no such card")


def test_the_limit_measures_the_plan_card_a_fallback_would_show():
    over = plan_card_one_over_the_limit()
    # the same call's operation card (a shorter heading) is within the limit
    assert len(card_text("operation", over)) <= CARD_LIMIT
    assert grant_card_fallback(over, "card_too_long") == Ask("operation",
                                                              "over_limit_card_too_long")


def test_the_limit_measures_the_per_batch_plan_card_of_a_grant_ineligible_project():
    over = plan_card_one_over_the_limit()
    assert decide(snap(ineligible=[P]), over, NOW) == Ask("plan", "over_limit_card_too_long")


def test_a_fallback_card_that_cannot_be_shown_is_refused_with_its_problem():
    hostile = facts(write("a.html", project="p\u200b1"))
    assert grant_card_fallback(hostile, "card_too_long") == Deny("unsafe_project_id")


def test_an_unshowable_path_is_refused_before_the_grant_rows():
    assert decide(snap(main=False), facts(write("a/../b.html")), NOW) == Deny("path_traversal")
    assert decide(snap(main=False), facts(write("p/" + "a" * 1023)), NOW) == \
        Deny("path_too_long")


# ---------------------------------------------------------------- the facts of a call


def test_facts_keep_the_hints_the_row_and_a_string_token_only():
    got = facts_of("write_files", False, True, {"project_id": P, "files": [],
                                                 "plan_token": 5}, BY_NAME)
    assert (got.read_only, got.destructive, got.plan_token) == (False, True, None)
    assert got.row is BY_NAME["write_files"]
    assert facts_of("write_files", False, False, {"plan_token": "t"}, BY_NAME).plan_token == "t"


def test_an_operation_no_table_knows_touches_no_paths():
    got = facts_of("brand_new_write", False, True, {"project_id": P, "paths": ["a.html"]}, BY_NAME)
    assert (got.row, got.targets, got.scope) == (None, Targets(), None)


def test_only_a_plan_row_carries_its_scope():
    assert facts(plan(["a.html"], scope="paths")).scope == "paths"
    assert facts(("update_sharing", {"project_id": P, "scope": "org"})).scope is None


def test_facts_keep_the_row_of_an_injected_table():
    row = DesignOperation("share_widely", "Share.", DESTROY, False, (), Approval.SENSITIVE)
    got = facts_of("share_widely", False, True, {"project_id": P}, {"share_widely": row})
    assert got.row is row
    assert decide(snap(), got, NOW) == Ask("operation", "sensitive_operation")


def test_detail_lines_show_numbers_flags_and_text_in_call_order():
    got = facts(("create_project", {"name": "Deck", "count": 3, "flag": True, "none": None}))
    assert got.details == ("name: Deck", "count: 3", "flag: True")


def test_the_card_text_is_the_card_of_its_kind():
    got = facts(write("a.html"))
    assert card_text("plan", got).splitlines()[0] == PER_BATCH_HEADING
    assert card_text("operation", got).splitlines()[0] == BY_NAME["write_files"].heading
    assert card_of("plan", got).reason == ""


def test_the_grant_card_names_its_operation():
    assert grant_card_of(facts(write("a.html")), IDENTITY).operation == "write_files"


@pytest.mark.parametrize("stamp", [
    "1700-03-01T00:00:00Z", "1800-03-01T12:00:00Z", "1900-06-01T00:00:00Z",
    "2100-03-01T00:00:00Z", "2200-03-01T00:00:00Z", "2201-02-28T23:59:59Z",
    "2300-03-01T00:00:00Z", "2302-12-31T00:00:00Z",
])
def test_century_years_read_as_the_clock_reads_them(stamp):
    from jupyter_design_projects.core.grant_watch import _instant

    moment = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    assert _instant(stamp) == moment.timestamp()
