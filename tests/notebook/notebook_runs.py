"""The example notebooks executed headless (nbclient, a fresh kernel, a scratch folder)
against the service the environment points at, and what their cells showed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"


def run(name: str, tmp_path: Path, monkeypatch) -> nbformat.NotebookNode:
    return run_path(NOTEBOOKS / f"{name}.ipynb", tmp_path, monkeypatch)


def run_path(source: Path, tmp_path: Path, monkeypatch) -> nbformat.NotebookNode:
    """Execute a copy of `source` in a fresh kernel (cwd: a scratch dir) against the service
    the environment points at (the `pointed_at_service` fixture)."""
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(source, work)
    book = nbformat.read(work / source.name, as_version=4)
    client = NotebookClient(book, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(work)}})
    client.execute()
    return book


def outputs(book, needle: str) -> list[dict]:
    """The outputs of the first code cell whose source contains `needle`."""
    cell = next(c for c in book.cells if c.cell_type == "code" and needle in c.source)
    return cell.outputs


def text_of(outs: list[dict]) -> str:
    return json.dumps([o.get("data", o.get("text", "")) for o in outs])
