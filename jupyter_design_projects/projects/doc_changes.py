"""One change to a doc of the attached Project, as every write, restore and delete of
`ProjectsClient` makes it: resolved against a fresh detail, shown to a sync's or a card's
`guard`, budget-checked, journaled ahead (`<action>_unknown` before it is sent), sent, and
settled in the journal after (or withdrawn when the service refused it)."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

from ..core import budgets
from ..core.project_paths import RULE_UPLOAD, check_writable, normalize, resolve_write_path
from ..errors import DocNotFound, PathRejected
from ..settings import Settings
from . import wire
from .api import ProjectsApi
from .journal import Journal
from .reading import AVAILABLE_LISTED, Progress
from .write_groups import fate

#: a sync's check of the fresh detail and the doc a write replaces (None: a create),
#: right before the write, with a reader of docs: it raises to refuse, and returns the
#: doc's content if it read it
Reader = Callable[[str], Awaitable[dict[str, Any]]]
Guard = Callable[[wire.Detail, "wire.DocEntry | None", Reader], Awaitable["str | None"]]


def utf8_size(text: str) -> int:
    """len(text.encode("utf-8")) without the copy where the text is ASCII (most docs)."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


class DocChanges:
    """The changes of one call: its API, the journal (None: none is kept), the settings
    whose attached project they are journaled under, and the progress callback of its
    uploads. The caller holds the client's lock."""

    def __init__(self, api: ProjectsApi, journal: Journal | None, settings: Settings,
                 progress: Progress | None) -> None:
        self._api = api
        self._journal = journal
        self._settings = settings
        self._progress = progress

    async def write_text(
        self, path: str, content: str, *, exact: bool, restored_from: int | None = None,
        guard: Guard | None = None, net: bool = False, approved_by: str | None = None,
    ) -> dict[str, Any]:
        """Resolve the path against a fresh detail, pre-check the budget, create or
        replace, journal. `exact` (restore, sync, a card's change) keeps the path as it is;
        `guard` sees the fresh detail and the doc about to be replaced first, and may
        refuse; `net` (sync) deducts the replaced doc's tokens in the budget check, as the
        sync's plan did; `approved_by` is journaled (how a person approved it)."""
        api = self._api
        detail = wire.parse_detail(await api.detail())
        names = {d.path for d in detail.docs}
        if exact:
            final = normalize(path)
            replaces = final in names
            if not replaces:
                check_writable(final)
        else:
            final, replaces = resolve_write_path(path, names)
        old = detail.doc(final) if replaces else None
        seen = await guard(detail, old, api.read_doc) if guard is not None else None
        size = utf8_size(content)
        removed = (old.estimated_token_count or 0) if net and old is not None else 0
        budgets.check_knowledge(detail.knowledge_size, detail.max_knowledge_size, size,
                                removed_tokens=removed)
        label = f"upload {final}"
        if self._progress:
            self._progress(label, 0, size)
        entry: dict[str, Any] = {"path": final, "doc_uuid": None, "content": content,
                                 "restored_from": restored_from, "approved_by": approved_by}
        if old is None:
            doc = await self._mutate("create", api.create_doc(final, content), entry)
        else:
            entry["previous_doc_uuid"] = old.uuid
            entry["previous_content"] = (seen if seen is not None and self._journal is not None
                                         else await self._previous_content(old.uuid))
            doc = await self._mutate("replace", api.replace_doc(old.uuid, final, content),
                                     entry)
        if self._progress:
            self._progress(label, size, size)
        result: dict[str, Any] = {"doc_uuid": doc["uuid"], "path": final,
                                  "replaced": old is not None, "bytes": size}
        entry["doc_uuid"] = doc["uuid"]
        self._record(result, action="replace" if old else "create", **entry)
        return result

    async def delete(self, name: str, *, guard: Guard | None = None,
                     approved_by: str | None = None) -> dict[str, Any]:
        """Delete the doc at `name` (normalized) found in a fresh detail, journaled ahead
        with the content it removes. `guard` (a sync, a card's change) sees the detail and
        the doc first and may refuse, and the content it read is the one journaled;
        without a guard, an upload at the path is refused as one."""
        api = self._api
        detail = wire.parse_detail(await api.detail())
        doc = detail.doc(name)
        seen = await guard(detail, doc, api.read_doc) if guard is not None else None
        if doc is None:
            if guard is None and detail.file(name) is not None:
                raise PathRejected(name, RULE_UPLOAD)
            raise DocNotFound(name, detail.paths()[:AVAILABLE_LISTED])
        previous = (seen if seen is not None and self._journal is not None
                    else await self._previous_content(doc.uuid))
        entry: dict[str, Any] = {"path": name, "doc_uuid": None,
                                 "previous_doc_uuid": doc.uuid,
                                 "previous_content": previous, "approved_by": approved_by}
        await self._mutate("delete", api.delete_doc(doc.uuid), entry)
        result = {"path": name, "doc_uuid": doc.uuid, "deleted": True}
        self._record(result, action="delete", **entry)
        return result

    async def _mutate(self, action: str, change: Awaitable[Any], entry: dict[str, Any]) -> Any:
        """Await one remote change, journaled ahead: the entry goes in as
        `<action>_unknown` before the change is sent (so a kernel killed mid-flight leaves
        it), and `_record` settles it once the change is done. A refusal by the service (a
        `ProjectsApiError` with a 4xx status, or a 503 or 529: the service says it did not
        take the request) changed nothing: its entry is withdrawn. Anything else — another
        5xx (a gateway may answer a 502 or 504 after the change was made), a half-done
        replace (`replace_incomplete`), no usable answer
        (`ProjectsTransportFailed`: a deadline, a dropped connection), a malformed answer,
        a cancelled cell — may have changed the Project, so its entry stays, with the
        content it removed, before the error goes on."""
        entry["journal_id"] = self._write_ahead(action, entry)
        try:
            return await change
        except BaseException as exc:
            kept = fate(action, exc)
            if kept is None:
                self._withdraw(entry["journal_id"])  # refused: nothing changed
            else:
                self._record({}, action=kept, **entry)
            raise

    def _write_ahead(self, action: str, entry: dict[str, Any]) -> int | None:
        """The `<action>_unknown` entry of a change about to be sent, or None (no journal,
        or it failed: the change is then journaled after, as `_record` does)."""
        if self._journal is None:
            return None
        fields = {k: v for k, v in entry.items() if k != "journal_id"}
        try:
            return self._journal.record(project_uuid=self._settings.project_uuid,
                                        action=f"{action}_unknown", **fields)
        except (sqlite3.Error, OSError):
            return None

    def _withdraw(self, journal_id: int | None) -> None:
        if self._journal is not None and journal_id is not None:
            with contextlib.suppress(sqlite3.Error, OSError):
                self._journal.withdraw(journal_id)

    async def _previous_content(self, doc_uuid: str) -> str | None:
        """The content about to be removed, kept for the journal (only when there is one)."""
        if self._journal is None:
            return None
        return (await self._api.read_doc(doc_uuid))["content"]

    def _record(self, result: dict[str, Any], *, action: str, journal_id: int | None = None,
                **entry: Any) -> None:
        """Journal a remote change that already happened: settle its written-ahead entry,
        or append one. A journal failure is reported on the result, never raised (that
        would misreport the remote write as failed)."""
        if self._journal is None:
            return
        try:
            if journal_id is None:
                journal_id = self._journal.record(
                    project_uuid=self._settings.project_uuid, action=action, **entry)
            else:
                self._journal.settle(journal_id, action, entry.get("doc_uuid"))
            result["journal_id"] = journal_id
        except (sqlite3.Error, OSError) as exc:
            result["journal_warning"] = f"not recorded in the local journal: {exc}"
