"""The status report and everything else the side panel reads and does, for one Jupyter
server (docs/panel-api.md).

The panel holds one `Session`, built the way a kernel builds its own: the same settings,
the same credential stack (so a refresh here and one in a kernel take the same
cross-process lock), the same journal, and the server's one reference service when none
is configured. Each coroutine runs on the session's loop, so the Jupyter server's own
loop only waits. Every answer is JSON-ready, passed through the display rules, and holds
no token; what could not be read is a failure object (`failures`). A tool a policy gate
closes (`Settings.closed_by_policy`) is answered "off by policy" with nothing sent.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from .. import service_file
from ..core.display import LOOPBACK_HOSTS, id_rule
from ..design.rest import DesignRest
from ..errors import (
    ConfigError,
    InvalidProjectsArgument,
    NeedsConsent,
    ServiceStartFailed,
)
from ..projects.journal import approved_words
from ..session import Session
from ..settings import Settings
from . import failures
from .failures import body_text, shown

T = TypeVar("T")

#: the doc viewer shows at most this many UTF-8 bytes of a doc
DOC_MAX_BYTES = 1024 * 1024
#: `GET journal` lists at most this many entries
JOURNAL_MAX = 500
#: where the server's own reference service is, in words for a browser elsewhere (its
#: loopback address means nothing there)
EMBEDDED_LABEL = "the embedded reference service, on this Jupyter server"
#: paths and file names are shown up to this length
PATH_CHARS = 1024


class Panel:
    def __init__(self, env: Mapping[str, str], data_dir: Path, *, transport: Any = None) -> None:
        self._env = dict(env)
        self._data_dir = Path(data_dir)
        self._transport = transport
        self._session: Session | None = None
        self._opening = threading.Lock()
        #: project id → display-safe name, once get_project answered
        self._names: dict[str, str] = {}
        #: where the kernels learn this server's public address (`sign_in.PublicAddress`)
        self.public_address: Any = None

    # ------------------------------------------------------------ the session

    def closed(self, tool: str) -> dict[str, str] | None:
        """The off-by-policy answer when a policy gate closes `tool` ("Design" or
        "Projects"); then nothing is sent for it. None when it is open."""
        try:
            gate = Settings.resolve(self._env).closed_by_policy(tool)
        except ConfigError as error:  # a malformed setting: say so, send nothing
            return self._failure(error)
        return None if gate is None else failures.off_by_policy(tool, gate)

    def _settings(self) -> tuple[Settings, Any]:
        """The settings this server's kernels use, and the shared service (or None).
        `service_file.Starting` while the server's service is still starting."""
        settings = Settings.resolve(self._env)
        if not settings.embedded:
            return settings, None
        if not settings.service_file:
            raise ServiceStartFailed("not_started", "no service is configured and the server "
                                                    "extension started none")
        service = service_file.read(Path(settings.service_file))
        return settings.using_service(service.client_env()), service

    def session(self) -> Session:
        with self._opening:
            if self._session is None:
                settings, service = self._settings()
                self._session = Session(settings, data_dir=self._data_dir, embedded=service,
                                        transport=self._transport)
            return self._session

    async def _on_session(self, work: Callable[[Session], Awaitable[T]]) -> T:
        session = self.session()
        return await asyncio.wrap_future(session.submit(_call(work, session)))

    def close(self) -> None:
        if self._session is not None:
            self._session.close()

    def _failure(self, exc: BaseException) -> dict[str, str]:
        session = self._session
        secrets = session.secrets() if session is not None else []
        base = session.settings.api_base_url if session is not None else ""
        if session is not None and session.embedded is not None:
            base = EMBEDDED_LABEL
        return failures.failure(exc, secrets, base)

    async def answer(self, work: Callable[[Session], Awaitable[T]]) -> T | dict[str, str]:
        """The value of `work` on the session, or the failure object of what stopped it."""
        try:
            return await self._on_session(work)
        except service_file.Starting:
            return failures.starting()
        except Exception as exc:
            return self._failure(exc)

    async def open_answer(self, tool: str, work: Callable[[Session], Awaitable[T]]
                          ) -> T | dict[str, str]:
        """`answer(work)` when `tool` is open; its off-by-policy answer (nothing sent)
        when a policy gate closes it."""
        closed = self.closed(tool)
        return closed if closed is not None else await self.answer(work)

    # ------------------------------------------------------------ status

    def service_part(self, state: str) -> dict[str, Any]:
        try:
            settings, service = self._settings()
        except service_file.Starting:
            return {"base_url": None, "reference": True, "state": "starting"}
        except Exception:
            return {"base_url": None, "reference": True, "state": "unreachable"}
        parts = urlsplit(settings.api_base_url)
        label = EMBEDDED_LABEL if service is not None else (
            f"a service on this Jupyter server's machine (loopback port {parts.port})"
            if (parts.hostname or "") in LOOPBACK_HOSTS else None)
        return {"base_url": settings.api_base_url, "label": label,
                "reference": service is not None or (parts.hostname or "") in LOOPBACK_HOSTS,
                "state": state}

    async def status(self) -> dict[str, Any]:
        project = await self.open_answer("Projects", _project_part)
        notice = None
        if not failures.is_failure(project):
            notice = project.pop("notice", None)  # type: ignore[union-attr]
        design = await self.open_answer("Design", self._design_part)
        kinds = {part.get("error") for part in (project, design) if failures.is_failure(part)}
        state = ("starting" if failures.STARTING in kinds
                 else "unreachable" if failures.UNREACHABLE in kinds else "ready")
        report: dict[str, Any] = {"service": self.service_part(state), "project": project,
                                  "design": design, "notice": notice}
        report["version"] = hashlib.sha256(
            json.dumps(report, sort_keys=True).encode()).hexdigest()
        return report

    async def _design_part(self, session: Session) -> dict[str, Any]:
        rest = DesignRest(session.http, session.settings.api_base_url,
                          platform=session.settings.client_platform)
        consent = await rest.get_consent()
        try:
            grants = await rest.list_grants()
        except NeedsConsent:
            consent, grants = False, {}
        shown_grants = []
        for project_id, created_at in sorted(grants.items()):
            safe_id = id_rule(project_id) is None
            name = await self._name_of(session, project_id) if safe_id else None
            shown_grants.append({"project_id": project_id if safe_id else
                                 f"[not shown: {id_rule(project_id)}]",
                                 "project_name": name, "created_at": shown(created_at)})
        revision = await asyncio.to_thread(session.design_journal.revision)
        return {"consent": consent, "grants": shown_grants,
                "journal_revision": "-".join(map(str, revision))}

    async def _name_of(self, session: Session, project_id: str) -> str | None:
        """The project's name as `get_project` gives it (display-checked), or None."""
        if project_id not in self._names:
            from ..core.display import project_identity
            from ..core.results import map_result

            try:
                mapped = map_result(await session.design.session.call_tool(
                    "get_project", {"project_id": project_id}))
                text = next((b["text"] for b in mapped.blocks if b.get("type") == "text"), "")
                identity = None if mapped.is_error else project_identity(
                    project_id, json.loads(text))
            except Exception:  # a name is a nicety: the id still shows
                return None
            if identity is None or isinstance(identity, str):
                return None
            self._names[project_id] = identity.name
        return self._names[project_id]

    # ------------------------------------------------------------ project

    async def files(self) -> dict[str, Any]:
        return await self.open_answer("Projects", _files)

    async def search(self, query: str, n: int) -> dict[str, Any]:
        return await self.open_answer("Projects", lambda session: _search(session, query, n))

    async def doc(self, path: str) -> dict[str, Any]:
        return await self.open_answer("Projects", lambda session: _doc(session, path))

    # ------------------------------------------------------------ design

    async def consent(self, give: bool) -> dict[str, Any]:
        async def change(session: Session) -> dict[str, Any]:
            rest = DesignRest(session.http, session.settings.api_base_url,
                              platform=session.settings.client_platform)
            await (rest.post_consent() if give else rest.delete_consent())
            return await self._design_part(session)

        return await self.open_answer("Design", change)

    async def revoke_grant(self, project_id: str) -> dict[str, Any]:
        closed = self.closed("Design")
        if closed is not None:
            return closed
        if id_rule(project_id) is not None:
            return failures.fail("invalid_argument", "That is not a project id.")

        async def revoke(session: Session) -> dict[str, Any]:
            rest = DesignRest(session.http, session.settings.api_base_url,
                              platform=session.settings.client_platform)
            await rest.delete_grant(project_id)
            return await self._design_part(session)

        return await self.answer(revoke)

    # ------------------------------------------------------------ journal and login

    async def journal(self, n: int) -> dict[str, Any]:
        return await self.answer(lambda session: _journal(session, n))

    async def design_journal(self, n: int) -> dict[str, Any]:
        """The Design writes this machine sent (the journal is local: nothing is sent)."""
        return await self.answer(lambda session: _design_journal(session, n))

    async def restore(self, entry_id: int) -> dict[str, Any]:
        return await self.open_answer("Projects", lambda session: _restore(session, entry_id))

    def proxied_service(self) -> tuple[str, Any] | None:
        """The reference service whose pages this server shows through its own address
        (`proxy.py`), and its owner secret: the server's own service, or one on loopback
        whose secret sits beside its credential file. None for any other service (its
        pages are on its own site) or while none is ready."""
        from ..embedded import owner_secret_for

        try:
            settings, service = self._settings()
        except Exception:
            return None
        secret = owner_secret_for(service, settings.credentials_file,
                                  settings.oauth_authorize_url)
        return None if secret is None else (settings.api_base_url.rstrip("/"), secret)


async def _call(work: Callable[[Session], Awaitable[T]], session: Session) -> T:
    return await work(session)


async def _project_part(session: Session) -> dict[str, Any]:
    info = await session.projects.info()
    stats = info.get("knowledge_stats") or {}
    threshold = stats.get("project_knowledge_search_threshold")
    project = info.get("project") or {}
    return {
        "uuid": shown(project.get("uuid", session.settings.project_uuid)),
        "name": shown(project.get("name", "")),
        "instructions": body_text(info.get("instructions", "")),
        "docs": len(info["docs"]),
        "uploads": len(info["uploads"]),
        "knowledge_size": stats.get("knowledge_size"),
        "max_knowledge_size": stats.get("max_knowledge_size"),
        "search_enabled": stats.get("use_project_knowledge_search") is True,
        "search_threshold": threshold if isinstance(threshold, int) else None,
        "revision": _revision(session, info),
        "notice": info.get("notice"),
    }


def _revision(session: Session, info: dict[str, Any]) -> str:
    """Changes when a doc or upload comes, goes or changes size, or a journal entry is
    added, settled or withdrawn."""
    listing: list[Any] = [[d["doc_uuid"], d["path"], d["estimated_token_count"]]
                          for d in info["docs"]]
    listing += [[f["file_uuid"], f["path"], f["file_size_bytes"]] for f in info["uploads"]]
    listing.append(session.journal.revision(session.settings.project_uuid))
    return hashlib.sha256(json.dumps(listing).encode()).hexdigest()[:16]


async def _files(session: Session) -> dict[str, Any]:
    info = await session.projects.info()
    return {
        "docs": [{"uuid": shown(d["doc_uuid"]), "path": shown(d["path"], PATH_CHARS),
                  "bytes": None, "tokens": d["estimated_token_count"],
                  "created_at": d["created_at"] and shown(d["created_at"])}
                 for d in info["docs"]],
        "uploads": [{"uuid": shown(f["file_uuid"]), "path": shown(f["path"], PATH_CHARS),
                     "kind": shown(f["file_kind"]), "bytes": f["file_size_bytes"],
                     "created_at": f["created_at"] and shown(f["created_at"])}
                    for f in info["uploads"]],
    }


async def _search(session: Session, query: str, n: int) -> dict[str, Any]:
    found = await session.projects.search(query, n)
    if not found.get("rag"):
        return {"rag": False, "hits": [], "note": found.get("note")}
    return {"rag": True, "hits": [
        {"name": shown(h.get("name"), PATH_CHARS), "doc_uuid": shown(h.get("doc_uuid")),
         "text": body_text(h.get("text"))} for h in found["hits"]]}


async def _doc(session: Session, path: str) -> dict[str, Any]:
    """The text of a doc, or the extracted text of a document upload, cut at 1 MiB."""
    info = await session.projects.info()
    upload = next((f for f in info["uploads"] if f["path"] == path), None)
    if upload is not None and upload["file_kind"] != "document":
        raise InvalidProjectsArgument("read", "path", f"is a {upload['file_kind']} upload, "
                                      "not text: read it in a notebook with %project read")
    read = await session.projects.read(path)
    if "content" in read:
        content = read["content"]
    else:
        local = Path(read["local_file"])
        try:
            raw = await asyncio.to_thread(_head, local, DOC_MAX_BYTES + 4)
        finally:
            local.unlink(missing_ok=True)
        content = raw.decode("utf-8", "ignore")
    data = content.encode("utf-8")
    truncated = len(data) > DOC_MAX_BYTES
    if truncated:
        content = data[:DOC_MAX_BYTES].decode("utf-8", "ignore")
    return {"path": shown(path, PATH_CHARS), "content": body_text(content),
            "truncated": truncated}


def _head(path: Path, size: int) -> bytes:
    with path.open("rb") as handle:
        return handle.read(size)


async def _journal(session: Session, n: int) -> dict[str, Any]:
    rows = await asyncio.to_thread(session.projects.history, max(0, min(n, JOURNAL_MAX)))
    return {"entries": [{
        "id": row["id"], "time": row["at"], "action": row["action"],
        "project_uuid": row["project_uuid"], "path": shown(row["path"], PATH_CHARS),
        "bytes": row["bytes"], "approved": approved_words(row.get("approved_by")),
        "restore_kind": row["restore_kind"],
        "restore": _restore_sentence(row)} for row in rows]}


async def _design_journal(session: Session, n: int) -> dict[str, Any]:
    rows = await asyncio.to_thread(session.design_journal.entries, max(0, min(n, JOURNAL_MAX)))
    return {"entries": [{
        "id": row["id"], "time": row["at"], "operation": row["operation"],
        "project_id": shown(row["project_id"]),
        "project_name": shown(row["project_name"]) if row["project_name"] else None,
        "authority": row["authority"], "authority_detail": shown(row["authority_detail"], 300),
        "outcome": row["outcome"],
        "changes": [{"path": shown(change.get("path"), PATH_CHARS) if "path" in change else None,
                     "change": shown(change.get("change")),
                     "bytes": change.get("bytes") if isinstance(change.get("bytes"), int)
                     else None,
                     "detail": shown(change.get("from") or change.get("detail"), 300)
                     if (change.get("from") or change.get("detail")) else None}
                    for change in row["changes"]]} for row in rows]}


def _restore_sentence(row: dict[str, Any]) -> str | None:
    """What Restore will do; None when the entry's restore rule says it cannot be restored."""
    if not row["restorable"]:
        return None
    size = row["previous_bytes"]
    return (f"Write back the {size:,} bytes this {row['action'].replace('_', ' ')} removed "
            f"from {row['path']}.")


async def _restore(session: Session, entry_id: int) -> dict[str, Any]:
    done = await session.projects.restore(entry_id)
    return {"message": f"Restored {done['path']} ({done['bytes']:,} bytes) from journal entry "
                       f"{entry_id}."}
