"""Real-browser fixtures: JupyterLab on a loopback port pointed at a reference service, and
Debian's chromium driven by Playwright's sync API. Every wait is bounded by a deadline."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.jupyter_process import jupyter_process
from tests.worker_processes import as_owner

ROOT = Path(__file__).resolve().parents[2]
BUILT_EXTENSION = ROOT / "jupyter_design_projects" / "labextension"
#: the pictures the docs show, retaken only under `--retake-screenshots`
DOCS_SCREENSHOTS = ROOT / "docs" / "screenshots"
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
#: Playwright timeouts (ms): app start, a kernel round trip, one UI update
RESTORED_MS = 90_000
KERNEL_MS = 90_000
UI_MS = 30_000

#: user settings that keep a run deterministic and offline
USER_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False},
}


@dataclasses.dataclass(frozen=True)
class Lab:
    url: str
    token: str
    root_dir: Path
    log_file: Path

    def lab_url(self, path: str = "lab") -> str:
        return f"{self.url}/{path}?token={self.token}"


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
        with httpx.Client(timeout=5.0) as client:
            return client.get(f"{url}{base}/api/status",
                              params={"token": token}).status_code == 200

    with jupyter_process("lab", [
        f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
        f"--LabApp.user_settings_dir={tmp / 'user-settings'}",
        "--LabApp.expose_app_in_browser=True",
        f"--ServerApp.base_url={base_url}",
    ], env=env, root=root_dir, log_file=log_file, ready=serving) as (url, token):
        yield Lab(url=url + base, token=token, root_dir=root_dir, log_file=log_file)


@pytest.fixture
def lab(reference_service, tmp_path: Path) -> Iterator[Lab]:
    """`jupyter lab` on a free loopback port, pointed at a fresh reference service."""
    with running_lab(tmp_path, lab_environment(tmp_path, reference_service)) as running:
        yield running


@pytest.fixture(scope="module")
def chromium() -> Iterator[object]:
    """Debian's chromium through Playwright's sync API, once per module: while the sync API
    runs, its event loop is the thread's running loop, so it must be gone before the
    asyncio tests of later modules start theirs."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (tasks.py test does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def lab_page_on(chromium, lab: Lab, shots: Path, path: str = "lab") -> Iterator[object]:
    """A page on JupyterLab, returned once the application has restored its layout. The
    last state of the page is saved as a screenshot in `shots`, for failures."""
    context = chromium.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(UI_MS)
    try:
        page.goto(lab.lab_url(path))
        page.wait_for_function("() => window.jupyterapp !== undefined", timeout=RESTORED_MS)
        page.evaluate("() => { window.jupyterapp.restored.then(() => {"
                      " window.__jdpRestored = true; }); }")
        page.wait_for_function("() => window.__jdpRestored === true", timeout=RESTORED_MS)
        yield page
    finally:
        page.screenshot(path=str(shots / "last-page.png"))
        print(f"last page: {shots / 'last-page.png'}; lab log: {lab.log_file}")
        context.close()


@pytest.fixture
def lab_page(chromium, lab: Lab, tmp_path: Path):
    """A page on JupyterLab for one test (see `lab_page_on`)."""
    with lab_page_on(chromium, lab, tmp_path) as page:
        yield page


@pytest.fixture(scope="session")
def screenshots(request: pytest.FixtureRequest,
                tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the tests that take the docs' pictures write them: docs/screenshots/ under
    `--retake-screenshots` (`python3 tasks.py screenshots`), else a temporary folder, so an
    ordinary run leaves the tracked pictures (and `git status`) as they were. Either way
    the tests check the same things on each picture."""
    if request.config.getoption("retake_screenshots"):
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        return DOCS_SCREENSHOTS
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture
def loopback_beacon():
    """A loopback HTTP server that records the path of every request it gets, for the
    hostile-content tests (`tests/hostile_content.py` holds it and the payloads)."""
    from tests.hostile_content import beacon

    with beacon() as spot:
        yield spot
