"""jupyter-design-projects: `%design` and `%project` magics for a remote design canvas and
a team's Project knowledge. `%load_ext jupyter_design_projects` registers the magics and
begins opening the session in the background (with no service configured: the Jupyter
server's reference service, or one this process starts), so the first call finds it
ready; heavy dependencies load on first use. Under a Jupyter server the server extension
(`labserver`) serves the side panel and runs the server's one reference service."""

from __future__ import annotations

__all__ = [
    "__version__", "agent_tools", "core", "design", "embedded", "errors", "labserver",
    "load_ipython_extension", "notebook", "projects", "service_file", "session", "settings",
    "transport", "unload_ipython_extension"
]

__version__ = "0.1.0"


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
