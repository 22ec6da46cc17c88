"""The axe-core audit (WCAG 2.1 A and AA) of every surface of the extension in a real
JupyterLab, in the light and the dark theme: cards asking, approved and denied (Design and
Projects), the Design and Projects inspectors with the notifications pane, the catalogue,
the call history's wide table, `%design auth`, `%project info`'s outcome and the session's
first line, and both side panels. Target: no critical and no serious failure on them, with
contrast measured (each node in view). JupyterLab's own failures on the same page are
counted beside them, for docs/accessibility.md."""

from __future__ import annotations

import json

import nbformat
import pytest
from playwright.sync_api import expect

from jupyter_design_projects.server.design.demo import DECK_ID
from tests.browser.axe_audit import SEVERE, audit, load_axe
from tests.browser.panel_driver import DESIGN, PROJECT, open_notebook, open_panel, set_theme

pytestmark = pytest.mark.browser

KERNEL_MS = 90_000
#: every output of the notebook is the extension's, and so are both panels
OURS = f".jp-Notebook .jp-OutputArea-output, {PROJECT}, {DESIGN}"
THEMES = ("JupyterLab Light", "JupyterLab Dark")


def write_cell(path: str) -> str:
    files = json.dumps([{"path": path, "data": f"<h1>{path}</h1>"}])
    return f"%design write_files project_id={DECK_ID} files='{files}'"


SOURCES = [
    "%load_ext jupyter_design_projects",
    write_cell("slides/80-a11y-approved.html"),  # 1: approved, twice (consent, grant)
    write_cell("slides/81-a11y-denied.html"),  # 2: denied
    write_cell("slides/82-a11y-asking.html"),  # 3: left asking
    "%%project write notes/a11y.md\n# Accessibility\nA change card, left asking.\n",
    "%design inspect",
    "%project inspect",
    "%design list",
    "%design history",
    "%design auth",
    "%project info",
]


def make_notebook(root) -> str:
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell(source) for source in SOURCES]
    nbformat.write(nb, root / "a11y.ipynb")
    return "a11y.ipynb"


def cell(page, index: int):
    return page.locator(".jp-NotebookPanel .jp-Cell").nth(index)


def answer(page, index: int, label: str) -> None:
    """Click `label` on the card of cell `index` until the card has no such button."""
    for _ in range(4):
        button = cell(page, index).get_by_role("button", name=label, exact=True)
        if button.count() == 0:
            return
        handle = button.first.element_handle()
        handle.click()
        page.wait_for_function("b => b.disabled || !b.isConnected", arg=handle,
                               timeout=KERNEL_MS)
        page.wait_for_function(
            "([cell, label]) => ![...cell.querySelectorAll('button')].some("
            " b => b.textContent.trim() === label && b.disabled)",
            arg=[cell(page, index).element_handle(), label], timeout=KERNEL_MS)


def run_all(page) -> None:
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    for index in range(len(SOURCES)):
        expect(cell(page, index).locator(".jp-InputPrompt")).to_have_text(
            "[" + str(index + 1) + "]:", timeout=KERNEL_MS)


def show(audits: dict) -> str:
    lines = []
    for theme, (ours, lab) in audits.items():
        failed = [(v.rule, v.impact, v.nodes, v.target) for v in ours.severe()]
        lines.append(f"{theme}: ours {failed}")
        lines.append(f"{theme}: JupyterLab critical {lab.count('critical')} serious "
                     f"{lab.count('serious')} (rules, nodes): "
                     f"{sorted({(v.rule, v.impact) for v in lab.severe()})}")
    return "\n".join(lines)


def test_no_critical_or_serious_failure_on_the_extension_in_either_theme(lab_page, lab,
                                                                           tmp_path):
    page = lab_page
    page.set_viewport_size({"width": 1400, "height": 1600})
    open_notebook(page, make_notebook(lab.root_dir))
    run_all(page)
    expect(cell(page, 3).get_by_role("button", name="Approve", exact=True)).to_be_visible(
        timeout=KERNEL_MS)
    answer(page, 1, "Approve")
    answer(page, 2, "Deny")
    expect(cell(page, 1).locator(".widget-output .jp-OutputArea-child")).to_have_count(
        1, timeout=KERNEL_MS)
    expect(cell(page, 2).locator(".jdp-card-status")).to_contain_text("Denied")
    # the Design inspector's form of an operation with a choice, a text box and a list
    cell(page, 5).locator(".jdp-inspector-picker select").select_option(index=0)
    expect(cell(page, 5).locator("[class*='jdp-field-role'] select")).to_be_visible()
    open_panel(page, PROJECT)
    open_panel(page, DESIGN)
    audits = {}
    for theme in THEMES:
        set_theme(page, theme)
        load_axe(page)
        audits[theme] = (audit(page, OURS), audit(page, OURS, exclude=True))
    report = show(audits)
    print(report)
    print(json.dumps({
        theme: {"ours": {i: ours.count(i) for i in SEVERE},
                "jupyterlab": {i: lab.count(i) for i in SEVERE},
                "ours_audited": ours.nodes, "contrast_passes": ours.contrast_passes}
        for theme, (ours, lab) in audits.items()}, indent=2))
    assert_the_audit_sees_a_failure(page)
    for theme, (ours, _lab) in audits.items():
        assert ours.nodes >= len(SOURCES) + 2, theme
        assert ours.contrast_passes > 0, f"{theme}: axe measured no contrast"
        assert ours.severe() == [], report


#: a nameless <select> and grey-on-white text put into an output, as a regression would
BROKEN = """() => {
  const out = document.querySelector('.jp-Notebook .jp-OutputArea-output');
  const probe = document.createElement('div');
  probe.className = 'jdp-probe';
  probe.innerHTML = '<select><option>a</option></select>'
    + '<p style="color:#bbb;background:#fff">faint</p>';
  out.appendChild(probe);
}"""


def assert_the_audit_sees_a_failure(page) -> None:
    """The harness finds what it is there to find: a critical and a serious failure put
    into the page are reported, so a clean result is not an audit that saw nothing."""
    page.evaluate(BROKEN)
    try:
        rules = {(v.rule, v.impact) for v in audit(page, ".jdp-probe").severe()}
    finally:
        page.evaluate("() => document.querySelector('.jdp-probe').remove()")
    assert ("select-name", "critical") in rules
    assert ("color-contrast", "serious") in rules
