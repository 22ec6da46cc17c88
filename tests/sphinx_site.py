"""The docs site as the tests build it: `python3 tasks.py docs`'s strict Sphinx command
(tasks.py `sphinx_command`), run with the test run's Python over a copy of docs/ (so a
test may change a page, and the build writes nothing into the checkout). The `docs_site`
fixture (tests/conftest.py) builds the whole site once per worker, the example notebooks
executed; the docs tests and the accessibility audit of the rendered notebooks read it,
and the broken-link test rebuilds over a copy of it."""

from __future__ import annotations

import dataclasses
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: a whole build executes the example notebooks against a fresh embedded service each
BUILD_TIMEOUT_S = 900
#: what Sphinx and docs/_ext write beside the sources, left out of a copy
WRITTEN = ("_build", "_generated", "notebooks")


@dataclasses.dataclass(frozen=True)
class Built:
    """A strict build: the copied sources it read and the HTML it wrote (its environment
    in `html/.doctrees`, from which Sphinx rebuilds incrementally)."""

    source: Path
    html: Path


def load_tasks() -> ModuleType:
    """tasks.py, loaded by its path (it is a script, not a package module)."""
    spec = importlib.util.spec_from_file_location("tasks", ROOT / "tasks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(source: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    """The strict build of `source` into `out` (`extra`: Sphinx options after it)."""
    command = [*load_tasks().sphinx_command(sys.executable, source, out), *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S,
                          cwd=ROOT)


def copy_sources(folder: Path) -> Path:
    """docs/ copied into `folder`/docs, with what it reads beside it as in the checkout:
    bench/README.md (a page includes it) and labextension/ (a link: the Mermaid that
    docs/_ext/mermaid_svg.py draws with); the copy's docs folder."""
    source = folder / "docs"
    shutil.copytree(DOCS, source, ignore=shutil.ignore_patterns(*WRITTEN))
    (folder / "bench").mkdir()
    shutil.copy(ROOT / "bench" / "README.md", folder / "bench")
    (folder / "labextension").symlink_to(ROOT / "labextension", target_is_directory=True)
    return source


def built_site(folder: Path) -> Built:
    """The whole site built strictly from a copy of docs/ in `folder`, failing with
    Sphinx's last words if the build fails."""
    source = copy_sources(folder / "sources")
    out = folder / "html"
    done = build(source, out)
    if done.returncode != 0:
        pytest.fail(f"the docs build failed:\n{done.stdout[-4000:]}{done.stderr[-4000:]}")
    return Built(source=source, html=out)
