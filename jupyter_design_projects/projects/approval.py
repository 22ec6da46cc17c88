"""Putting a Projects change to a person: the `ApprovalRequest` a write, delete or restore
shows (the same card a notebook shows), and asking it through an `approve(request)`
callback before anything is sent. The model's tools (`agent_tools`) and the script facade
(`projects.facade`) both ask here."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any

from ..core.cards import APPROVE_FOR_PROJECT, ApprovalRequest
from ..errors import ProjectsChangeDenied

if TYPE_CHECKING:  # the client (and httpx under it) loads with the session, not here
    from .client import ProjectsClient

#: one approval answer per card: "once", "project" or None (deny)
Approve = Callable[[ApprovalRequest], "str | None"]
#: the answers that approve ("project" means the same as "once": Projects changes are
#: never approved durably)
APPROVING = frozenset({"once", "project"})
#: a card quotes this much of the content a write would upload
CONTENT_PREVIEW_CHARS = 400
#: the Projects methods that change the Project, each put to a person first
PROJECTS_DESTRUCTIVE = ("project_write", "project_delete")


def projects_request(method: str, args: Mapping[str, Any], project_uuid: str, *,
                     replaces: bool = False) -> ApprovalRequest:
    """The card a Projects write or delete puts to a person (Approve or Deny only); `path`
    is where the change lands (a write's resolved path), `replaces` says a doc is there."""
    path = str(args.get("path", ""))
    if method == "project_delete":
        return ApprovalRequest(
            kind="operation", operation=method,
            title="Delete this doc from the attached Project? Other people and sessions "
            "see the change at once; the journal keeps its content (the Project's history).",
            project_id=project_uuid, deletes=(path,),
            withheld=((APPROVE_FOR_PROJECT, "Projects deletes ask every time."),),
            reason="project_delete")
    if "local_path" in args:
        details: tuple[str, ...] = (f"content: the local file {args['local_path']}",)
    else:
        content = str(args.get("content", ""))
        preview = content[:CONTENT_PREVIEW_CHARS]
        more = "" if len(content) <= CONTENT_PREVIEW_CHARS else " …"
        details = (f"content ({len(content):,} characters): {preview}{more}",)
    verb = "Replace this doc in" if replaces else "Create this doc in"
    return ApprovalRequest(
        kind="operation", operation=method,
        title=f"{verb} the attached Project? Other people and sessions see it at once.",
        project_id=project_uuid, writes=(path,), details=details,
        withheld=((APPROVE_FOR_PROJECT, "Projects writes ask every time."),),
        reason="project_write")


def ask_first(run: Callable[[Coroutine[Any, Any, Any]], Any], projects: ProjectsClient,
              method: str, args: Mapping[str, Any], approve: Approve | None) -> None:
    """Put a write or delete to a person before it is sent: the gates and the attached
    project are checked first (nothing is shown for a call that cannot run), a write's
    card shows where it lands. Raises `ProjectsChangeDenied` unless `approve` approves
    (without `approve` nobody can answer, so nothing is approved)."""
    projects.check_ready()
    shown, replaces = dict(args), False
    if method == "project_write" and isinstance(args.get("path"), str):
        shown["path"], replaces = run(projects.write_target(args["path"]))
    request = projects_request(method, shown, projects.project_uuid, replaces=replaces)
    answer = approve(request) if approve is not None else None
    if answer not in APPROVING:
        raise ProjectsChangeDenied(
            method, "denied_on_card" if approve is not None else "nobody_can_approve")
