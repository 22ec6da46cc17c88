"""An IPython shell with the extension loaded, its magics with a fake session, and the
environment that points every client at this test's reference service."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes.session import FakeSession


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
    instance.host.lifecycle.adopt(FakeSession(instance.can_ask))
    return instance


@pytest.fixture
def pointed_at_service(reference_service, tmp_path, monkeypatch):
    """This test's fresh reference service, with the environment pointing every client (the
    magics, a kernel, a subprocess) at it: its URL, credential file, org and attached
    Project, per-test user data, and no remote-session token."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name, value in reference_service.client_env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("CLAUDE_SESSION_JWT", raising=False)
    return reference_service


@pytest.fixture
def approval_mode() -> str:
    """How the `live` magics ask a person: "auto" (cards where someone can click); a module
    whose tests click every card overrides this fixture with "widget"."""
    return "auto"


@pytest.fixture
def live(shell, pointed_at_service, approval_mode, tmp_path, monkeypatch) -> Iterator[Any]:
    """The real magics on this test's reference service, run from `tmp_path`, asking as
    `approval_mode` says (a module that needs more, such as consent given, overrides
    `live` with a fixture that takes this one)."""
    monkeypatch.chdir(tmp_path)
    magics = shell.magics_manager.registry["DesignProjects"]
    magics.approval_mode = approval_mode
    yield magics
    magics.close()
