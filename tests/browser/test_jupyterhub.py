"""Two people on a real JupyterHub (tests/browser/hub_harness.py: JupyterHub from PyPI,
configurable-http-proxy from npm, `DummyAuthenticator`, `LocalProcessSpawner` as two
system users), each in a browser context that reaches only the hub's public URL: each
logs in, their server loads the panel under /user/<name>/, each sees only their own data
(their own embedded service and data dir, consent and journal), the other's browser gets
a 403 from their routes, and one person's kernel cannot read the other's files; then both
sign out and sign in again through the hub's URL (one by the redirect, one by a pasted
code), and one person's kernel gets nothing from the other's embedded service.

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
from playwright.sync_api import expect

from jupyter_design_projects.server.oauth import DESIGN_SCOPES, FIRST_PARTY_CLIENT_ID
from tests.browser.hub_harness import Hub, hub_users, processes_of, running_hub
from tests.browser.hub_sign_in import service_url, sign_in, sign_out
from tests.browser.lab import RESTORED_MS
from tests.browser.panel_driver import DESIGN, PROJECT, open_panel, role

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


#: every URL the Design panel shows (its text) or links to (resolved against the page)
PANEL_URLS = """panel => {
  const text = panel.innerText.match(/https?:\\/\\/[^\\s"'<>]+/g) || [];
  const linked = [...panel.querySelectorAll('[href],[src],[action]')].map(e =>
    new URL(e.getAttribute('href') || e.getAttribute('src') || e.getAttribute('action'),
            document.baseURI).href);
  return [...text, ...linked];
}"""


def test_each_person_signs_in_through_the_hubs_url_and_sees_their_own_data(hub, pages):
    for name in NAMES:
        out = sign_out(hub, name)
        assert out.strip() == "signed_in False", out
    shown = {"alice": sign_in(hub, pages["alice"], "alice"),
             "bob": sign_in(hub, pages["bob"], "bob", paste=True)}
    ports = [service_url(hub, name).rsplit(":", 1)[1] for name in NAMES]
    for name, urls in shown.items():
        pages_at = hub.user_url(name, "jupyter-design-projects/oauth/")
        callback = pages_at + ("code/callback" if name == "bob" else "callback")
        assert urls[0].startswith(pages_at + "authorize?"), urls
        assert urls[1] == callback, urls
        assert urls[2].startswith(callback + "?"), urls
        panel = open_panel(pages[name], DESIGN)
        in_panel = panel.evaluate(PANEL_URLS)
        for url in urls + in_panel:
            assert url.startswith(hub.public_url + "/"), (name, url)
            assert not any(f":{port}" in url for port in ports), (name, url)
        text = panel.inner_text()  # the service line names no loopback port either
        assert not any(f"127.0.0.1:{port}" in text for port in ports), text
    # each panel shows its own person's consent (alice gave hers, bob withdrew his)
    expect(role(open_panel(pages["alice"], DESIGN), "consent")).to_have_text("consent: given")
    expect(role(open_panel(pages["bob"], DESIGN), "consent")).to_have_text(
        "consent: not given")
    alice_journal = route(pages["alice"], hub, "alice", "journal")[1]
    assert [e["path"] for e in alice_journal["entries"]] == [ALICE_DOC]
    assert route(pages["bob"], hub, "bob", "journal")[1]["entries"] == []
    # nothing either browser asked for went anywhere but the hub's URL
    assert hub.blocked == []


#: in a person's kernel, against another person's embedded service at `base` (its port is
#: no secret on the host): each request well formed (the Design API's `anthropic-version`
#: included) but with no token and no owner proof; one JSON line each,
#: [method, path, status, body]
STRANGER = """
import json, httpx
base, callback, client = {base!r}, {callback!r}, {client!r}
query = dict(response_type="code", client_id=client, redirect_uri=callback,
             scope={scope!r}, state="s" * 32, code_challenge="c" * 43,
             code_challenge_method="S256")
tries = [
    ("GET", "/.well-known/oauth-authorization-server", {{}}),
    ("GET", "/oauth/authorize", dict(params=query)),
    # refused before the owner check: the form token is on the owner-only page
    ("POST", "/oauth/authorize", dict(data=dict(query, decision="approve"))),
    ("GET", "/design/settings", {{}}),
    ("POST", "/design/settings/grants", dict(data=dict(project_id="x", action="revoke"))),
    ("POST", "/v1/oauth/token", dict(json=dict(
        grant_type="authorization_code", client_id=client, code="guess",
        redirect_uri=callback, code_verifier="v" * 43))),
    ("POST", "/v1/design/mcp", dict(
        json=dict(jsonrpc="2.0", id=1, method="tools/list", params={{}}),
        headers={{"accept": "application/json, text/event-stream"}})),
    ("GET", "/v1/design/consent", {{}}),
    ("GET", "/api/organizations", {{}}),
]
with httpx.Client(base_url=base, timeout=30.0,
                  headers={{"anthropic-version": "2023-06-01"}}) as http:
    for method, path, kwargs in tries:
        answer = http.request(method, path, **kwargs)
        print(json.dumps([method, path, answer.status_code, answer.text]))
"""


def test_one_persons_kernel_gets_nothing_from_the_others_service(hub):
    base = service_url(hub, "bob")
    callback = hub.user_url("bob", "jupyter-design-projects/oauth/callback")
    out = hub.in_kernel("alice", STRANGER.format(base=base, callback=callback,
                                                 client=FIRST_PARTY_CLIENT_ID,
                                                 scope=" ".join(DESIGN_SCOPES)))
    answers = {(m, p): (status, body) for m, p, status, body in map(json.loads,
                                                                     out.splitlines())}
    # reached: bob's service answers alice's kernel (its metadata is public)
    assert answers.pop(("GET", "/.well-known/oauth-authorization-server"))[0] == 200, out
    for (method, path), (status, body) in answers.items():
        expected = {"/v1/oauth/token": 400, "/v1/design/mcp": 401, "/v1/design/consent": 401,
                    "/api/organizations": 401}.get(path, 403)
        assert status == expected, (method, path, status, body)
        for data in ("access_token", "refresh_token", "Team Handbook", '"consent"',
                     'name="state"', "code="):
            assert data not in body, (method, path, data, body)
    assert "Not your service" in answers[("GET", "/oauth/authorize")][1]
    assert "Not your service" in answers[("GET", "/design/settings")][1]
    assert "Sign-in request refused" in answers[("POST", "/oauth/authorize")][1]
    assert "invalid_grant" in answers[("POST", "/v1/oauth/token")][1]
