"""The docs site's generated parts, written before Sphinx reads a page: the table of magics
(from `notebook/subcommands.py`), the permission decision table (by calling
`core.permissions.decide` on each listed situation), the configuration table (from
`Settings` and the magics' traits) and a copy of the example notebooks to render."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from decision_table import decision_table

import jupyter_design_projects
from jupyter_design_projects.notebook import subcommands

DOCS = Path(__file__).resolve().parents[1]
#: the checkout the package is imported from (its example notebooks)
REPO = Path(jupyter_design_projects.__file__).resolve().parents[1]
GENERATED = DOCS / "_generated"
NOTEBOOKS = ("quickstart", "projects_knowledge", "api_debugging", "agent_tools")


def write_if_changed(path: Path, text: str) -> None:
    """Write `text` unless `path` already holds it (so Sphinx does not rebuild for nothing)."""
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)


def generate(app=None) -> None:
    GENERATED.mkdir(exist_ok=True)
    write_if_changed(GENERATED / "magics.md", subcommands.readme_table() + "\n")
    write_if_changed(GENERATED / "decisions.md", decision_table() + "\n")
    rendered = DOCS / "notebooks"
    rendered.mkdir(exist_ok=True)
    for name in NOTEBOOKS:
        book = json.loads((REPO / "notebooks" / f"{name}.ipynb").read_text())
        # highlighted as IPython (magics, $name) even where the build does not execute it
        book["metadata"].setdefault("language_info", {})["pygments_lexer"] = "ipython3"
        write_if_changed(rendered / f"{name}.ipynb", json.dumps(book, indent=1) + "\n")


def fresh_data_dir(app, docname: str, source: list[str]) -> None:
    """Each example notebook runs on its own fresh data dir, so one notebook's writes,
    consent and grants never show in another's outputs (the kernel inherits the
    environment when myst-nb starts it, right after this event)."""
    if docname.startswith("notebooks/"):
        os.environ["JDP_DATA_DIR"] = tempfile.mkdtemp(prefix="jdp-docs-")


def setup(app):
    from pygments.lexers.special import TextLexer

    # the architecture picture is a Mermaid block (drawn by GitHub and Mermaid viewers):
    # here it shows as its text
    app.add_lexer("mermaid", TextLexer)
    app.connect("builder-inited", generate)
    app.connect("source-read", fresh_data_dir)
    return {"parallel_read_safe": False, "parallel_write_safe": True}
