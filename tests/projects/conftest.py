"""The `open_projects` fixture: a ProjectsClient on either route against a reference
service, with the test-only auth of projects_harness."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from projects_harness import Expander, StaticBearer, settings_for

from jupyter_design_projects.embedded import EmbeddedService
from jupyter_design_projects.projects.client import ProjectsClient
from jupyter_design_projects.projects.journal import Journal
from jupyter_design_projects.transport.http import make_client


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
