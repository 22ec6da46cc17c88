"""`%load_ext jupyter_design_projects` stays light: the heavy dependencies (pandas,
ipywidgets, the reference service's mcp / starlette / uvicorn and its package, the server
extension's jupyter_server and tornado and its package) load only on first use — neither
`%load_ext` itself nor the session it begins opening in the background imports them. And
`%load_ext` itself (the main thread) imports only the magics and their grammar: the HTTP
stack and the pipelines load in the background."""

from __future__ import annotations

import json
import os
import subprocess
import sys

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
starting = magics._starting
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
    done = subprocess.run([sys.executable, "-c", PROBE % (HEAVY,)], capture_output=True,
                          text=True, timeout=120, check=False, env=private_data(tmp_path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_the_probe_would_see_a_heavy_import(tmp_path):
    """The check above can fail: importing the catalogue view does pull in ipywidgets."""
    probe = PROBE.replace('shell.run_line_magic("load_ext", "jupyter_design_projects")',
                          'shell.run_line_magic("load_ext", "jupyter_design_projects")\n'
                          "import jupyter_design_projects.notebook.catalogue as c\n"
                          "c.CatalogueView([])")
    done = subprocess.run([sys.executable, "-c", probe % (HEAVY,)], capture_output=True,
                          text=True, timeout=120, check=False, env=private_data(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "ipywidgets" in json.loads(done.stdout.strip().splitlines()[-1])


#: what `%load_ext` itself (the main thread: registering the magics, beginning the start)
#: must not load: the heavy dependencies, the HTTP stack and the pipelines, which the
#: background start and the first call load
NOT_ON_THE_LOAD_PATH = HEAVY + (
    "httpx", "httpcore", "anyio", "platformdirs", "jupyter_design_projects.server",
    "jupyter_design_projects.labserver", "jupyter_design_projects.transport",
    "jupyter_design_projects.embedded", "jupyter_design_projects.projects.client",
    "jupyter_design_projects.design.client", "jupyter_design_projects.design.deck.deck",
    "jupyter_design_projects.design.deck.staging", "jupyter_design_projects.core.permissions",
    "jupyter_design_projects.notebook.progress", "jupyter_design_projects.notebook.cards",
    "sqlite3", "hashlib",
)

#: `%load_ext` with the background start held at its first step until the main thread's
#: imports are recorded, so only what the load path itself imports is seen
MAIN_THREAD_PROBE = """
import json, sys, threading
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
from jupyter_design_projects import session
gate = threading.Event()
opening = session.Session.open.__func__
def held(cls, *args, **kwargs):
    gate.wait(60)
    return opening(cls, *args, **kwargs)
session.Session.open = classmethod(held)
before = set(sys.modules)
shell.run_line_magic("load_ext", "jupyter_design_projects")
%s
loaded = set(sys.modules) - before
gate.set()
assert shell.magics_manager.registry["DesignProjects"]._starting is not None
unwanted = %r
print(json.dumps(sorted(m for m in loaded
                        if any(m == u or m.startswith(u + ".") for u in unwanted))))
"""


def _main_thread_imports(tmp_path, extra: str = "") -> list[str]:
    probe = MAIN_THREAD_PROBE % (extra, NOT_ON_THE_LOAD_PATH)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, check=False, env=private_data(tmp_path))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_load_ext_itself_imports_only_the_magics_and_their_grammar(tmp_path):
    assert _main_thread_imports(tmp_path) == []


def test_the_main_thread_probe_would_see_a_pipeline_import(tmp_path):
    """The check above can fail: the Design client (and the HTTP stack under it) is seen."""
    found = _main_thread_imports(tmp_path, "import jupyter_design_projects.design.client")
    assert "jupyter_design_projects.design.client" in found and "httpx" in found


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
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, check=False, env=private_data(tmp_path))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_bare_import_loads_neither_httpx_pandas_ipywidgets_nor_a_pipeline(tmp_path):
    assert _bare_import_loads(tmp_path) == []


def test_the_bare_import_probe_would_see_a_public_name_that_loads_a_pipeline(tmp_path):
    """The check above can fail: using the Projects facade loads its client and httpx."""
    found = _bare_import_loads(tmp_path, "jupyter_design_projects.ProjectFacade")
    assert "jupyter_design_projects.projects.client" in found and "httpx" in found

