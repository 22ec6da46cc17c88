"""Small pieces (issue #41.7): no module of the package is over 400 lines, and no function
or method over 60 (from its `def` line to its last line; decorators are not counted). The
built files (the reveal.js files the build copies into `design/deck/reveal_assets/`, the
JupyterLab extension in `labextension/`) are not the project's code and are left out."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "jupyter_design_projects"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
#: folders of the package the build fills (paths relative to the package)
BUILT = ("design/deck/reveal_assets/", "labextension/")

def module_lines(source: str) -> int:
    return len(source.splitlines())


def function_lengths(source: str) -> dict[str, int]:
    """Each function's and method's length in lines (`def` line to last line), by its
    dotted name in the module (`Class.method`, `outer.inner`)."""
    lengths: dict[str, int] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    assert child.end_lineno is not None
                    lengths[name] = child.end_lineno - child.lineno + 1
                walk(child, name + ".")
            else:
                walk(child, prefix)

    walk(ast.parse(source), "")
    return lengths


def over_caps(source: str) -> set[str | None]:
    """What in `source` is over a cap: None for the module, else a function's name."""
    over: set[str | None] = {None} if module_lines(source) > MAX_MODULE_LINES else set()
    return over | {name for name, length in function_lengths(source).items()
                   if length > MAX_FUNCTION_LINES}


@functools.cache
def package_over_caps() -> frozenset[tuple[str, str | None]]:
    """Every piece of the package over a cap, as `(module path, function)`."""
    found: set[tuple[str, str | None]] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith(BUILT):
            continue
        found |= {(relative, name) for name in over_caps(path.read_text(encoding="utf-8"))}
    return frozenset(found)


def _function(name: str, body_lines: int, decorators: int = 0) -> str:
    """A function of `body_lines` + 1 lines, under `decorators` decorator lines."""
    return ("@staticmethod\n" * decorators + f"def {name}():\n"
            + "    x = 1\n" * body_lines)


# ------------------------------------------------------------ the measure, at its bounds


@pytest.mark.parametrize(("lines", "over"), [(MAX_MODULE_LINES, False),
                                             (MAX_MODULE_LINES + 1, True)])
def test_a_module_is_over_its_cap_from_its_401st_line(lines: int, over: bool) -> None:
    source = "x = 1\n" * lines
    assert (None in over_caps(source)) is over


@pytest.mark.parametrize(("lines", "over"), [(MAX_FUNCTION_LINES, False),
                                             (MAX_FUNCTION_LINES + 1, True)])
def test_a_function_is_over_its_cap_from_its_61st_line(lines: int, over: bool) -> None:
    source = _function("f", lines - 1)
    assert function_lengths(source) == {"f": lines}
    assert ("f" in over_caps(source)) is over


def test_decorators_are_not_counted_in_a_functions_length() -> None:
    source = _function("f", MAX_FUNCTION_LINES - 1, decorators=3)
    assert function_lengths(source) == {"f": MAX_FUNCTION_LINES}
    assert over_caps(source) == set()


def test_methods_and_nested_functions_are_measured_by_their_dotted_names() -> None:
    inner = "\n".join("    " + line for line in _function("inner", MAX_FUNCTION_LINES)
                      .splitlines())
    source = ("class Card:\n" + "\n".join("    " + line for line in _function(
        "approve", MAX_FUNCTION_LINES).splitlines()) + "\n\n"
        + "async def outer():\n" + inner + "\n")
    assert over_caps(source) == {"Card.approve", "outer", "outer.inner"}


# ------------------------------------------------------------ the package


def test_no_module_or_function_of_the_package_is_over_its_cap() -> None:
    """A piece over a cap: split it by noun (STYLE.md)."""
    over = package_over_caps()
    assert not over, sorted(over, key=str)


def test_the_built_folders_are_the_only_ones_left_out() -> None:
    measured = {p.relative_to(PACKAGE).as_posix().split("/")[0]
                for p in PACKAGE.rglob("*.py")
                if not p.relative_to(PACKAGE).as_posix().startswith(BUILT)}
    assert {"core", "design", "errors", "notebook", "projects", "server", "transport",
            "session", "settings.py"} <= measured
