"""Signing in through the Jupyter server's own address (a real `jupyter server`, its
reference service, a browser played by httpx that talks to the Jupyter server only): the
panel's Sign in (the redirect to `<base_url>jupyter-design-projects/oauth/callback`) and
Sign in with a code (the pasted `code#state`), the proxied sign-in and settings pages, a
kernel's `%design login` that sends the person through the same address, and the clear
answers to a stale, replayed or mistyped sign-in."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings
from jupyter_design_projects.transport.http import loopback_tls
from tests.labserver.server_harness import (
    PREFIX,
    JupyterServer,
    Kernel,
    running_server,
    xsrf_headers,
)

HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[JupyterServer]:
    yield from running_server(tmp_path_factory.mktemp("jupyter-sign-in"))


def begin(browser: httpx.Client, mode: str) -> dict:
    answer = browser.post(PREFIX + "login", json={"mode": mode}, headers=xsrf_headers(browser))
    assert answer.status_code == 200, answer.text
    return answer.json()


def authorize(browser: httpx.Client, server: JupyterServer, url: str,
              decision: str = "approve") -> httpx.Response:
    """Open the sign-in page at `url` and click the decision; the service's answer
    (unfollowed)."""
    assert url.startswith(server.url + PREFIX + "oauth/authorize?"), url
    page = browser.get(url)
    assert page.status_code == 200, page.text[:500]
    action = re.search(r'<form method="post" action="([^"]+)"', page.text).group(1)
    assert action == "/jupyter-design-projects/oauth/authorize"
    fields = {html.unescape(k): html.unescape(v) for k, v in HIDDEN.findall(page.text)}
    return browser.post(action, data={**fields, "decision": decision},
                        headers={"Origin": server.url}, follow_redirects=False)


def signed_out(server: JupyterServer, tmp_path) -> None:
    """Signed out, as a kernel of this server does (the panel stops using the token at
    once: the generation marker beside the credential file changed)."""
    [path] = server.runtime_dir.glob("jdp-service-*.json")
    described = json.loads(path.read_text())
    settings = Settings.resolve({}, {"api_base_url": described["base_url"],
                                     "credentials_file": described["credentials_file"]})
    with Session(settings, data_dir=tmp_path / "data") as kernel_like:
        kernel_like.sign_out()
    assert server.status()["design"]["error"] == "not_signed_in"


def test_the_panel_signs_in_through_the_servers_callback(server, tmp_path) -> None:
    signed_out(server, tmp_path)
    with server.browser() as browser:
        begun = begin(browser, "redirect")
        assert "127.0.0.1:" + str(urlsplit(server.url).port) in begun["url"]
        went = authorize(browser, server, begun["url"])
        assert went.status_code == 303
        callback = went.headers["location"]
        assert callback.startswith(server.url + PREFIX + "oauth/callback?")
        done = browser.get(callback)
        replayed = browser.get(callback)
    assert done.status_code == 200 and "Signed in" in done.text
    assert replayed.status_code == 400 and "stale or was already used" in replayed.text
    assert not isinstance(server.status()["design"].get("error"), str)


def test_the_panel_signs_in_with_a_pasted_code(server, tmp_path) -> None:
    signed_out(server, tmp_path)
    with server.browser() as browser:
        begun = begin(browser, "paste")
        went = authorize(browser, server, begun["url"])
        code_page = went.headers["location"]
        assert code_page.startswith(server.url + PREFIX + "oauth/code/callback?")
        shown = browser.get(code_page)
        code = html.unescape(re.search(r'<pre id="code">([^<]+)</pre>', shown.text).group(1))
        finish = browser.post(PREFIX + "login/finish", json={"code": "no-hash-here"},
                              headers=xsrf_headers(browser))
        assert finish.status_code == 400 and "code#state" in finish.json()["message"]
        wrong = browser.post(PREFIX + "login/finish",
                             json={"code": "x" + code}, headers=xsrf_headers(browser))
        assert wrong.status_code == 502 and "refused the code" in wrong.json()["message"]
        right = browser.post(PREFIX + "login/finish", json={"code": code},
                             headers=xsrf_headers(browser))
        again = browser.post(PREFIX + "login/finish", json={"code": code},
                             headers=xsrf_headers(browser))
    assert right.status_code == 200 and right.json() == {"signed_in": True}
    assert again.status_code == 400 and "stale" in again.json()["message"]
    assert not isinstance(server.status()["design"].get("error"), str)


def test_a_denied_sign_in_says_so_on_the_callback_page(server) -> None:
    with server.browser() as browser:
        went = authorize(browser, server, begin(browser, "redirect")["url"], "deny")
        page = browser.get(went.headers["location"])
    assert page.status_code == 400 and "You denied the sign-in" in page.text


def test_a_callback_of_no_attempt_is_stale(server) -> None:
    with server.browser() as browser:
        page = browser.get(PREFIX + "oauth/callback?code=abc&state=never-begun")
        bare = browser.get(PREFIX + "oauth/callback")
    assert page.status_code == 400 and "stale or was already used" in page.text
    assert bare.status_code == 400


@pytest.mark.parametrize("body", [{"mode": "other"}, {"mode": 3}, "not json"])
def test_a_bad_login_request_is_refused_clearly(server, body) -> None:
    with server.browser() as browser:
        kwargs = {"json": body} if isinstance(body, dict) else {"content": body}
        answer = browser.post(PREFIX + "login", headers=xsrf_headers(browser), **kwargs)
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_argument"


@pytest.mark.parametrize("route", ["oauth/authorize", "oauth/callback", "design/settings",
                                   "oauth/code/callback"])
def test_the_proxied_pages_need_a_jupyter_login(server, route) -> None:
    answer = httpx.get(server.url + PREFIX + route, follow_redirects=False, timeout=30,
                       verify=loopback_tls())
    assert answer.status_code in (302, 403)
    assert "form_token" not in answer.text


def test_the_settings_page_is_the_owners_through_the_server(server) -> None:
    with server.browser() as browser:
        page = browser.get(PREFIX + "design/settings")
        foreign = browser.post(PREFIX + "design/settings/grants",
                               data={"project_id": "x", "action": "revoke"},
                               headers={"Origin": "https://elsewhere.example"})
    assert page.status_code == 200 and "Design settings" in page.text
    assert 'action="/jupyter-design-projects/design/settings/grants"' in page.text
    assert foreign.status_code == 403


def test_a_kernels_login_sends_the_person_through_the_server(server) -> None:
    server.status()  # the server has seen a browser's address
    kernel = Kernel(server)
    try:
        out = kernel.run(
            "from jupyter_design_projects.notebook.commands.login import jupyter_address\n"
            "from jupyter_design_projects.session import Session\n"
            "from jupyter_design_projects.notebook.commands import login\n"
            "s = Session.open()\n"
            "url, attempt = login._through_jupyter(s)\n"
            "print(jupyter_address()); print(url); s.close()\n")
    finally:
        kernel.close()
    address, url = out.strip().splitlines()[-2:]
    assert address == server.url + "/jupyter-design-projects"
    assert url.startswith(address + "/oauth/authorize?")
    assert "redirect_uri=" + "http%3A%2F%2F127.0.0.1%3A" + str(urlsplit(server.url).port) \
        + "%2Fjupyter-design-projects%2Foauth%2Fcode%2Fcallback" in url
