"""Approval cards by keyboard alone in a real JupyterLab: Tab reaches a card's buttons with
a visible focus ring (2 px or more, at 3:1 or more against the card), Enter answers, and
the focus then moves to the card's status line, a named live region, instead of falling
to the page's body. Each card is a group named by its title."""

from __future__ import annotations

import json
import re

import nbformat
import pytest
from playwright.sync_api import expect

from jupyter_design_projects.core.contrast import NON_TEXT_MIN, ratio
from jupyter_design_projects.server.design.demo import DECK_ID
from tests.browser.panel_driver import open_notebook

pytestmark = pytest.mark.browser

KERNEL_MS = 90_000
#: how many Tab presses may pass before a control is reached (the page's own controls
#: come first)
MAX_TABS = 120

#: where the focus is: the element's text, classes, role, and the index of its cell
FOCUS = """() => {
  const a = document.activeElement;
  const cells = [...document.querySelectorAll('.jp-NotebookPanel .jp-Cell')];
  const cell = a ? cells.indexOf(a.closest('.jp-Cell')) : -1;
  return { text: (a && a.textContent || '').trim(), tag: a ? a.tagName : '',
           cls: a ? String(a.className) : '', role: a && a.getAttribute('role'),
           live: a && a.getAttribute('aria-live'), cell };
}"""
#: the focused element's outline, and the first opaque background behind it
RING = """() => {
  const a = document.activeElement;
  const style = getComputedStyle(a);
  let node = a.parentElement, background = 'rgb(255, 255, 255)';
  while (node) {
    const bg = getComputedStyle(node).backgroundColor;
    if (bg && bg !== 'transparent' && !bg.startsWith('rgba(0, 0, 0, 0)')) {
      background = bg; break;
    }
    node = node.parentElement;
  }
  return { width: parseFloat(style.outlineWidth), style: style.outlineStyle,
           colour: style.outlineColor, background };
}"""
#: a card's group role and the text of what names it
GROUP = """cell => {
  const box = cell.querySelector('.jdp-card-box');
  const title = box && document.getElementById(box.getAttribute('aria-labelledby'));
  return { role: box && box.getAttribute('role'), name: title ? title.textContent : null };
}"""


def write_cell(path: str) -> str:
    files = json.dumps([{"path": path, "data": f"<h1>{path}</h1>"}])
    return f"%design write_files project_id={DECK_ID} files='{files}'"


def make_notebook(root) -> str:
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell(source) for source in (
        "%load_ext jupyter_design_projects", write_cell("slides/70-keyboard-approved.html"),
        write_cell("slides/71-keyboard-denied.html"))]
    nbformat.write(nb, root / "keyboard.ipynb")
    return "keyboard.ipynb"


def hex_of(css: str) -> str:
    r, g, b = (int(n) for n in re.findall(r"\d+", css)[:3])
    return f"#{r:02x}{g:02x}{b:02x}"


def tab_to(page, label: str, cell: int, key: str = "Tab") -> None:
    """Press `key` until the focus is on the button `label` of cell `cell`."""
    for _ in range(MAX_TABS):
        page.keyboard.press(key)
        now = page.evaluate(FOCUS)
        if now["tag"] == "BUTTON" and now["text"] == label and now["cell"] == cell:
            return
    pytest.fail(f"{MAX_TABS} presses of {key} never reached {label!r} in cell {cell}")


def enter_and_hear(page, cell: int, said: str) -> dict:
    """Press Enter; the focus lands on the card's status line, which says `said`."""
    page.keyboard.press("Enter")
    page.wait_for_function(
        "([cell, said]) => { const a = document.activeElement;"
        " return a && a.classList.contains('jdp-card-status')"
        " && a.closest('.jp-Cell') === document.querySelectorAll("
        "'.jp-NotebookPanel .jp-Cell')[cell] && a.textContent.includes(said); }",
        arg=[cell, said], timeout=KERNEL_MS)
    return page.evaluate(FOCUS)


def assert_visible_ring(page) -> None:
    ring = page.evaluate(RING)
    assert ring["style"] != "none" and ring["width"] >= 2, ring
    assert ratio(hex_of(ring["colour"]), hex_of(ring["background"])) >= NON_TEXT_MIN, ring


@pytest.mark.parametrize("theme", ["JupyterLab Light", "JupyterLab Dark"])
def test_a_card_is_approved_and_another_denied_by_keyboard_alone(lab_page, lab, theme):
    from tests.browser.panel_driver import set_theme

    page = lab_page
    set_theme(page, theme)
    open_notebook(page, make_notebook(lab.root_dir))
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    cells = page.locator(".jp-NotebookPanel .jp-Cell")
    expect(cells.nth(2).get_by_role("button", name="Approve", exact=True)).to_be_visible(
        timeout=KERNEL_MS)
    group = cells.nth(1).evaluate(GROUP)
    assert group["role"] == "group" and group["name"], group
    page.keyboard.press("Escape")  # command mode: Tab walks the page's controls

    tab_to(page, "Approve", 1)
    assert_visible_ring(page)
    status = enter_and_hear(page, 1, "Consent given")
    assert status["role"] == "status" and status["live"] == "polite"
    # the consent card's follow-up (the project's grant) asks on the same card
    tab_to(page, "Approve", 1, key="Shift+Tab")
    enter_and_hear(page, 1, "Approved this batch only")
    expect(cells.nth(1).locator(".widget-output .jp-OutputArea-child")).to_have_count(
        1, timeout=KERNEL_MS)
    expect(cells.nth(1).get_by_role("button")).to_have_count(0)
    assert page.evaluate(FOCUS)["cls"].count("jdp-card-status") == 1  # focus stayed

    tab_to(page, "Deny", 2)
    assert_visible_ring(page)
    enter_and_hear(page, 2, "Denied: nothing was sent.")
    expect(cells.nth(2).locator(".widget-output")).to_contain_text(  # the refusal, in words
        "so nothing was sent", timeout=KERNEL_MS)
