"""A group of exact changes — creates, replaces and deletes at exactly their paths, as a
sync sends them — sent in order with the journal written ahead once for the group.

Every change's `<action>_unknown` entry is committed, in one transaction, before the
group's first request goes out, and the outcomes are settled in one transaction after
it: a kernel killed mid-group leaves an entry for every change that may have been sent
(those it never reached stay as `*_unknown` too: the journal cannot know they were not),
and a group costs two journal commits, not two per change. What happens to an entry when
a change fails is `fate`'s rule, the same for a single write (`DocChanges._mutate`)."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable
from typing import Any

from ..errors import ProjectsApiError, ProjectsTransportFailed, ReplaceIncomplete
from .api import ProjectsApi
from .journal import Journal

#: 5xx statuses by which the service says it did not take the request (unavailable,
#: overloaded); any other 5xx may have come after the change was made
NOT_TAKEN = frozenset({503, 529})


def fate(action: str, exc: BaseException) -> str | None:
    """What the journal keeps of a change (`create`, `replace`, `delete`) that raised
    `exc`: None when the service refused it (a 4xx, or a 503 or 529: nothing changed, the
    entry is withdrawn), `replace_incomplete` for a half-done replace, else
    `<action>_unknown` — no usable answer, another 5xx (a gateway may answer 502 or 504
    after the change was made), a malformed answer, a cancelled cell: it may have
    changed the Project."""
    if isinstance(exc, ProjectsApiError) and not isinstance(exc, ProjectsTransportFailed):
        if exc.status is not None and (exc.status < 500 or exc.status in NOT_TAKEN):
            return None
    if isinstance(exc, ReplaceIncomplete):
        return "replace_incomplete"
    return f"{action}_unknown"


@dataclasses.dataclass(eq=False)
class Change:
    """One exact change: `content` None is a delete; `old` is the doc a replace or delete
    acts on (None: a create), `previous` its content as read just before (kept in the
    journal, so the change can be restored); `approved_by` is journaled with it (how a
    person approved it, `journal.APPROVED_*`). Filled in as the group runs: `journal_id`,
    and `doc`, the service's answer for a create or replace (the doc, without content)."""

    path: str
    content: str | None
    old: str | None = None
    previous: str | None = None
    journal_id: int | None = None
    doc: dict[str, Any] | None = None
    approved_by: str | None = None

    @property
    def action(self) -> str:
        if self.content is None:
            return "delete"
        return "replace" if self.old is not None else "create"

    def entry(self, project_uuid: str, action: str) -> dict[str, Any]:
        return {"project_uuid": project_uuid, "action": action, "path": self.path,
                "doc_uuid": (self.doc or {}).get("uuid"), "content": self.content,
                "previous_doc_uuid": self.old, "previous_content": self.previous,
                "approved_by": self.approved_by}


@dataclasses.dataclass
class GroupResult:
    """How many of the group's changes were done (the first `done`, in order) and, if the
    journal could not record them, why (the changes were still sent or not as said)."""

    done: int
    journal_warning: str | None = None


async def send_group(
    api: ProjectsApi,
    journal: Journal | None,
    project_uuid: str,
    changes: list[Change],
    *,
    sent: Callable[[Change], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> GroupResult:
    """Send `changes` in order, journaled ahead in one commit; `sent(change)` after each
    is done; `stop()` asked before each (True: the rest are not sent). The first failure
    stops the group and is raised once every outcome is settled."""
    warning = _write_ahead(journal, project_uuid, changes)
    done, failure = 0, None
    try:
        for change in changes:
            if stop is not None and stop():
                break
            try:
                change.doc = await _send(api, change)
            except BaseException as exc:  # settled below, then raised
                failure = exc
                break
            done += 1
            if sent is not None:
                sent(change)
    finally:
        warning = _settle(journal, project_uuid, changes, done, failure) or warning
    if failure is not None:
        raise failure
    return GroupResult(done, warning)


async def _send(api: ProjectsApi, change: Change) -> dict[str, Any] | None:
    if change.content is None:
        assert change.old is not None
        await api.delete_doc(change.old)
        return None
    if change.old is None:
        return await api.create_doc(change.path, change.content)
    return await api.replace_doc(change.old, change.path, change.content)


def _write_ahead(journal: Journal | None, project_uuid: str,
                 changes: list[Change]) -> str | None:
    """Every change's `*_unknown` entry, one commit; a journal that cannot record them
    leaves `journal_id` None (each change is then journaled after, as `_settle` does)."""
    if journal is None or not changes:
        return None
    try:
        ids = journal.record_many([c.entry(project_uuid, f"{c.action}_unknown")
                                   for c in changes])
    except (sqlite3.Error, OSError) as exc:
        return f"not recorded ahead in the local journal: {exc}"
    for change, entry_id in zip(changes, ids, strict=True):
        change.journal_id = entry_id
    return None


def _settle(journal: Journal | None, project_uuid: str, changes: list[Change], done: int,
            failure: BaseException | None) -> str | None:
    """One commit of outcomes: the done changes settled, the failed one by `fate`, the
    ones never sent withdrawn (nothing changed). Entries not written ahead are appended."""
    if journal is None:
        return None
    settled: list[tuple[int, str, str | None]] = []
    withdrawn: list[int] = []
    late: list[tuple[Change, dict[str, Any]]] = []
    for index, change in enumerate(changes):
        if index < done:
            action: str | None = change.action
        elif index == done and failure is not None:
            action = fate(change.action, failure)
        else:
            action = None
        if change.journal_id is None:
            if action is not None:
                late.append((change, change.entry(project_uuid, action)))
        elif action is None:
            withdrawn.append(change.journal_id)
        elif not action.endswith("_unknown"):
            settled.append((change.journal_id, action, (change.doc or {}).get("uuid")))
    try:
        journal.settle_many(settled, withdrawn)
        if late:
            ids = journal.record_many([entry for _change, entry in late])
            for (change, _entry), entry_id in zip(late, ids, strict=True):
                change.journal_id = entry_id
    except (sqlite3.Error, OSError) as exc:
        return f"not recorded in the local journal: {exc}"
    return None
