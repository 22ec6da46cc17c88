"""The session as the notebook layer's unit tests (and the call history's) see it: scripted
stand-ins for the Design and Projects clients, which tell their observers as the real
ones do, a trace, and a session that runs their coroutines (no service, no network). The
pipelines' own tests use the in-memory services of tests/fakes/design.py and projects.py."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from jupyter_design_projects.core import call_events
from jupyter_design_projects.core.cards import (
    APPROVE,
    APPROVE_FOR_PROJECT,
    DENY,
    ApprovalRequest,
)
from jupyter_design_projects.core.results import MappedResult
from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from jupyter_design_projects.errors import PermissionDenied

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5"
    "ErkJggg=="
)

CATALOGUE = {
    "catalog_hash": "sha256:abc",
    "operations": [
        {"name": "list_projects", "description": "List projects. More text.",
         "input_schema": {"type": "object"}, "read_only": True, "destructive": False},
        {"name": "write_files", "description": "Write files into a project.",
         "input_schema": {"type": "object", "required": ["project_id", "files"]},
         "read_only": False, "destructive": True},
        {"name": "create_project", "description": "Create a project.",
         "input_schema": {"type": "object", "required": ["name"]},
         "read_only": False, "destructive": False},
    ],
}


def request(kind: str = "grant", *, durable: bool = True) -> ApprovalRequest:
    buttons = (APPROVE, APPROVE_FOR_PROJECT, DENY) if durable else (APPROVE, DENY)
    return ApprovalRequest(
        kind=kind, operation="write_files", title="Allow writes?",
        project_id="p-1", project_name="Quarterly <Review> Deck", sharing="org, link: view",
        url="https://design.example/p/p-1", writes=("slides/04.html",),
        notes=("<script>alert(1)</script>",), buttons=buttons,
        withheld=() if durable else ((APPROVE_FOR_PROJECT, "a plan is <b>once</b> only."),),
    )


def pending(kind: str = "grant", *, durable: bool = True) -> PendingApproval:
    return PendingApproval(request=request(kind, durable=durable), operation="write_files",
                           arguments={"project_id": "p-1"})


def outcome(operation: str, data: Any) -> DesignOutcome:
    """An answer as a client holding the default table gives it (with the operation's row;
    the client's own `list` answers a `CatalogueOutcome`)."""
    from jupyter_design_projects.core.design_operations import BY_NAME
    from jupyter_design_projects.design.catalogue import CLIENT_OPERATIONS, CatalogueOutcome

    if operation in CLIENT_OPERATIONS:
        return CatalogueOutcome.of_data(operation, data)
    return DesignOutcome.of_data(operation, data, row=BY_NAME.get(operation))


def image_outcome() -> DesignOutcome:
    blocks = [
        {"type": "text", "text": '{"open_url": "https://x.example/p"}'},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                     "data": base64.b64encode(PNG).decode()}},
    ]
    return DesignOutcome("render_preview", MappedResult(blocks, False))


class DesignStandIn:
    """The session's Design client as the views see it, scripted: `script` answers call()
    and `after` answers resume() (an exception is raised), else an `{"ok": True}` answer
    and a `{"written": 1}` continuation. Like `DesignClient` it answers its own `list`, and
    tells its `observers` each call and continuation (`core.call_events`); `exchanges`
    counts what the trace would record (two for a call, one for a continuation)."""

    def __init__(self, can_ask=lambda: True, observers=()) -> None:
        self.can_ask = can_ask
        self.observers = list(observers)
        self.script: list[Any] = []
        self.after: list[Any] = []
        self.calls: list[tuple[str, dict]] = []
        self.resumes: list[tuple[str, bool, bool]] = []
        self.asked: list[bool] = []
        self.exchanges = 0
        self.consented = None
        #: the client's existence check finds nothing here (cards show ids)
        self.projects_seen: dict[str, str | None] = {}

    async def list(self, *, full: bool = False, agent_key: str = "notebook"):
        return outcome("list", CATALOGUE)

    async def call(self, operation: str, arguments: dict, *, agent_key: str = "notebook"):
        if operation == "list":  # the client's own: no call of the service, not told
            return await self.list(agent_key=agent_key)
        tokens = call_events.started(self.observers, "design", operation, arguments)
        self.calls.append((operation, arguments))
        self.asked.append(self.can_ask())
        self.exchanges += 2
        answer = self.script.pop(0) if self.script else outcome(operation, {"ok": True})
        if isinstance(answer, PendingApproval) and not self.can_ask():
            answer = PermissionDenied(operation, "nobody can answer; run `%design consent`")
        if isinstance(answer, Exception):
            call_events.ended(tokens, error=answer)
            raise answer
        call_events.ended(tokens, answer)
        return answer

    async def project_names(self, project_ids):
        """As the client: the names seen so far (a fake looks nothing up)."""
        return self.projects_seen

    async def watch_grant(self, pending: PendingApproval, *, claim):
        """No grant is ever given elsewhere here: the watch ends at once."""
        return None

    async def resume(self, pending: PendingApproval, *, approved: bool, durable: bool = False):
        tokens = call_events.resumed(self.observers, pending)
        self.resumes.append((pending.request.kind, approved, durable))
        self.asked.append(self.can_ask())
        self.exchanges += 1
        if not approved:
            answer: Any = DesignOutcome.failed(pending.operation,
                                               PermissionDenied(pending.operation, "denied"))
        else:
            answer = self.after.pop(0) if self.after else outcome(pending.operation,
                                                                   {"written": 1})
        if isinstance(answer, Exception):
            call_events.ended(tokens, error=answer)
            raise answer
        call_events.ended(tokens, answer)
        return answer

    async def consent(self):
        self.consented = True

    async def revoke(self):
        self.consented = False

    async def status(self):
        return {"consent": self.consented, "approved_plans": [], "verified_grants": []}


class ProjectsStandIn:
    """The session's Projects client as the views see it: each method answers from
    `answers` by its name (an exception is raised), else `{"method": name}`; `read`,
    `search` and `write_exact` are observed calls, told to `observers` as the client's."""

    def __init__(self, observers=()) -> None:
        self.observers = list(observers)
        self.calls: list[tuple[str, dict]] = []
        self.answers: dict[str, Any] = {}

    def answer(self, method: str, args: dict) -> Any:
        self.calls.append((method, args))
        answer = self.answers.get(method, {"method": method})
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def call(self, method: str, args: dict):
        return self.answer(method, args)

    @call_events.observed("project")
    async def read(self, path: str) -> Any:
        return self.answer("read", {"path": path})

    @call_events.observed("project")
    async def search(self, query: str, n: int = 5) -> Any:
        return self.answer("search", {"query": query, "n": n})

    @call_events.observed("project", "write", kept=("path",))
    async def write_exact(self, path: str, content: str, *, guard: Any = None) -> Any:
        return self.answer("write", {"path": path, "content": content})

    def history(self, limit: int = 50):
        return [{"id": 2, "at": "2025-01-01T00:00:00Z", "action": "delete", "path": "a.md",
                 "doc_uuid": "d", "bytes": 3, "has_previous": True}][:limit]

    async def restore(self, entry_id: int):
        return {"doc_uuid": "d2", "path": "a.md", "restored_from": entry_id}


class FakeTrace:
    def __init__(self) -> None:
        self.enabled, self.limit = False, 500

    def resize(self, limit: int) -> None:
        self.limit = limit

    def records(self):
        return [{"action": "design list", "method": "POST", "url": "http://127.0.0.1/x",
                 "status": 200, "elapsed_ms": 1.0, "request_headers": {}}]


class FakeSession:
    def __init__(self, can_ask) -> None:
        self.design = DesignStandIn(can_ask)
        self.projects = ProjectsStandIn()
        self.trace = FakeTrace()
        from jupyter_design_projects.settings import Settings

        self.settings = Settings()
        self.banner = None
        self.embedded = None
        self.closed = False

    def run(self, coro, timeout=None):
        return asyncio.run(coro)

    def submit(self, coro):
        """What the session's loop would run, run now; its Future, already settled."""
        from concurrent.futures import Future

        future: Future = Future()
        future.set_result(asyncio.run(coro))
        return future

    def close(self):
        self.closed = True
