"""An IPython shell with the extension loaded, and its magics with a fake session."""

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
