"""Spec §8's last rows as a table: reserved targets (`CLAUDE.md`, `.claude/`) and targets
that cannot be listed never ride on a plan or a durable grant; they are asked batch by
batch where approving can work, and refused where no card could offer an action that
works. What §7 bars outright (control and look-alike characters, `..`, segments with no
normal form) stays refused."""

from collections.abc import Mapping
from typing import Any

import pytest

from jupyter_design_projects.core import display
from jupyter_design_projects.core.cards import (
    APPROVE,
    APPROVE_FOR_PROJECT,
    DENY,
    NOT_ENUMERABLE_NOTE,
)
from jupyter_design_projects.core.design_operations import (
    DESIGN_OPERATIONS,
    DESTROY,
    PLAN_TOKEN,
    PROJECT_ID,
    Approval,
    DesignOperation,
    Input,
    ListOf,
    Text,
    operation_table,
)
from jupyter_design_projects.core.permissions import (
    Allow,
    Ask,
    Deny,
    Snapshot,
    card_of,
    decide,
    facts_of,
)
from jupyter_design_projects.core.plans import ApprovedPlan, Targets, normalised, review_rule
from jupyter_design_projects.core.refusals import explain

NOW = 1_700_000_000_000
P = "p1"


def unlisted(arguments: Mapping[str, Any]) -> Targets | None:
    return None


#: a grantable write and a token-only delete whose service picks the paths
INDEXES = DesignOperation(
    "write_indexes", "Write an index page into every folder.", DESTROY, True,
    (Input("project_id", PROJECT_ID, required=True), Input("title", Text()),
     Input("plan_token", PLAN_TOKEN)), Approval.GRANTABLE, unlisted)
PRUNE = DesignOperation(
    "prune_drafts", "Delete the drafts.", DESTROY, True,
    (Input("project_id", PROJECT_ID, required=True), Input("globs", ListOf(Text())),
     Input("plan_token", PLAN_TOKEN)), Approval.PLAN_TOKEN, unlisted)
TABLE = operation_table((*DESIGN_OPERATIONS, INDEXES, PRUNE))
PLAN = ApprovedPlan("tok", P, frozenset({"a.html"}), frozenset(), NOW + 60_000)


def snap(grants=(), can_ask=True, main=True):
    return Snapshot(True, {"tok": PLAN}, frozenset(grants), frozenset(), can_ask, main)


def call(operation, **arguments):
    destructive = operation != "finalize_plan"
    return facts_of(operation, False, destructive, {"project_id": P, **arguments}, TABLE)


def files(*paths, token=None):
    extra = {"plan_token": token} if token else {}
    return call("write_files", files=[{"path": p, "data": "x"} for p in paths], **extra)


ROWS = [
    # --- targets that cannot be listed
    ("unlisted, under the verified grant: one call on a card", snap(grants=[P]),
     call("write_indexes", title="Q4"), Ask("operation", "targets_not_enumerable")),
    ("unlisted, no grant: nothing could work, refused", snap(),
     call("write_indexes", title="Q4"), Deny("targets_not_enumerable")),
    ("unlisted, another project's grant", snap(grants=["p2"]),
     call("write_indexes", title="Q4"), Deny("targets_not_enumerable")),
    ("unlisted, grant verified but a sub-agent", snap(grants=[P], main=False),
     call("write_indexes", title="Q4"), Deny("targets_not_enumerable")),
    ("unlisted, grant verified, nobody to ask", snap(grants=[P], can_ask=False),
     call("write_indexes", title="Q4"), Deny("nobody_can_approve")),
    ("unlisted, its own plan token: the service checks it", snap(),
     call("write_indexes", title="Q4", plan_token="tok"),
     Ask("operation", "targets_not_enumerable")),
    ("unlisted token-only delete with a token", snap(),
     call("prune_drafts", globs=["drafts"], plan_token="tok"), Deny("unsafe_detail")),
    ("unlisted token-only delete, shown arguments", snap(),
     call("prune_drafts", plan_token="tok"), Ask("operation", "targets_not_enumerable")),
    ("unlisted token-only delete without a token", snap(grants=[P]),
     call("prune_drafts"), Deny("targets_not_enumerable")),
    ("unlisted with an argument a card cannot show", snap(grants=[P]),
     call("write_indexes", title="Q\u202e4"), Deny("unsafe_detail")),
    ("a plan must list its paths", snap(grants=[P]),
     call("finalize_plan", writes="a.html"), Deny("targets_not_enumerable")),
    # --- reserved targets
    ("reserved under the grant: one call on a card", snap(grants=[P]),
     files("a.html", "docs/CLAUDE.md"), Ask("operation", "reserved_target")),
    ("reserved with no grant: the same card, never the grant card", snap(),
     files(".claude/x.json"), Ask("operation", "reserved_target")),
    ("reserved with a registered plan's token", snap(),
     files("a.html", "CLAUDE.md", token="tok"), Ask("operation", "reserved_target")),
    ("reserved in a plan: asked, not registered", snap(),
     call("finalize_plan", writes=["CLAUDE.md"]), Ask("plan", "reserved_target")),
    ("reserved delete", snap(grants=[P]), call("delete_files", paths=["a/.Claude"]),
     Ask("operation", "reserved_target")),
    ("reserved copy destination", snap(grants=[P]),
     call("copy_files", files=[{"src": "a.html", "dest": "CLAUDE.md"}]),
     Ask("operation", "reserved_target")),
    ("a longer limit is named before the reserved one", snap(grants=[P]),
     files("CLAUDE.md", "p/" + "a" * 79), Ask("operation", "over_limit_path_too_long")),
    # --- what §7 bars stays barred, reserved name or not
    ("traversal to a reserved name", snap(grants=[P]), files("a/../CLAUDE.md"),
     Deny("path_traversal")),
    ("a control character beside a reserved name", snap(grants=[P]),
     files("a\x01/CLAUDE.md"), Deny("path_control_character")),
    ("a look-alike slash", snap(grants=[P]), files("a\u2215CLAUDE.md"),
     Deny("path_not_a_letter")),
    ("an ordinary write under the same grant is silent", snap(grants=[P]),
     files("docs/claude.md.bak"), Allow("grant")),
]


@pytest.mark.parametrize(("snapshot", "facts", "decision"), [r[1:] for r in ROWS],
                         ids=[r[0] for r in ROWS])
def test_rows(snapshot, facts, decision):
    assert decide(snapshot, facts, NOW) == decision


def test_the_unlisted_card_shows_every_argument_and_only_working_buttons():
    facts = call("write_indexes", title="Q4")
    card = card_of("operation", facts, "targets_not_enumerable")
    assert card.buttons == (APPROVE, DENY) and not card.allows_durable
    assert card.details == ("title: Q4",)
    assert card.notes == (NOT_ENUMERABLE_NOTE,)
    assert card.text.splitlines() == [
        "Run write_indexes on the Design project?", f"Project: {P}", "title: Q4",
        NOT_ENUMERABLE_NOTE]


def test_an_unlisted_call_shows_the_keys_a_listed_one_shows_as_paths():
    facts = call("write_indexes", title="Q4", path="drafts")
    assert facts.targets is None and facts.details == ("title: Q4", "path: drafts")


def test_the_reserved_card_names_the_reserved_paths_and_withholds_the_grant():
    facts = files("a.html", "./docs/CLAUDE.md")
    card = card_of("operation", facts, "reserved_target")
    assert card.writes == ("a.html", "docs/CLAUDE.md")
    assert card.notes == (
        f'Reserved (docs/CLAUDE.md): CLAUDE.md and .claude/ are never covered by a plan or '
        f'the project grant, so "{APPROVE}" sends this one call and later changes to them '
        "ask again.",)
    assert dict(card.withheld)[APPROVE_FOR_PROJECT] == (
        "CLAUDE.md and .claude/ are never covered by a grant.")


@pytest.mark.parametrize(("path", "normal", "written"), [
    ("./docs/CLAUDE.md", None, "docs/CLAUDE.md"),
    ("a/.claude/x", None, "a/.claude/x"),
    ("docs/claude.md.bak", "docs/claude.md.bak", "docs/claude.md.bak"),
    ("../CLAUDE.md", None, None),
    ("a\u200b/CLAUDE.md", None, None),
])
def test_a_reserved_path_has_a_written_form_but_no_normal_form(path, normal, written):
    assert display.normal_form(path) == normal
    assert display.written_form(path) == written


def test_a_one_time_plan_names_reserved_paths_but_a_registered_one_never_covers_them():
    assert normalised(["./CLAUDE.md"]) is None
    assert normalised(["./CLAUDE.md"], reserved=True) == frozenset({"CLAUDE.md"})
    assert review_rule(Targets(("CLAUDE.md",))) == "path_reserved"
    assert review_rule(Targets(("CLAUDE.md", "x" * 81))) == "path_too_long"


def test_the_refusal_says_what_would_make_an_unlisted_call_work():
    sentence = explain("targets_not_enumerable")
    assert "cannot be listed" in sentence and "plan token" in sentence
    assert APPROVE_FOR_PROJECT in sentence
