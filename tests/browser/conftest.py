"""Real-browser fixtures: JupyterLab on a loopback port pointed at a reference service, and
Debian's chromium driven by Playwright's sync API (tests/browser/lab.py holds what they
start them with). Every wait is bounded by a deadline."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.held_browser import HELD
from tests.browser.lab import (
    CHROMIUM,
    ROOT,
    Failures,
    Lab,
    lab_environment,
    lab_page_on,
    running_lab,
    settings_kept,
)

#: the pictures the docs show, retaken only under `--retake-screenshots`
DOCS_SCREENSHOTS = ROOT / "docs" / "screenshots"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Counts the failed reports (`Failures`) for `lab_page_on`, which saves a page's last
    state only when one came while it was open: a call's report comes before the teardown
    that closes a test's page, and a module's page closes after its last test's call."""
    report = yield
    if report.failed:
        Failures.count += 1
    return report


@pytest.fixture
def lab(reference_service, tmp_path: Path) -> Iterator[Lab]:
    """`jupyter lab` on a free loopback port, pointed at a fresh reference service."""
    with running_lab(tmp_path, lab_environment(tmp_path, reference_service)) as running:
        yield running


#: the workspaces the tests sharing a module's JupyterLab open their pages in
_WORKSPACES = itertools.count(1)


@pytest.fixture(scope="module")
def module_lab(module_reference_service, tmp_path_factory: pytest.TempPathFactory
               ) -> Iterator[Lab]:
    """One JupyterLab for a module's tests, pointed at the module's reference service
    (`module_reference_service`): a JupyterLab start is about 3.5 s of CPU and a test's
    own notebook, kernel and workspace already keep it apart. A module uses it by
    making `lab` its `shared_lab`."""
    tmp = tmp_path_factory.mktemp("module-lab")
    with running_lab(tmp, lab_environment(tmp, module_reference_service)) as running:
        yield running


@pytest.fixture
def shared_lab(module_lab: Lab) -> Iterator[Lab]:
    """The module's JupyterLab for one test: its pages open in a workspace of their own
    (no tab of an earlier test comes back), and the user settings it changes (the theme)
    are put back when it ends."""
    with settings_kept(module_lab):
        yield module_lab.in_workspace(f"test-{next(_WORKSPACES)}")


@pytest.fixture(scope="module")
def chromium(request: pytest.FixtureRequest) -> Iterator[object]:
    """Debian's chromium through Playwright's sync API for a module's tests: the one the
    last browser module used, when no other test ran between (tests/browser/held_browser.py
    says why no asyncio test may run while it is open)."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (tasks.py test does)")
    yield HELD.open(request.module)
    HELD.release()


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
