"""One reference service per Jupyter server: with no service configured the server
extension starts it at server start, and the panel and every kernel the server launches
share its project, consent, grants and journal. Also the panel routes' authentication,
XSRF check and answers (no token in any of them), through the real Jupyter server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.labserver.server_harness import (
    PREFIX,
    JupyterServer,
    Kernel,
    running_server,
    xsrf_headers,
)

LOAD = "%load_ext jupyter_design_projects\n%config DesignProjects.approval_mode = 'deny'"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[JupyterServer]:
    yield from running_server(tmp_path_factory.mktemp("jupyter"))


@pytest.fixture(scope="module")
def kernels(server) -> Iterator[tuple[Kernel, Kernel]]:
    a, b = Kernel(server), Kernel(server)
    try:
        a.run(LOAD)
        b.run(LOAD)
        yield a, b
    finally:
        a.close()
        b.close()


def service_file_of(server: JupyterServer) -> dict:
    [path] = server.runtime_dir.glob("jdp-service-*.json")
    return json.loads(path.read_text())


def test_the_server_started_one_service_and_its_kernels_use_it(server, kernels):
    a, b = kernels
    described = service_file_of(server)
    printed = [k.run("print(get_ipython().magics_manager.registry['DesignProjects']"
                     ".session.settings.api_base_url)").strip().splitlines() for k in (a, b)]
    urls = {lines[-1] for lines in printed}

    assert described["state"] == "ready"
    assert urls == {described["base_url"]} == {server.status()["service"]["base_url"]}
    assert "token" not in json.dumps(described)
    assert all("embedded reference service, on this Jupyter server" in lines[0]
               for lines in printed)


def test_a_write_in_one_kernel_shows_in_the_other_and_in_the_panel(server, kernels):
    a, b = kernels
    before = server.status()["project"]
    written = a.run("r = get_ipython().run_cell_magic('project', 'write notes/from-a.md --yes', "
                    "'hello from kernel A')\nprint(r.data['path'])").strip().splitlines()[-1]
    seen_by_b = json.loads(b.run(  # last lines: a first call prints a banner before
        "import json\ninfo = get_ipython().run_line_magic('project', 'info')\n"
        "print(json.dumps([d['path'] for d in info.data['docs']]))").strip().splitlines()[-1])
    after = server.status()["project"]
    files = server.api("GET", PREFIX + "project/files").json()
    journal = server.api("GET", PREFIX + "journal").json()

    assert written in seen_by_b
    assert after["docs"] == before["docs"] + 1 and after["revision"] != before["revision"]
    assert written in [d["path"] for d in files["docs"]]
    assert journal["entries"][0]["path"] == written  # one journal for panel and kernels


def test_a_revoke_through_the_panel_is_seen_by_the_next_design_call(server, kernels):
    a, b = kernels
    b.run("get_ipython().run_line_magic('design', 'consent')")
    listed = b.run("r = get_ipython().run_line_magic('design', 'list_projects')\n"
                   "print(r.is_error)").strip()
    assert listed == "False"
    assert server.status()["design"]["consent"] is True

    with server.browser() as browser:
        revoked = browser.delete(PREFIX + "design/consent", headers=xsrf_headers(browser))
    # --outcome: the refusal as an outcome to inspect, instead of failing the cell
    after = b.run("r = get_ipython().run_line_magic('design', '--outcome list_projects')\n"
                  "print(r.is_error, r.error.kind)").split()

    assert revoked.status_code == 200 and revoked.json()["consent"] is False
    assert after[0] == "True" and after[1] in ("permission_denied", "needs_consent")


WRITE_IN_A_KERNEL = '''
import uuid
from jupyter_design_projects.session import Session
s = Session.open(can_ask=lambda: True)  # a script whose `approve` answers the cards
ns = uuid.UUID("0f4b6c1e-5d0a-4c58-9b7e-2a1d3c4e5f60")
pid = str(uuid.uuid5(ns, "project:Quarterly Review Deck"))
path = f"slides/journal-{uuid.uuid4().hex[:8]}.html"
r = s.design_call("write_files", {"project_id": pid, "files": [
    {"path": path, "data": "<h1>from a kernel</h1>", "if_match": "0"}]},
    approve=lambda request: "once")
s.close()
print(r.is_error, path)
'''


def test_a_design_write_in_a_kernel_shows_in_the_panels_design_journal(server, kernels):
    a, _ = kernels
    before = server.status()["design"]["journal_revision"]
    failed, path = a.run(WRITE_IN_A_KERNEL).strip().splitlines()[-1].split()
    answer = server.api("GET", PREFIX + "design/journal?n=5")
    after = server.status()["design"]["journal_revision"]

    assert failed == "False"
    assert answer.status_code == 200 and answer.headers["cache-control"] == "no-store"
    newest = answer.json()["entries"][0]
    assert (newest["operation"], newest["authority"], newest["outcome"]) == (
        "write_files", "plan", "done")
    assert newest["project_name"] == "Quarterly Review Deck"
    assert newest["changes"] == [{"path": path, "change": "created", "bytes": 22,
                                  "detail": None}]
    assert newest["authority_detail"].startswith("an approved plan for 1 write(s)")
    assert after != before


# ---------------------------------------------------------------- authentication


ROUTES = [("GET", "status"), ("GET", "project/files"), ("GET", "project/search?q=incident"),
          ("GET", "project/doc?path=glossary.md"), ("POST", "design/consent"),
          ("DELETE", "design/consent"), ("DELETE", "design/grants/abc"), ("GET", "journal"),
          ("GET", "design/journal"), ("POST", "journal/1/restore"), ("POST", "login"),
          ("POST", "login/finish")]


@pytest.mark.parametrize(("method", "route"), ROUTES)
def test_every_route_refuses_a_request_without_login(server, method, route):
    import httpx

    from jupyter_design_projects.transport.http import loopback_tls

    answer = httpx.request(method, server.url + PREFIX + route,
                           json={} if method == "POST" else None, timeout=30, verify=loopback_tls())
    assert answer.status_code == 403


@pytest.mark.parametrize(("method", "route"), [r for r in ROUTES if r[0] != "GET"])
def test_every_change_refuses_a_signed_in_browser_without_the_xsrf_header(server, method,
                                                                           route):
    with server.browser() as browser:
        refused = browser.request(method, PREFIX + route,
                                  json={} if method == "POST" else None)
        read = browser.get(PREFIX + "status")
    assert refused.status_code == 403
    assert read.status_code == 200  # the same browser, signed in, reads fine


def test_no_answer_carries_a_token(server, kernels):
    credentials = Path(service_file_of(server)["credentials_file"])
    with server.browser() as browser:
        headers = xsrf_headers(browser)
        replies = [browser.request(method, PREFIX + route, headers=headers,
                                   json={} if method == "POST" else None)
                   for method, route in ROUTES]
    stored = json.loads(credentials.read_text())
    answers = [reply.text for reply in replies]

    assert all(reply.status_code != 403 for reply in replies)  # the XSRF header passes
    assert all(answers)
    for token in (stored["access_token"], stored["refresh_token"]):
        assert token and not any(token in text for text in answers)


@pytest.mark.parametrize(("query", "status"), [
    ("q=incident&n=1", 200), ("q=incident&n=15", 200), ("q=incident", 200),
    ("q=incident&n=0", 400), ("q=incident&n=16", 400), ("q=incident&n=x", 400),
    ("q=%20&n=3", 400), ("n=3", 400),
])
def test_search_takes_n_from_1_to_15_and_a_query(server, query, status):
    answer = server.api("GET", PREFIX + "project/search?" + query)
    assert answer.status_code == status
    assert answer.headers["content-type"] == "application/json; charset=utf-8"
    assert answer.headers["cache-control"] == "no-store"
    if status == 400:
        assert answer.json()["error"] == "invalid_argument"
    else:
        assert answer.json()["rag"] in (True, False)


@pytest.mark.parametrize(("route", "status"), [
    ("project/doc", 400), ("project/doc?path=glossary.md", 200),
    ("project/doc?path=no-such.md", 502), ("journal?n=abc", 400), ("journal?n=0", 200),
    ("design/journal?n=abc", 400), ("design/journal?n=0", 200),
])
def test_reads_refuse_what_they_cannot_answer(server, route, status):
    answer = server.api("GET", PREFIX + route)
    assert answer.status_code == status
    assert ("error" in answer.json()) is (status != 200)
