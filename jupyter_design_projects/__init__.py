"""jupyter-design-projects: `%design` and `%project` magics for a remote design canvas and
a team's Project knowledge. `%load_ext jupyter_design_projects` registers the magics and
changes nothing process-wide; heavy dependencies load on first use."""

from __future__ import annotations

__all__ = [
    "__version__", "agent_tools", "core", "design", "embedded", "errors",
    "load_ipython_extension", "notebook", "projects", "session", "settings", "transport",
    "unload_ipython_extension"
]

__version__ = "0.1.0"


def load_ipython_extension(ipython):  # pragma: no cover - exercised by notebook tests
    from .notebook.magics import load

    load(ipython)


def unload_ipython_extension(ipython):  # pragma: no cover - exercised by notebook tests
    from .notebook.magics import unload

    unload(ipython)


def _jupyter_labextension_paths():
    return [{"src": "labextension", "dest": "jupyter-design-projects"}]


def _jupyter_server_extension_points():
    return [{"module": "jupyter_design_projects.notebook.lab_status"}]
