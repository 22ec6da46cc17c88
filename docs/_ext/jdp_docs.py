"""The docs site's generated parts, written before Sphinx reads a page: the table of magics
(from `notebook/subcommands.py`), the permission decision table (by calling
`core.permissions.decide` on each listed situation), the configuration table (from
`Settings` and the magics' traits) and a copy of the example notebooks to render."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from jupyter_design_projects.notebook import subcommands

from decision_table import decision_table

DOCS = Path(__file__).resolve().parents[1]
REPO = DOCS.parent
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
        source = REPO / "notebooks" / f"{name}.ipynb"
        target = rendered / source.name
        if not target.is_file() or target.read_bytes() != source.read_bytes():
            shutil.copyfile(source, target)


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
