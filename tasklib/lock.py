"""The environment from a lock file (stdlib only: tasks.py runs under any python3).

`requirements.lock` pins, with hashes, every package the `test` and `lab` extras, the
package's own dependencies and its build backend need, for every platform and Python the
project supports (`uv pip compile --universal`). uv installs it (seconds from a warm cache),
then the project itself, editable, with no dependency resolution and no isolated build
environment: nothing a run installs comes from outside the lock.

The lock's first line is the digest of what it was made from: the dependency tables of
pyproject.toml (`[project] dependencies`, `[project.optional-dependencies]`,
`[build-system] requires`). When they change and the lock was not made again, `check`
fails naming the command that makes it again (`python3 tasks.py lock`)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import tomllib
from pathlib import Path

#: uv itself, put into the venv with pip (the one thing pip installs)
UV_VERSION = "0.13.9"
#: the extras the lock covers (`lab` is in `test` today; named so it stays covered)
EXTRAS = ("test", "lab")
#: locked beside pyproject's tables: what hatchling asks for to build an editable install
#: (`get_requires_for_build_editable`: editables), which runs without build isolation; and
#: pip, for what runs `python -m pip` in the venv (the packaging tests build the wheel with
#: it), since tasks.py makes the venv without one
TOOLS = ("editables~=0.3", "pip")
#: the Python the lock is resolved for at least (pyproject's requires-python)
PYTHON_FLOOR = "3.11"
DIGEST_PREFIX = "# inputs-sha256: "
REFRESH = "python3 tasks.py lock"


class StaleLock(Exception):
    """The lock does not match pyproject.toml's dependency tables (or is missing)."""


def inputs(pyproject: Path) -> dict[str, object]:
    """What the lock is made from: pyproject's dependency tables."""
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    project = data.get("project", {})
    return {"dependencies": project.get("dependencies", []),
            "optional-dependencies": project.get("optional-dependencies", {}),
            "build-system.requires": data.get("build-system", {}).get("requires", [])}


def inputs_digest(pyproject: Path) -> str:
    canonical = json.dumps(inputs(pyproject), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def recorded_digest(lock: Path) -> str | None:
    """The digest the lock's first line records, or None (no lock, or no such line)."""
    try:
        with lock.open(encoding="utf-8") as file:
            first = file.readline().strip()
    except FileNotFoundError:
        return None
    return first[len(DIGEST_PREFIX):] if first.startswith(DIGEST_PREFIX) else None


def check(pyproject: Path, lock: Path) -> None:
    """StaleLock, saying what to run, unless the lock was made from pyproject as it is."""
    recorded = recorded_digest(lock)
    if recorded is None:
        raise StaleLock(f"{lock.name} is missing or was not made by `{REFRESH}`: run "
                        f"`{REFRESH}` and commit {lock.name}")
    if recorded != inputs_digest(pyproject):
        raise StaleLock(
            f"pyproject.toml's dependencies changed since {lock.name} was made, so a run "
            f"would not install what pyproject asks for: run `{REFRESH}` (uv resolves them "
            f"again) and commit {lock.name} with pyproject.toml")


def compile_command(uv: Path, pyproject: Path) -> list[str]:
    """`uv pip compile` of the lock: pyproject's dependencies and extras, plus the build
    backend's requirements and TOOLS read from stdin, hashed, for every platform."""
    extras = [arg for extra in EXTRAS for arg in ("--extra", extra)]
    return [str(uv), "pip", "compile", "--quiet", "--universal", "--generate-hashes",
            "--python-version", PYTHON_FLOOR, "--custom-compile-command", REFRESH,
            "--no-emit-package", "jupyter-design-projects", *extras,
            str(pyproject.name), "-"]


def refresh(uv: Path, pyproject: Path, lock: Path) -> None:
    """Resolve pyproject's dependency tables again and write the lock, its digest first."""
    requires = inputs(pyproject)["build-system.requires"]
    assert isinstance(requires, list)
    build = "\n".join([*requires, *TOOLS])
    done = subprocess.run(compile_command(uv, pyproject), cwd=pyproject.parent, input=build,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"[tasks] uv pip compile failed:\n{done.stderr}")
    lock.write_text(f"{DIGEST_PREFIX}{inputs_digest(pyproject)}\n{done.stdout}",
                    encoding="utf-8")


def install_commands(uv: Path, python: Path, lock: Path) -> list[list[str]]:
    """Everything in the lock (hashes checked), then the project, editable, alone: its
    build backend is already installed from the lock, so no isolated build environment
    resolves one of its own."""
    target = ["--python", str(python)]
    return [[str(uv), "pip", "install", "--quiet", *target, "--require-hashes", "-r",
             str(lock)],
            [str(uv), "pip", "install", "--quiet", *target, "--no-deps",
             "--no-build-isolation", "-e", "."]]
