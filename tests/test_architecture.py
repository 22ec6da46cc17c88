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
        assert not tops & (UI | {"httpx", "mcp", "starlette", "sqlite3"}), names
    if own == "server":
        assert not areas & CLIENT, names
    else:
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


def test_the_walker_sees_relative_imports() -> None:
    names = imports_of(PACKAGE / "session.py")
    assert "jupyter_design_projects.settings" in names
