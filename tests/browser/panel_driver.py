"""How the browser tests drive the Project and Design panels and the notebook beside them:
open a panel by its side-bar tab, run code in the notebook's kernel, run a notebook cell as
a person would (so a card or an output shows in the page), talk to the service directly
with the stored credential. Every wait is bounded by Playwright's timeouts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import nbformat
from playwright.sync_api import expect

from jupyter_design_projects.transport.http import loopback_tls
from tests.browser.lab import NOTEBOOK_IDLE, open_notebook  # noqa: F401 (for the panel tests)
from tests.design_headers import DESIGN_HEADERS

PROJECT = "#jdp-project-panel"
DESIGN = "#jdp-design-panel"
#: a kernel round trip, including a first Projects or Design handshake (ms)
KERNEL_MS = 90_000
#: how long a change made elsewhere may take to show: one 3 s poll, plus a busy machine
LIVE_MS = 15_000

#: the input prompt of a cell that has run: `[3]:`
RAN = re.compile(r"\[\d+\]:")

#: run code in the notebook's kernel; resolves to its stdout, stderr and errors as text
KERNEL_RUN = """async code => {
  const kernel = window.__jdpNotebook.sessionContext.session.kernel;
  const future = kernel.requestExecute({ code, store_history: false, allow_stdin: false });
  let out = '';
  future.onIOPub = msg => {
    const type = msg.header.msg_type;
    if (type === 'stream') { out += msg.content.text; }
    if (type === 'error') { out += `${msg.content.ename}: ${msg.content.evalue}\\n`; }
  };
  await future.done;
  return out;
}"""

#: add a cell at the end of the notebook with `source`, run it as Shift+Enter would
RUN_NEW_CELL = """async source => {
  const app = window.jupyterapp;
  const panel = window.__jdpNotebook;
  app.shell.activateById(panel.id);
  const nb = panel.content;
  nb.activeCellIndex = nb.widgets.length - 1;
  await app.commands.execute('notebook:insert-cell-below');
  nb.activeCell.model.sharedModel.setSource(source);
  await app.commands.execute('notebook:run-cell');
  return nb.widgets.length - 1;
}"""


def make_notebook(root: Path, name: str = "panels.ipynb") -> str:
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}})
    nb.cells = [nbformat.v4.new_markdown_cell("The Project and Design panels, driven by tests.")]
    nbformat.write(nb, root / name)
    return name


def kernel_run(page, code: str) -> str:
    return page.evaluate(KERNEL_RUN, code)


def run_new_cell(page, source: str):
    """The cell, once it has run (its prompt shows an execution count)."""
    index = page.evaluate(RUN_NEW_CELL, source)
    cell = page.locator(".jp-NotebookPanel .jp-Cell").nth(index)
    expect(cell.locator(".jp-InputPrompt")).to_have_text(RAN, timeout=KERNEL_MS)
    return cell


def open_panel(page, panel: str):
    """Click the panel's tab in the right side bar (unless it is already open)."""
    locator = page.locator(panel)
    if not locator.is_visible():
        page.locator(f'.jp-SideBar.jp-mod-right .lm-TabBar-tab[data-id="{panel[1:]}"]').click()
    expect(locator).to_be_visible()
    return locator


def role(root, name: str):
    return root.locator(f'[data-jdp="{name}"]')


def access_token(service) -> str:
    return json.loads(service.credentials_file.read_text())["access_token"]


def service_call(service, method: str, path: str, body: dict | None = None) -> httpx.Response:
    """What a kernel's own REST call does, sent straight to the service."""
    headers = {"Authorization": f"Bearer {access_token(service)}", **DESIGN_HEADERS}
    with httpx.Client(timeout=30.0, verify=loopback_tls()) as client:
        return client.request(method, f"{service.base_url}{path}", json=body, headers=headers)


def set_theme(page, theme: str) -> None:
    page.evaluate("theme => window.jupyterapp.commands.execute('apputils:change-theme',"
                  " { theme })", theme)
    page.wait_for_function("theme => document.body.dataset.jpThemeName === theme"
                           " && !document.querySelector('#jupyterlab-splash')", arg=theme)


def screenshot(page, folder: Path, name: str, panel: str | None = None) -> Path:
    """A screenshot of the whole page into `folder` (the `screenshots` fixture: the
    README's docs/screenshots/ when retaking them); `panel` is scrolled to its top first."""
    if panel is not None:
        page.locator(panel).evaluate("node => { node.scrollTop = 0; }")
    target = folder / name
    page.screenshot(path=str(target))
    return target


def light_and_dark_screenshots(page, folder: Path, panel: str, name: str) -> None:
    """`<name>.png` in the light theme and `<name>-dark.png` in the dark one, the page left
    in the light theme; the panel must still show after the theme change."""
    screenshot(page, folder, f"{name}.png", panel)
    set_theme(page, "JupyterLab Dark")
    try:
        expect(page.locator(panel)).to_be_visible()
        screenshot(page, folder, f"{name}-dark.png", panel)
    finally:
        set_theme(page, "JupyterLab Light")
