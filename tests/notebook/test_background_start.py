"""`%load_ext` begins opening the session in the background, so the first call finds it
ready; a setting changed before any call discards it, and unloading closes it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import jupyter_design_projects as package
from jupyter_design_projects.notebook.magics import unload


@pytest.fixture
def loaded(module_reference_service, monkeypatch) -> Iterator[Any]:
    from IPython.core.interactiveshell import InteractiveShell

    for name, value in module_reference_service.client_env().items():
        monkeypatch.setenv(name, value)
    shell = InteractiveShell.instance()
    package.load_ipython_extension(shell)  # what %load_ext runs
    try:
        yield shell, shell.magics_manager.registry["DesignProjects"]
    finally:
        unload(shell)


def test_load_ext_begins_the_session_and_the_first_call_uses_it(loaded):
    shell, magics = loaded
    started = magics.host.lifecycle.starting
    assert started is not None

    begun = started.result(timeout=60)
    info = shell.run_line_magic("project", "info")

    assert magics.session is begun and magics.host.lifecycle.starting is None
    assert info.data["project"]["name"] == "Team Handbook"


def test_a_setting_changed_before_any_call_discards_the_begun_session(loaded):
    shell, magics = loaded
    begun = magics.host.lifecycle.starting.result(timeout=60)

    shell.run_line_magic("config", "DesignProjects.http_trace = True")
    try:
        assert magics.host.lifecycle.starting is None and begun._closed  # closed, not leaked
        assert magics.session is not begun and magics.session.settings.http_trace is True
    finally:
        del shell.config.DesignProjects["http_trace"]  # the shell is shared by later tests


def test_unload_closes_a_session_no_call_used(loaded):
    shell, magics = loaded
    begun = magics.host.lifecycle.starting.result(timeout=60)

    unload(shell)

    assert begun._closed


def test_plain_load_begins_nothing(module_reference_service):
    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_design_projects.notebook.magics import load

    shell = InteractiveShell.instance()
    load(shell)
    try:
        assert shell.magics_manager.registry["DesignProjects"].host.lifecycle.starting is None
    finally:
        unload(shell)


def test_a_bad_setting_at_load_is_reported_by_the_first_call(monkeypatch):
    from IPython.core.error import UsageError
    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_design_projects.errors import ConfigError

    monkeypatch.setenv("JDP_API_BASE_URL", "http://example.com")  # plain http off loopback
    shell = InteractiveShell.instance()
    package.load_ipython_extension(shell)
    magics = shell.magics_manager.registry["DesignProjects"]
    try:
        # the background start resolves the settings, so it holds the error, unseen
        assert isinstance(magics.host.lifecycle.starting.exception(timeout=60), ConfigError)
        with pytest.raises(UsageError, match="plain http"):
            shell.run_line_magic("project", "info")
        # spent: a later call reads the settings afresh
        assert magics.host.lifecycle.starting is None
    finally:
        unload(shell)
