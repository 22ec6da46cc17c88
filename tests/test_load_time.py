"""`%load_ext jupyter_design_projects` stays light: the heavy dependencies (pandas,
ipywidgets, the reference service's mcp / starlette / uvicorn, the server extension's
jupyter_server and tornado) load only on first use — neither `%load_ext` itself nor the
session it begins opening in the background imports them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

HEAVY = ("pandas", "ipywidgets", "mcp", "starlette", "uvicorn", "jupyter_server", "tornado")

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
print(json.dumps(sorted(m for m in set(sys.modules) - before if m.split(".")[0] in heavy)))
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
