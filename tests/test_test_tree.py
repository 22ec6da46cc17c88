"""The test tree a newcomer can walk (docs/testing.md): tests/ is a package, each folder
that holds Python an __init__.py of its own; a folder of tests mirrors a folder of the
package, or is one of the few named here; no module imports a test module or a conftest,
nor a helper of tests/ by its bare name (helpers import by package path); and the places
tests/conftest.py declares (slow kinds, serial groups) all exist; and no test writes to a
fixed path in /tmp (another person's run on the same host may own it: a test writes in
its own temporary folder). Each rule is also run on a small bad tree, so it is seen to
fail."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
PACKAGE = TESTS.parent / "jupyter_design_projects"
#: folders of tests/ that mirror no package folder: they test across the package (a real
#: browser, the reliability battery), or hold the fakes and the data the tests read
NOT_MIRRORS = {"browser", "reliability", "fakes", "fixtures"}
#: data the tests read (notebooks, talks, the scripts that made them): not test code
DATA = "fixtures"


def python_files(root: Path) -> Iterator[Path]:
    """The Python modules of the test tree at `root`, its data left out."""
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if relative.parts[0] != DATA and "__pycache__" not in relative.parts:
            yield path


def folders_without_init(root: Path) -> list[str]:
    """The folders of `root` (itself included) holding Python but no __init__.py."""
    folders = {path.parent for path in python_files(root)} | {root}
    return sorted(str(f.relative_to(root.parent)) for f in folders
                  if not (f / "__init__.py").is_file())


def imported_names(path: Path) -> Iterator[tuple[int, str]]:
    """Each module an import statement of `path` names (an `from a import b` names both
    `a` and `a.b`, since b may be a module), with its line."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module
            yield from ((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)


def helper_names(root: Path) -> set[str]:
    """The bare names of the helper modules of the tree (what a bare import would name)."""
    return {path.stem for path in python_files(root)
            if not path.stem.startswith("test_") and path.stem not in ("conftest", "__init__")}


def wrong_imports(root: Path) -> list[str]:
    """`file:line name` for each import of a test module or a conftest, and each bare
    import of one of the tree's helpers (it would only work with a folder on sys.path)."""
    helpers = helper_names(root)
    found: dict[str, str] = {}  # one finding a line
    for path in python_files(root):
        for line, name in imported_names(path):
            parts = name.split(".")
            test_module = any(p.startswith("test_") or p == "conftest" for p in parts)
            if test_module or parts[0] in helpers:
                found.setdefault(f"{path.relative_to(root.parent)}:{line}", name)
    return [f"{where} {name}" for where, name in found.items()]


def unmirrored_folders(root: Path, package: Path) -> list[str]:
    """The folders of tests under `root` that name no folder of `package` (and are not
    among NOT_MIRRORS)."""
    found = []
    for folder in sorted({p.parent for p in python_files(root)} - {root}):
        relative = folder.relative_to(root)
        if relative.parts[0] not in NOT_MIRRORS and not (package / relative).is_dir():
            found.append(relative.as_posix())
    return found


def fixed_tmp_writes(root: Path) -> list[str]:
    """`file:line` for each call given a `path=` that is a literal under /tmp (a picture a
    test saves, say): on a shared host the file may be another person's, and the write
    then fails; a test's own temporary folder is its alone."""
    found = []
    for path in python_files(root):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and any(
                    k.arg == "path" and isinstance(k.value, ast.Constant)
                    and isinstance(k.value.value, str) and k.value.value.startswith("/tmp/")
                    for k in node.keywords):
                found.append(f"{path.relative_to(root.parent)}:{node.lineno}")
    return found


#: httpx's calls that build a client, and so its TLS context
HTTPX_CLIENTS = frozenset({"Client", "AsyncClient", "get", "post", "put", "patch", "delete",
                           "head", "options", "request", "stream"})


def default_tls_clients(root: Path) -> list[str]:
    """`file:line` for each httpx client a test builds with httpx's default TLS context
    (no `verify=` and no `transport=`): that context loads the CA file, 20 to 60 ms of CPU
    for each client, and every test talks plain http to loopback, where
    `verify=loopback_tls()` loads none and fails closed."""
    found = []
    for path in python_files(root):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "httpx"
                    and node.func.attr in HTTPX_CLIENTS
                    and not any(k.arg in ("verify", "transport", None) for k in node.keywords)):
                found.append(f"{path.relative_to(root.parent)}:{node.lineno}")
    return found


# ---------------------------------------------------------------- the real tree


def test_every_folder_of_the_tree_is_a_package():
    assert folders_without_init(TESTS) == []


def test_no_module_imports_a_test_module_a_conftest_or_a_helper_by_its_bare_name():
    assert wrong_imports(TESTS) == []


def test_every_folder_of_tests_mirrors_a_folder_of_the_package():
    assert unmirrored_folders(TESTS, PACKAGE) == []


def test_no_test_writes_to_a_fixed_path_in_tmp():
    assert fixed_tmp_writes(TESTS) == []


def test_no_test_builds_an_httpx_client_that_loads_the_ca_file():
    assert default_tls_clients(TESTS) == []


def test_the_places_conftest_declares_exist(request: pytest.FixtureRequest):
    """A slow kind or serial group naming a moved or deleted file would silently stop
    marking or grouping it."""
    declared = request.config.pluginmanager.get_plugin(str(TESTS / "conftest.py"))
    places = [place for table in (declared.SLOW_KINDS, declared.SERIAL_GROUPS)
              for group in table.values() for place in group]
    assert places and [p for p in places if not (TESTS / p).exists()] == []


# ---------------------------------------------------------------- each rule fails


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A small good tree: a package folder with a test, its helper and its conftest."""
    return write(tmp_path / "tests", {
        "__init__.py": "", "conftest.py": "", "core/__init__.py": "",
        "core/harness.py": "X = 1\n",
        "core/test_a.py": "from tests.core.harness import X\nimport json\n",
        "fixtures/talk/make_talk.py": "import harness\n",
    })


def test_the_small_good_tree_breaks_no_rule(tree: Path, tmp_path: Path):
    (tmp_path / "package" / "core").mkdir(parents=True)
    assert folders_without_init(tree) == []
    assert wrong_imports(tree) == []
    assert unmirrored_folders(tree, tmp_path / "package") == []
    assert fixed_tmp_writes(tree) == []
    assert default_tls_clients(tree) == []


def test_an_httpx_client_with_the_default_tls_context_is_named(tree: Path):
    write(tree, {"core/test_e.py": "import httpx\n"
                 "def test_e(url, mock, tls):\n"
                 "    httpx.get(url, verify=tls)\n"
                 "    httpx.Client(transport=mock)\n"
                 "    httpx.get(url)\n"
                 "    httpx.AsyncClient(timeout=5)\n"})
    assert default_tls_clients(tree) == ["tests/core/test_e.py:5", "tests/core/test_e.py:6"]


def test_a_write_to_a_fixed_path_in_tmp_is_named(tree: Path):
    write(tree, {"core/test_d.py": "def test_d(page, tmp_path):\n"
                 "    page.screenshot(path=str(tmp_path / 'a.png'))\n"
                 "    page.screenshot(path='/tmp/jdp-a.png')\n"})
    assert fixed_tmp_writes(tree) == ["tests/core/test_d.py:3"]


def test_a_folder_without_init_is_named(tree: Path):
    write(tree, {"design/test_b.py": ""})
    assert folders_without_init(tree) == ["tests/design"]


@pytest.mark.parametrize("line", [
    "from test_a import X", "from conftest import X", "from tests.core.test_a import X",
    "from tests.core import test_a", "import tests.conftest", "from harness import X",
    "import harness", "    from harness import X",
])
def test_an_import_of_a_test_module_a_conftest_or_a_bare_helper_is_named(tree: Path, line):
    source = f"def f():\n{line}\n" if line.startswith(" ") else f"{line}\n"
    write(tree, {"core/test_c.py": source})
    assert [found.split(" ", 1)[0] for found in wrong_imports(tree)] == [
        f"tests/core/test_c.py:{2 if line.startswith(' ') else 1}"]


def test_a_folder_of_tests_that_names_no_package_folder_is_named(tree: Path, tmp_path: Path):
    (tmp_path / "package" / "core").mkdir(parents=True)
    write(tree, {"cores/__init__.py": "", "cores/test_d.py": "", "browser/test_e.py": ""})
    assert unmirrored_folders(tree, tmp_path / "package") == ["cores"]
