"""Fixtures: `open_projects` (a ProjectsClient on either route against a reference
service, with the test-only auth of projects_harness) and `fake` + `make` (a
ProjectsClient against the in-memory fake of both routes)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.embedded import EmbeddedService
from jupyter_design_projects.projects.client import ProjectsClient
from jupyter_design_projects.projects.journal import Journal
from jupyter_design_projects.settings import Settings
from jupyter_design_projects.transport.http import make_client
from tests.fakes.projects import JWT, ORG, PROJECT, WEB, FakeProjects, Scopes
from tests.projects.projects_harness import Expander, StaticBearer, settings_for


@pytest.fixture
def open_projects(tmp_path: Path) -> Callable:
    """open_projects(service, route, **options) -> async context manager of a
    ProjectsClient (with a journal and a cwd under tmp_path unless given)."""

    @contextlib.asynccontextmanager
    async def opener(service: EmbeddedService, route: str = "org", *, settings=None,
                     journal: Journal | None = None, transport=None,
                     **options) -> AsyncIterator:
        auth = StaticBearer()
        expander = Expander(service, auth)
        options.setdefault("cwd", tmp_path)
        options.setdefault("temp_dir", tmp_path / "downloads")
        http = make_client(auth=auth, transport=transport)
        try:
            client = ProjectsClient(
                http, settings or settings_for(service, route), ensure_scopes=expander,
                journal=journal if journal is not None else Journal(tmp_path / "journal.db"),
                **options)
            client.expander = expander  # type: ignore[attr-defined]
            yield client
        finally:
            await http.aclose()

    return opener


@pytest.fixture
def fake() -> FakeProjects:
    return FakeProjects()


@pytest.fixture
def make(fake: FakeProjects, tmp_path: Path) -> Callable[..., ProjectsClient]:
    """make(route="org", *, journal=True, scopes=None, **settings) -> a ProjectsClient on
    the fake (downloads in tmp_path/downloads, cwd tmp_path/work, journal tmp_path/journal.db)."""

    def build(route: str = "org", *, journal: bool = True, scopes: Scopes | None = None,
              **settings: Any) -> ProjectsClient:
        values: dict[str, Any] = {"api_base_url": WEB, "web_base_url": WEB,
                                  "project_uuid": PROJECT, "org_uuid": ORG}
        if route == "remote-session":
            values["session_jwt"] = Secret(JWT)
        values.update(settings)
        http = httpx.AsyncClient(transport=fake.transport())  # MockTransport holds no sockets
        return ProjectsClient(
            http, Settings(**values), ensure_scopes=scopes or Scopes(None),
            temp_dir=tmp_path / "downloads", cwd=tmp_path / "work",
            journal=Journal(tmp_path / "journal.db") if journal else None,
        )

    return build
