"""One Projects change put to a person exactly as it will happen: `prepare` reads, with
nothing sent, where a write, delete or restore lands, what it replaces or deletes and the
knowledge budget after it (a `ProjectChange`, whose `request` is the card); `perform`
sends exactly that change, and refuses it when the Project moved since the card was made
(the doc it replaces or deletes changed, or a doc appeared where it creates one): no
silent overwrite. The notebook's change card, `%project … --yes` and the script facade
all go through here."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..core import budgets
from ..core import change_preview as preview
from ..core.cards import APPROVE_FOR_PROJECT, ApprovalRequest
from ..core.display import text_rule
from ..core.project_paths import RULE_UPLOAD, normalize, resolve_write_path
from ..errors import DocNotFound, PathRejected, ProjectsChangeDenied
from . import wire
from .client import FRAMING, ProjectsClient
from .doc_changes import Reader, utf8_size
from .reading import AVAILABLE_LISTED

WRITE = "write"
DELETE = "delete"
RESTORE = "restore"
#: why a change was refused at the click: the Project is not what its card showed
CHANGED_SINCE_CARD = "changed_since_card"


@dataclasses.dataclass(frozen=True)
class ProjectChange:
    """A write, delete or restore as its card shows it; `previous` is the content it
    replaces or deletes (None: it creates the doc), `previous_uuid` that doc's id."""

    method: str
    path: str
    content: str | None
    previous: str | None
    previous_uuid: str | None
    knowledge_before: int
    knowledge_after: int
    max_knowledge_size: int
    local_path: str | None = None
    restored_from: int | None = None
    #: the Project's name as its listing gives it, shown only when display-safe
    project_name: str | None = None

    @property
    def replaces(self) -> bool:
        return self.method != DELETE and self.previous_uuid is not None

    @property
    def n_bytes(self) -> int:
        text = self.previous if self.method == DELETE else self.content
        return utf8_size(text or "")

    @property
    def diff(self) -> str:
        """A replace's unified diff against the doc it replaces ('' for anything else)."""
        if not self.replaces:
            return ""
        return preview.unified_diff(self.previous or "", self.content or "", self.path)

    @property
    def title(self) -> str:
        where = "the attached Project? Other people and sessions see it at once."
        if self.method == DELETE:
            return (f"Delete this doc from {where} Its content stays in the local journal, "
                    "from which it can be restored.")
        verb = "Replace" if self.replaces else "Create"
        if self.method == RESTORE:
            return (f"Restore journal entry {self.restored_from}: {verb.lower()} this doc in "
                    f"{where}")
        return f"{verb} this doc in {where}"

    def details(self) -> tuple[str, ...]:
        """The card's fact lines (the diff and the lost lines are shown apart)."""
        size = preview.size_line(self.n_bytes)
        budget = preview.budget_line(self.knowledge_before, self.knowledge_after,
                                     self.max_knowledge_size)
        lines = [f"Size: {size}", f"Knowledge after: {budget}"]
        if self.local_path is not None:
            lines.append(f"Content: the local file {self.local_path}, as read for this card")
        if self.replaces:
            old = preview.size_line(utf8_size(self.previous or ""))
            lines.append(f"Replaces the doc's current {old}")
        return tuple(lines)

    def request(self, project_uuid: str) -> ApprovalRequest:
        """The card as data (Approve or Deny only): what a script's `approve` callback
        gets; its details carry the diff or the lost lines as far as the card's budget
        goes, the cut said."""
        extra: tuple[str, ...] = ()
        if self.replaces:
            shown = preview.diff_shown(self.diff)
            extra = (f"Diff{f' ({shown.note})' if shown.cut else ''}:\n{shown.text}",)
        elif self.method == DELETE:
            lost = preview.lost_lines(self.previous or "")
            extra = (f"First lines lost{f' ({lost.note})' if lost.cut else ''}:\n{lost.text}",)
        return ApprovalRequest(
            kind="operation",
            operation="project_delete" if self.method == DELETE else "project_write",
            title=self.title, project_id=project_uuid,
            project_name=self.project_name if text_rule(self.project_name) is None else None,
            writes=() if self.method == DELETE else (self.path,),
            deletes=(self.path,) if self.method == DELETE else (),
            details=self.details() + extra,
            withheld=((APPROVE_FOR_PROJECT, "Projects changes ask every time."),),
            reason=f"project_{self.method}")


# ---------------------------------------------------------------- preparing


async def prepare(client: ProjectsClient, method: str, args: dict[str, Any]) -> ProjectChange:
    """The change `%project METHOD` (or the facade) would make, read against a fresh
    listing with nothing sent: a write's path resolved and its local file read, the budget
    pre-checked (a change that cannot run gets no card), the content it replaces or
    deletes read whole."""
    client.check_ready()
    restored_from = None
    local_path = None
    if method == DELETE:
        name = normalize(args["path"])
        detail = await client.listing()
        old = detail.doc(name)
        if old is None:
            if detail.file(name) is not None:
                raise PathRejected(name, RULE_UPLOAD)
            raise DocNotFound(name, detail.paths()[:AVAILABLE_LISTED])
        previous = (await client.doc_text(old.uuid))["content"]
        return ProjectChange(DELETE, name, None, previous, old.uuid, detail.knowledge_size,
                             budgets.knowledge_after(detail.knowledge_size, 0,
                                                     old.estimated_token_count or 0),
                             detail.max_knowledge_size, project_name=_name(detail))
    if method == RESTORE:
        entry = client.restorable_entry(int(args["entry_id"]))
        content, restored_from = entry["previous_content"], entry["id"]
        detail = await client.listing()
        final = normalize(entry["path"])
    else:
        content, local_path = await client.write_source(
            content=args.get("content"), local_path=args.get("local_path"),
            encoding=args.get("encoding"))
        normalize(args["path"])
        detail = await client.listing()
        final, _ = resolve_write_path(args["path"], {d.path for d in detail.docs})
    old = detail.doc(final)
    previous = (await client.doc_text(old.uuid))["content"] if old is not None else None
    size = utf8_size(content)
    estimate = budgets.check_knowledge(detail.knowledge_size, detail.max_knowledge_size, size)
    after = budgets.knowledge_after(detail.knowledge_size, estimate,
                                    (old.estimated_token_count or 0) if old else 0)
    return ProjectChange(method, final, content, previous, old.uuid if old else None,
                         detail.knowledge_size, after, detail.max_knowledge_size,
                         local_path=local_path, restored_from=restored_from,
                         project_name=_name(detail))


def _name(detail: wire.Detail) -> str | None:
    name = detail.raw.get("name")
    return name if isinstance(name, str) else None


# ---------------------------------------------------------------- performing


def _guard(change: ProjectChange):
    """Accept the fresh detail only when the doc at the path is the one the card showed,
    with the content it showed (or, for a create, still no doc there)."""
    async def guard(detail: wire.Detail, old: wire.DocEntry | None,
                    read: Reader) -> str | None:
        if change.previous_uuid is None:
            if old is not None:
                raise ProjectsChangeDenied(change.method, CHANGED_SINCE_CARD)
            return None
        if old is None or old.uuid != change.previous_uuid:
            raise ProjectsChangeDenied(change.method, CHANGED_SINCE_CARD)
        content = (await read(old.uuid))["content"]
        if content != change.previous:
            raise ProjectsChangeDenied(change.method, CHANGED_SINCE_CARD)
        return content
    return guard


async def perform(client: ProjectsClient, change: ProjectChange, *,
                  approved_by: str) -> dict[str, Any]:
    """Send exactly `change` (journaled with `approved_by`); the tool's result for it."""
    if change.method == DELETE:
        result = await client.delete_exact(change.path, guard=_guard(change),
                                           approved_by=approved_by)
        return {"method": "project_delete", **result, "framing": FRAMING}
    assert change.content is not None
    result = await client.write_exact(change.path, change.content, guard=_guard(change),
                                      restored_from=change.restored_from,
                                      approved_by=approved_by)
    if change.local_path is not None:
        result["local_path"] = change.local_path
    if change.method == WRITE:
        result["present_to_user"] = True  # spec §17: a delivery marker for the host
    return {"method": "project_write", **result, "framing": FRAMING}
