"""`%project sync`: a folder of text files kept in step with the attached Project, on top of
`ProjectsClient`. `plan_sync` walks the folder and lists the Project once, and classifies
every path by the rules of `core.sync_plan` against the last sync's state; `apply_sync`
sends the plan's writes in order, each checked against the Project right before it is
sent (a doc changed since the plan is re-planned as a conflict, never overwritten) and
journaled like any `%project write`; a failure stops the run and says what was written
and what was not. Nothing is written by planning."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import Any

from ..core import sync_plan as rules
from ..core.budgets import estimate_tokens
from ..errors import (
    InvalidProjectsArgument,
    JdpError,
    ProjectsApiError,
    SyncRefused,
    UploadRejected,
)
from . import wire
from .client import ProjectsClient, Reader
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
                     approved_by: str | None = APPROVED_ON_CARD) -> SyncReport:
    """Send the plan's writes in order (`plan.writes`), recording each in the sync state
    as soon as it is done; a path changed since the plan is not written (re-planned as a
    conflict); the first failure stops the run. `approved_by` is journaled with each."""
    if plan.direction == rules.PUSH:
        plan.check_budget()
    report = SyncReport(plan)
    _settle_bookkeeping(state, plan)
    writes = plan.writes
    for index, row in enumerate(writes):
        if progress is not None:
            progress(f"sync {row.path}", index, len(writes))
        try:
            if plan.direction == rules.PULL:
                await _pull_one(client, state, plan, row)
            else:
                journal_id = await _push_one(client, state, plan, row, approved_by)
                if journal_id is not None:
                    report.journal_ids.append(journal_id)
        except Moved as moved:
            report.replanned.append(dataclasses.replace(row, action=rules.CONFLICT,
                                                        why=str(moved)))
            continue
        except (JdpError, OSError) as exc:  # OSError: a pull's local write
            report.error = (exc if isinstance(exc, JdpError) else
                            SyncRefused(str(plan.directory / row.local), "unwritable"))
            report.not_written = writes[index:]
            break
        report.written.append(row)
    if progress is not None:
        progress("sync done", len(writes), len(writes))
    return report


def _settle_bookkeeping(state: SyncState, plan: SyncPlan) -> None:
    """Rows that need no write but change the record: equal content found on both sides
    is recorded; a path gone from both sides is forgotten."""
    for row in plan.rows:
        if (row.action == rules.UNCHANGED and row.sha256 is not None
                and row.remote_revision is not None):
            state.record(plan.scope, row.path, rules.Base(row.sha256, row.remote_revision))
    state.forget(plan.scope, [r.path for r in plan.rows if r.action == rules.GONE])


async def _push_one(client: ProjectsClient, state: SyncState, plan: SyncPlan,
                    row: Row, approved_by: str | None) -> int | None:
    base = state.load_one(plan.scope, row.path)
    expected_hash = row.remote_hash or (base.sha256 if base is not None
                                        and base.revision == row.remote_revision else None)

    async def guard(detail: wire.Detail, old: wire.DocEntry | None, read: Reader) -> str | None:
        now = None
        if old is not None:
            item = next((d for d in detail.raw.get("documents") or []
                         if isinstance(d, dict) and d.get("uuid") == old.uuid), {})
            now = revision(item, plan.updated_listed)
        if now != row.remote_revision:
            raise Moved("changed in the Project since the plan")
        if old is None or expected_hash is None:
            return None
        content = (await read(old.uuid))["content"]
        if text_digest(content)[1] != expected_hash:
            raise Moved("changed in the Project since the plan")
        return content

    if row.action == rules.DELETE:
        result = await client.delete_exact(row.path, guard=guard, approved_by=approved_by)
        state.forget(plan.scope, [row.path])
        return result.get("journal_id")
    try:
        text = await asyncio.to_thread(read_text, plan.directory, row.local)
    except UploadRejected as exc:
        raise Moved(f"the file changed since the plan ({exc})") from None
    n_bytes, sha = text_digest(text)
    if sha != row.sha256:
        raise Moved("changed in the folder since the plan")
    result = await client.write_exact(row.path, text, guard=guard, net=True,
                                      approved_by=approved_by)
    _record_written(state, plan, row.path, sha, await _read_back(client, result["doc_uuid"]),
                    plan.updated_listed)
    return result.get("journal_id")


async def _read_back(client: ProjectsClient, doc_uuid: str) -> dict[str, Any] | None:
    try:
        return await client.doc_text(doc_uuid)
    except ProjectsApiError:
        return None


def _record_written(state: SyncState, plan: SyncPlan, path: str, sha: str,
                    answer: dict[str, Any] | None, updated: bool) -> None:
    """Record a written path with the doc's revision as read back right after the write;
    content that is not what was written (someone wrote meanwhile) is not recorded, so the
    next plan sees the difference."""
    if answer is None or text_digest(answer["content"])[1] != sha:
        return
    state.record(plan.scope, path, rules.Base(sha, revision(answer, updated)))


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
    plan.report = await apply_sync(client, state, plan, progress,
                                   approved_by=APPROVED_BY_CALLBACK if plan.writes else None)
    return plan
