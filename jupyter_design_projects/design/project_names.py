"""The Design projects a client's cards name: each looked up once with a read-only
`get_project` (never a card of its own), its display-safe name remembered by id."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..core import display
from ..core.results import map_result
from ..errors import InvalidArguments, JdpError
from .approval import DesignOutcome
from .call import Call
from .session import McpSession


class ProjectNames:
    """Design project id -> its display-safe name (None when it has none), for each project
    a lookup found (`seen`: cards and `%design status` show the name beside the id)."""

    def __init__(self, session: McpSession) -> None:
        self._session = session
        self.seen: dict[str, str | None] = {}

    async def _get(self, project_id: str) -> DesignOutcome:
        return DesignOutcome("get_project", map_result(
            await self._session.call_tool("get_project", {"project_id": project_id})))

    def _remember(self, project_id: str, data: object) -> None:
        identity = display.project_identity(project_id, data)
        self.seen[project_id] = (identity.name if isinstance(
            identity, display.ProjectIdentity) else None)

    async def missing(self, call: Call) -> DesignOutcome | None:
        """Before a card for a write: a read-only get_project says whether the project
        exists; for one that does not, the call fails here (the outcome returned) instead
        of asking a person about a change that cannot land. An unanswered lookup leaves it
        to the card."""
        project_id = call.arguments.get("project_id")
        if not isinstance(project_id, str) or project_id in self.seen:
            return None
        try:
            found = await self._get(project_id)
        except JdpError:
            return None
        if found.is_error:
            said = found.data if isinstance(found.data, str) else "not found"
            return DesignOutcome.failed(call.operation, InvalidArguments(
                call.operation, "project_id", f"{project_id!r} names no Design project the "
                f"service knows ({said})"))
        self._remember(project_id, found.data)
        return None

    async def names(self, project_ids: Iterable[str]) -> Mapping[str, str | None]:
        """The display-safe names of these projects: one read-only get_project for each
        not seen before; a lookup that fails leaves the id unnamed."""
        for project_id in project_ids:
            if project_id in self.seen:
                continue
            try:
                found = await self._get(project_id)
            except JdpError:
                continue
            if not found.is_error:
                self._remember(project_id, found.data)
        return self.seen

    async def identity(self, project_id: str) -> display.ProjectIdentity | str:
        """The project as get_project describes it, strictly checked for display (a found
        project is remembered: no second look before its card); else why not."""
        outcome = await self._get(project_id)
        if outcome.is_error:
            return "get_project_failed"
        identity = display.project_identity(project_id, outcome.data)
        if isinstance(identity, display.ProjectIdentity):
            self.seen[identity.project_id] = identity.name
        return identity
