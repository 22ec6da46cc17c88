"""The Projects tool for plain Python: `session.project.search(...)` and the rest, each
method run on the session's loop and waited for, as `Session.design_call` does for Design.

    with Session.open() as session:
        hits = session.project.search("onboarding", n=3)["hits"]
        doc = session.project.read("guides/onboarding.md")["content"]
        session.project.write("claude/notes.md", content="…", approve=ask_me)

Reads need no person. A write, delete or restore changes data other people see, so it is
put to a person first, on the same `ApprovalRequest` a notebook card shows:
`approve(request)` answers "once" (approve) or None (deny). Without `approve`, nothing is
approved and nothing is sent (`ProjectsChangeDenied`). The card's request carries the
diff of a replace and the first lines a delete loses; what it showed is what is sent."""

from __future__ import annotations

import os
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from ..core import budgets
from ..errors import ProjectsChangeDenied
from .approval import APPROVING, Approve
from .change import DELETE, RESTORE, WRITE, perform, prepare
from .client import ProjectsClient
from .journal import APPROVED_BY_CALLBACK, HISTORY_DEFAULT


class ProjectFacade:
    """The attached Project, call by call; results are the tool's dicts (as `.data` of a
    `%project` outcome)."""

    def __init__(self, projects: ProjectsClient,
                 run: Callable[[Coroutine[Any, Any, Any]], Any],
                 sync_state: Callable[[], Any] | None = None,
                 progress: Any = None) -> None:
        self._projects = projects
        self._run = run
        #: opens the last-sync records (in the data dir) when a sync first needs them
        self._sync_state = sync_state
        self._progress = progress

    # ------------------------------------------------------------ reading

    def info(self) -> dict[str, Any]:
        """The Project: name, instructions, docs, uploads, sync sources, knowledge stats."""
        return self._run(self._projects.info())

    def read(self, path: str) -> dict[str, Any]:
        """A doc or upload by its exact path (large content lands in a local file)."""
        return self._run(self._projects.read(path))

    def search(self, query: str, n: int = budgets.SEARCH_N_DEFAULT) -> dict[str, Any]:
        """Knowledge search: `hits` (or, with search off for the Project, `rag: False` and
        the doc list)."""
        return self._run(self._projects.search(query, n))

    def history(self, limit: int = HISTORY_DEFAULT) -> list[dict[str, Any]]:
        """This machine's journal of writes to the Project, newest first; each entry says
        whether and how it can be restored (`restore_kind`, `restorable`)."""
        return self._projects.history(limit)

    # ------------------------------------------------------------ changing (a person first)

    def write(self, path: str, *, content: str | None = None, local_path: str | None = None,
              encoding: str | None = None, approve: Approve | None = None) -> dict[str, Any]:
        """Create or replace a text doc from `content` or a local file, once `approve`
        approves the card: where it lands, its size and the budget after it, and for a
        replace the diff of what it replaces. Exactly what the card showed is sent (a doc
        changed since is refused, `ProjectsChangeDenied`, reason changed_since_card)."""
        args: dict[str, Any] = {"path": path}
        for key, value in (("content", content), ("local_path", local_path),
                           ("encoding", encoding)):
            if value is not None:
                args[key] = value
        return self._change(WRITE, args, approve)

    def delete(self, path: str, *, approve: Approve | None = None) -> dict[str, Any]:
        """Delete a text doc (its content stays in the journal), once `approve` approves
        the card that shows what is lost."""
        return self._change(DELETE, {"path": path}, approve)

    def restore(self, entry_id: int, *, approve: Approve | None = None) -> dict[str, Any]:
        """Write back the content a journal entry replaced or deleted, once `approve`
        approves the card (a write of that path with the kept content). An entry whose
        restore rule does not allow it is refused before any card."""
        return self._change(RESTORE, {"entry_id": entry_id}, approve)

    def _change(self, method: str, args: dict[str, Any], approve: Approve | None) -> Any:
        """Prepare the change (nothing sent), put its card to `approve`, send it as shown."""
        change = self._run(prepare(self._projects, method, args))
        request = change.request(self._projects.project_uuid)
        answer = approve(request) if approve is not None else None
        if answer not in APPROVING:
            raise ProjectsChangeDenied(
                request.operation,
                "denied_on_card" if approve is not None else "nobody_can_approve")
        result = self._run(perform(self._projects, change, approved_by=APPROVED_BY_CALLBACK))
        return {k: v for k, v in result.items() if k != "framing"}

    def sync(self, directory: str | os.PathLike[str], *, to: str | None = None,
             delete: bool = False, force: Sequence[str] = (), pull: bool = False,
             dry_run: bool = False, approve: Callable[[Any], Any] | None = None,
             progress: Callable[[Any], None] | None = None):
        """`%project sync DIR` from a script: the plan (`SyncPlan`: `.summary`, `.table()`,
        `pandas.DataFrame(plan.table())`), and unless `dry_run`, its writes (and deletes,
        with `delete`) once `approve(plan)` approves the whole batch ("once" or True;
        without `approve` nothing is written). After a run `plan.report` says what was
        written. `pull` writes the Project's docs into `directory` instead. `progress`
        is called after each write with a `BatchProgress` (items and bytes done, rate,
        time left); a KeyboardInterrupt stops the run after the write in flight, and
        `plan.report` says what was written and what was not (`.interrupted`)."""
        from .stoppable import run_stoppable
        from .sync import SyncRequest, run_sync

        if self._sync_state is None:
            raise RuntimeError("this facade was built without the session's sync state")
        state = self._sync_state()
        request = SyncRequest(directory, to=to, delete=delete, force=force, pull=pull)
        return run_stoppable(self._run, lambda stop: run_sync(
            self._projects, state, request, dry_run=dry_run, approve=approve,
            progress=self._progress, on_progress=progress, stop=stop))
