"""The import rules of docs/architecture.md, checked by walking every module's imports."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "jupyter_design_projects"
CLIENT = {"core", "transport", "design", "projects", "notebook", "labserver", "session",
          "settings", "errors", "embedded", "service_file"}
UI = {"ipywidgets", "pandas", "IPython"}
#: the Jupyter server's own packages: only the server extension (`labserver/`) imports them
JUPYTER_SERVER = {"jupyter_server", "tornado"}
#: the pure-data modules of core/ that both sides read: the service registers from them and
#: the client checks against them, so a fact of the wire is declared once. They import
#: only the standard library and other core modules (the core rule below), so the service
#: still reaches no client code that does I/O.
SHARED_WITH_SERVER = {"jupyter_design_projects.core.design_operations"}
#: what core/ may not import: a clock (time, datetime), randomness (random, secrets, uuid),
#: the network (socket, ssl, http, urllib.request, asyncio, selectors, select, httpx, mcp,
#: starlette) or the filesystem and other processes (os, pathlib, shutil, tempfile, glob,
#: fcntl, io, sqlite3, subprocess, threading, filelock, keyring). urllib.parse and
#: posixpath stay allowed: they only parse strings.
IMPURE = {"time", "datetime", "random", "secrets", "uuid", "socket", "ssl", "http",
          "urllib.request", "asyncio", "selectors", "select", "httpx", "mcp", "starlette",
          "os", "pathlib", "shutil", "tempfile", "glob", "fcntl", "io", "sqlite3",
          "subprocess", "threading", "filelock", "keyring"}
#: the only modules outside server/ that may import it (tests may too; they are not here)
MAY_IMPORT_SERVER = {"embedded"}


def imports_of(path: Path) -> set[str]:
    """Absolute names imported by a module, relative imports resolved to the package."""
    module = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = module[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join(base + ((node.module,) if node.module else ()))
                if node.module is None:
                    found.update(f"{name}.{alias.name}" for alias in node.names)
                else:
                    found.add(name)
            else:
                found.add(node.module or "")
    return found


def area(name: str) -> str | None:
    parts = name.split(".")
    if parts[0] != "jupyter_design_projects":
        return None
    return parts[1] if len(parts) > 1 else ""


MODULES = sorted(PACKAGE.rglob("*.py"))


def module_area(path: Path) -> str:
    rel = path.relative_to(PACKAGE).parts
    return rel[0].removesuffix(".py") if rel else ""


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_respects_the_import_rules(path: Path) -> None:
    own = module_area(path)
    names = imports_of(path)
    areas = {area(n) for n in names} - {None}
    tops = {n.split(".")[0] for n in names}
    if own == "core":
        assert areas <= {"core", "errors"}, names
        assert not tops & UI, names
    if own == "server":
        assert not {area(n) for n in names - SHARED_WITH_SERVER} & CLIENT, names
    elif own not in MAY_IMPORT_SERVER:
        assert "server" not in areas, names
    if own == "transport":
        assert not areas & {"design", "projects", "notebook"}, names
    if own == "design":
        assert not areas & {"projects", "notebook"}, names
    if own == "projects":
        assert not areas & {"design", "notebook"}, names
    if own not in ("notebook", "server"):
        assert not tops & UI, names
    if own != "labserver":
        assert not tops & JUPYTER_SERVER, names
    if own == "notebook":
        assert "labserver" not in areas, names  # %load_ext never reaches the server extension


def test_shared_modules_reach_only_core() -> None:
    """What the service imports from core/ pulls in nothing but core/ and the stdlib."""
    for name in SHARED_WITH_SERVER:
        path = PACKAGE.parent.joinpath(*name.split(".")).with_suffix(".py")
        assert {area(n) for n in imports_of(path)} - {None} <= {"core"}, name


@pytest.mark.parametrize("path", [p for p in MODULES if module_area(p) == "core"],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_imports_no_clock_randomness_network_or_filesystem(path: Path) -> None:
    assert not impure(imports_of(path))


def impure(names: set[str]) -> set[str]:
    return {n for n in names if n in IMPURE or n.split(".")[0] in IMPURE}


def test_the_core_rule_tells_parsing_from_io() -> None:
    names = {"time", "os.path", "urllib.request", "urllib.parse", "posixpath", "hashlib"}
    assert impure(names) == {"time", "os.path", "urllib.request"}


PACKAGES = sorted(p.parent for p in PACKAGE.rglob("__init__.py"))


def _public_names(init: Path) -> tuple[list[str] | None, set[str]]:
    """A package's declared `__all__` (None if absent) and what it should list: the
    public functions, classes and assignments of its `__init__`, and its public modules
    and subpackages."""
    tree = ast.parse(init.read_text())
    declared: list[str] | None = None
    defined: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            declared = list(ast.literal_eval(node.value))
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Assign):
            defined.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            defined.update(alias.asname or alias.name for alias in node.names)
    folder = init.parent
    modules = {p.stem for p in folder.glob("*.py")} | {
        p.name for p in folder.iterdir() if (p / "__init__.py").exists()}
    wanted = {n for n in defined | modules if not n.startswith("_")}
    if folder == PACKAGE:
        # the service is a separate program: `from jupyter_design_projects import *` must
        # not load it
        wanted.discard("server")
    return declared, wanted


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_every_public_name_is_in_the_package_all(package: Path) -> None:
    declared, wanted = _public_names(package / "__init__.py")
    assert declared is not None, f"{package.name}/__init__.py declares no __all__"
    assert len(declared) == len(set(declared)), "a name listed twice"
    assert wanted <= set(declared), sorted(wanted - set(declared))
    if package == PACKAGE:
        assert "server" not in declared


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_every_name_in_all_exists(package: Path) -> None:
    import importlib

    name = ".".join(package.relative_to(PACKAGE.parent).parts)
    module = importlib.import_module(name)
    for public in module.__all__:
        if not hasattr(module, public):
            importlib.import_module(f"{name}.{public}")


def test_no_module_outside_server_imports_it_but_embedded() -> None:
    importers = {module_area(p) for p in MODULES
                 if module_area(p) != "server" and "server" in {area(n) for n in imports_of(p)}}
    assert importers <= MAY_IMPORT_SERVER, importers


def test_the_walker_sees_relative_imports() -> None:
    names = imports_of(PACKAGE / "session.py")
    assert "jupyter_design_projects.settings" in names
