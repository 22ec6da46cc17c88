"""Two people on a real JupyterHub (tests/browser/hub_harness.py: JupyterHub from PyPI,
configurable-http-proxy from npm, `DummyAuthenticator`, `LocalProcessSpawner` as two
system users), each in a browser context that reaches only the hub's public URL: each
logs in, their server loads the panel under /user/<name>/, each sees only their own data
(their own embedded service and data dir, consent and journal), the other's browser gets
a 403 from their routes, and one person's kernel cannot read the other's files.

One hub serves the module; the tests run in file order (the second relies on the
consent and the write of the first)."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import RESTORED_MS
from hub_harness import Hub, hub_users, processes_of, running_hub
from panel_driver import PROJECT, open_panel, role
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(os.geteuid() != 0,
                                 reason="two system users for the hub are made as root")]

NAMES = ["alice", "bob"]
ALICE_DOC = "notes/from-alice.md"

#: fetch a route of the page's origin as the page would (its cookies, the XSRF token
#: Jupyter set); resolves to [status, body]
FETCH = """async ([method, url]) => {
  const xsrf = (document.cookie.match(/(?:^|; )_xsrf=([^;]*)/) || [])[1] || '';
  const answer = await fetch(url, {method, credentials: 'same-origin',
                                   headers: {'X-XSRFToken': decodeURIComponent(xsrf)}});
  return [answer.status, await answer.text()];
}"""

#: in a person's kernel: a Projects write through the server's own service (approved
#: from code), then where the session's temporary folder is
WRITE_IN_KERNEL = f"""
from jupyter_design_projects import Session
with Session.open() as session:
    written = session.project.write({ALICE_DOC!r}, content="Alice's note.",
                                    approve=lambda request: "once")
    print("journal", written["journal_id"])
    print("temp", session.temp_dir)
"""

#: in a person's kernel: try to read each path; prints `<path> read|denied|missing`
PROBE = """
import os
for path in {paths!r}:
    try:
        os.listdir(path) if os.path.isdir(path) else open(path, "rb").read(1)
        print(path, "read")
    except PermissionError:
        print(path, "denied")
    except FileNotFoundError:
        print(path, "missing")
"""


@pytest.fixture(scope="module")
def hub(tmp_path_factory) -> Iterator[Hub]:
    with hub_users(NAMES) as users, \
            running_hub(tmp_path_factory.mktemp("hub"), users) as running:
        running.start_servers()
        yield running


@pytest.fixture(scope="module")
def pages(hub: Hub, chromium, tmp_path_factory) -> Iterator[dict[str, Any]]:
    """Each person logged in to the hub in a browser context of their own, their
    JupyterLab open under /user/<name>/lab."""
    shots = tmp_path_factory.mktemp("hub-pages")
    contexts = {name: hub.browser_context(chromium) for name in NAMES}
    try:
        opened = {}
        for name, context in contexts.items():
            page = hub.log_in(context, name)
            page.set_default_timeout(RESTORED_MS)
            page.goto(hub.user_url(name, "lab"))
            try:
                page.wait_for_function("() => window.jupyterapp !== undefined")
            except Exception:
                page.screenshot(path=str(shots / f"{name}.png"))
                raise AssertionError(f"no JupyterLab at {page.url} (shot in {shots}); "
                                     f"blocked: {hub.blocked[:5]}") from None
            page.evaluate("() => window.jupyterapp.restored.then(() => {"
                          " window.__jdpRestored = true; })")
            page.wait_for_function("() => window.__jdpRestored === true")
            opened[name] = page
        yield opened
    finally:
        for context in contexts.values():
            context.close()


def route(page: Any, hub: Hub, owner: str, path: str, method: str = "GET") -> tuple[int, Any]:
    status, body = page.evaluate(FETCH, [method, hub.user_url(owner,
                                                              f"jupyter-design-projects/{path}")])
    try:
        return status, json.loads(body)
    except ValueError:
        return status, body


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_each_person_logs_in_through_the_hub_and_their_panel_loads(hub, pages):
    for name, page in pages.items():
        assert page.url.startswith(hub.user_url(name))
        panel = open_panel(page, PROJECT)
        expect(role(panel, "project-name")).to_have_text("Team Handbook")
    # nothing the pages loaded came from anywhere but the hub (the servers' own
    # loopback ports and their services included)
    assert hub.blocked == []


def test_each_person_sees_only_their_own_data(hub, pages):
    alice, bob = hub.users["alice"], hub.users["bob"]
    assert route(pages["alice"], hub, "alice", "design/consent", "POST")[0] == 200
    written = hub.in_kernel("alice", WRITE_IN_KERNEL)
    assert "journal" in written, written
    assert route(pages["alice"], hub, "alice", "status")[1]["design"]["consent"] is True
    assert route(pages["bob"], hub, "bob", "status")[1]["design"]["consent"] is False
    alice_journal = route(pages["alice"], hub, "alice", "journal")[1]
    assert [e["path"] for e in alice_journal["entries"]] == [ALICE_DOC]
    assert route(pages["bob"], hub, "bob", "journal")[1]["entries"] == []
    # each person's own data dir, service and processes, as their own uid
    for user in (alice, bob):
        data = user.data_dir()
        assert os.stat(data).st_uid == user.uid and mode(data) == 0o700
        assert mode(data / "reference-service") == 0o700
    for user in (alice, bob):  # the journal each route read is the person's own file
        journal = user.data_dir() / "journal.sqlite3"
        assert os.stat(journal).st_uid == user.uid and mode(journal) == 0o600
    services = {uid: [pid for pid in processes_of({uid}) if b"jupyter_design_projects.server"
                      in Path(f"/proc/{pid}/cmdline").read_bytes()]
                for uid in (alice.uid, bob.uid)}
    assert all(len(pids) == 1 for pids in services.values()), services


def test_another_persons_browser_gets_a_403_from_their_routes(hub, pages):
    for path, method in (("status", "GET"), ("journal", "GET"), ("design/consent", "POST"),
                         ("project/files", "GET")):
        assert route(pages["bob"], hub, "alice", path, method)[0] == 403, path
        assert route(pages["alice"], hub, "bob", path, method)[0] == 403, path
    assert route(pages["bob"], hub, "bob", "design/consent", "DELETE")[0] == 200
    assert route(pages["alice"], hub, "alice", "status")[1]["design"]["consent"] is True


def test_one_persons_kernel_cannot_read_the_others_files(hub):
    alice, bob = hub.users["alice"], hub.users["bob"]
    temp = next((bob.data_dir() / "temp").iterdir(), None)  # the panel's session's
    assert temp is not None and mode(temp) == 0o700
    theirs = [bob.data_dir(), bob.data_dir() / "temp", temp,
              bob.data_dir() / "reference-service",
              bob.data_dir() / "reference-service" / "service.sqlite3"]
    out = hub.in_kernel("alice", PROBE.format(paths=[str(p) for p in theirs]))
    assert out.split("\n")[:-1] == [f"{p} denied" for p in theirs], out
    own = hub.in_kernel("alice", PROBE.format(paths=[str(alice.data_dir())]))
    assert own.strip() == f"{alice.data_dir()} read"
