"""The docs site's generated parts, written before Sphinx reads a page: the table of magics
(from `notebook/grammar/subcommands.py`), the permission decision table (by calling
`core.permissions.decide` on each listed situation), the configuration table (from
`Settings` and the magics' traits) and a copy of the example notebooks to render."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from decision_table import decision_table

import jupyter_design_projects
from jupyter_design_projects.notebook.grammar import subcommands

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
        if name == "quickstart":
            as_a_person_sees_it(book)
        write_if_changed(rendered / f"{name}.ipynb", json.dumps(book, indent=1) + "\n")


def _cell(cell_id: str, kind: str, source: str, tags: list[str] | None = None) -> dict:
    cell: dict = {"cell_type": kind, "id": cell_id,
                  "metadata": {"tags": tags} if tags else {}, "source": source}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


#: said on the rendered quickstart where the build plays the person who approves
APPROVED_HERE = (
    "*On this page the build answers the card the way a person does: "
    "`pushed.approve()` is what its **Approve** button calls. What the card shows then:*")


def as_a_person_sees_it(book: dict) -> None:
    """The quickstart as a person running it in JupyterLab sees it, rather than as an
    unattended run (where nobody can approve, so the push fails closed): cards are shown
    (`approval_mode = 'widget'`, set by a hidden cell) and the push's card is approved, as
    the page says, so the written slides and their previews render."""
    cells = book["cells"]
    first_code = next(i for i, c in enumerate(cells) if c["cell_type"] == "code")
    cells.insert(first_code + 1, _cell("docs-cards", "code",
                                       "%config DesignProjects.approval_mode = 'widget'",
                                       ["remove-cell"]))
    push = next(i for i, c in enumerate(cells)
                if c["cell_type"] == "code" and "%design deck push" in "".join(c["source"]))
    cells[push + 1:push + 1] = [_cell("docs-approved", "markdown", APPROVED_HERE),
                                _cell("docs-approve", "code", "pushed.approve()",
                                      ["remove-input"])]


def fresh_data_dir(app, docname: str, source: list[str]) -> None:
    """Each example notebook runs on its own fresh data dir, so one notebook's writes,
    consent and grants never show in another's outputs (the kernel inherits the
    environment when myst-nb starts it, right after this event)."""
    if docname.startswith("notebooks/"):
        os.environ["JDP_DATA_DIR"] = tempfile.mkdtemp(prefix="jdp-docs-")


def setup(app):
    app.connect("builder-inited", generate)
    app.connect("source-read", fresh_data_dir)
    return {"parallel_read_safe": False, "parallel_write_safe": True}
