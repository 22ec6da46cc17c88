"""The sync plan's rules as a table: each row is one path's two sides and its record, and
the action it needs; then the properties every classification keeps (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jupyter_design_projects.core import sync_plan as rules
from jupyter_design_projects.core.sync_plan import Base, Change, classify

A, B, C = "a" * 64, "b" * 64, "c" * 64
R1, R2 = "doc|10", "doc|11"
BASE = Base(A, R1)

# (local hash, remote revision, remote hash, base, direction, delete, force) → action
TABLE = [
    # push
    (A, None, None, None, "push", False, False, rules.NEW),
    (A, R1, None, BASE, "push", False, False, rules.UNCHANGED),
    (B, R1, None, BASE, "push", False, False, rules.CHANGED),
    (A, R2, None, BASE, "push", False, False, rules.CHANGED_REMOTELY),
    (B, R2, C, BASE, "push", False, False, rules.CONFLICT),
    (B, R2, C, BASE, "push", False, True, rules.CHANGED),
    (B, R2, B, BASE, "push", False, False, rules.UNCHANGED),  # both made the same edit
    (A, R2, A, BASE, "push", False, False, rules.UNCHANGED),  # a rewrite of the same text
    (B, R1, C, BASE, "push", False, False, rules.CONFLICT),  # an edit the listing missed
    (A, R1, A, None, "push", False, False, rules.UNCHANGED),  # equal, never synced
    (A, R1, B, None, "push", False, False, rules.CONFLICT),   # a teammate's doc, never synced
    (A, R1, B, None, "push", False, True, rules.CHANGED),
    (A, R1, None, None, "push", False, False, rules.CONFLICT),  # not read: never assumed equal
    (None, R1, None, BASE, "push", False, False, rules.REMOVED_LOCALLY),
    (None, R1, None, BASE, "push", True, False, rules.DELETE),
    (None, R2, None, BASE, "push", True, False, rules.CONFLICT),  # removed here, edited there
    (None, R2, None, BASE, "push", True, True, rules.DELETE),
    (None, R1, None, None, "push", True, False, rules.REMOTE_ONLY),  # never ours: never deleted
    (B, None, None, BASE, "push", False, False, rules.CONFLICT),  # deleted there, changed here
    (B, None, None, BASE, "push", False, True, rules.NEW),
    (A, None, None, BASE, "push", False, False, rules.REMOVED_REMOTELY),
    (A, None, None, BASE, "push", False, True, rules.NEW),
    (None, None, None, BASE, "push", False, False, rules.GONE),
    # pull: the Project is the source
    (None, R1, None, None, "pull", False, False, rules.NEW),
    (A, R1, None, BASE, "pull", False, False, rules.UNCHANGED),
    (A, R2, None, BASE, "pull", False, False, rules.CHANGED),
    (B, R1, None, BASE, "pull", False, False, rules.CHANGED_LOCALLY),
    (B, R2, C, BASE, "pull", False, False, rules.CONFLICT),
    (B, R2, C, BASE, "pull", False, True, rules.CHANGED),
    (A, None, None, None, "pull", False, False, rules.LOCAL_ONLY),
    (A, None, None, BASE, "pull", False, False, rules.REMOVED_REMOTELY),
    (None, R1, None, BASE, "pull", False, False, rules.REMOVED_LOCALLY),
    (None, R2, None, BASE, "pull", False, False, rules.CONFLICT),
    (A, R1, B, None, "pull", False, False, rules.CONFLICT),
]


@pytest.mark.parametrize(("local", "rev", "remote_hash", "base", "direction", "delete", "force",
                          "action"), TABLE)
def test_each_case_gets_its_action(local, rev, remote_hash, base, direction, delete, force,
                                   action) -> None:
    decision = classify(local=local, remote_revision=rev, remote_hash=remote_hash, base=base,
                        direction=direction, delete=delete, force=force)
    assert decision.action == action


def test_a_forced_write_says_it_was_forced() -> None:
    decision = classify(local=B, remote_revision=R2, remote_hash=C, base=BASE, force=True)
    assert decision.why.startswith("forced: changed on both sides")


def test_an_unknown_direction_is_refused() -> None:
    with pytest.raises(ValueError):
        classify(local=A, remote_revision=None, remote_hash=None, base=None, direction="both")


hashes = st.sampled_from([A, B, C])
maybe_hash = st.none() | hashes
revisions = st.none() | st.sampled_from([R1, R2])
bases = st.none() | st.builds(Base, hashes, st.sampled_from([R1, R2]))
directions = st.sampled_from([rules.PUSH, rules.PULL])


@given(maybe_hash, revisions, maybe_hash, bases, directions, st.booleans())
def test_a_target_changed_since_the_last_sync_is_never_written_unforced(
        local, rev, remote_hash, base, direction, delete) -> None:
    decision = classify(local=local, remote_revision=rev, remote_hash=remote_hash, base=base,
                        direction=direction, delete=delete)
    if base is None or not decision.writes:
        return
    if direction == rules.PUSH and rev is not None:
        remote_same = (remote_hash == base.sha256 if remote_hash is not None
                       else rev == base.revision)
        assert remote_same, "a push wrote over a doc changed in the Project"
    if direction == rules.PULL and local is not None:
        assert local == base.sha256, "a pull wrote over a file changed in the folder"


@given(maybe_hash, revisions, maybe_hash, directions, st.booleans())
def test_content_never_synced_is_never_overwritten_unforced(local, rev, remote_hash,
                                                             direction, delete) -> None:
    decision = classify(local=local, remote_revision=rev, remote_hash=remote_hash, base=None,
                        direction=direction, delete=delete)
    if local is not None and rev is not None:
        assert not decision.writes


@given(maybe_hash, revisions, maybe_hash, bases, directions, st.booleans())
def test_force_changes_only_conflicts_and_held_back_writes(local, rev, remote_hash, base,
                                                         direction, delete) -> None:
    kwargs = dict(local=local, remote_revision=rev, remote_hash=remote_hash, base=base,
                  direction=direction, delete=delete)
    plain, forced = classify(**kwargs), classify(**kwargs, force=True)
    if plain.action != forced.action:
        assert plain.action in (rules.CONFLICT, rules.REMOVED_REMOTELY, rules.REMOVED_LOCALLY)
        assert forced.writes


@given(hashes, hashes, directions)
def test_after_a_sync_the_same_path_is_unchanged(content, other, direction) -> None:
    """A path written with content X and recorded is unchanged on the next plan."""
    del other
    decision = classify(local=content, remote_revision=R1, remote_hash=None,
                        base=Base(content, R1), direction=direction)
    assert decision.action == rules.UNCHANGED


@given(st.lists(st.builds(Change, st.sampled_from(sorted(rules.WRITES)),
                          st.integers(0, 10_000), st.integers(0, 10_000)), max_size=20),
       st.integers(0, 100_000))
def test_the_running_budget_chains_and_sums(changes, start) -> None:
    steps = rules.running_budget(start, changes)
    assert len(steps) == len(changes)
    size = start
    for (before, after), change in zip(steps, changes, strict=True):
        assert before == size and after == before + change.delta
        size = after


@given(st.lists(st.builds(Change, st.sampled_from(sorted(rules.WRITES)),
                          st.integers(0, 10_000), st.integers(0, 10_000)), max_size=20),
       st.integers(0, 100_000), st.integers(0, 200_000))
def test_each_checked_write_passes_the_run_check_exactly_when_the_plan_fits(
        changes, start, maximum) -> None:
    """The plan and the run share one arithmetic: every write of the run is checked with
    `budgets.check_knowledge(before, max, bytes, removed_tokens=old doc's tokens)`; the plan
    fits (its checked peak within the maximum) exactly when no step's check refuses."""
    from jupyter_design_projects.core import budgets
    from jupyter_design_projects.errors import KnowledgeBudgetExceeded

    ordered = sorted(changes, key=lambda c: rules.send_key(c, ""))
    steps = rules.running_budget(start, ordered)
    refused = False
    for change, (before, _) in zip(ordered, steps, strict=True):
        if change.checked:
            try:
                budgets.check_knowledge(before, maximum, 4 * change.tokens,
                                        removed_tokens=change.remote_tokens)
            except KnowledgeBudgetExceeded:
                refused = True
    peak = rules.checked_peak(ordered, steps)
    assert refused == (peak is not None and rules.over_budget(peak, maximum) > 0)


def test_replaces_that_free_the_most_are_sent_first() -> None:
    grows, shrinks = Change(rules.CHANGED, 50, 10), Change(rules.CHANGED, 10, 50)
    new, gone = Change(rules.NEW, 5), Change(rules.DELETE, 0, 7)
    keys = {rules.send_key(c, p): p for c, p in
            ((grows, "a"), (shrinks, "b"), (new, "c"), (gone, "d"))}
    assert [keys[k] for k in sorted(keys)] == ["d", "b", "a", "c"]


@pytest.mark.parametrize(("changes", "peak"), [
    ([], None), ([Change(rules.DELETE, 0, 5)], None),
    ([Change(rules.DELETE, 0, 5), Change(rules.CHANGED, 3, 1)], 97),
    ([Change(rules.CHANGED, 1, 10), Change(rules.NEW, 4)], 95)])
def test_the_checked_peak_leaves_out_deletes(changes, peak) -> None:
    assert rules.checked_peak(changes, rules.running_budget(100, changes)) == peak


@pytest.mark.parametrize(("after", "limit", "over"), [(100, 100, 0), (101, 100, 1), (99, 100, 0)])
def test_over_budget_at_its_exact_boundary(after, limit, over) -> None:
    assert rules.over_budget(after, limit) == over


@pytest.mark.parametrize(("rel", "prefix", "path"), [
    ("notes/a.md", "", "notes/a.md"), ("a.md", "team", "team/a.md"),
    ("a.md", "team/kb", "team/kb/a.md")])
def test_doc_paths_and_back(rel, prefix, path) -> None:
    assert rules.doc_path(rel, prefix) == path
    assert rules.local_rel(path, prefix) == rel


@pytest.mark.parametrize(("path", "prefix"), [("teams/a.md", "team"), ("team", "team"),
                                               ("team/", "team")])
def test_a_doc_outside_the_prefix_has_no_local_path(path, prefix) -> None:
    assert rules.local_rel(path, prefix) is None


@pytest.mark.parametrize("rel", ["../a.md", "a/../../b", "/etc/passwd", "a\\b", ".git/config",
                                 "a//b", "notes/.env"])
def test_doc_paths_that_cannot_be_files_in_the_folder(rel) -> None:
    assert rules.unsafe_local_part(rel) is not None


def test_a_plain_doc_path_is_a_file_in_the_folder() -> None:
    assert rules.unsafe_local_part("notes/a b/ü.md") is None


def test_prefix_loses_its_outer_slashes() -> None:
    assert rules.clean_prefix("/team/kb/") == "team/kb"
    assert rules.clean_prefix(None) == ""


@pytest.mark.parametrize(("rel", "reason"), [
    ("/etc/passwd", "is not a relative path inside the folder"),
    ("a\\b", "is not a relative path inside the folder"),
    ("a\x00b", "is not a relative path inside the folder"),
    ("a//b", "leaves the folder or has an empty part"),
    ("a/./b", "leaves the folder or has an empty part"),
    ("a/../b", "leaves the folder or has an empty part"),
    ("..", "leaves the folder or has an empty part"),
    ("notes/.env", "names a hidden file"),
])
def test_each_unsafe_doc_path_says_why(rel, reason) -> None:
    assert rules.unsafe_local_part(rel) == reason


def test_prefix_keeps_its_own_letters() -> None:
    assert rules.clean_prefix("/Xkb/X/") == "Xkb/X"


AGAIN = "since the last sync; --force PATH writes it again"
#: (local hash, remote revision, remote hash, base, direction, delete, force) → the decision
DECISIONS = [
    (B, None, None, BASE, "push", False, False,
     rules.Decision(rules.CONFLICT, "removed remotely, changed locally since the last sync")),
    (B, None, None, BASE, "push", False, True,
     rules.Decision(rules.NEW, "forced: removed remotely, changed locally since the last sync")),
    (A, None, None, BASE, "push", False, False, rules.Decision(rules.REMOVED_REMOTELY, AGAIN)),
    (A, None, None, BASE, "push", False, True,
     rules.Decision(rules.NEW, "forced: removed remotely since the last sync")),
    (None, R1, None, BASE, "pull", False, False, rules.Decision(rules.REMOVED_LOCALLY, AGAIN)),
    (A, None, None, None, "pull", False, False,
     rules.Decision(rules.LOCAL_ONLY, "not written by this sync")),
    (None, R1, None, None, "push", True, False,
     rules.Decision(rules.REMOTE_ONLY, "not written by this sync")),
    (None, R1, None, BASE, "push", False, False,
     rules.Decision(rules.REMOVED_LOCALLY, "--delete removes the doc")),
    (A, None, None, BASE, "pull", True, False, rules.Decision(rules.REMOVED_REMOTELY, "kept")),
    (None, R2, None, BASE, "push", True, False,
     rules.Decision(rules.CONFLICT, "removed locally, changed remotely since the last sync")),
    (None, R2, None, BASE, "push", True, True,
     rules.Decision(rules.DELETE,
                    "forced: removed locally, changed remotely since the last sync")),
    (A, R1, B, None, "push", False, False,
     rules.Decision(rules.CONFLICT, "on both sides with different content, never synced")),
    (A, R1, B, None, "push", False, True,
     rules.Decision(rules.CHANGED, "forced: on both sides with different content, never synced")),
    (A, R2, None, BASE, "push", False, False,
     rules.Decision(rules.CHANGED_REMOTELY, "since the last sync; left as it is")),
    (B, R1, None, BASE, "pull", False, False,
     rules.Decision(rules.CHANGED_LOCALLY, "since the last sync; left as it is")),
    (B, R2, C, BASE, "push", False, False,
     rules.Decision(rules.CONFLICT, "changed on both sides since the last sync")),
    (B, R1, None, BASE, "push", False, False, rules.Decision(rules.CHANGED)),
    (None, None, None, BASE, "pull", False, False, rules.Decision(rules.GONE)),
]


@pytest.mark.parametrize(("local", "rev", "remote_hash", "base", "direction", "delete", "force",
                          "decision"), DECISIONS)
def test_each_case_says_why(local, rev, remote_hash, base, direction, delete, force,
                            decision) -> None:
    assert classify(local=local, remote_revision=rev, remote_hash=remote_hash, base=base,
                    direction=direction, delete=delete, force=force) == decision


def test_a_push_deletes_only_when_asked() -> None:
    decision = classify(local=None, remote_revision=R1, remote_hash=None, base=BASE)
    assert decision.action == rules.REMOVED_LOCALLY
