"""What the real-browser tests start and drive: JupyterLab's environment and process on
a loopback port, Debian's chromium's flags, a page once the app has restored, notebook
cells run and clicked as a person would, and the service's files read through raw MCP.
(tests/browser/conftest.py makes fixtures of them; tests/browser/panel_driver.py drives
the side panels.)"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from jupyter_design_projects.server.design.demo import DECK_ID
from jupyter_design_projects.transport.http import loopback_tls
from tests.design_headers import DESIGN_HEADERS
from tests.jupyter_process import jupyter_process
from tests.worker_processes import as_owner

ROOT = Path(__file__).resolve().parents[2]
BUILT_EXTENSION = ROOT / "jupyter_design_projects" / "labextension"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--disable-sync",
    "--metrics-recording-only",
    "--no-first-run",
]
#: Playwright timeouts (ms): app start, a kernel round trip (the first Design handshake
#: and a preview included), one UI update
RESTORED_MS = 90_000
KERNEL_MS = 90_000
UI_MS = 30_000

#: user settings that keep a run deterministic and offline
USER_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False},
}
#: a raw MCP call's headers (mcp_tool adds the stored credential)
MCP_HEADERS = {"Accept": "application/json, text/event-stream", **DESIGN_HEADERS}
#: the notebook is open and its kernel has started and is idle
KERNEL_IDLE = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const kernel = panel && panel.sessionContext && panel.sessionContext.session
    && panel.sessionContext.session.kernel;
  return Boolean(kernel) && kernel.status === 'idle';
}"""
#: the notebook `open_notebook` opened has a kernel, started and idle
NOTEBOOK_IDLE = """() => {
  const nb = window.__jdpNotebook;
  const kernel = nb && nb.sessionContext.session && nb.sessionContext.session.kernel;
  return Boolean(kernel) && kernel.status === 'idle';
}"""
#: every preview image of the grid has loaded and has a size
GRID_LOADED = """cell => {
  const images = [...cell.querySelectorAll('.jdp-deck-grid img')];
  return images.length > 0 && images.every(i => i.complete && i.naturalWidth > 0);
}"""


@dataclasses.dataclass(frozen=True)
class Lab:
    url: str
    token: str
    root_dir: Path
    log_file: Path
    #: the JupyterLab workspace a page opens (None: the default one, which a page saves
    #: its open tabs into and the next page restores)
    workspace: str | None = None

    def lab_url(self, path: str = "lab") -> str:
        if self.workspace is not None and (path == "lab" or path.startswith("lab/")):
            path = f"lab/workspaces/{self.workspace}{path[len('lab'):]}"
        return f"{self.url}/{path}?token={self.token}"

    @property
    def settings_dir(self) -> Path:
        """Its user settings (`running_lab` puts them beside the notebooks' folder)."""
        return self.root_dir.parent / "user-settings"

    def in_workspace(self, name: str) -> Lab:
        """The same JupyterLab, its pages opening in the fresh workspace `name`: a test
        sharing a module's JupyterLab sees none of the tabs an earlier test left open."""
        return dataclasses.replace(self, workspace=name)


@contextlib.contextmanager
def settings_kept(lab: Lab) -> Iterator[None]:
    """The lab's user settings (theme, widget-state saving) as they were before, once the
    block ends: a test sharing a module's JupyterLab may change them for itself only."""
    folder = lab.settings_dir
    before = {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    try:
        yield
    finally:
        for path in folder.rglob("*"):
            if path.is_file() and path not in before:
                path.unlink()
        for path, content in before.items():
            path.write_bytes(content)


def lab_environment(tmp: Path, service, *, attached: bool = True,
                    signed_in: bool = True) -> dict[str, str]:
    """Isolated Jupyter dirs; the built extension and the server extension enabled; the
    reference service configured as `tasks.py lab` configures it. `attached=False` leaves
    CLAUDE_PROJECT_UUID unset; `signed_in=False` points at a credential file not yet made."""
    if not (BUILT_EXTENSION / "package.json").is_file():
        pytest.fail("the JupyterLab extension is not built: run `python3 tasks.py test`")
    labextensions = tmp / "jupyter-path" / "labextensions"
    labextensions.mkdir(parents=True)
    (labextensions / "jupyter-design-projects").symlink_to(BUILT_EXTENSION)
    config = tmp / "jupyter-config"
    config.mkdir()
    (config / "jupyter_server_config.json").write_text(json.dumps(
        {"ServerApp": {"jpserver_extensions": {"jupyter_design_projects": True}}}))
    settings = tmp / "user-settings"
    for name, value in USER_SETTINGS.items():
        target = settings / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(value))
    env = dict(os.environ)
    env.update({
        "JUPYTER_PATH": str(tmp / "jupyter-path"),
        "JUPYTER_CONFIG_DIR": str(config),
        "JUPYTER_DATA_DIR": str(tmp / "jupyter-data"),
        "JUPYTER_RUNTIME_DIR": str(tmp / "jupyter-runtime"),
        "XDG_DATA_HOME": str(tmp / "xdg-data"),
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p),
        "JDP_API_BASE_URL": service.base_url,
        "JDP_CREDENTIALS_FILE": str(service.credentials_file if signed_in
                                    else tmp / "not-signed-in" / "credentials.json"),
        "JDP_ORG_UUID": service.org_uuid,
        "CLAUDE_PROJECT_UUID": service.project_uuid,
    })
    if not signed_in:  # the person who runs the service: its owner secret beside the file
        as_owner(service, Path(env["JDP_CREDENTIALS_FILE"]))
    if not attached:
        env.pop("CLAUDE_PROJECT_UUID")
    for name in ("CLAUDE_SESSION_JWT", "JDP_WEB_BASE_URL", "JDP_OAUTH_TOKEN_URL",
                 "JDP_SERVICE_FILE"):
        env.pop(name, None)
    return env


@contextlib.contextmanager
def running_lab(tmp: Path, env: dict[str, str], base_url: str = "/") -> Iterator[Lab]:
    """`jupyter lab` on a free loopback port with `env` (under `base_url`, as a hub's
    single-user server is: `/user/alice/`), stopped on exit. `Lab.url` ends with the base."""
    root_dir = tmp / "notebooks"
    root_dir.mkdir()
    log_file = tmp / "jupyter-lab.log"
    base = base_url.rstrip("/")

    def serving(url: str, token: str) -> bool:
        with httpx.Client(timeout=5.0, verify=loopback_tls()) as client:
            return client.get(f"{url}{base}/api/status",
                              params={"token": token}).status_code == 200

    with jupyter_process("lab", [
        f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
        f"--LabApp.user_settings_dir={tmp / 'user-settings'}",
        "--LabApp.expose_app_in_browser=True",
        f"--ServerApp.base_url={base_url}",
    ], env=env, root=root_dir, log_file=log_file, ready=serving) as (url, token):
        yield Lab(url=url + base, token=token, root_dir=root_dir, log_file=log_file)


class Failures:
    """How many reports of this worker's browser tests have failed so far
    (tests/browser/conftest.py counts them), so a page can tell whether a test failed
    while it was open."""

    count = 0


@contextlib.contextmanager
def lab_page_on(chromium, lab: Lab, shots: Path, path: str = "lab") -> Iterator[object]:
    """A page on JupyterLab, returned once the application has restored its layout. When
    a test fails while it is open (the test holding it, or any of a module's tests when
    the page is a module's), its last state is saved as a screenshot in `shots` (a
    picture is about 0.3 CPU-seconds, so a page whose tests passed takes none)."""
    context = chromium.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(UI_MS)
    failures, failed = Failures.count, True
    try:
        page.goto(lab.lab_url(path))
        page.wait_for_function("() => window.jupyterapp !== undefined", timeout=RESTORED_MS)
        page.evaluate("() => { window.jupyterapp.restored.then(() => {"
                      " window.__jdpRestored = true; }); }")
        page.wait_for_function("() => window.__jdpRestored === true", timeout=RESTORED_MS)
        yield page
        failed = Failures.count > failures
    finally:
        if failed:
            page.screenshot(path=str(shots / "last-page.png"))
            print(f"last page: {shots / 'last-page.png'}")
        print(f"lab log: {lab.log_file}")
        context.close()


def open_notebook(page, name: str) -> None:
    """Open `name` (a path under the lab's root) in the application the page has already
    loaded, as the file browser opens it, and wait until its kernel is idle. Loading the
    page again at `lab/tree/<name>` would cost a second start of the whole application
    (about 4 s of CPU in Chromium)."""
    page.evaluate("async name => { window.__jdpNotebook = await"
                  " window.jupyterapp.commands.execute('docmanager:open', { path: name }); }",
                  name)
    page.wait_for_function(NOTEBOOK_IDLE, timeout=KERNEL_MS)


def run_cell(page, index: int):
    """Run one cell (Shift+Enter in its editor), not waiting for the kernel."""
    cell = page.locator(".jp-NotebookPanel .jp-Cell").nth(index)
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    return cell


def run_cell_and_wait(page, index: int):
    """Run one cell and wait until the kernel has finished it (its prompt has a number)."""
    cell = page.locator(".jp-NotebookPanel .jp-Cell").nth(index)
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    page.wait_for_function(
        "c => /\\[[0-9]+\\]/.test(c.querySelector('.jp-InputPrompt').textContent)",
        arg=cell.element_handle(), timeout=KERNEL_MS)
    return cell


def click(page, button) -> None:
    """Click, then wait until the kernel has taken the click (the button is disabled or
    gone), so the next look at the card does not see the card as it was."""
    handle = button.element_handle()
    handle.click()
    page.wait_for_function("b => b.disabled || !b.isConnected", arg=handle, timeout=KERNEL_MS)


def mcp_tool(service, name: str, arguments: dict) -> dict:
    """A raw JSON-RPC tools/call on the service, with the stored credential."""
    token = json.loads(service.credentials_file.read_text())["access_token"]
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {token}"}
    url = f"{service.base_url}/v1/design/mcp"
    with httpx.Client(headers=headers, timeout=30.0, verify=loopback_tls()) as client:
        init = client.post(url, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                       "clientInfo": {"name": "claude-cli-design-tool", "version": "1"}}})
        session = {"Mcp-Session-Id": init.headers["mcp-session-id"]}
        client.post(url, headers=session,
                    json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        answer = client.post(url, headers=session, json={
            "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}})
    return answer.json()["result"]


def file_paths(service) -> set[str]:
    """The paths of the demo deck's files on the service."""
    result = mcp_tool(service, "list_files", {"project_id": DECK_ID})
    assert not result.get("isError")
    return {entry["path"] for entry in json.loads(result["content"][0]["text"])}
