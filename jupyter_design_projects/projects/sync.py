"""`%project sync`: a folder of text files kept in step with the attached Project, on top of
`ProjectsClient`. `plan_sync` walks the folder and lists the Project once, and classifies
every path by the rules of `core.sync_plan` against the last sync's state; `apply_sync`
sends the plan's writes in order after one more listing, in groups journaled ahead in one
commit (`write_groups`), each replaced or deleted doc read just before (a doc changed
since the plan is re-planned as a conflict, never overwritten); a failure or a stop stops
the run and says what was written and what was not (the run itself: `sync_run`). Nothing
is written by planning."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..core import sync_plan as rules
from ..core.batch_progress import BatchProgress
from ..core.budgets import estimate_tokens
from ..errors import InvalidProjectsArgument
from . import wire
from .client import ProjectsClient
from .journal import APPROVED_BY_CALLBACK, APPROVED_ON_CARD
from .sync_rows import Row, SyncPlan, SyncReport, SyncRequest
from .sync_run import Progress, SyncRun, revision
from .sync_state import SyncState, scope_of
from .sync_walk import LocalFile, Skipped, check_folder, path_problem, text_digest
from .sync_walk import walk as walk_folder

__all__ = ["Row", "SyncPlan", "SyncReport", "SyncRequest", "apply_sync", "plan_sync",
           "run_sync"]


# ---------------------------------------------------------------- planning


async def plan_sync(client: ProjectsClient, state: SyncState,
                    request: SyncRequest) -> SyncPlan:
    """The plan of `request`: the folder walked and hashed (off the loop) while the
    Project is listed once; a doc is read only where its file differs from the last
    sync's record (or there is none), to compare content. Sends no write."""
    client.check_ready()  # a closed gate or no attached Project: before any file is read
    root, prefix, direction, forced = _checked(request)
    local_items, detail = await asyncio.gather(
        asyncio.to_thread(lambda: list(walk_folder(root, prefix))), client.listing())
    scope = scope_of(client.project_uuid, root, prefix)
    bases = state.load(scope)
    raw_docs = [d for d in detail.raw.get("documents") or [] if isinstance(d, dict)]
    updated = any("updated_at" in d for d in raw_docs)
    raw_by_path = {d.get("file_name"): d for d in raw_docs}
    rows, local, remote = _sides(local_items, detail, prefix, direction == rules.PULL)
    for path in sorted(set(local) | set(remote) | (set(bases) - set(rows))):
        doc: wire.DocEntry | None = remote.get(path)
        rev = revision(raw_by_path.get(path, {}), updated) if doc is not None else None
        rows[path] = await _row(client, path, local.get(path), doc, rev, bases.get(path),
                                prefix, direction, request.delete, path in forced)
    plan = SyncPlan(root, prefix, direction, request.delete, forced,
                    [rows[p] for p in sorted(rows)], detail.knowledge_size,
                    detail.knowledge_size, detail.max_knowledge_size, scope, updated,
                    project_name=str(detail.raw.get("name") or ""))
    if direction == rules.PUSH:
        _count_budget(plan, detail.knowledge_size)
    return plan


def _checked(request: SyncRequest) -> tuple[Path, str, str, frozenset[str]]:
    """(the folder, the Project prefix, the direction, the forced paths) of a request,
    each checked before anything is read."""
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
    return root, prefix, direction, forced


def _sides(local_items: Iterable[LocalFile | Skipped], detail: wire.Detail, prefix: str,
           pull: bool) -> tuple[dict[str, Row], dict[str, LocalFile],
                                dict[str, wire.DocEntry]]:
    """(the rows already decided: skipped files and docs, the folder's files, the
    Project's docs), each by its path in the Project."""
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
    return rows, local, remote


async def _row(client: ProjectsClient, path: str, file: LocalFile | None,
               doc: wire.DocEntry | None, rev: str | None, base: rules.Base | None,
               prefix: str, direction: str, delete: bool, force: bool) -> Row:
    """One path's row: its two sides and the last sync's record, classified by the rules."""
    remote_hash = None
    local_sha = file.sha256 if file is not None else None
    if doc is not None and local_sha is not None and (
            base is None or local_sha != base.sha256):
        # only where the folder changed: a listing cannot see an edit that keeps the
        # doc's size, so its content is compared before a write is planned over it
        remote_hash = await _doc_sha(client, doc.uuid)
    decision = rules.classify(local=local_sha, remote_revision=rev,
                              remote_hash=remote_hash, base=base, direction=direction,
                              delete=delete, force=force)
    if direction == rules.PULL:  # the doc's size, as the listing estimates it
        n_bytes = None
        tokens = doc.estimated_token_count if doc is not None else None
    else:
        n_bytes = file.n_bytes if file is not None else None
        tokens = estimate_tokens(n_bytes) if n_bytes is not None else None
    return Row(
        path, rules.local_rel(path, prefix) or path, decision.action, decision.why,
        bytes=n_bytes, tokens=tokens,
        remote_tokens=doc.estimated_token_count if doc is not None else None,
        sha256=local_sha, remote_revision=rev, remote_hash=remote_hash,
        doc_uuid=doc.uuid if doc is not None else None)


def _count_budget(plan: SyncPlan, knowledge_size: int) -> None:
    """A push's knowledge before and after each write, in the order they are sent, and
    the plan's end and highest checked point."""
    writes = plan.writes
    changes = [r.change for r in writes]
    steps = rules.running_budget(knowledge_size, changes)
    for row, (before, after) in zip(writes, steps, strict=True):
        row.knowledge_before, row.knowledge_after = before, after
    if steps:
        plan.knowledge_after = steps[-1][1]
    plan.knowledge_peak = rules.checked_peak(changes, steps)


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
    run = SyncRun(client, state, plan, progress, on_progress, stop, approved_by)
    _settle_bookkeeping(state, plan)
    if plan.direction == rules.PUSH:
        await run.push_all()
    else:
        await run.pull_all()
    if progress is not None:
        progress("sync done", len(plan.writes), len(plan.writes))
    return run.report


def _settle_bookkeeping(state: SyncState, plan: SyncPlan) -> None:
    """Rows that need no write but change the record: equal content found on both sides
    is recorded; a path gone from both sides is forgotten."""
    state.record_many(plan.scope, [
        (row.path, rules.Base(row.sha256, row.remote_revision)) for row in plan.rows
        if row.action == rules.UNCHANGED and row.sha256 is not None
        and row.remote_revision is not None])
    state.forget(plan.scope, [r.path for r in plan.rows if r.action == rules.GONE])


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
