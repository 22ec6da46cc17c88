"""The wheel as users install it: built by pip through the build hook, installed into a
fresh venv with JupyterLab and no Node.js on PATH, and reported enabled and OK by both
`jupyter labextension list` and `jupyter server extension list`; and a plain script in that
venv using only the public names (the README's "From Python" among them) against the
embedded reference service."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NAME = "jupyter-design-projects"
LABEXTENSION = f"share/jupyter/labextensions/{NAME}/"
SERVER_CONFIG = "etc/jupyter/jupyter_server_config.d/jupyter_design_projects.json"
PIP_QUIET = ["--quiet", "--disable-pip-version-check"]
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def run(*command: str | Path, env: dict[str, str] | None = None, timeout: float = 240,
        stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True, env=env,
                          timeout=timeout, check=False, input=stdin)
    assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    run(sys.executable, "-m", "pip", "wheel", *PIP_QUIET, "--no-deps", "-w", out, ROOT)
    [built] = out.glob("jupyter_design_projects-*.whl")
    return built


def test_the_wheel_carries_the_labextension_and_the_server_extension_config(wheel):
    with zipfile.ZipFile(wheel) as archive:
        data = {name.split(".data/data/", 1)[1] for name in archive.namelist()
                if ".data/data/" in name}
        in_package = [n for n in archive.namelist()
                      if n.startswith("jupyter_design_projects/labextension/")]
    assert {LABEXTENSION + "install.json", LABEXTENSION + "package.json",
            LABEXTENSION + "static/style.js", SERVER_CONFIG} <= data
    assert any(n.startswith(LABEXTENSION + "static/remoteEntry.") for n in data)
    assert in_package == []  # shipped once, where JupyterLab looks for it


def test_the_wheel_carries_reveal_js_for_the_html_export(wheel):
    from jupyter_design_projects.design.deck.reveal_assets import FILES, FOLDER

    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        folder = f"jupyter_design_projects/design/deck/{FOLDER}/"
        assert {folder + name for name in FILES} <= names
        assert archive.read(folder + "VERSION").decode().startswith("6.")


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A fresh venv with the wheel and JupyterLab (no Node.js on PATH), and the environment
    its commands run in (a private home and Jupyter dirs)."""
    tmp_path = tmp_path_factory.mktemp("installed")
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    # this interpreter's pip installs into the fresh venv (pip's wheel cache is reused)
    run(sys.executable, "-m", "pip", "--python", python, "install", *PIP_QUIET, "--no-compile",
        wheel,
        "jupyterlab>=4.4,<5", timeout=600)
    env = {
        "PATH": str(venv / "bin"),
        "HOME": str(tmp_path / "home"),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
    }
    return venv, env


def test_a_fresh_venv_without_node_lists_both_extensions_enabled_and_ok(installed):
    venv, env = installed
    assert shutil.which("node", path=env["PATH"]) is None

    lab = run(venv / "bin" / "jupyter", "labextension", "list", env=env)
    server = run(venv / "bin" / "jupyter", "server", "extension", "list", env=env)

    lab_text = ANSI.sub("", lab.stdout + lab.stderr)
    lab_lines = [line for line in lab_text.splitlines() if NAME in line]
    assert any("enabled" in line and "OK" in line and "(python, jupyter-design-projects)"
               in line for line in lab_lines), lab_text
    server_text = ANSI.sub("", server.stdout + server.stderr)
    assert "jupyter_design_projects enabled" in server_text, server_text
    assert "Validating jupyter_design_projects..." in server_text
    validated = server_text.split("Validating jupyter_design_projects...", 1)[1].splitlines()
    assert "OK" in validated[0] or "OK" in validated[1], server_text
    assert os.path.isfile(venv / LABEXTENSION / "install.json")


#: a user's script in the fresh venv: only public names; each write's callback looks at
#: the Project first, so "written only after approval" is seen, not inferred
PUBLIC_API_SCRIPT = """
import json, sys
import jupyter_design_projects
bare = sorted(m for m in ("httpx", "pandas", "ipywidgets") if m in sys.modules)
from jupyter_design_projects import ApprovalRequest, ProjectsChangeDenied, Session

PATH = "claude/from-a-script.md"
asked = []
with Session.open() as session:
    def docs():
        return [d["path"] for d in session.project.info()["docs"]]

    def callback(answer):
        def approve(request):
            assert isinstance(request, ApprovalRequest)
            asked.append({"answer": answer, "writes": list(request.writes),
                          "there_when_asked": PATH in docs()})
            return answer
        return approve

    hits = session.project.search("onboarding", n=3)
    onboarding = session.project.read("onboarding.md")["content"]
    try:
        session.project.write(PATH, content="denied text", approve=callback(None))
        denied = None
    except ProjectsChangeDenied as refusal:
        denied = refusal.reason
    after_denial = PATH in docs()
    written = session.project.write(PATH, content="approved text", approve=callback("once"))
    read_back = session.project.read(PATH)["content"]
    history = session.project.history(5)
print(json.dumps({"bare": bare, "rag": hits["rag"], "hits": [h["name"] for h in hits["hits"]],
                  "onboarding": onboarding.splitlines()[0], "denied": denied,
                  "after_denial": after_denial, "asked": asked, "written": written["path"],
                  "read_back": read_back,
                  "history": [[e["action"], e["path"], e["restore_kind"]] for e in history]}))
"""


def readme_script() -> str:
    """The Python block of the README's "From Python" section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## From Python\n", 1)[1].split("\n## ", 1)[0]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_a_script_in_a_fresh_venv_searches_reads_and_writes_only_when_approved(
        installed, tmp_path):
    venv, base = installed
    env = {**base, "JDP_DATA_DIR": str(tmp_path / "jdp")}  # a fresh embedded demo service
    script = tmp_path / "script.py"
    script.write_text(PUBLIC_API_SCRIPT)
    found = json.loads(run(venv / "bin" / "python", script, env=env, timeout=180)
                       .stdout.strip().splitlines()[-1])
    assert found["bare"] == []  # the bare import loaded no heavy dependency
    assert found["rag"] is True and "onboarding.md" in found["hits"]
    assert found["onboarding"].startswith("# Onboarding")
    assert (found["denied"], found["after_denial"]) == ("denied_on_card", False)
    assert found["asked"] == [
        {"answer": None, "writes": ["claude/from-a-script.md"], "there_when_asked": False},
        {"answer": "once", "writes": ["claude/from-a-script.md"], "there_when_asked": False}]
    assert (found["written"], found["read_back"]) == ("claude/from-a-script.md",
                                                      "approved text")
    assert found["history"] == [["create", "claude/from-a-script.md", "created"]]


def test_the_readme_script_runs_in_a_fresh_venv_and_writes_only_when_approved(
        installed, tmp_path):
    venv, base = installed
    env = {**base, "JDP_DATA_DIR": str(tmp_path / "jdp")}
    script = tmp_path / "from_python.py"
    script.write_text(readme_script())
    denied = run(venv / "bin" / "python", script, env=env, timeout=180, stdin="n\n").stdout
    approved = run(venv / "bin" / "python", script, env=env, timeout=180, stdin="y\n").stdout
    assert "hits: ['onboarding.md'" in denied and "not written: denied_on_card" in denied
    assert "claude/reading-notes.md" in denied  # the card showed where it would land
    assert "wrote claude/reading-notes.md - journal entry 1" in approved
