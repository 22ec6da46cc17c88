"""The JupyterLab extension's own checks, run from pytest so `python3 tasks.py test` runs
them: `jlpm lint:check` (Stylelint, Prettier, ESLint with no warnings allowed) and
`jlpm test` (tsc over the sources and tests, then jest). Each uses the venv's jlpm and the
Node.js that tasks.py put on the venv's PATH; any error fails the test with its output."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LABEXT = ROOT / "labextension"
#: a cold `jlpm test` on a busy two-core machine takes about a minute
SCRIPT_TIMEOUT_S = 600.0
OUTPUT_TAIL_CHARS = 6000


def venv_bin() -> Path:
    """The venv's bin: tasks.py's `.venv`, else the one running these tests."""
    local = ROOT / ".venv" / "bin"
    return local if (local / "jlpm").exists() else Path(sys.executable).parent


def tool_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{venv_bin()}{os.pathsep}{env.get('PATH', '')}"
    env["CI"] = "true"  # jest: no watch mode, no interactive output
    env.pop("NODE_OPTIONS", None)
    return env


def jlpm(*args: str) -> subprocess.CompletedProcess[str]:
    command = [str(venv_bin() / "jlpm"), *args]
    return subprocess.run(command, cwd=LABEXT, env=tool_env(), capture_output=True,
                          text=True, timeout=SCRIPT_TIMEOUT_S, stdin=subprocess.DEVNULL)


def explain(result: subprocess.CompletedProcess[str]) -> str:
    out = (result.stdout + "\n" + result.stderr)[-OUTPUT_TAIL_CHARS:]
    return f"`{' '.join(result.args[1:])}` exited {result.returncode}:\n{out}"


@pytest.fixture(scope="module")
def installed() -> None:
    if not (venv_bin() / "jlpm").exists():
        pytest.fail(f"no jlpm in {venv_bin()}: run `python3 tasks.py test` (installs jupyterlab)")
    if shutil.which("node", path=tool_env()["PATH"]) is None:
        pytest.fail("no node on PATH or in the venv: run `python3 tasks.py test`")
    if not (LABEXT / "node_modules").is_dir():
        result = jlpm("install", "--immutable")
        assert result.returncode == 0, explain(result)


@pytest.mark.parametrize("script", ["lint:check", "test"])
def test_labextension_script_passes(installed, script: str) -> None:
    result = jlpm(script)
    assert result.returncode == 0, explain(result)
    if script == "test":
        assert "Tests:" in result.stdout + result.stderr
        assert " failed" not in result.stdout + result.stderr
