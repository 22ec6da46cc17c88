"""In a real JupyterLab: an expected failure is one red line (no traceback) that stops Run
All; an approval card whose kernel restarted goes inert and says "re-run the cell"; and
outcomes, meters and cards take their colours from the theme (a dark-theme screenshot)."""

from __future__ import annotations

import json

import nbformat
import pytest
from playwright.sync_api import expect

from jupyter_design_projects.notebook.views.theme import PALETTE
from jupyter_design_projects.server.design.demo import DECK_ID
from tests.browser.lab import KERNEL_IDLE, KERNEL_MS, open_notebook, run_cell


@pytest.fixture
def lab(shared_lab):
    """This module's tests share one JupyterLab and its service (tests/browser/conftest.py):
    each opens its own notebook in its own workspace and writes its own paths."""
    return shared_lab


#: every cell has run or been skipped: no cell is queued or running ("[*]")
RUN_ALL_SETTLED = """() => {
  const prompts = [...document.querySelectorAll('.jp-NotebookPanel .jp-InputPrompt')];
  return prompts.length > 0 && prompts.every(p => !p.textContent.includes('*'));
}"""

#: a card has at least this many widget views (box, header, stale line, button row, its
#: buttons, status, output): a new user saw seven broken-link icons on a stale one
CARD_VIEWS = 7
#: how many disconnected views in an element draw ipywidgets' broken-link icon (::before)
BROKEN_LINK_ICONS = """el => [...el.querySelectorAll('.jupyter-widgets-disconnected')]
  .filter(view => {
    const icon = getComputedStyle(view, '::before');
    return icon.display !== 'none' && icon.content !== 'none' && icon.content !== 'normal';
  }).length"""


def notebook(lab, name: str, sources: list[str]) -> str:
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    nbformat.write(nb, lab.root_dir / name)
    return name


def cell(page, index: int):
    return page.locator(".jp-NotebookPanel .jp-Cell").nth(index)


def write_cell(path: str) -> str:
    files = json.dumps([{"path": path, "data": f"<h1>{path}</h1>"}])
    return f"%design write_files project_id={DECK_ID} files='{files}'"


@pytest.mark.browser
def test_an_expected_failure_is_one_line_and_stops_run_all(lab_page, lab, tmp_path):
    page = lab_page
    open_notebook(page, notebook(lab, "errors.ipynb", [
        "%load_ext jupyter_design_projects",
        "%project read no-such-doc.md",
        "reached = True\nprint('after the failure')",
    ]))
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function(RUN_ALL_SETTLED, timeout=KERNEL_MS)
    failed = cell(page, 1)
    error = failed.locator('[data-mime-type="application/vnd.jupyter.stderr"]')
    expect(error).to_contain_text("UsageError: No doc or upload at 'no-such-doc.md'",
                                  timeout=KERNEL_MS)
    text = error.inner_text()
    assert "Next: %project info." in text and "%project last" in text
    assert "Traceback" not in text and len(text.strip().splitlines()) == 1
    # Run All stopped at the failed cell: the next one never ran
    expect(cell(page, 2).locator(".jp-OutputArea-output")).to_have_count(0)
    failed.screenshot(path=str(tmp_path / "jdp-error-line.png"))


@pytest.mark.browser
def test_a_card_whose_kernel_restarted_is_inert_and_says_rerun(lab_page, lab, tmp_path):
    page = lab_page
    open_notebook(page, notebook(lab, "stale.ipynb", [
        "%load_ext jupyter_design_projects", write_cell("slides/92-stale.html")]))
    run_cell(page, 0)
    card = run_cell(page, 1)
    expect(card.get_by_role("button", name="Approve", exact=True)).to_be_visible(
        timeout=KERNEL_MS)
    # (once disconnected, ipywidgets' broken-link icon joins the button's accessible name)
    approve = card.locator(".jdp-card-buttons button").first
    stale = card.locator(".jdp-card-stale")
    expect(stale).to_be_hidden()  # a live card: no warning, buttons answer
    assert approve.evaluate("b => getComputedStyle(b).pointerEvents") != "none"

    page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session"
                  ".kernel.restart()")
    page.wait_for_function(KERNEL_IDLE, timeout=KERNEL_MS)
    expect(stale).to_be_visible(timeout=KERNEL_MS)
    expect(stale).to_contain_text("re-run the cell")
    assert approve.evaluate("b => getComputedStyle(b).pointerEvents") == "none"
    assert card.locator(".jdp-card-box.jupyter-widgets-disconnected").count() == 1
    # every view of the card is disconnected, and none draws ipywidgets' broken-link icon
    assert card.locator(".jupyter-widgets-disconnected").count() >= CARD_VIEWS
    assert card.evaluate(BROKEN_LINK_ICONS) == 0
    card.screenshot(path=str(tmp_path / "jdp-stale-card.png"))


def css_colour(page, expression: str) -> str:
    """A CSS colour expression resolved by the page (e.g. a theme variable)."""
    return page.evaluate("""expr => {
      const probe = document.createElement('div');
      probe.style.color = expr;
      document.body.appendChild(probe);
      const value = getComputedStyle(probe).color;
      probe.remove();
      return value;
    }""", expression)


@pytest.mark.browser
def test_outcomes_meters_and_cards_follow_the_dark_theme(lab_page, lab, tmp_path):
    page = lab_page
    open_notebook(page, notebook(lab, "dark.ipynb", [
        "%load_ext jupyter_design_projects",
        "%project info",
        "%project --outcome read no-such-doc.md",
        write_cell("slides/93-dark.html"),
    ]))
    page.evaluate("() => window.jupyterapp.commands.execute('apputils:change-theme',"
                  " {theme: 'JupyterLab Dark'})")
    page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'",
                           timeout=KERNEL_MS)
    for index in range(4):
        run_cell(page, index)
    info, failed, card = cell(page, 1), cell(page, 2), cell(page, 3)
    expect(info.locator(".jdp-budget")).to_be_visible(timeout=KERNEL_MS)
    expect(failed.locator(".jdp-outcome")).to_contain_text("error", timeout=KERNEL_MS)
    expect(card.get_by_role("button", name="Approve", exact=True)).to_be_visible(
        timeout=KERNEL_MS)

    # text colours are the extension's palette (theme.py), its dark values in this theme
    brand, error = css_colour(page, "var(--jdp-title)"), css_colour(page, "var(--jdp-error)")
    assert brand == css_colour(page, PALETTE["title"][1])
    assert error == css_colour(page, PALETTE["error"][1])
    track = page.evaluate("() => getComputedStyle(document.body)"
                          ".getPropertyValue('--jp-layout-color3').trim()")
    assert track, "the dark theme defines --jp-layout-color3"
    title = info.locator(".jdp-outcome > div").first
    assert title.evaluate("e => getComputedStyle(e).color") == brand
    error_title = failed.locator(".jdp-outcome > div").first
    assert error_title.evaluate("e => getComputedStyle(e).color") == error
    meter_track = info.locator(".jdp-budget > div").first
    assert (meter_track.evaluate("e => getComputedStyle(e).backgroundColor")
            == css_colour(page, "var(--jp-layout-color3)"))
    # nothing is drawn in the light theme's fixed colours
    assert css_colour(page, PALETTE["title"][0]) != brand and css_colour(
        page, "#e0e0e0") != css_colour(page, "var(--jp-layout-color3)")
    page.locator(".jp-NotebookPanel").screenshot(path=str(tmp_path / "jdp-dark-theme.png"))


@pytest.fixture
def widget_state_saved(lab) -> None:
    """JupyterLab saves widget state into the notebook (set before the page loads; the
    shared lab puts the setting back after the test), so a reloaded page can draw a card
    from the saved state with no kernel behind it."""
    target = (lab.settings_dir / "@jupyter-widgets" / "jupyterlab-manager"
              / "plugin.jupyterlab-settings")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"saveState": True}))


@pytest.mark.browser
def test_a_card_reloaded_into_a_new_kernel_is_inert_and_says_rerun(
        widget_state_saved, lab_page, lab, tmp_path):
    page = lab_page
    name = notebook(lab, "reload.ipynb", [
        "%load_ext jupyter_design_projects", write_cell("slides/94-reload.html")])
    open_notebook(page, name)
    run_cell(page, 0)
    card = run_cell(page, 1)
    expect(card.get_by_role("button", name="Approve", exact=True)).to_be_visible(
        timeout=KERNEL_MS)
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty",
                           timeout=KERNEL_MS)
    saved = nbformat.read(lab.root_dir / name, as_version=4)
    assert "application/vnd.jupyter.widget-state+json" in saved.metadata.get("widgets", {})
    # a new kernel, then the page reloaded: the card is drawn from the saved state
    page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session"
                  ".kernel.restart()")
    page.wait_for_function(KERNEL_IDLE, timeout=KERNEL_MS)
    page.reload()
    page.wait_for_function("() => window.jupyterapp !== undefined")
    page.wait_for_function(KERNEL_IDLE, timeout=KERNEL_MS)
    card = cell(page, 1)
    stale = card.locator(".jdp-card-stale")
    expect(stale).to_be_visible(timeout=KERNEL_MS)
    expect(stale).to_contain_text("re-run the cell")
    button = card.locator(".jdp-card-buttons button").first
    assert button.evaluate("b => getComputedStyle(b).pointerEvents") == "none"
    assert card.evaluate(BROKEN_LINK_ICONS) == 0
    card.screenshot(path=str(tmp_path / "jdp-reloaded-card.png"))
