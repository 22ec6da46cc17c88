"""The import rules of docs/architecture.md: `lint-imports` keeps the contracts of
pyproject.toml and breaks on each forbidden import a review injected; the rules about
other packages (core's purity, who may import the UI and the Jupyter server) are checked
by walking every module's imports; and the page's picture is the import graph."""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "jupyter_design_projects"
NAME = PACKAGE.name
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
UI = {"ipywidgets", "pandas", "IPython"}
#: the Jupyter server's own packages: only the server extension (`labserver/`) imports them
JUPYTER_SERVER = {"jupyter_server", "tornado"}
#: what core/ may not import: a clock (time, datetime), randomness (random, secrets, uuid),
#: the network (socket, ssl, http, urllib.request, asyncio, selectors, select, httpx, mcp,
#: starlette) or the filesystem and other processes (os, pathlib, shutil, tempfile, glob,
#: fcntl, io, sqlite3, subprocess, threading, filelock, keyring). urllib.parse and
#: posixpath stay allowed: they only parse strings.
IMPURE = {"time", "datetime", "random", "secrets", "uuid", "socket", "ssl", "http",
          "urllib.request", "asyncio", "selectors", "select", "httpx", "mcp", "starlette",
          "os", "pathlib", "shutil", "tempfile", "glob", "fcntl", "io", "sqlite3",
          "subprocess", "threading", "filelock", "keyring"}

MODULES = sorted(PACKAGE.rglob("*.py"))


def dotted(path: Path) -> str:
    """The module's dotted name (a package's `__init__` is the package)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


KNOWN = {dotted(p) for p in MODULES}


def imports_of(path: Path) -> set[str]:
    """Absolute names imported by a module, relative imports resolved to the package, and
    `from package import module` resolved to the module."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = parts[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join(base + ((node.module,) if node.module else ()))
            else:
                name = node.module or ""
            submodules = {f"{name}.{a.name}" for a in node.names} & KNOWN
            found.update(submodules)
            if len(submodules) < len(node.names):  # names defined in the module itself
                found.add(name)
    return found


def area(path: Path) -> str:
    rel = path.relative_to(PACKAGE).parts
    return rel[0].removesuffix(".py")


def tops(names: set[str]) -> set[str]:
    return {n.split(".")[0] for n in names}


# ------------------------------------------------------------ lint-imports


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` of the venv on the package under `cwd` (and its pyproject.toml),
    with lines wide enough that no name is wrapped."""
    env = {**os.environ, "PYTHONPATH": str(cwd), "COLUMNS": "400"}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


CONTRACTS = {c["id"]: c["name"] for c in tomllib.loads(
    (ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]}


def broken(result: subprocess.CompletedProcess[str]) -> set[str]:
    """The ids of the contracts a run reports broken."""
    text = " ".join(result.stdout.split())
    return {id_ for id_, name in CONTRACTS.items() if f"{name} BROKEN" in text}


def test_lint_imports_keeps_every_contract() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in result.stdout


LAYERS, ERRORS, NOTEBOOK = "layers", "errors", "notebook"
SERVER_APART, CLIENT_APART = "server-imports-no-client", "client-imports-no-server"
CORE_PURE = "core-no-third-party"

#: (the module that gets the import, the import, the contracts it breaks): the eight
#: imports a review injected (five passed the old ast walk), then this page's own rules
INJECTED = [
    ("server/app.py", "import jupyter_design_projects.agent_tools", SERVER_APART),
    ("transport/http.py", "import jupyter_design_projects.session", LAYERS),
    ("projects/client.py", "import jupyter_design_projects.session", LAYERS),
    ("design/client.py", "import jupyter_design_projects.labserver.panel", LAYERS),
    # errors/ reaches its own modules again through design/: a circle inside errors/ too;
    # and core/, which stands on errors/, would reach httpx through it
    ("errors/base.py", "import jupyter_design_projects.design.client",
     f"{LAYERS} {ERRORS} {CORE_PURE}"),
    # (core/ would reach httpx through transport/ too: the purity contract counts the way)
    ("core/plans.py", "import jupyter_design_projects.transport.http", f"{LAYERS} {CORE_PURE}"),
    ("notebook/magics.py", "import jupyter_design_projects.server.app", CLIENT_APART),
    ("design/client.py", "import jupyter_design_projects.projects.client", LAYERS),
    ("errors/guidance.py", "from jupyter_design_projects.errors import design", ERRORS),
    ("settings.py", "import jupyter_design_projects.transport.http", LAYERS),
    ("labserver/panel.py", "import jupyter_design_projects.notebook.magics", LAYERS),
    ("embedded.py", "import jupyter_design_projects.session", LAYERS),
    ("server/design/mcp.py", "import jupyter_design_projects.errors", SERVER_APART),
    # core/ imports no third-party package (the four contracts above let this one pass)
    ("core/plans.py", "import httpx", CORE_PURE),
    ("core/results.py", "from pydantic import BaseModel", CORE_PURE),
    # inside notebook/: the import that closed the old circle, and two more reaching up
    ("notebook/lifecycle.py", "from jupyter_design_projects.notebook.commands import run",
     NOTEBOOK),
    ("notebook/views/outcomes.py", "import jupyter_design_projects.notebook.host", NOTEBOOK),
    ("notebook/grammar/parse.py", "import jupyter_design_projects.notebook.views.outcome",
     NOTEBOOK),
]


def copy_of_the_package(into: Path) -> Path:
    shutil.copytree(PACKAGE, into / NAME,
                    ignore=shutil.ignore_patterns("__pycache__", "labextension"))
    shutil.copy(ROOT / "pyproject.toml", into / "pyproject.toml")
    return into / NAME


@pytest.mark.parametrize(("module", "line", "contracts"), INJECTED,
                         ids=[f"{m}->{line.split()[-1]}" for m, line, _ in INJECTED])
def test_an_injected_forbidden_import_breaks_a_contract(
        tmp_path: Path, module: str, line: str, contracts: str) -> None:
    copy = copy_of_the_package(tmp_path)
    with (copy / module).open("a") as source:
        source.write(f"\n{line}  # injected\n")
    result = lint_imports(tmp_path)
    assert result.returncode != 0, result.stdout
    importer = ".".join((NAME, *Path(module).with_suffix("").parts))
    assert importer in result.stdout  # the copy was checked, and this import named
    assert broken(result) == set(contracts.split()), result.stdout


@pytest.mark.parametrize(("module", "contract"), [("extras.py", LAYERS),
                                                  ("notebook/extras.py", NOTEBOOK)])
def test_a_module_nobody_placed_breaks_its_layers(
        tmp_path: Path, module: str, contract: str) -> None:
    copy = copy_of_the_package(tmp_path)
    (copy / module).write_text('"""A module without a layer."""\n')
    result = lint_imports(tmp_path)
    assert result.returncode != 0, result.stdout
    assert ".".join((NAME, *Path(module).with_suffix("").parts)) in result.stdout
    assert broken(result) == {contract}, result.stdout


def test_the_copy_of_the_package_alone_keeps_every_contract(tmp_path: Path) -> None:
    """The injected runs above fail for the import they add, not for the copying."""
    copy_of_the_package(tmp_path)
    result = lint_imports(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


# ------------------------------------------------------------ rules about other packages


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_the_notebook_imports_the_ui_and_only_labserver_the_jupyter_server(
        path: Path) -> None:
    names = tops(imports_of(path))
    if area(path) != "notebook":
        assert not names & UI, names
    if area(path) != "labserver":
        assert not names & JUPYTER_SERVER, names


@pytest.mark.parametrize("path", [p for p in MODULES if area(p) == "core"],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_imports_no_clock_randomness_network_or_filesystem(path: Path) -> None:
    assert not impure(imports_of(path))


def impure(names: set[str]) -> set[str]:
    return {n for n in names if n in IMPURE or n.split(".")[0] in IMPURE}


def test_the_core_rule_tells_parsing_from_io() -> None:
    names = {"time", "os.path", "urllib.request", "urllib.parse", "posixpath", "hashlib"}
    assert impure(names) == {"time", "os.path", "urllib.request"}


def test_the_walker_sees_relative_and_from_package_imports() -> None:
    assert f"{NAME}.settings" in imports_of(PACKAGE / "session" / "__init__.py")
    assert f"{NAME}.errors.guidance" in imports_of(PACKAGE / "errors" / "base.py")


def test_the_walker_sees_imports_inside_functions() -> None:
    """The magics load `dispatch` in their first call, not at `%load_ext`."""
    assert f"{NAME}.notebook.commands.run" in imports_of(PACKAGE / "notebook" / "magics.py")


# ------------------------------------------------------------ no circle anywhere


def import_graph() -> dict[str, set[str]]:
    """module -> the package's modules it imports: every import statement, at module level,
    inside a function or under `if TYPE_CHECKING`."""
    return {dotted(p): imports_of(p) & KNOWN for p in MODULES}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (or a module importing
    itself): each is a circle of imports (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    work.append((step, iter(sorted(graph.get(step, ())))))
                elif step in stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1 or node in graph.get(node, ()):
                    found.append(sorted(group))
    return found


def test_no_module_of_the_package_is_in_an_import_circle() -> None:
    assert circles(import_graph()) == []


def test_the_circle_finder_sees_a_circle_and_only_the_circle() -> None:
    graph = {"magics": {"dispatch"}, "dispatch": {"actions", "views"},
             "actions": {"magics", "views"}, "views": set(), "self": {"self"}}
    assert sorted(circles(graph)) == [["actions", "dispatch", "magics"], ["self"]]


def test_the_old_notebook_circle_would_be_found() -> None:
    """lifecycle.py once imported `dispatch` to load it for the first call: one such
    import back up closes a circle again."""
    graph = import_graph()
    graph[f"{NAME}.notebook.lifecycle"].add(f"{NAME}.notebook.commands.run")
    [circle] = circles(graph)
    assert {f"{NAME}.notebook.lifecycle", f"{NAME}.notebook.commands.run"} <= set(circle)


# ------------------------------------------------------------ third-party packages in core/


def third_party(names: set[str]) -> set[str]:
    return {n for n in tops(names) if n != NAME and n not in sys.stdlib_module_names}


def test_core_is_forbidden_every_third_party_package_the_package_imports() -> None:
    """So the contract's list is the dependencies the code has: a package imported anywhere
    (core/ included) fails here until core/ is forbidden it too."""
    contract = next(c for c in tomllib.loads((ROOT / "pyproject.toml").read_text())
                    ["tool"]["importlinter"]["contracts"] if c["id"] == CORE_PURE)
    imported = set().union(*(third_party(imports_of(p)) for p in MODULES))
    assert set(contract["forbidden_modules"]) == imported


def test_third_party_is_what_the_standard_library_is_not() -> None:
    names = {"httpx", "os.path", "traitlets.config", f"{NAME}.core", "__future__", "sqlite3"}
    assert third_party(names) == {"httpx", "traitlets"}


# ------------------------------------------------------------ imports by name, at run time

#: every module the package loads by name at run time (`importlib.import_module`,
#: `__import__`): grimp, and so `lint-imports`, does not see them, so each is listed here
#: and checked against the layers. (importer, the module it may load)
DYNAMIC_IMPORTS = {
    # the package's public names, each loaded with its module on first use (PEP 562)
    *((NAME, f"{NAME}.{module}") for module in (
        "agent_tools", "core.cards", "design.approval", "errors", "notebook.views.outcome",
        "projects.facade", "session", "settings")),
    # design.deck's names, loaded with their module on first use (the magics' usage text
    # needs one constant of `slides` at `%load_ext`, not the deck pipeline)
    *((f"{NAME}.design.deck", f"{NAME}.design.deck.{module}") for module in (
        "deck", "records", "slides", "theme")),
}
LOADERS = {"import_module", "__import__"}
UNREADABLE = "?"


def dynamic_imports_in(source: str, module: str) -> set[tuple[str, str]]:
    """(module, what it loads) for each import by name in `source`. The name may be a
    literal, `__name__`, an f-string of those, or a value of a module-level dict literal the
    loader looked up (`home = _HOMES.get(name)`): each value counts. Anything else, and a
    loader taken under another name, is (module, "?"): the list cannot be checked."""
    tree = ast.parse(source)
    tables = {target.id: [v.value for v in node.value.values if isinstance(v, ast.Constant)]
              for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
              and isinstance(node.value, ast.Dict)
              for target in getattr(node, "targets", [getattr(node, "target", None)])
              if isinstance(target, ast.Name)}
    found: set[tuple[str, str]] = set()
    for scope in ast.walk(tree):
        if not isinstance(scope, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        looked_up = _looked_up(scope, tables)
        for node in ast.walk(scope):
            if isinstance(node, ast.ImportFrom) and node.module == "importlib" and any(
                    a.name in LOADERS and a.asname for a in node.names):
                found.add((module, UNREADABLE))
            if not isinstance(node, ast.Call) or _called(node.func) not in LOADERS:
                continue
            names = _strings(node.args[0], looked_up, module) if node.args else None
            if names is None:
                found.add((module, UNREADABLE))
                continue
            anchor = next((k.value for k in node.keywords if k.arg == "package"),
                          node.args[1] if len(node.args) > 1 else None)
            for name in names:
                if name.startswith("."):
                    base = _strings(anchor, looked_up, module) if anchor is not None else None
                    name = f"{base.pop()}{name}" if base and len(base) == 1 else UNREADABLE
                found.add((module, name))
    return found


def _called(func: ast.expr) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def _looked_up(scope: ast.AST, tables: dict[str, list]) -> dict[str, list]:
    """Names a function assigns from a table lookup: `x = TABLE.get(k)` or `TABLE[k]`."""
    found = {}
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                    and value.func.attr == "get":
                value = value.func.value
            elif isinstance(value, ast.Subscript):
                value = value.value
            if isinstance(value, ast.Name) and value.id in tables:
                found[node.targets[0].id] = tables[value.id]
    return found


def _strings(node: ast.expr, looked_up: dict[str, list], module: str) -> set[str] | None:
    """Every string `node` can be, or None when the walk cannot tell."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.Name):
        if node.id == "__name__":
            return {module}
        return set(looked_up[node.id]) if node.id in looked_up else None
    if isinstance(node, ast.FormattedValue) and node.format_spec is None:
        return _strings(node.value, looked_up, module)
    if isinstance(node, ast.JoinedStr):
        words: set[str] = {""}
        for part in node.values:
            options = _strings(part, looked_up, module)
            if options is None:
                return None
            words = {w + o for w in words for o in options}
        return words
    return None


def dynamic_imports() -> set[tuple[str, str]]:
    return set().union(*(dynamic_imports_in(p.read_text(), dotted(p)) for p in MODULES))


def test_every_import_by_name_is_declared() -> None:
    assert dynamic_imports() == DYNAMIC_IMPORTS


def test_the_declared_imports_by_name_are_modules_of_the_package() -> None:
    assert {target for _, target in DYNAMIC_IMPORTS} <= KNOWN


@pytest.mark.parametrize(("importer", "target"), sorted(DYNAMIC_IMPORTS))
def test_an_import_by_name_keeps_the_layers(importer: str, target: str) -> None:
    assert reaches_down(importer, target)


def _contract_layers(contract: dict) -> list[tuple[list[str], bool]]:
    """Each layer of a layers contract, top first: its names, and whether they are
    independent siblings (`a | b`) or may import each other (`a : b`)."""
    return [([n.strip() for n in re.split(r"[|:]", layer)], ":" not in layer)
            for layer in contract["layers"]]


def reaches_down(importer: str, target: str) -> bool:
    """Whether `importer` may import `target` under the layers contracts of pyproject.toml
    (the package's own `__init__` is the entry, above every layer), and the client and the
    service stay apart."""
    server, core = f"{NAME}.server", f"{NAME}.core"
    if _under(target, server) and not _under(importer, server):
        return False  # the client (the package's entry included) never loads the service
    if _under(importer, server) and not _under(target, server):
        return _under(target, core)  # the service stands on core/ alone
    if importer == NAME:
        return True
    for contract in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"][
            "importlinter"]["contracts"]:
        if contract["type"] != "layers":
            continue
        for container in contract["containers"]:
            a = _child(importer, container)
            b = _child(target, container)
            if a is None or b is None or a == b:
                continue
            layers = _contract_layers(contract)
            rank = {name: (i, independent) for i, (names, independent) in enumerate(layers)
                    for name in names}
            if a not in rank or b not in rank:
                continue
            (i, independent), (j, _) = rank[a], rank[b]
            if j < i or (j == i and independent):
                return False
    return True


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _child(module: str, container: str) -> str | None:
    """The child of `container` that `module` is or is under, else None."""
    if not module.startswith(container + "."):
        return None
    return module.removeprefix(container + ".").split(".")[0]


def test_the_layer_check_refuses_an_import_up_or_across() -> None:
    assert not reaches_down(f"{NAME}.core.plans", f"{NAME}.session")
    assert not reaches_down(f"{NAME}.design.client", f"{NAME}.projects.client")
    assert not reaches_down(f"{NAME}.notebook.lifecycle", f"{NAME}.notebook.commands.run")
    assert not reaches_down(f"{NAME}.server.app", f"{NAME}.settings")
    assert not reaches_down(f"{NAME}.session", f"{NAME}.server.app")
    assert not reaches_down(NAME, f"{NAME}.server")
    assert reaches_down(f"{NAME}.server.app", f"{NAME}.core.plans")
    assert reaches_down(f"{NAME}.session", f"{NAME}.design.client")
    assert reaches_down(f"{NAME}.notebook.commands.run", f"{NAME}.notebook.grammar.parse")


def test_the_walk_finds_an_import_by_name_and_one_it_cannot_read() -> None:
    source = ("import importlib\n"
              "from importlib import import_module as load\n"
              "TABLE = {'a': 'session', 'b': 'settings'}\n"
              "def f(key, anything):\n"
              "    importlib.import_module('jupyter_design_projects.transport.http')\n"
              "    home = TABLE.get(key)\n"
              "    importlib.import_module(f'jupyter_design_projects.{home}')\n"
              "    __import__(anything)\n")
    found = dynamic_imports_in(source, f"{NAME}.core.plans")
    assert found == {(f"{NAME}.core.plans", name) for name in (
        f"{NAME}.transport.http", f"{NAME}.session", f"{NAME}.settings", UNREADABLE)}


# ------------------------------------------------------------ __all__


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
    if folder == PACKAGE:  # its `__all__` is the curated public API: names, not modules
        modules = set()
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


# ------------------------------------------------------------ the picture is the code

PAGE = ROOT / "docs" / "architecture.md"
NODE = re.compile(r'^\s*(\w+)\["([^"]*)"\]$', re.M)
ARROW = re.compile(r"^\s*(\w+) --> (\w+)$", re.M)
REDRAW = "redraw the picture: .venv/bin/python docs/diagram.py"


def diagram_script():
    spec = importlib.util.spec_from_file_location("diagram", ROOT / "docs" / "diagram.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def drawn() -> str:
    """The page's generated block, as it is on the page."""
    page = PAGE.read_text()
    script = diagram_script()
    assert page.count(script.BEGIN) == 1 and page.count(script.END) == 1
    return page.split(script.BEGIN)[1].split(script.END)[0]


def boxes() -> dict[str, tuple[str, list[str]]]:
    """node id -> (the dotted name the box stands for, the names its label lists)."""
    found = {}
    for node, label in NODE.findall(drawn()):
        title, *rows = label.split("<br/>")
        path = title.split(" · ")[0]
        root = "" if path == "__init__.py" else path.removesuffix("/").removesuffix(".py")
        names = [n for row in rows for n in row.split(", ")]
        found[node] = (root.replace("/", "."), names)
    return found


def box_of(module: str, roots: list[str]) -> str | None:
    name = module.removeprefix(NAME).removeprefix(".")
    under = [r for r in roots if r and (name == r or name.startswith(r + "."))]
    if under:
        return max(under, key=len)
    return "" if name == "" and "" in roots else None


def test_every_module_is_in_a_drawn_box_and_listed_there() -> None:
    drawn_boxes = boxes()
    roots = [root for root, _ in drawn_boxes.values()]
    listed = {root: names for root, names in drawn_boxes.values()}
    for path in MODULES:
        module = dotted(path)
        root = box_of(module, roots)
        assert root is not None, f"{module} is in no box of the picture; {REDRAW}"
        rel = module.removeprefix(f"{NAME}.{root}" if root else NAME).lstrip(".")
        rel = rel.replace(".", "/")
        if rel == "":  # the box is this module (`session.py`) or package (`design/`)
            continue
        if path.name == "__init__.py":  # a subpackage is listed by its modules (`deck/…`)
            assert any(n.startswith(rel + "/") for n in listed[root]), f"{module}; {REDRAW}"
        else:
            assert rel in listed[root], f"{module} is not listed in its box; {REDRAW}"


def test_every_arrow_is_an_import_and_every_import_between_boxes_is_drawn() -> None:
    drawn_boxes = boxes()
    roots = [root for root, _ in drawn_boxes.values()]
    arrows = {(drawn_boxes[a][0], drawn_boxes[b][0]) for a, b in ARROW.findall(drawn())}
    imports = set()
    for path in MODULES:
        importer = box_of(dotted(path), roots)
        for name in imports_of(path):
            target = box_of(name, roots) if name.split(".")[0] == NAME else None
            if importer is not None and target is not None and target != importer:
                imports.add((importer, target))
    assert not arrows - imports, f"arrows that are no import: {sorted(arrows - imports)}; {REDRAW}"
    assert not imports - arrows, f"imports not drawn: {sorted(imports - arrows)}; {REDRAW}"


def test_the_picture_is_what_the_script_draws() -> None:
    """So it is redrawn, not edited: `.venv/bin/python docs/diagram.py`."""
    assert diagram_script().main(["--check"]) == 0, REDRAW


def test_the_page_names_the_spec_and_the_protocol_by_file_name() -> None:
    page = PAGE.read_text()
    assert "`000_714d699df4e9513e.txt`" in page and "`PROTOCOL.md`" in page
    assert "/work/" not in page and "shared/" not in page

