"""`%load_ext jupyter_design_projects` stays light: the heavy dependencies (pandas,
ipywidgets, the reference service's mcp / starlette / uvicorn, the lab status route's
jupyter_server) load only on first use."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("pandas", "ipywidgets", "mcp", "starlette", "uvicorn", "jupyter_server")

PROBE = """
import json, sys
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
before = set(sys.modules)
shell.run_line_magic("load_ext", "jupyter_design_projects")
assert "design" in shell.magics_manager.magics["line"]
assert "project" in shell.magics_manager.magics["line"]
heavy = %r
print(json.dumps(sorted(m for m in set(sys.modules) - before if m.split(".")[0] in heavy)))
"""


def test_load_ext_imports_no_heavy_dependency():
    done = subprocess.run([sys.executable, "-c", PROBE % (HEAVY,)], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_the_probe_would_see_a_heavy_import():
    """The check above can fail: importing the catalogue view does pull in ipywidgets."""
    probe = PROBE.replace('shell.run_line_magic("load_ext", "jupyter_design_projects")',
                          'shell.run_line_magic("load_ext", "jupyter_design_projects")\n'
                          "import jupyter_design_projects.notebook.catalogue as c\n"
                          "c.CatalogueView([])")
    done = subprocess.run([sys.executable, "-c", probe % (HEAVY,)], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "ipywidgets" in json.loads(done.stdout.strip().splitlines()[-1])
