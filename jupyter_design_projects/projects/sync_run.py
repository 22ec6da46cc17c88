"""One run of a `%project sync` plan (`sync.apply_sync` starts it): a push sends the
plan's writes against one fresh listing, in groups journaled ahead in one commit
(`ProjectsClient.send_exact`), each replaced or deleted doc read just before and compared
with what the plan saw (a doc changed since is re-planned as a conflict, never
overwritten), each write budget-checked as the plan counted it; a pull writes each doc to
its file. The sync state records every path as it is done; a failure or a stop ends the
run and its report says what was written and what was not."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable
from typing import Any

from ..core import budgets
from ..core import sync_plan as rules
from ..core.batch_progress import BatchProgress, Tracker
from ..core.project_paths import check_writable, normalize
from ..errors import JdpError, ProjectsApiError, SyncRefused, UploadRejected
from .client import ProjectsClient
from .doc_changes import utf8_size
from .sync_rows import Row, SyncPlan, SyncReport
from .sync_state import SyncState
from .sync_walk import Moved, read_text, text_digest, write_local
from .write_groups import Change

#: what a listing entry says about a doc's revision (updated_at only where listings have it)
REVISION_FIELDS = ("uuid", "estimated_token_count")
#: a push sends its writes in groups, each journaled ahead in one commit and settled in
#: one more (`write_groups`): at most this many writes, or this many bytes of content held
#: (new and replaced)
GROUP_WRITES = 64
GROUP_BYTES = 8 * 1024 * 1024
#: a file the plan found this small is read on the loop (tens of µs), not in a worker
#: thread: on a busy machine each hand-over to a thread waits for a core, per file
READ_ON_LOOP_BYTES = 64 * 1024
#: the session's older per-item progress callback: (label, done, total)
Progress = Callable[[str, int, int | None], None]


def revision(item: dict[str, Any], with_updated: bool) -> str:
    """A doc's revision from a listing entry or a doc answer (the same fields of each)."""
    fields = REVISION_FIELDS + (("updated_at",) if with_updated else ())
    return "|".join(str(item.get(name)) for name in fields)


def _replanned(row: Row, moved: Moved) -> Row:
    return dataclasses.replace(row, action=rules.CONFLICT, why=str(moved))


@dataclasses.dataclass
class _Pending:
    """One write prepared and waiting for its group: its index in `plan.writes`."""

    index: int
    row: Row
    change: Change
    sha: str | None


def _row_bytes(row: Row) -> int:
    return (row.bytes or 0) if row.action != rules.DELETE else 0


class SyncRun:
    """One run of a plan: its report, its progress, and when to stop."""

    def __init__(self, client: ProjectsClient, state: SyncState, plan: SyncPlan,
                 progress: Progress | None,
                 on_progress: Callable[[BatchProgress], None] | None,
                 stop: Callable[[], bool] | None, approved_by: str | None = None) -> None:
        self.client, self.state, self.plan = client, state, plan
        self.approved_by = approved_by
        self.report = SyncReport(plan)
        self._progress, self._on_progress = progress, on_progress
        self._stop = stop or (lambda: False)
        self._tracker = Tracker(len(plan.writes), sum(map(_row_bytes, plan.writes)),
                                time.monotonic)

    def stopping(self) -> bool:
        return bool(self._stop())

    def done(self, row: Row) -> None:
        self.report.written.append(row)
        now = self._tracker.done(_row_bytes(row), row.path)
        if self._progress is not None:
            self._progress(f"sync {row.path}", now.items_done, len(self.plan.writes))
        if self._on_progress is not None:
            self._on_progress(now)

    def replan(self, row: Row, moved: Moved) -> None:
        self.report.replanned.append(_replanned(row, moved))
        now = self._tracker.skipped(_row_bytes(row))
        if self._on_progress is not None:
            self._on_progress(now)

    def stopped(self, index: int, error: JdpError | None = None) -> None:
        """The run stops at `plan.writes[index]`, by `error` or by a stop asked: it and
        every later write not re-planned are not written."""
        replanned = {r.path for r in self.report.replanned}
        self.report.error = error
        self.report.interrupted = error is None
        self.report.not_written = [r for r in self.plan.writes[index:]
                                   if r.path not in replanned]

    async def pull_all(self) -> None:
        for index, row in enumerate(self.plan.writes):
            if self.stopping():
                self.stopped(index)
                return
            try:
                await _pull_one(self.client, self.state, self.plan, row)
            except Moved as moved:
                self.replan(row, moved)
                continue
            except (JdpError, OSError) as exc:  # OSError: a pull's local write
                self.stopped(index, exc if isinstance(exc, JdpError) else
                             SyncRefused(str(self.plan.directory / row.local), "unwritable"))
                return
            self.done(row)

    async def push_all(self) -> None:
        """The plan's writes against one fresh listing (a path whose listed revision
        moved since the plan is re-planned), in groups: each doc a write replaces or
        deletes read just before (its revision and content compared with what the plan
        saw, its content kept for the journal), then the group sent and journaled as one
        (`ProjectsClient.send_exact`) and its written paths recorded in one commit. A
        create needs no check of its own: the listing had no doc at its path, and the
        service refuses a create over a taken name."""
        plan = self.plan
        if not plan.writes:
            return
        detail = await self.client.listing()
        listed = {d.get("file_name"): d for d in detail.raw.get("documents") or []
                  if isinstance(d, dict)}
        bases = self.state.load(plan.scope)
        knowledge = [detail.knowledge_size, detail.max_knowledge_size]
        pending: list[_Pending] = []
        size = 0
        for index, row in enumerate(plan.writes):
            if self.stopping():
                if await self.send(pending):
                    self.stopped(index)
                return
            try:
                change, sha = await _prepare(self.client, plan, row, listed.get(row.path),
                                             bases.get(row.path), knowledge)
                change.approved_by = self.approved_by
            except Moved as moved:
                self.replan(row, moved)
                continue
            except JdpError as exc:
                if await self.send(pending):
                    self.stopped(index, exc)
                return
            pending.append(_Pending(index, row, change, sha))
            size += utf8_size(change.content or "") + utf8_size(change.previous or "")
            if len(pending) >= GROUP_WRITES or size >= GROUP_BYTES:
                if not await self.send(pending):
                    return
                pending, size = [], 0
        await self.send(pending)

    async def send(self, pending: list[_Pending]) -> bool:
        """Send one group; the done writes recorded (in the sync state, one commit)
        whatever stops it. False when a failure or a stop ended the run."""
        if not pending:
            return True
        done: list[Change] = []
        rows = {id(p.change): p.row for p in pending}

        def sent(change: Change) -> None:
            done.append(change)
            self.done(rows[id(change)])

        try:
            await self.client.send_exact([p.change for p in pending], stop=self.stopping,
                                         sent=sent)
        except JdpError as exc:
            self.stopped(pending[len(done)].index, exc)
            return False
        finally:
            self.record(pending[:len(done)])
        if len(done) < len(pending):
            self.stopped(pending[len(done)].index)
            return False
        return True

    def record(self, written: list[_Pending]) -> None:
        """The sync state of written paths (the revision the write's answer gave), and
        deleted paths forgotten, in one commit each; the report's journal ids."""
        plan = self.plan
        self.state.record_many(plan.scope, [
            (p.row.path, rules.Base(p.sha, revision(p.change.doc, plan.updated_listed)))
            for p in written if p.sha is not None and p.change.doc is not None])
        self.state.forget(plan.scope, [p.row.path for p in written
                                       if p.change.content is None])
        self.report.journal_ids += [p.change.journal_id for p in written
                                    if p.change.journal_id is not None]


async def _prepare(client: ProjectsClient, plan: SyncPlan, row: Row,
                   listed: dict[str, Any] | None, base: rules.Base | None,
                   knowledge: list[int]) -> tuple[Change, str | None]:
    """The change for one row, or Moved when its path changed since the plan. A write is
    budget-checked as the plan counted it (`budgets.knowledge_after`): net of the tokens
    of the doc it replaces, against `knowledge` ([size, maximum]) as the run's earlier
    changes left it; a delete lowers it."""
    if (revision(listed, plan.updated_listed) if listed is not None
            else None) != row.remote_revision:
        raise Moved("changed in the Project since the plan")
    old = str(listed["uuid"]) if listed is not None else None
    expected = row.remote_hash or (base.sha256 if base is not None
                                   and base.revision == row.remote_revision else None)
    removed = int(listed.get("estimated_token_count") or 0) if listed is not None else 0
    if row.action == rules.DELETE:
        if old is None:
            raise Moved("removed from the Project since the plan")
        change = Change(row.path, None, old, await _current(client, plan, row, old,
                                                            expected))
        knowledge[0] = budgets.knowledge_after(knowledge[0], 0, removed)
        return change, None
    try:
        if row.bytes is not None and row.bytes <= READ_ON_LOOP_BYTES:
            text = read_text(plan.directory, row.local)
        else:
            text = await asyncio.to_thread(read_text, plan.directory, row.local)
    except UploadRejected as exc:
        raise Moved(f"the file changed since the plan ({exc})") from None
    n_bytes, sha = text_digest(text)
    if sha != row.sha256:
        raise Moved("changed in the folder since the plan")
    previous = None
    if old is None:
        check_writable(normalize(row.path))
    else:
        previous = await _current(client, plan, row, old, expected)
    estimate = budgets.check_knowledge(knowledge[0], knowledge[1], n_bytes,
                                       removed_tokens=removed)
    knowledge[0] = budgets.knowledge_after(knowledge[0], estimate, removed)
    return Change(row.path, text, old, previous), sha


async def _current(client: ProjectsClient, plan: SyncPlan, row: Row, doc_uuid: str,
                   expected: str | None) -> str:
    """The content of the doc a write replaces or deletes, read just before the group is
    sent: its own revision must still be the plan's, and its content what the plan
    expected (an edit that keeps the listing's fields is caught here)."""
    try:
        answer = await client.doc_text(doc_uuid)
    except ProjectsApiError as exc:
        if exc.status == 404:
            raise Moved("removed from the Project since the plan") from None
        raise
    content = answer["content"]
    if revision(answer, plan.updated_listed) != row.remote_revision or (
            expected is not None and text_digest(content)[1] != expected):
        raise Moved("changed in the Project since the plan")
    return str(content)


async def _pull_one(client: ProjectsClient, state: SyncState, plan: SyncPlan,
                    row: Row) -> None:
    assert row.doc_uuid is not None
    try:
        answer = await client.doc_text(row.doc_uuid)
    except ProjectsApiError as exc:
        if exc.status == 404:
            raise Moved("removed from the Project since the plan") from None
        raise
    content = answer["content"]
    sha = text_digest(content)[1]
    await asyncio.to_thread(write_local, plan.directory, row.local, content, row.sha256)
    state.record(plan.scope, row.path, rules.Base(sha, revision(answer, plan.updated_listed)))
