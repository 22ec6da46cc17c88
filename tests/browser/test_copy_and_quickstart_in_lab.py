"""In a real JupyterLab: code copied from the history (`%design history --copy N`) shows
Copy and "Insert as a new cell below" buttons that work (the clipboard gets the code, the
new cell below holds it), and the quickstart opens without being marked modified."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import expect

from tests.browser.lab import KERNEL_MS, open_notebook, run_cell


@pytest.fixture
def lab(shared_lab):
    """This module's tests share one JupyterLab and its service (tests/browser/conftest.py):
    each opens its own notebook in its own workspace and writes its own paths."""
    return shared_lab


REPO = Path(__file__).resolve().parents[2]

#: whether the notebook is marked modified once JupyterLab has applied its kernel's info
#: and spec (it awaits the same promises first, so its rewrite has run by then)
DIRTY_AFTER_KERNEL = """async () => {
  const panel = window.jupyterapp.shell.currentWidget;
  const kernel = panel.sessionContext.session.kernel;
  await kernel.info;
  await kernel.spec;
  await new Promise(resolve => setTimeout(resolve, 0));
  return panel.context.model.dirty;
}"""


def make_notebook(lab) -> str:
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell("%load_ext jupyter_design_projects\n"
                                          "%project info"),
                nbformat.v4.new_code_cell("%design history --copy 1")]
    nbformat.write(nb, lab.root_dir / "copy.ipynb")
    return "copy.ipynb"


@pytest.mark.browser
def test_copied_code_has_copy_and_insert_buttons_that_work(lab_page, lab):
    page = lab_page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    open_notebook(page, make_notebook(lab))
    first = run_cell(page, 0)
    expect(first.locator(".jp-OutputArea-output").last).to_contain_text(
        "Knowledge budget", timeout=KERNEL_MS)
    copied = run_cell(page, 1)
    code = copied.locator('[data-jdp="code-text"]')
    expect(code).to_have_text("%project info", timeout=KERNEL_MS)
    copied.get_by_role("button", name="Copy", exact=True).click()
    expect(copied.locator('[data-jdp="code-status"]')).to_have_text("Copied to the clipboard.")
    assert page.evaluate("() => navigator.clipboard.readText()") == "%project info"
    copied.get_by_role("button", name="Insert as a new cell below").click()
    expect(copied.locator('[data-jdp="code-status"]')).to_have_text(
        "Inserted as a new cell below.")
    # Shift+Enter on the last cell added an empty one after it: the code goes between,
    # right below the cell whose output was clicked
    cells = page.locator(".jp-NotebookPanel .jp-Cell")
    expect(cells).to_have_count(4)
    source = page.evaluate("() => window.jupyterapp.shell.currentWidget.content"
                           ".widgets[2].model.sharedModel.getSource()")
    assert source == "%project info"
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.content"
                         ".widgets[3].model.sharedModel.getSource()") == ""


@pytest.mark.browser
def test_the_quickstart_opens_without_being_marked_modified(lab_page, lab):
    page = lab_page
    shutil.copy(REPO / "notebooks" / "quickstart.ipynb", lab.root_dir / "quickstart.ipynb")
    open_notebook(page, "quickstart.ipynb")
    assert page.evaluate(DIRTY_AFTER_KERNEL) is False
    expect(page.locator(".jp-mod-dirty")).to_have_count(0)
