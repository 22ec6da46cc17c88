"""The inspector in a real JupyterLab, as a person uses it: choose write_files, fill its
generated form, Run, approve its card inline, see the result; load the call from the
History, change its path, Run and approve again; then `%design rpc ping`."""

from __future__ import annotations

import nbformat
import pytest
from playwright.sync_api import expect

from jupyter_design_projects.server.design.demo import DECK_ID
from tests.browser.lab import KERNEL_MS, file_paths, open_notebook, run_cell

FIRST = "slides/92-from-the-inspector.html"
EDITED = "slides/93-replayed-in-the-inspector.html"
#: how many questions one write may ask (consent, then a grant or a plan)
MAX_CARDS = 4


def make_notebook(lab) -> str:
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell("%load_ext jupyter_design_projects"),
                nbformat.v4.new_code_cell("%design inspect"),
                nbformat.v4.new_code_cell("%design rpc ping")]
    nbformat.write(nb, lab.root_dir / "inspector.ipynb")
    return "inspector.ipynb"


def field(cell, name: str):
    return cell.locator(f".jdp-field-{name}").locator("input, textarea").first


#: the state of the inspector's card: an Approve to click, or the call's result shown
CARD_STATE = """([out, path]) => {
  const cards = [...out.querySelectorAll('.jdp-card-box')]
    .filter(card => card.textContent.includes(path));
  const card = cards[cards.length - 1];
  if (!card) return '';
  const approve = [...card.querySelectorAll('button')]
    .find(b => b.textContent.trim() === 'Approve' && !b.disabled);
  if (approve) return 'asking';
  return card.querySelector('.widget-output .jp-OutputArea-child') ? 'done' : '';
}"""


def approve_all(page, cell, path: str) -> None:
    """Click Approve on each card the call writing `path` asks (consent, grant) until its
    result shows."""
    output = cell.locator(".jdp-inspector-output").first.element_handle()
    for _ in range(MAX_CARDS):
        state = page.wait_for_function(CARD_STATE, arg=[output, path],
                                       timeout=KERNEL_MS).json_value()
        if state == "done":
            return
        button = cell.locator(".jdp-inspector-output .jdp-card-box", has_text=path).last \
            .get_by_role("button", name="Approve", exact=True).element_handle()
        button.click()
        page.wait_for_function("b => b.disabled || !b.isConnected", arg=button,
                               timeout=KERNEL_MS)
    raise AssertionError("the call kept asking")


@pytest.mark.browser
def test_write_files_from_the_inspector_then_a_replay_with_an_edited_path(
        lab_page, lab, reference_service, tmp_path):
    page = lab_page
    open_notebook(page, make_notebook(lab))
    run_cell(page, 0)
    cell = run_cell(page, 1)
    picker = cell.locator(".jdp-inspector-picker select")
    expect(picker).to_be_visible(timeout=KERNEL_MS)
    picker.select_option(label="write_files  [destructive]")
    expect(cell.locator(".jdp-field-project_id")).to_be_visible()
    expect(cell.locator(".jdp-field-files")).to_contain_text("*")  # required, marked
    field(cell, "project_id").fill(DECK_ID)
    cell.locator(".jdp-field-files").get_by_role("button", name="Add").click()
    field(cell, "files-0-path").fill(FIRST)
    field(cell, "files-0-data").fill(f"<h1>{FIRST}</h1>")
    cell.locator(".jdp-inspector-run").click()
    approve_all(page, cell, FIRST)
    expect(cell.locator(".jdp-inspector-output")).to_contain_text(f"Wrote 1 file(s): {FIRST}")
    cell.screenshot(path=str(tmp_path / "jdp-inspector-write.png"))
    assert FIRST in file_paths(reference_service)

    history = cell.locator(".jdp-inspector-history select")
    expect(history.locator("option", has_text="write_files")).to_have_count(1)
    drawn = field(cell, "files-0-path").element_handle()
    history.select_option(index=1)
    page.wait_for_function("e => !e.isConnected", arg=drawn, timeout=KERNEL_MS)  # redrawn
    expect(field(cell, "files-0-path")).to_have_value(FIRST)
    field(cell, "files-0-path").fill(EDITED)
    field(cell, "files-0-path").press("Tab")
    cell.locator(".jdp-inspector-run").click()
    approve_all(page, cell, EDITED)
    output = cell.locator(".jdp-inspector-output")
    expect(output).to_contain_text(f"Wrote 1 file(s): {EDITED}")
    expect(output).not_to_contain_text(FIRST)  # the earlier Run's card is gone
    assert {FIRST, EDITED} <= file_paths(reference_service)

    ping = run_cell(page, 2)
    expect(ping.locator(".jp-OutputArea")).to_contain_text('"result": {}', timeout=KERNEL_MS)
    expect(ping.locator(".jp-OutputArea")).to_contain_text("[redacted-oauth-token]")
