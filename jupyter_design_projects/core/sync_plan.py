"""The rules of `%project sync`: where a folder's file lands in the Project, what each path
needs (new, changed, unchanged, conflict …) from its two sides and the last sync's state,
and the knowledge budget a plan leaves — pure, so every case is a row of a table test.

A sync has a source and a target: a push (the default) copies the folder into the
Project, a pull copies the Project into the folder. Each side is known by a content hash
(sha256 of the UTF-8 bytes); the Project's side also by its revision (what its one listing
says about a doc: its id and estimated size, and its update time where the listing has
one). The last sync recorded, per path, the hash both sides had and the doc's revision
then: a side whose value differs from that record has changed since.

A path changed on both sides, removed on one side and changed on the other, or present on
both sides with different content and no record is a conflict: listed, never written,
unless forced. Only what the source changed is written; what only the target changed is
left as it is (a pull takes it). Deletes happen only when asked, only on a push, and only
to docs this folder wrote (a doc with a record).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from .budgets import knowledge_after

NEW = "new"
CHANGED = "changed"
UNCHANGED = "unchanged"
DELETE = "delete"
CONFLICT = "conflict"
SKIPPED = "skipped"
REMOVED_LOCALLY = "removed locally"
REMOVED_REMOTELY = "removed remotely"
CHANGED_LOCALLY = "changed locally"
CHANGED_REMOTELY = "changed remotely"
LOCAL_ONLY = "local only"
REMOTE_ONLY = "remote only"
GONE = "removed on both sides"

#: the actions that change the target (a remote write or delete on a push, a local file on
#: a pull)
WRITES = frozenset({NEW, CHANGED, DELETE})
#: every action, in the order a summary counts them
ACTIONS = (NEW, CHANGED, DELETE, CONFLICT, UNCHANGED, REMOVED_LOCALLY, REMOVED_REMOTELY,
           CHANGED_LOCALLY, CHANGED_REMOTELY, LOCAL_ONLY, REMOTE_ONLY, GONE, SKIPPED)
#: the order writes are sent in: deletes free budget first, then replaces, then creates
WRITE_ORDER = {DELETE: 0, CHANGED: 1, NEW: 2}

PUSH = "push"
PULL = "pull"


@dataclasses.dataclass(frozen=True)
class Base:
    """The last sync's record of one path: the content both sides had, the doc's revision."""

    sha256: str
    revision: str


@dataclasses.dataclass(frozen=True)
class Decision:
    action: str
    why: str = ""

    @property
    def writes(self) -> bool:
        return self.action in WRITES


def _words(direction: str) -> tuple[str, str]:
    """(the source's name, the target's name) in the actions' words."""
    return ("locally", "remotely") if direction == PUSH else ("remotely", "locally")


@dataclasses.dataclass(frozen=True)
class _Sides:
    """One path's two sides in the sync's direction: the source's and the target's
    content hash (None: absent or not read), whether each is there, whether each changed
    since the last sync (False without a record), and their names in the actions' words."""

    source: str | None
    target: str | None
    source_there: bool
    target_there: bool
    source_changed: bool
    target_changed: bool
    source_word: str
    target_word: str


def _sides(local: str | None, remote_revision: str | None, remote_hash: str | None,
           base: Base | None, direction: str) -> _Sides:
    def changed_since(value: str | None, there: bool, is_remote: bool) -> bool:
        if base is None or not there:
            return False
        if is_remote and remote_hash is None:  # not read: the listing's word for it
            return remote_revision != base.revision
        return value != base.sha256  # content known: it decides

    local_there, remote_there = local is not None, remote_revision is not None
    local_changed = changed_since(local, local_there, False)
    remote_changed = changed_since(remote_hash, remote_there, True)
    if direction == PUSH:
        return _Sides(local, remote_hash, local_there, remote_there, local_changed,
                      remote_changed, *_words(direction))
    return _Sides(remote_hash, local, remote_there, local_there, remote_changed,
                  local_changed, *_words(direction))


def _conflict(why: str, forced: str, force: bool) -> Decision:
    """A conflict, or with `force` the write it held back (`forced`)."""
    return Decision(forced, f"forced: {why}") if force else Decision(CONFLICT, why)


def classify(
    *,
    local: str | None,
    remote_revision: str | None,
    remote_hash: str | None,
    base: Base | None,
    direction: str = PUSH,
    delete: bool = False,
    force: bool = False,
) -> Decision:
    """What one path needs. `local`: the file's hash (None: no such file); `remote_revision`
    (None: no such doc) and `remote_hash` (None: not read); `base`: the last sync's record.
    `delete` (push only) removes docs whose file was removed; `force` turns a conflict into
    the write it held back."""
    if direction not in (PUSH, PULL):
        raise ValueError(f"direction must be {PUSH!r} or {PULL!r}")
    if remote_hash is None and base is not None and remote_revision == base.revision:
        remote_hash = base.sha256  # the doc is as the last sync left it
    sides = _sides(local, remote_revision, remote_hash, base, direction)
    if not sides.source_there and not sides.target_there:
        return Decision(GONE)
    if not sides.target_there:
        return _target_missing(sides, base is None, force)
    if not sides.source_there:
        return _source_missing(sides, base is None, direction, delete, force)
    return _both_there(sides, base is None, force)


def _target_missing(sides: _Sides, unrecorded: bool, force: bool) -> Decision:
    """Only the source has the path."""
    if unrecorded:
        return Decision(NEW)
    if sides.source_changed:
        return _conflict(f"removed {sides.target_word}, changed {sides.source_word} since the "
                         "last sync", NEW, force)
    if force:
        return Decision(NEW, f"forced: removed {sides.target_word} since the last sync")
    return Decision(f"removed {sides.target_word}", "since the last sync; --force PATH writes "
                                                    "it again")


def _source_missing(sides: _Sides, unrecorded: bool, direction: str, delete: bool,
                    force: bool) -> Decision:
    """Only the target has the path."""
    if unrecorded:
        return Decision(LOCAL_ONLY if direction == PULL else REMOTE_ONLY,
                        "not written by this sync")
    if not (delete and direction == PUSH):
        return Decision(f"removed {sides.source_word}",
                        "--delete removes the doc" if direction == PUSH else "kept")
    if sides.target_changed:
        return _conflict(f"removed {sides.source_word}, changed {sides.target_word} since the "
                         "last sync", DELETE, force)
    return Decision(DELETE)


def _both_there(sides: _Sides, unrecorded: bool, force: bool) -> Decision:
    """Both sides have the path: equal content, or whichever changed since the record."""
    if sides.source is not None and sides.source == sides.target:
        return Decision(UNCHANGED)
    if unrecorded:
        return _conflict("on both sides with different content, never synced", CHANGED, force)
    if not sides.source_changed and not sides.target_changed:
        return Decision(UNCHANGED)
    if sides.source_changed and not sides.target_changed:
        return Decision(CHANGED)
    if not sides.source_changed:
        return Decision(f"changed {sides.target_word}", "since the last sync; left as it is")
    return _conflict("changed on both sides since the last sync", CHANGED, force)


# ---------------------------------------------------------------- paths


def clean_prefix(prefix: str | None) -> str:
    """`--to PREFIX` without its outer slashes ('' is the Project's top level)."""
    return (prefix or "").strip("/")


def doc_path(rel: str, prefix: str) -> str:
    """Where the folder's file `rel` (slash-separated) lands in the Project."""
    return f"{prefix}/{rel}" if prefix else rel


def local_rel(path: str, prefix: str) -> str | None:
    """The folder path of the doc `path`, or None when it is not under the prefix."""
    if not prefix:
        return path
    head = prefix + "/"
    return path[len(head):] if path.startswith(head) and len(path) > len(head) else None


def unsafe_local_part(rel: str) -> str | None:
    """Why a doc's path cannot be a file under the folder (a pull), or None when it can:
    no absolute path, no backslash, no empty, `.` or `..` part, no hidden part."""
    if rel.startswith("/") or "\\" in rel or "\x00" in rel:
        return "is not a relative path inside the folder"
    for part in rel.split("/"):
        if part in ("", ".", ".."):
            return "leaves the folder or has an empty part"
        if part.startswith("."):
            return "names a hidden file"
    return None


# ---------------------------------------------------------------- budget


@dataclasses.dataclass(frozen=True)
class Change:
    """One write's effect on the knowledge budget: its new content's tokens, and the
    tokens of the doc it replaces or deletes (0 for a new doc)."""

    action: str
    tokens: int
    remote_tokens: int = 0

    @property
    def added(self) -> int:
        return 0 if self.action == DELETE else self.tokens

    @property
    def delta(self) -> int:
        return knowledge_after(0, self.added, self.remote_tokens)

    @property
    def checked(self) -> bool:
        """Whether the run checks this change against the budget before sending it (every
        write is; a delete only frees)."""
        return self.action != DELETE


def send_key(change: Change, path: str) -> tuple[int, int, str]:
    """The order writes are sent in: deletes, then replaces (those that free the most
    first), then creates; so the budget falls before it rises, and a plan's highest point
    is where it starts or where it ends."""
    return (WRITE_ORDER[change.action], change.delta if change.action == CHANGED else 0, path)


def running_budget(knowledge_size: int, changes: Iterable[Change]) -> list[tuple[int, int]]:
    """(before, after) of each change in order, starting from `knowledge_size`: the same
    `budgets.knowledge_after` each write of the run is checked with."""
    out = []
    size = knowledge_size
    for change in changes:
        after = knowledge_after(size, change.added, change.remote_tokens)
        out.append((size, after))
        size = after
    return out


def checked_peak(changes: Iterable[Change], steps: Iterable[tuple[int, int]]) -> int | None:
    """The highest knowledge any checked write of the run leaves (None: no write is
    checked, e.g. only deletes): the run refuses a write whose after passes the maximum."""
    afters = [after for change, (_, after) in zip(changes, steps, strict=True)
              if change.checked]
    return max(afters) if afters else None


def over_budget(knowledge_after: int, max_knowledge_size: int) -> int:
    """How many estimated tokens a plan must shed to fit (0: it fits)."""
    return max(0, knowledge_after - max_knowledge_size)
