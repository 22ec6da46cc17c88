"""`%load_ext jupyter_design_projects` stays light: the heavy dependencies (pandas,
ipywidgets, the reference service's mcp / starlette / uvicorn and its package, the server
extension's jupyter_server and tornado and its package) load only on first use — neither
`%load_ext` itself nor the session it begins opening in the background imports them. And
`%load_ext` itself (the main thread) imports only the magics class: the session, the HTTP
stack and the pipelines load in the background, and the call path (grammar, dispatch,
views, errors) with the first call."""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx

from jupyter_design_projects.transport.http import loopback_tls
from tests.import_probe import among, probe_answer

HEAVY = ("pandas", "ipywidgets", "mcp", "starlette", "uvicorn", "jupyter_server", "tornado",
         "jupyter_design_projects.server", "jupyter_design_projects.labserver")

PROBE = """
import json, sys
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
before = set(sys.modules)
shell.run_line_magic("load_ext", "jupyter_design_projects")
assert "design" in shell.magics_manager.magics["line"]
assert "project" in shell.magics_manager.magics["line"]
magics = shell.magics_manager.registry["DesignProjects"]
starting = magics.host.lifecycle.starting
assert starting is not None  # load_ext began opening the session
session = starting.result(timeout=90)  # the background start, warm-up included
assert session.embedded is not None and session.embedded.running
heavy = %r
print(json.dumps(sorted(m for m in set(sys.modules) - before
                        if any(m == h or m.startswith(h + ".") for h in heavy))))
"""


def private_data(tmp_path) -> dict[str, str]:
    """The probe's embedded service keeps its data under the test's own directory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JDP_", "CLAUDE_"))}
    return {**env, "XDG_DATA_HOME": str(tmp_path)}


def test_load_ext_imports_no_heavy_dependency(tmp_path):
    assert probe_answer(PROBE % (HEAVY,), private_data(tmp_path)) == []


def test_the_probe_would_see_a_heavy_import(tmp_path):
    """The check above can fail: importing the catalogue view does pull in ipywidgets."""
    probe = PROBE.replace('shell.run_line_magic("load_ext", "jupyter_design_projects")',
                          'shell.run_line_magic("load_ext", "jupyter_design_projects")\n'
                          "import jupyter_design_projects.notebook.widgets.catalogue as c\n"
                          "c.CatalogueView([])")
    assert "ipywidgets" in probe_answer(probe % (HEAVY,), private_data(tmp_path))


#: what `%load_ext` itself (the main thread: registering the magics, beginning the start)
#: must not load: the heavy dependencies, the HTTP stack, the pipelines and the session
#: (the background start loads them), and the call path: the grammar and its subcommand
#: table, the dispatch and action tables, the views and the error tree (the first call
#: loads them; the settings' declarations load, their checks' errors do not)
NOT_ON_THE_LOAD_PATH = HEAVY + (
    "httpx", "httpcore", "anyio", "platformdirs", "jupyter_design_projects.server",
    "jupyter_design_projects.labserver", "jupyter_design_projects.transport",
    "jupyter_design_projects.embedded", "jupyter_design_projects.projects",
    "jupyter_design_projects.design", "jupyter_design_projects.core.permissions",
    "jupyter_design_projects.core.plans", "jupyter_design_projects.core.budgets",
    "jupyter_design_projects.core.validation", "jupyter_design_projects.core.display",
    "jupyter_design_projects.core.results",
    "jupyter_design_projects.notebook.widgets.progress",
    "jupyter_design_projects.notebook.widgets.cards",
    "jupyter_design_projects.notebook.grammar.parse",
    "jupyter_design_projects.notebook.grammar.subcommands",
    "jupyter_design_projects.notebook.grammar.plain_lines",
    "jupyter_design_projects.notebook.commands.run",
    "jupyter_design_projects.notebook.views.outcomes",
    "jupyter_design_projects.notebook.views.outcome",
    "jupyter_design_projects.notebook.views.tables",
    "jupyter_design_projects.notebook.commands.design",
    "jupyter_design_projects.notebook.commands.project", "jupyter_design_projects.errors",
    "jupyter_design_projects.session",
    "sqlite3", "hashlib", "html", "difflib", "base64",
)

#: the whole of this package that `%load_ext` itself imports: the magics class and what it
#: is built from, the settings' declarations its traits are read from included (a new
#: module here is a new cost on every `%load_ext`)
ON_THE_LOAD_PATH = {
    "jupyter_design_projects.settings", "jupyter_design_projects.notebook.setting_traits",
    "jupyter_design_projects", "jupyter_design_projects.core",
    "jupyter_design_projects.core.trace_limits", "jupyter_design_projects.notebook",
    "jupyter_design_projects.notebook.host", "jupyter_design_projects.notebook.lifecycle",
    "jupyter_design_projects.notebook.magics",
}

#: `%load_ext`, noting each module the main thread imports (a finder that finds nothing
#: sees every first import, and the thread asking). The background start meets a bad
#: setting and ends at once: it starts no service
MAIN_THREAD_PROBE = """
import json, sys, threading
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()

class Seen:
    def __init__(self):
        self.names = []

    def find_spec(self, name, path=None, target=None):
        if threading.current_thread() is threading.main_thread():
            self.names.append(name)
        return None

seen = Seen()
sys.meta_path.insert(0, seen)
%(before)s
shell.run_line_magic("load_ext", "jupyter_design_projects")
sys.meta_path.remove(seen)
starting = shell.magics_manager.registry["DesignProjects"].host.lifecycle.starting
assert starting is not None and starting.exception(timeout=60) is not None
print(json.dumps(seen.names))
"""


def _main_thread_imports(tmp_path, before: str = "") -> list[str]:
    """Every module `%load_ext` (and `before`, run just before it) imports on the main
    thread. (`before` goes first: run after, it would race `%load_ext`'s background
    start, which may import the same modules first on its own thread.)"""
    env = {**private_data(tmp_path), "JDP_API_BASE_URL": "http://example.com"}
    return probe_answer(MAIN_THREAD_PROBE % {"before": before}, env)


def test_load_ext_itself_imports_only_the_magics_class(tmp_path):
    imported = _main_thread_imports(tmp_path)
    assert among(imported, NOT_ON_THE_LOAD_PATH) == set()
    assert among(imported, ("jupyter_design_projects",)) == ON_THE_LOAD_PATH


def test_the_main_thread_probe_would_see_a_pipeline_import(tmp_path):
    """The check above can fail: the Design client (and the HTTP stack under it) is seen."""
    found = _main_thread_imports(tmp_path, "import jupyter_design_projects.design.client")
    assert {"jupyter_design_projects.design.client", "httpx"} <= among(
        found, NOT_ON_THE_LOAD_PATH)


#: `import jupyter_design_projects` alone (a script's first line): the public names load
#: on first use, so none of this is imported yet
BARE_IMPORT_PROBE = """
import json, sys
before = set(sys.modules)
import jupyter_design_projects
assert "Session" in jupyter_design_projects.__all__ and "Session" in dir(jupyter_design_projects)
%s
unwanted = %r
print(json.dumps(sorted(m for m in set(sys.modules) - before
                        if any(m == u or m.startswith(u + ".") for u in unwanted))))
"""


def _bare_import_loads(tmp_path, extra: str = "") -> list[str]:
    probe = BARE_IMPORT_PROBE % (extra, NOT_ON_THE_LOAD_PATH)
    return probe_answer(probe, private_data(tmp_path))


def test_the_bare_import_loads_neither_httpx_pandas_ipywidgets_nor_a_pipeline(tmp_path):
    assert _bare_import_loads(tmp_path) == []


def test_the_bare_import_probe_would_see_a_public_name_that_loads_a_pipeline(tmp_path):
    """The check above can fail: using the Projects facade loads its client and httpx."""
    found = _bare_import_loads(tmp_path, "jupyter_design_projects.ProjectFacade")
    assert "jupyter_design_projects.projects.client" in found and "httpx" in found



#: the MCP SDK's compiled part: mapped into a process once pydantic (which the SDK and the
#: Design tools' argument models need) is imported
SDK_MARK = "pydantic_core"


def _mapped(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


def test_the_embedded_service_answers_projects_calls_without_loading_the_mcp_sdk(tmp_path):
    """The real `jdp-server` process, as the embedded default starts it: ready, a Projects
    and a Design REST call answered, and the SDK not loaded; the first MCP request then
    loads it and is answered by it (server/design/endpoint.py)."""
    from jupyter_design_projects.embedded import start_embedded
    from tests.design_headers import DESIGN_HEADERS

    service = start_embedded(tmp_path / "service", extra_args=("--no-warm-browser",))
    try:
        assert service.process is not None
        auth = {"Authorization": "Bearer " + json.loads(
            service.credentials_file.read_text())["access_token"], **DESIGN_HEADERS}
        with httpx.Client(base_url=service.base_url, timeout=60.0, headers=auth,
                          verify=loopback_tls()) as client:
            # a Projects route (403: a new user's first credential has no project scope
            # until the client expands it) and a Design REST route, both answered
            projects = client.get(f"/api/organizations/{service.org_uuid}/projects")
            assert projects.status_code == 403
            assert projects.json()["error"]["type"] == "permission_error"
            assert client.get("/v1/design/consent").status_code == 200
            assert SDK_MARK not in _mapped(service.process.pid)
            init = client.post("/v1/design/mcp", headers={
                "accept": "application/json, text/event-stream"}, json={
                "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-03-26", "capabilities": {},
                    "clientInfo": {"name": "probe", "version": "1"}}})
        assert init.status_code == 200 and "mcp-session-id" in init.headers
        assert SDK_MARK in _mapped(service.process.pid)
    finally:
        service.stop()
