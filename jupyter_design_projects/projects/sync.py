"""`%project sync`: a folder of text files kept in step with the attached Project, on top of
`ProjectsClient`. `plan_sync` walks the folder and lists the Project once, and classifies
every path by the rules of `core.sync_plan` against the last sync's state; `apply_sync`
sends the plan's writes in order, each checked against the Project right before it is
sent (a doc changed since the plan is re-planned as a conflict, never overwritten) and
journaled like any `%project write`; a failure stops the run and says what was written
and what was not. Nothing is written by planning."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import secrets
import stat
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from ..core import sync_plan as rules
from ..core.budgets import estimate_tokens
from ..core.containment import is_within
from ..errors import (
    InvalidProjectsArgument,
    JdpError,
    ProjectsApiError,
    SyncOverBudget,
    SyncRefused,
    UploadRejected,
)
from . import wire
from .client import ProjectsClient, Reader
from .sync_state import SyncState, scope_of
from .sync_walk import LocalFile, Skipped, check_folder, path_problem, read_text, text_digest
from .sync_walk import walk as walk_folder

#: what a listing entry says about a doc's revision (updated_at only where listings have it)
REVISION_FIELDS = ("uuid", "estimated_token_count")
Progress = Callable[[str, int, int | None], None]


@dataclasses.dataclass
class Row:
    """One path of a plan: the doc's path, the file's path under the folder, the action
    and why, the content's bytes and estimated tokens, the budget before and after it."""

    path: str
    local: str
    action: str
    why: str = ""
    bytes: int | None = None
    tokens: int | None = None
    remote_tokens: int | None = None
    knowledge_before: int | None = None
    knowledge_after: int | None = None
    sha256: str | None = dataclasses.field(default=None, repr=False)
    remote_revision: str | None = dataclasses.field(default=None, repr=False)
    remote_hash: str | None = dataclasses.field(default=None, repr=False)
    doc_uuid: str | None = dataclasses.field(default=None, repr=False)

    @property
    def writes(self) -> bool:
        return self.action in rules.WRITES

    def shown(self) -> dict[str, Any]:
        return {"path": self.path, "local": self.local, "action": self.action,
                "why": self.why, "bytes": self.bytes, "tokens": self.tokens,
                "knowledge_before": self.knowledge_before,
                "knowledge_after": self.knowledge_after}


#: the plan table's columns, in order
COLUMNS = ("path", "local", "action", "why", "bytes", "tokens", "knowledge_before",
           "knowledge_after")


@dataclasses.dataclass
class SyncPlan:
    directory: Path
    prefix: str
    direction: str
    delete: bool
    force: frozenset[str]
    rows: list[Row]
    knowledge_before: int
    knowledge_after: int
    max_knowledge_size: int
    scope: str
    updated_listed: bool = False
    #: the Project's name, as its listing gives it
    project_name: str = ""
    #: what a run did (None until the plan has been applied)
    report: SyncReport | None = None

    @property
    def writes(self) -> list[Row]:
        """The rows that change the target, in the order they are sent."""
        return sorted((r for r in self.rows if r.writes),
                      key=lambda r: (rules.WRITE_ORDER[r.action], r.path))

    @property
    def over(self) -> int:
        """Estimated tokens to remove for the plan to fit the budget (0: it fits)."""
        return rules.over_budget(self.knowledge_after, self.max_knowledge_size)

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(rules.ACTIONS, 0)
        for row in self.rows:
            out[row.action] = out.get(row.action, 0) + 1
        return {k: v for k, v in out.items() if v}

    @property
    def summary(self) -> str:
        where = f"{self.prefix}/" if self.prefix else "the Project's top level"
        arrow = (f"{self.directory} → {where}" if self.direction == rules.PUSH
                 else f"{where} → {self.directory}")
        counts = ", ".join(f"{n} {action}" for action, n in self.counts().items()) or "empty"
        lines = [f"sync ({self.direction}) {arrow}: {counts}"]
        if self.direction == rules.PUSH:
            lines.append(f"knowledge: {self.knowledge_before:,} → {self.knowledge_after:,} of "
                         f"{self.max_knowledge_size:,} estimated tokens")
            if self.over:
                lines.append(f"over the budget: remove at least {self.over:,} estimated tokens "
                             f"(~{4 * self.over:,} bytes) before this can run")
        return "\n".join(lines)

    def table(self) -> list[dict[str, Any]]:
        """The plan table: one row per path with `COLUMNS` (the notebook's outcome makes it
        a DataFrame, `.df`; from a script, `pandas.DataFrame(plan.table())`)."""
        return [r.shown() for r in self.rows]

    def to_dict(self) -> dict[str, Any]:
        return {"direction": self.direction, "directory": str(self.directory),
                "prefix": self.prefix, "counts": self.counts(),
                "knowledge_before": self.knowledge_before,
                "knowledge_after": self.knowledge_after,
                "max_knowledge_size": self.max_knowledge_size,
                "rows": self.table()}

    def check_budget(self) -> None:
        if self.over:
            raise SyncOverBudget(self.knowledge_before, self.knowledge_after,
                                 self.max_knowledge_size)

    def __repr__(self) -> str:
        return f"<SyncPlan {self.summary.splitlines()[0]}>"


@dataclasses.dataclass
class SyncReport:
    """What a run did: the rows written, those not written (after a stop), those found
    changed since the plan (re-planned, not written), and the error that stopped it."""

    plan: SyncPlan
    written: list[Row] = dataclasses.field(default_factory=list)
    not_written: list[Row] = dataclasses.field(default_factory=list)
    replanned: list[Row] = dataclasses.field(default_factory=list)
    journal_ids: list[int] = dataclasses.field(default_factory=list)
    error: JdpError | None = None

    @property
    def summary(self) -> str:
        lines = [f"written: {len(self.written)} of {len(self.plan.writes)}"]
        if self.replanned:
            lines.append("changed since the plan, not written (conflicts now): "
                         + ", ".join(r.path for r in self.replanned))
        if self.error is not None:
            lines.append(f"stopped at {self.not_written[0].path if self.not_written else '?'}"
                         f": {self.error}")
            lines.append("not written: " + ", ".join(r.path for r in self.not_written)
                         + " — run the same sync again to finish (nothing is written twice)")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"written": [r.path for r in self.written],
                "not_written": [r.path for r in self.not_written],
                "replanned": [{"path": r.path, "why": r.why} for r in self.replanned],
                "journal_ids": self.journal_ids,
                "error": self.error.to_dict() if self.error is not None else None}


class _Moved(Exception):
    """A path changed between the plan and its write (internal: re-planned, not written)."""


def revision(item: dict[str, Any], with_updated: bool) -> str:
    """A doc's revision from a listing entry or a doc answer (the same fields of each)."""
    fields = REVISION_FIELDS + (("updated_at",) if with_updated else ())
    return "|".join(str(item.get(name)) for name in fields)


# ---------------------------------------------------------------- planning


async def plan_sync(
    client: ProjectsClient,
    state: SyncState,
    directory: str | os.PathLike[str],
    *,
    to: str | None = None,
    delete: bool = False,
    force: Collection[str] = (),
    pull: bool = False,
) -> SyncPlan:
    """The plan: the folder walked and hashed (off the loop) while the Project is listed
    once; a doc is read only where its file differs from the last sync's record (or
    there is none), to compare content. Sends no write."""
    root = check_folder(directory)
    prefix = rules.clean_prefix(to)
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
        steps = rules.running_budget(detail.knowledge_size, [
            rules.Change(r.action, r.tokens or 0, r.remote_tokens or 0) for r in writes])
        for row, (before, after) in zip(writes, steps, strict=True):
            row.knowledge_before, row.knowledge_after = before, after
        if steps:
            plan.knowledge_after = steps[-1][1]
    return plan


async def _doc_sha(client: ProjectsClient, doc_uuid: str) -> str:
    return text_digest((await client.doc_text(doc_uuid))["content"])[1]


# ---------------------------------------------------------------- applying


async def apply_sync(client: ProjectsClient, state: SyncState, plan: SyncPlan,
                     progress: Progress | None = None) -> SyncReport:
    """Send the plan's writes in order (`plan.writes`), recording each in the sync state
    as soon as it is done; a path changed since the plan is not written (re-planned as a
    conflict); the first failure stops the run."""
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
                journal_id = await _push_one(client, state, plan, row)
                if journal_id is not None:
                    report.journal_ids.append(journal_id)
        except _Moved as moved:
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
                    row: Row) -> int | None:
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
            raise _Moved("changed in the Project since the plan")
        if old is None or expected_hash is None:
            return None
        content = (await read(old.uuid))["content"]
        if text_digest(content)[1] != expected_hash:
            raise _Moved("changed in the Project since the plan")
        return content

    if row.action == rules.DELETE:
        result = await client.delete_exact(row.path, guard=guard)
        state.forget(plan.scope, [row.path])
        return result.get("journal_id")
    try:
        text = await asyncio.to_thread(read_text, plan.directory, row.local)
    except UploadRejected as exc:
        raise _Moved(f"the file changed since the plan ({exc})") from None
    n_bytes, sha = text_digest(text)
    if sha != row.sha256:
        raise _Moved("changed in the folder since the plan")
    result = await client.write_exact(row.path, text, guard=guard)
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
            raise _Moved("removed from the Project since the plan") from None
        raise
    content = answer["content"]
    sha = text_digest(content)[1]
    await asyncio.to_thread(write_local, plan.directory, row.local, content, row.sha256)
    state.record(plan.scope, row.path, rules.Base(sha, revision(answer, plan.updated_listed)))


def write_local(root: Path, rel: str, content: str, expect_sha: str | None) -> None:
    """Write `content` to the folder's file `rel`, atomically (a temp file renamed over
    it), only if the file is still what the plan saw (`expect_sha`; None: no file), and
    only through real folders inside `root`."""
    real_root = os.path.realpath(root)
    parent = Path(real_root)
    *dirs, name = rel.split("/")
    for part in dirs:
        parent = parent / part
        try:
            mode = os.lstat(parent).st_mode
        except FileNotFoundError:
            os.mkdir(parent, 0o755)
            continue
        if not stat.S_ISDIR(mode):
            raise _Moved(f"{parent.relative_to(real_root)} is not a folder inside the folder")
    if not is_within(real_root, os.path.realpath(parent)):
        raise _Moved("its folder leaves the folder")
    target = parent / name
    try:
        current: str | None = text_digest(read_text(Path(real_root), rel))[1]
    except UploadRejected as exc:
        if exc.rule != "missing":
            raise _Moved(f"the local file cannot be replaced safely ({exc.rule})") from None
        current = None
    if current != expect_sha:
        raise _Moved("changed in the folder since the plan")
    temp = parent / f".{name}.jdp-sync-{secrets.token_hex(4)}"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 0o644)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(content)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


async def run_sync(
    client: ProjectsClient,
    state: SyncState,
    directory: str | os.PathLike[str],
    *,
    to: str | None = None,
    delete: bool = False,
    force: Collection[str] = (),
    pull: bool = False,
    dry_run: bool = False,
    approve: Callable[[SyncPlan], bool] | None = None,
    progress: Progress | None = None,
) -> SyncPlan:
    """The whole sync for scripts: plan; unless `dry_run`, refuse a plan over the budget,
    then apply it if it writes nothing (records only) or once `approve(plan)` says True.
    The report of a run is `plan.report`."""
    plan = await plan_sync(client, state, directory, to=to, delete=delete, force=force,
                           pull=pull)
    if dry_run:
        return plan
    if plan.direction == rules.PUSH:
        plan.check_budget()
    if plan.writes and (approve is None or not approve(plan)):
        return plan
    plan.report = await apply_sync(client, state, plan, progress)
    return plan
