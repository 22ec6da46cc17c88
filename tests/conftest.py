"""Fixtures every test package shares: the real reference service as a subprocess on
loopback (a fresh one per test, or one per module or session) and its fault switches, a
private copy of its first credential, worker processes racing against it; the fast tier
(`--fast`), which leaves out the slow kinds of test declared in SLOW_KINDS."""

from __future__ import annotations

import shutil
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from jupyter_design_projects.embedded import EmbeddedService, start_embedded
from tests import clean_tree
from tests.faults_client import FaultsClient, faults
from tests.worker_processes import Workers, as_owner, copied_credentials
from tests.zygote import ZYGOTE

TESTS = Path(__file__).resolve().parent
#: the tests' services launch the preview browser on the first preview only: warming it
#: at start costs each short-lived service a Playwright driver and a chromium (~1 s of
#: CPU to start and to stop) that most never use
NO_WARM_BROWSER = ("--no-warm-browser",)


@pytest.fixture(scope="session")
def seeded_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A service database holding the demo seed and nothing else (no token, no signing
    key, no credential), made once per session (per xdist worker): each fresh service
    starts on a copy of it, its own, instead of seeding again (the seed writes a 3 MiB
    table and indexes the docs)."""
    from jupyter_design_projects.server.app import build_context
    from jupyter_design_projects.server.context import ServiceConfig

    folder = tmp_path_factory.mktemp("seeded-database")
    ctx = build_context(ServiceConfig(data_dir=folder / "seeding", seed="demo"))
    template = folder / "service.sqlite3"
    copy = sqlite3.connect(template)
    try:
        ctx.db.read().backup(copy)  # one self-contained file, whatever is still in the WAL
    finally:
        copy.close()
    return template


def seeded_data_dir(folder: Path, template: Path) -> Path:
    """`folder` holding its own copy of the seeded database, as the service names it."""
    from jupyter_design_projects.server.app import DB_FILE

    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    shutil.copyfile(template, folder / DB_FILE)
    return folder


def _running(tmp_path_factory: pytest.TempPathFactory, name: str,
             template: Path) -> Iterator[EmbeddedService]:
    folder = seeded_data_dir(tmp_path_factory.mktemp(name), template)
    service = start_embedded(folder, faults=True, extra_args=NO_WARM_BROWSER,
                             popen=ZYGOTE.popen)
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture
def reference_service(tmp_path_factory: pytest.TempPathFactory,
                      seeded_database: Path) -> Iterator[EmbeddedService]:
    """A fresh reference service (seeded demo data, faults on) for this test only."""
    yield from _running(tmp_path_factory, "reference-service", seeded_database)


@pytest.fixture(scope="module")
def module_reference_service(tmp_path_factory: pytest.TempPathFactory,
                             seeded_database: Path) -> Iterator[EmbeddedService]:
    """One reference service for a test module whose tests change its state (consent,
    grants, docs) and reset what they rely on."""
    yield from _running(tmp_path_factory, "module-reference-service", seeded_database)


@pytest.fixture
def session(shared_reference_service, tmp_path):
    """A Session on the shared reference service, not signed in: its own credentials file
    (owned by the service's user, as a kernel's is) and data dir."""
    from jupyter_design_projects.session import Session
    from jupyter_design_projects.settings import Settings

    service = shared_reference_service
    settings = Settings.resolve({}, {
        "api_base_url": service.base_url, "org_uuid": service.org_uuid,
        "project_uuid": service.project_uuid,
        "credentials_file": str(as_owner(service, tmp_path / "credentials.json"))})
    with Session(settings, data_dir=tmp_path / "data") as opened:
        yield opened


@pytest.fixture(scope="session")
def shared_reference_service(tmp_path_factory: pytest.TempPathFactory,
                             seeded_database: Path) -> Iterator[EmbeddedService]:
    """One reference service for the whole session; tests that switch faults on must call
    `faults(service).reset()` when done, and must not rely on the seeded docs being intact."""
    yield from _running(tmp_path_factory, "shared-reference-service", seeded_database)


@pytest.fixture(scope="session")
def docs_build(tmp_path_factory: pytest.TempPathFactory):
    """The docs site, built once per worker as `python3 tasks.py docs` builds it (strict,
    the example notebooks executed) from a copy of docs/ (tests/sphinx_site.py), for every
    test that reads it: the docs tests and the accessibility audit of the rendered
    notebooks (SHARING_GROUPS puts them on one worker, so it is built once a run). A test
    never changes what it holds; one that changes a page restores it before it ends."""
    from tests.sphinx_site import built_site

    return built_site(tmp_path_factory.mktemp("docs-site"))


@pytest.fixture
def docs_site(docs_build) -> Path:
    """The HTML of the session's docs build (`docs_build`)."""
    return docs_build.html


@pytest.fixture(scope="module")
def service(module_reference_service: EmbeddedService) -> EmbeddedService:
    """The service a test module's tests share: its module reference service, unless the
    module names a `service` of its own."""
    return module_reference_service


@pytest.fixture
def shared_credentials(reference_service: EmbeddedService, tmp_path: Path) -> Path:
    """A private copy of this test's fresh service's first credential (no project scopes
    yet), for the test and the processes it starts to share."""
    return copied_credentials(reference_service, tmp_path / "shared")


@pytest.fixture
def kernel_interrupts() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt in the main thread, as it does in a kernel running a
    cell, whatever handler an earlier test left in this worker process (a test that sends
    the kernel's interrupt then depends on no other test); the one before is put back."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.fixture
def workers() -> Iterator[Callable[[int], Workers]]:
    """workers(parties) -> the worker processes of one race (worker_processes.Workers),
    every one reaped when the test ends."""
    made: list[Workers] = []

    def make(parties: int) -> Workers:
        made.append(Workers(parties))
        return made[-1]

    yield make
    for race in made:
        race.reap()


@pytest.fixture
def switches(service: EmbeddedService) -> Iterator[FaultsClient]:
    """The fault switches of the test module's `service` (a fixture each module names),
    all off before the test and again after it."""
    client = faults(service)
    client.reset()
    try:
        yield client
    finally:
        client.reset()


# ---------------------------------------------------------------- the fast tier

#: the slow kinds of test, by where they live under tests/ (a folder ends with "/"), and
#: by a fixture that makes a test one: each gets its marker, and `pytest --fast`
#: (`python3 tasks.py test --fast`) leaves them out. Declared here once: a slow test file
#: or fixture is added to its line.
SLOW_KINDS: dict[str, tuple[str, ...]] = {
    # JupyterLab in Chromium, and the reference service's previews rendered in it
    "browser": ("browser/", "server/design/test_preview.py"),
    "packaging": ("test_packaging.py", "test_labextension.py"),
    # the example notebooks executed (the docs build runs them too)
    "notebook": ("notebook/test_notebooks.py", "test_docs.py"),
    # kernels, Jupyter servers and other Python processes the test starts
    "kernel": ("labserver/", "reliability/test_battery_crashes.py",
               "reliability/test_battery_server_extension.py", "test_load_time.py",
               "test_bench_harness.py", "test_worker_split.py", "test_architecture.py"),
    # a reference service started for the test (the battery: one per module)
    "service": ("reliability/", "server/test_cli.py", "test_embedded.py",
                "test_session_lifecycle.py"),
}
SLOW_FIXTURES: dict[str, str] = {"reference_service": "service", "run_cli": "kernel",
                                 "docs_build": "notebook"}

#: tests that must not run at the same time as each other, by place (as in SLOW_KINDS): in
#: a run on several workers (`python3 tasks.py test`, `--worker-split`) each group is one
#: unit of work that one worker runs whole, one test after another, while every other test
#: file is a unit of its own (tests/worker_split.py). A new file in a group's folder joins
#: it.
SERIAL_GROUPS: dict[str, tuple[str, ...]] = {
    # both work in the checkout: jlpm installs, compiles and lints in labextension/, and
    # pip builds the wheel from the same tree and its extension build
    "checkout": ("test_packaging.py", "test_labextension.py"),
    # both make the same system users (jdphub-alice and -bob) and write in their homes
    "hub-users": ("browser/test_jupyterhub.py", "browser/test_jupyterhub_shared_service.py"),
}
#: tests that share a costly session fixture (made once per worker), by place: in a run on
#: several workers each group is one unit of work as a serial group is, so the fixture is
#: made once a run and not once on each worker
SHARING_GROUPS: dict[str, tuple[str, ...]] = {
    # the docs site (`docs_build`: a strict Sphinx build that executes the notebooks)
    "docs-site": ("test_docs.py", "browser/test_accessibility_docs.py"),
}
#: fixtures that give a test a marker of its own: the tests that take the docs' pictures
#: (`python3 tasks.py screenshots` runs `-m screenshots --retake-screenshots`)
MARKING_FIXTURES: dict[str, str] = {"screenshots": "screenshots"}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fast", action="store_true", default=False,
        help="the edit-test loop: leave out the tests marked " + ", ".join(SLOW_KINDS)
        + " (tests/conftest.py SLOW_KINDS)")
    parser.addoption(
        "--worker-split", action="store_true", default=False,
        help="with -n: share the tests between the workers by file, SERIAL_GROUPS whole on "
        "one worker, heaviest first (tests/worker_split.py; python3 tasks.py test)")
    parser.addoption(
        "--retake-screenshots", action="store_true", default=False,
        help="write the docs' pictures into docs/screenshots/ (python3 tasks.py "
        "screenshots); without it the tests that take them write to a temporary folder")


def pytest_configure(config: pytest.Config) -> None:
    """Under --worker-split the controller also prints each worker's busy time at the end
    (tests/worker_split.py BusyTime)."""
    if config.getoption("worker_split") and not hasattr(config, "workerinput"):
        from tests.worker_split import BusyTime

        config.pluginmanager.register(BusyTime(), "worker-busy-time")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """tests/worker_split.py's scheduler under --worker-split (SERIAL_GROUPS and
    SHARING_GROUPS each one unit); otherwise xdist's own."""
    if not config.getoption("worker_split"):
        return None
    from tests.worker_split import scheduler

    return scheduler({**SERIAL_GROUPS, **SHARING_GROUPS}, SLOW_KINDS)(config, log)


def slow_kinds(relative: str, fixtures: list[str]) -> list[str]:
    """The slow kinds of a test in the file at `relative` (a POSIX path under tests/) that
    uses `fixtures`."""
    kinds = [kind for kind, places in SLOW_KINDS.items()
             if any(relative.startswith(place) if place.endswith("/") else relative == place
                    for place in places)]
    return kinds + [SLOW_FIXTURES[f] for f in fixtures
                    if f in SLOW_FIXTURES and SLOW_FIXTURES[f] not in kinds]


def pytest_itemcollected(item: pytest.Item) -> None:
    """Each test's slow kinds as markers, as it is collected (before any
    pytest_collection_modifyitems)."""
    relative = item.path.relative_to(TESTS).as_posix()
    fixtures = list(getattr(item, "fixturenames", ()))
    marks = slow_kinds(relative, fixtures) + [MARKING_FIXTURES[f] for f in fixtures
                                              if f in MARKING_FIXTURES]
    for kind in marks:
        if item.get_closest_marker(kind) is None:
            item.add_marker(kind)


def is_slow(item: pytest.Item) -> bool:
    """Whether a collected test is of a slow kind (its markers, set as it was collected)."""
    return any(item.get_closest_marker(kind) for kind in SLOW_KINDS)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under --fast the slow kinds are left out. A worker under --worker-split collects the
    files with the most tests of a slow kind first (the controller sees only places, not
    the fixtures that make a test slow: tests/worker_split.py)."""
    if config.getoption("worker_split") and hasattr(config, "workerinput"):
        from tests.worker_split import slow_files_first

        items[:] = slow_files_first(items, is_slow)
    if not config.getoption("fast"):
        return
    kept, dropped = [], []
    for item in items:
        (dropped if is_slow(item) else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


# ---------------------------------------------------------------- a clean checkout


def pytest_sessionstart(session: pytest.Session) -> None:
    clean_tree.session_start(session)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A browser kept open from the last browser module is closed before a test that does
    not ask for it runs outside the module that holds it (tests/browser/held_browser.py)."""
    if "chromium" not in getattr(item, "fixturenames", ()):
        held = sys.modules.get("tests.browser.held_browser")
        if held is not None:
            held.HELD.close_unless_held_by(getattr(item, "module", None))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A run that changed the checkout (tests/clean_tree.py) fails, saying what changed;
    under --retake-screenshots the pictures it retook are what it was asked for."""
    from tests.jupyter_process import wait_for_stops

    held = sys.modules.get("tests.browser.held_browser")
    if held is not None:
        held.HELD.close()

    wait_for_stops()  # every Jupyter a test started has stopped before the checkout is read
    ZYGOTE.close()
    retake = session.config.getoption("retake_screenshots")
    clean_tree.session_finish(session, ("docs/screenshots/",) if retake else ())
