"""The reliability battery's fixtures: its markers and hypothesis profiles, a live Session
(the Python API) and a live IPython shell (the magics) against the reference service with
fault injection, the service's own state read from its database, and the leak check every
case ends with. The helpers themselves are in battery.py.

Long-running parts carry `@pytest.mark.slow` and are left out unless `JDP_RELIABILITY_FULL=1`
(or `-m slow`); each has a bounded twin that always runs. Hypothesis runs the "bounded"
profile by default and "full" with `JDP_RELIABILITY_FULL=1`."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from jupyter_design_projects.errors import JdpError
from jupyter_design_projects.session import Session
from tests.reliability.battery import Live, LiveShell, Scripted, settings_for, signed_in_file

FULL = os.environ.get("JDP_RELIABILITY_FULL") == "1"
HERE = Path(__file__).parent

settings.register_profile(
    "bounded", max_examples=15, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                           HealthCheck.data_too_large])
settings.register_profile(
    "full", max_examples=400, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                           HealthCheck.data_too_large])
settings.load_profile("full" if FULL else "bounded")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: a long-running reliability case, run with JDP_RELIABILITY_FULL=1 "
        "(its bounded twin always runs)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if FULL or "slow" in (config.getoption("markexpr") or ""):
        return
    def slow(item: pytest.Item) -> bool:  # this battery's slow cases only
        return item.path.is_relative_to(HERE) and item.get_closest_marker("slow") is not None

    kept = [item for item in items if not slow(item)]
    dropped = [item for item in items if slow(item)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def _open_live(service, tmp_path, caplog, capsys, **kwargs) -> Iterator[Live]:
    caplog.set_level(logging.DEBUG)
    credentials_file = signed_in_file(service, tmp_path / "client")
    answerable = {"now": False}  # whether a person can answer a card (cases switch it)
    session = Session(settings_for(service, credentials_file, **kwargs),
                      data_dir=tmp_path / "client", can_ask=lambda: answerable["now"])
    live = Live(service, session, credentials_file, caplog, capsys)
    live.answerable = answerable
    live.faults.reset()
    session.run(session.design.consent())  # cases that need no consent revoke it
    try:
        yield live
    finally:
        session.close()
        live.faults.reset()


@pytest.fixture
def live(service, tmp_path, caplog, capsys) -> Iterator[Live]:
    """A Session on the org API route with its own credential and journal."""
    yield from _open_live(service, tmp_path, caplog, capsys)


@pytest.fixture
def live_remote(service, tmp_path, caplog, capsys) -> Iterator[Live]:
    """A Session whose Projects calls take the remote-session route."""
    yield from _open_live(service, tmp_path, caplog, capsys, remote_session=True)


# ---------------------------------------------------------------- the magics


@pytest.fixture
def shell_live(live, monkeypatch, tmp_path) -> Iterator[LiveShell]:
    """The shell's magics on the same service and credential as `live` (their own Session,
    so the leak check covers both)."""
    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_design_projects.notebook.magics import load, unload
    from jupyter_design_projects.notebook.views import outcomes as views

    service = live.service
    monkeypatch.setenv("JDP_API_BASE_URL", service.base_url)
    monkeypatch.setenv("JDP_CREDENTIALS_FILE", str(live.credentials_file))
    monkeypatch.setenv("JDP_ORG_UUID", service.org_uuid)
    monkeypatch.setenv("CLAUDE_PROJECT_UUID", service.project_uuid)
    monkeypatch.delenv("CLAUDE_SESSION_JWT", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    ip = InteractiveShell.instance()
    load(ip)
    magics = ip.magics_manager.registry["DesignProjects"]
    magics.approval_mode = "widget"
    magics.http_trace = True
    driver = LiveShell(ip, magics, live)
    original = views.one_line

    def spy(error: JdpError) -> str:
        driver.errors.append(error)
        return original(error)

    monkeypatch.setattr(views, "one_line", spy)
    live.sessions.append(magics.session)
    try:
        yield driver
    finally:
        unload(ip)


# ---------------------------------------------------------------- scripted servers


@pytest.fixture(scope="module")
def real_tools(service, tmp_path_factory):
    """The reference service's catalogue, served again by scripted servers."""
    directory = tmp_path_factory.mktemp("tools")
    path = signed_in_file(service, directory)
    with Session(settings_for(service, path), data_dir=directory) as session:
        return session.run(session.design.session.tools())


@pytest.fixture
def scripted(tmp_path, caplog, capsys, real_tools):
    made: list[Scripted] = []

    def make(script) -> Scripted:
        made.append(Scripted(tmp_path, script, caplog, capsys))
        return made[-1]

    make.tools = real_tools
    yield make
    for one in made:
        one.close()
