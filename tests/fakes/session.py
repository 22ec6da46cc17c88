"""Fake pipelines for the notebook layer's unit tests: scripted Design and Projects
clients and a session that runs their coroutines (no service, no network)."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

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


class FakeDesign:
    """Scripted DesignClient: `script` answers call(), `after` answers resume()."""

    def __init__(self, can_ask) -> None:
        self.can_ask = can_ask
        self.script: list[Any] = []
        self.after: list[Any] = []
        self.calls: list[tuple[str, dict]] = []
        self.resumes: list[tuple[str, bool, bool]] = []
        self.asked: list[bool] = []
        self.consented = None
        #: the client's existence check finds nothing here (cards show ids)
        self.projects_seen: dict[str, str | None] = {}

    async def list(self, *, full: bool = False, agent_key: str = "notebook"):
        return outcome("list", CATALOGUE)

    async def call(self, operation: str, arguments: dict, *, agent_key: str = "notebook"):
        self.calls.append((operation, arguments))
        self.asked.append(self.can_ask())
        answer = self.script.pop(0) if self.script else outcome(operation, {"ok": True})
        if isinstance(answer, Exception):
            raise answer
        if isinstance(answer, PendingApproval) and not self.can_ask():
            raise PermissionDenied(operation, "nobody can answer; run `%design consent`")
        return answer

    async def project_names(self, project_ids):
        """As the client: the names seen so far (a fake looks nothing up)."""
        return self.projects_seen

    async def watch_grant(self, pending: PendingApproval, *, claim):
        """No grant is ever given elsewhere here: the watch ends at once."""
        return None

    async def resume(self, pending: PendingApproval, *, approved: bool, durable: bool = False):
        self.resumes.append((pending.request.kind, approved, durable))
        self.asked.append(self.can_ask())
        if not approved:
            return DesignOutcome.failed(pending.operation,
                                        PermissionDenied(pending.operation, "denied"))
        answer = self.after.pop(0) if self.after else outcome(pending.operation,
                                                               {"written": 1})
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def consent(self):
        self.consented = True

    async def revoke(self):
        self.consented = False

    async def status(self):
        return {"consent": self.consented, "approved_plans": [], "verified_grants": []}


class FakeProjects:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []
        self.answers: dict[str, Any] = {}

    async def call(self, method: str, args: dict):
        self.calls.append((method, args))
        answer = self.answers.get(method, {"method": method})
        if isinstance(answer, Exception):
            raise answer
        return answer

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
        self.design = FakeDesign(can_ask)
        self.projects = FakeProjects()
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
