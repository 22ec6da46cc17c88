"""jupyter-design-projects: `%design` and `%project` magics for a remote design canvas and
a team's Project knowledge, and the same two pipelines for plain Python.

In a notebook, `%load_ext jupyter_design_projects` registers the magics and begins opening
the session in the background (with no service configured: the Jupyter server's reference
service, or one this process starts), so the first call finds it ready. Under a Jupyter
server the server extension (`labserver`) serves the side panel and runs the server's one
reference service.

From Python, the curated names below are the public API:

    from jupyter_design_projects import Session

    with Session.open() as session:          # the settings from the environment
        hits = session.project.search("onboarding")["hits"]
        outcome = session.design_call("list_projects", approve=ask_me)

Each name loads its module on first use (PEP 562), so `import jupyter_design_projects`
loads neither httpx, pandas nor ipywidgets, and `%load_ext` stays light.
"""

from __future__ import annotations

#: False at run time, read by type checkers (which follow the imports under it): importing
#: typing.TYPE_CHECKING would load typing and re, most of a script's bare import
_TYPE_CHECKING = False
if _TYPE_CHECKING:
    from typing import Any

    from .agent_tools import AgentTools, tool_definitions
    from .core.cards import ApprovalRequest
    from .design.approval import DesignOutcome, PendingApproval
    from .errors import (
        AuthError,
        ConfigError,
        DesignError,
        GateClosed,
        JdpError,
        PermissionDenied,
        ProjectsApiError,
        ProjectsChangeDenied,
        ProjectsError,
        TransportError,
    )
    from .notebook.views.outcome import Outcome, PendingOutcome
    from .projects.facade import ProjectFacade
    from .session import Session
    from .settings import Settings

#: each public name → the module (under this package) that defines it
_PUBLIC: dict[str, str] = {
    # opening and configuring
    "Session": "session",
    "Settings": "settings",
    "ProjectFacade": "projects.facade",
    # what the calls return and ask
    "ApprovalRequest": "core.cards",
    "DesignOutcome": "design.approval",
    "PendingApproval": "design.approval",
    "Outcome": "notebook.views.outcome",
    "PendingOutcome": "notebook.views.outcome",
    # the model's tools
    "AgentTools": "agent_tools",
    "tool_definitions": "agent_tools",
    # the bases of the error tree (every error: `jupyter_design_projects.errors`)
    "JdpError": "errors",
    "TransportError": "errors",
    "AuthError": "errors",
    "ConfigError": "errors",
    "GateClosed": "errors",
    "DesignError": "errors",
    "PermissionDenied": "errors",
    "ProjectsError": "errors",
    "ProjectsApiError": "errors",
    "ProjectsChangeDenied": "errors",
}

__all__ = [
    "AgentTools", "ApprovalRequest", "AuthError", "ConfigError", "DesignError",
    "DesignOutcome", "GateClosed", "JdpError", "Outcome", "PendingApproval",
    "PendingOutcome", "PermissionDenied", "ProjectFacade", "ProjectsApiError",
    "ProjectsChangeDenied", "ProjectsError", "Session", "Settings", "TransportError",
    "__version__", "load_ipython_extension", "tool_definitions", "unload_ipython_extension",
]

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """A public name, its module imported on first use (PEP 562)."""
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def load_ipython_extension(ipython):  # pragma: no cover - exercised by notebook tests
    from .notebook.magics import load, start_session

    load(ipython)
    start_session(ipython)


def unload_ipython_extension(ipython):  # pragma: no cover - exercised by notebook tests
    from .notebook.magics import unload

    unload(ipython)


def _jupyter_labextension_paths():
    return [{"src": "labextension", "dest": "jupyter-design-projects"}]


def _jupyter_server_extension_points():
    return [{"module": "jupyter_design_projects.labserver"}]
