"""An IPython shell with the extension loaded, its magics with a fake session, and the
environment that points every client at this test's reference service."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from nb_fakes import FakeSession


@pytest.fixture
def shell() -> Iterator[Any]:
    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_design_projects.notebook.magics import load, unload

    ip = InteractiveShell.instance()
    load(ip)
    try:
        yield ip
    finally:
        unload(ip)


@pytest.fixture
def magics(shell):
    instance = shell.magics_manager.registry["DesignProjects"]
    instance._session = FakeSession(instance.can_ask)
    return instance


@pytest.fixture
def pointed_at_service(reference_service, tmp_path, monkeypatch):
    """This test's fresh reference service, with the environment pointing every client (the
    magics, a kernel, a subprocess) at it: its URL, credential file, org and attached
    Project, per-test user data, and no remote-session token."""
    for name, value in {
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "JDP_API_BASE_URL": reference_service.base_url,
        "JDP_CREDENTIALS_FILE": str(reference_service.credentials_file),
        "JDP_ORG_UUID": reference_service.org_uuid,
        "CLAUDE_PROJECT_UUID": reference_service.project_uuid,
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("CLAUDE_SESSION_JWT", raising=False)
    return reference_service
