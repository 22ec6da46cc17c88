"""`%project sync`: a folder of text files kept in step with the attached Project, on top of
`ProjectsClient`. `plan_sync` walks the folder and lists the Project once, and classifies
every path by the rules of `core.sync_plan` against the last sync's state; `apply_sync`
sends the plan's writes in order after one more listing, in groups journaled ahead in one
commit (`write_groups`), each replaced or deleted doc read just before (a doc changed
since the plan is re-planned as a conflict, never overwritten); a failure or a stop stops
the run and says what was written and what was not. Nothing is written by planning."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable
from typing import Any

from ..core import budgets
from ..core import sync_plan as rules
from ..core.batch_progress import BatchProgress, Tracker
from ..core.budgets import estimate_tokens
from ..core.project_paths import check_writable, normalize
from ..errors import (
    InvalidProjectsArgument,
    JdpError,
    ProjectsApiError,
    SyncRefused,
    UploadRejected,
)
from . import wire
from .client import ProjectsClient, utf8_size
from .journal import APPROVED_BY_CALLBACK, APPROVED_ON_CARD
from .sync_rows import Row, SyncPlan, SyncReport, SyncRequest
from .sync_state import SyncState, scope_of
from .sync_walk import (
    LocalFile,
    Moved,
    Skipped,
    check_folder,
    path_problem,
    read_text,
    text_digest,
    write_local,
)
from .sync_walk import walk as walk_folder
from .write_groups import Change

__all__ = ["Row", "SyncPlan", "SyncReport", "SyncRequest", "apply_sync", "plan_sync",
           "run_sync"]

#: what a listing entry says about a doc's revision (updated_at only where listings have it)
REVISION_FIELDS = ("uuid", "estimated_token_count")
Progress = Callable[[str, int, int | None], None]


def revision(item: dict[str, Any], with_updated: bool) -> str:
    """A doc's revision from a listing entry or a doc answer (the same fields of each)."""
    fields = REVISION_FIELDS + (("updated_at",) if with_updated else ())
    return "|".join(str(item.get(name)) for name in fields)


# ---------------------------------------------------------------- planning


async def plan_sync(client: ProjectsClient, state: SyncState,
                    request: SyncRequest) -> SyncPlan:
    """The plan of `request`: the folder walked and hashed (off the loop) while the
    Project is listed once; a doc is read only where its file differs from the last
    sync's record (or there is none), to compare content. Sends no write."""
    client.check_ready()  # a closed gate or no attached Project: before any file is read
    root = check_folder(request.directory)
    prefix = rules.clean_prefix(request.to)
    delete, force, pull = request.delete, request.force, request.pull
    if prefix:
        problem = path_problem(prefix)
        if problem or rules.unsafe_local_part(prefix):
            raise InvalidProjectsArgument("sync", "to", problem or "must be a plain path")
    direction = rules.PULL if pull else rules.PUSH
    if pull and delete:
        raise InvalidProjectsArgument("sync", "delete", "applies to a push only (a pull never "
                                                        "removes local files)")
    forced = frozenset(path for given in force for path in (
        given.strip("/"), rules.doc_path(given.strip("/"), prefix)))
    local_items, detail = await asyncio.gather(
        asyncio.to_thread(lambda: list(walk_folder(root, prefix))), client.listing())
    scope = scope_of(client.project_uuid, root, prefix)
    bases = state.load(scope)
    raw_docs = [d for d in detail.raw.get("documents") or [] if isinstance(d, dict)]
    updated = any("updated_at" in d for d in raw_docs)
    raw_by_path = {d.get("file_name"): d for d in raw_docs}
    uploads = {f.path for f in detail.files}

    rows: dict[str, Row] = {}
    local: dict[str, LocalFile] = {}
    skipped_local: set[str] = set()
    for item in local_items:
        target = rules.doc_path(item.rel.rstrip("/"), prefix) + ("/" if item.rel.endswith("/")
                                                                 else "")
        if isinstance(item, Skipped):
            rows[target] = Row(target, item.rel, rules.SKIPPED, item.why)
            skipped_local.add(target)
        elif target in uploads:
            rows[target] = Row(target, item.rel, rules.SKIPPED, "an upload holds this path")
            skipped_local.add(target)
        else:
            local[target] = item
    remote: dict[str, wire.DocEntry] = {}
    for listed in detail.docs:
        rel = rules.local_rel(listed.path, prefix)
        if rel is None or listed.path in skipped_local:
            continue
        if pull:
            unsafe = rules.unsafe_local_part(rel)
            if unsafe:
                rows[listed.path] = Row(listed.path, rel, rules.SKIPPED,
                                        f"the doc's path {unsafe}")
                continue
        remote[listed.path] = listed

    for path in sorted(set(local) | set(remote) | (set(bases) - set(rows))):
        file, base = local.get(path), bases.get(path)
        doc: wire.DocEntry | None = remote.get(path)
        rev = revision(raw_by_path.get(path, {}), updated) if doc is not None else None
        remote_hash = None
        local_sha = file.sha256 if file is not None else None
        if doc is not None and local_sha is not None and (
                base is None or local_sha != base.sha256):
            # only where the folder changed: a listing cannot see an edit that keeps the
            # doc's size, so its content is compared before a write is planned over it
            remote_hash = await _doc_sha(client, doc.uuid)
        decision = rules.classify(local=local_sha, remote_revision=rev,
                                  remote_hash=remote_hash, base=base, direction=direction,
                                  delete=delete, force=path in forced)
        if pull:  # the doc's size, as the listing estimates it
            n_bytes = None
            tokens = doc.estimated_token_count if doc is not None else None
        else:
            n_bytes = file.n_bytes if file is not None else None
            tokens = estimate_tokens(n_bytes) if n_bytes is not None else None
        rows[path] = Row(
            path, rules.local_rel(path, prefix) or path, decision.action, decision.why,
            bytes=n_bytes, tokens=tokens,
            remote_tokens=doc.estimated_token_count if doc is not None else None,
            sha256=local_sha, remote_revision=rev, remote_hash=remote_hash,
            doc_uuid=doc.uuid if doc is not None else None)

    plan = SyncPlan(root, prefix, direction, delete, forced,
                    [rows[p] for p in sorted(rows)], detail.knowledge_size,
                    detail.knowledge_size, detail.max_knowledge_size, scope, updated,
                    project_name=str(detail.raw.get("name") or ""))
    if direction == rules.PUSH:
        writes = plan.writes
        changes = [r.change for r in writes]
        steps = rules.running_budget(detail.knowledge_size, changes)
        for row, (before, after) in zip(writes, steps, strict=True):
            row.knowledge_before, row.knowledge_after = before, after
        if steps:
            plan.knowledge_after = steps[-1][1]
        plan.knowledge_peak = rules.checked_peak(changes, steps)
    return plan


async def _doc_sha(client: ProjectsClient, doc_uuid: str) -> str:
    return text_digest((await client.doc_text(doc_uuid))["content"])[1]


# ---------------------------------------------------------------- applying


async def apply_sync(client: ProjectsClient, state: SyncState, plan: SyncPlan,
                     progress: Progress | None = None, *,
                     on_progress: Callable[[BatchProgress], None] | None = None,
                     stop: Callable[[], bool] | None = None,
                     approved_by: str | None = APPROVED_ON_CARD) -> SyncReport:
    """Send the plan's writes in order (`plan.writes`), recording them in the sync state
    as they are done; a path changed since the plan is not written (re-planned as a
    conflict); the first failure stops the run. `on_progress` hears after each write is
    done (items and bytes, rate, time left); `stop()` is asked before each write: True
    stops the run there (`report.interrupted`), the write in flight finished first.
    `progress(label, done, total)` is the session's older per-item callback.
    `approved_by` is journaled with each write."""
    if plan.direction == rules.PUSH:
        plan.check_budget()
    run = _Run(client, state, plan, progress, on_progress, stop, approved_by)
    _settle_bookkeeping(state, plan)
    if plan.direction == rules.PUSH:
        await run.push_all()
    else:
        await run.pull_all()
    if progress is not None:
        progress("sync done", len(plan.writes), len(plan.writes))
    return run.report


def _replanned(row: Row, moved: Moved) -> Row:
    return dataclasses.replace(row, action=rules.CONFLICT, why=str(moved))


def _settle_bookkeeping(state: SyncState, plan: SyncPlan) -> None:
    """Rows that need no write but change the record: equal content found on both sides
    is recorded; a path gone from both sides is forgotten."""
    state.record_many(plan.scope, [
        (row.path, rules.Base(row.sha256, row.remote_revision)) for row in plan.rows
        if row.action == rules.UNCHANGED and row.sha256 is not None
        and row.remote_revision is not None])
    state.forget(plan.scope, [r.path for r in plan.rows if r.action == rules.GONE])


#: a push sends its writes in groups, each journaled ahead in one commit and settled in
#: one more (`write_groups`): at most this many writes, or this many bytes of content held
#: (new and replaced)
GROUP_WRITES = 64
GROUP_BYTES = 8 * 1024 * 1024
#: a file the plan found this small is read on the loop (tens of µs), not in a worker
#: thread: on a busy machine each hand-over to a thread waits for a core, per file
READ_ON_LOOP_BYTES = 64 * 1024


@dataclasses.dataclass
class _Pending:
    """One write prepared and waiting for its group: its index in `plan.writes`."""

    index: int
    row: Row
    change: Change
    sha: str | None


def _row_bytes(row: Row) -> int:
    return (row.bytes or 0) if row.action != rules.DELETE else 0


class _Run:
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


async def run_sync(
    client: ProjectsClient,
    state: SyncState,
    request: SyncRequest,
    *,
    dry_run: bool = False,
    approve: Callable[[SyncPlan], Any] | None = None,
    progress: Progress | None = None,
    on_progress: Callable[[BatchProgress], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> SyncPlan:
    """The whole sync of `request` for scripts: plan; unless `dry_run`, refuse a plan over
    the budget, then apply it if it writes nothing (records only) or once `approve(plan)`
    says True. The report of a run is `plan.report`."""
    plan = await plan_sync(client, state, request)
    if dry_run:
        return plan
    if plan.direction == rules.PUSH:
        plan.check_budget()
    if plan.writes and (approve is None or not approve(plan)):
        return plan
    plan.report = await apply_sync(client, state, plan, progress, on_progress=on_progress,
                                   stop=stop,
                                   approved_by=APPROVED_BY_CALLBACK if plan.writes else None)
    return plan
