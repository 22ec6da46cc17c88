"""What `%load_ext` loads ahead for the first call (issue 41: the first call is fast
again): on a thread of its own, the call path, the Projects pipeline and httpx, but not
httpx's command line (click and rich, ~90 modules, installed here); httpx's own
`_main` stays importable afterwards. Each probe is a fresh interpreter; the last one
shows that a plain `import httpx` here does load the command line, so the check can fail."""

from __future__ import annotations

import importlib.util
import os

from tests.import_probe import among, probe_answer

#: httpx's command line brings these in when they are installed
CLI = ("rich", "click")

PROBE = """
import json, sys, threading
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
shell.run_line_magic("load_ext", "jupyter_design_projects")
starting = shell.magics_manager.registry["DesignProjects"].host.lifecycle.starting
assert starting.exception(timeout=60) is not None  # the bad setting, after the warm began
for thread in threading.enumerate():
    if thread.name == "jdp-first-call-imports":
        thread.join(60)
loaded = sorted(sys.modules)
import httpx._main  # still importable: the block lasted only for httpx's own import
print(json.dumps(loaded))
"""


def _loaded(code: str) -> set[str]:
    # a bad setting ends the background start at once: no service is started
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("JDP_", "CLAUDE_"))},
           "JDP_API_BASE_URL": "http://example.com"}
    return set(probe_answer(code, env))


def test_load_ext_loads_the_projects_pipeline_ahead_without_httpx_command_line():
    assert all(importlib.util.find_spec(name) for name in CLI)  # installed: a real check
    loaded = _loaded(PROBE)
    assert {"httpx", "jupyter_design_projects.projects.client",
            "jupyter_design_projects.notebook.commands.run", "anyio._backends._asyncio"} <= loaded
    assert among(loaded, CLI) == set()
    assert among(loaded, ("pandas", "ipywidgets")) == set()


def test_a_plain_httpx_import_here_would_load_its_command_line():
    """The check above can fail: httpx's `__init__` imports click and rich here."""
    loaded = _loaded("import json, sys, httpx; print(json.dumps(sorted(sys.modules)))")
    assert set(CLI) <= loaded
