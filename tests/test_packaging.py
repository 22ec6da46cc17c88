"""The wheel as users install it: built by pip through the build hook, installed into a
fresh venv with JupyterLab and no Node.js on PATH, and reported enabled and OK by both
`jupyter labextension list` and `jupyter server extension list`."""

from __future__ import annotations

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


def run(*command: str | Path, env: dict[str, str] | None = None, timeout: float = 240
        ) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True, env=env,
                          timeout=timeout, check=False)
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


def test_a_fresh_venv_without_node_lists_both_extensions_enabled_and_ok(wheel, tmp_path):
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
