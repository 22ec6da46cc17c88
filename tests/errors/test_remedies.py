"""Errors speak to their reader: a remedy is data (an action and its arguments) that plain
Python words as a call and the notebook as a magic. Below `notebook/`, nothing names a
magic, and the reference service loads none of the wording."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from jupyter_design_projects import Session, Settings
from jupyter_design_projects.errors import (
    AuthError,
    NoAttachedProject,
    ProjectsAuthFailed,
)
from jupyter_design_projects.errors.calls import CALLS, as_call
from jupyter_design_projects.errors.remedy import ACTIONS, Remedy
from jupyter_design_projects.notebook.remedies import MAGICS, as_magic

PACKAGE = Path(__file__).parents[2] / "jupyter_design_projects"
MAGIC = re.compile(r"%(design|project|config)\b")
#: what is not "below the notebook": the notebook itself, and the Jupyter server extension
#: beside it, whose reader is in JupyterLab where the magics are (its side panel says
#: "read it in a notebook with %project read")
NOT_BELOW = ("notebook", "labserver")
PROJECT = "12345678-1234-1234-1234-123456789abc"


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings (module, class, function)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def test_no_string_below_the_notebook_names_a_magic():
    """Docstrings may name a magic: they speak to whoever reads the code (a module's
    docstring says which magic it serves) and never reach a person as an error or a
    page. Every other string literal can, so none may."""
    found = []
    for source in sorted(PACKAGE.rglob("*.py")):
        if source.relative_to(PACKAGE).parts[0] in NOT_BELOW:
            continue
        tree = ast.parse(source.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and id(node) not in docs and MAGIC.search(node.value)):
                found.append(f"{source.relative_to(PACKAGE)}:{node.lineno}: {node.value!r}")
    assert found == []


def test_the_scan_would_see_a_magic_in_a_message():
    tree = ast.parse('raise AuthError("no_token", "Run `%design login`.")')
    assert [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and MAGIC.search(n.value)]


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_every_action_is_worded_for_both_readers(action):
    assert action in CALLS and action in MAGICS
    remedy = Remedy(action, **dict.fromkeys(ACTIONS[action], "x"))
    assert not MAGIC.search(as_call(remedy) or ""), as_call(remedy)
    assert as_magic(remedy)


def test_both_wordings_cover_exactly_the_actions():
    assert set(CALLS) == set(MAGICS) == set(ACTIONS)


def test_a_remedy_refuses_an_unknown_action_or_argument():
    with pytest.raises(ValueError):
        Remedy("log_in")
    with pytest.raises(ValueError):
        Remedy("login", project="p")
    assert Remedy("set_setting", name="x") == Remedy("set_setting", name="x")
    assert Remedy("set_setting", name="x") != Remedy("set_setting", name="y")


def _session(tmp_path: Path, env: dict[str, str]) -> Session:
    """A plain-Python session whose every request answers 500 (no request is expected:
    each failure here is met before one)."""
    settings = Settings.resolve({"JDP_API_BASE_URL": "http://127.0.0.1:9",
                                 "JDP_CREDENTIALS_FILE": str(tmp_path / "cred.json"), **env})
    return Session(settings, data_dir=tmp_path / "data",
                   transport=httpx.MockTransport(lambda request: httpx.Response(500)))


def test_not_signed_in_from_python_names_the_python_call(tmp_path):
    with _session(tmp_path, {"CLAUDE_PROJECT_UUID": PROJECT}) as session:
        with pytest.raises(ProjectsAuthFailed) as caught:
            session.project.info()
    error = caught.value
    assert error.remedy == Remedy("login")
    assert "session.auth.login_begin()" in str(error) and "session.auth.login_finish(" in str(error)
    assert not MAGIC.search(str(error))
    assert error.to_dict()["remedy"] == {"action": "login"}


def test_a_design_call_not_signed_in_from_python_names_the_python_call(tmp_path):
    with _session(tmp_path, {}) as session:
        outcome = session.design_call("list_projects")
    assert isinstance(outcome.error, AuthError) and outcome.error.remedy == Remedy("login")
    assert "session.auth.login_begin()" in str(outcome.error)
    assert not MAGIC.search(str(outcome.error))


def test_no_attached_project_from_python_names_the_python_call(tmp_path):
    with _session(tmp_path, {}) as session:
        with pytest.raises(NoAttachedProject) as caught:
            session.project.info()
    assert caught.value.remedy == Remedy("attach_project")
    assert "Settings.resolve(os.environ, {'project_uuid'" in str(caught.value)
    assert not MAGIC.search(str(caught.value))


SERVICE_PROBE = """
import json, sys, pathlib, tempfile
from starlette.testclient import TestClient
from jupyter_design_projects.server.app import create_app
from jupyter_design_projects.server.context import ServiceConfig

app = create_app(ServiceConfig(data_dir=pathlib.Path(tempfile.mkdtemp()), seed="demo"))
with TestClient(app, base_url="http://127.0.0.1") as client:
    codes = [client.get("/api/organizations").status_code,   # refused: no token
             client.post("/v1/design/mcp", json={"jsonrpc": "2.0"}).status_code]
assert all(400 <= code < 500 for code in codes), codes
print(json.dumps(sorted(m for m in sys.modules if m.startswith("jupyter_design_projects"))))
"""


@pytest.mark.service
def test_the_reference_service_loads_no_wording_of_the_client(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
    done = subprocess.run([sys.executable, "-c", SERVICE_PROBE], capture_output=True,
                          text=True, timeout=120, check=False, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "jupyter_design_projects.server.app" in loaded  # the probe saw the service
    wording = {"jupyter_design_projects.errors.guidance", "jupyter_design_projects.errors.calls",
               "jupyter_design_projects.errors.remedy"}
    assert not loaded & wording
    assert not {m for m in loaded if m.startswith("jupyter_design_projects.notebook")}
