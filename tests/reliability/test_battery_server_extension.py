"""The jupyter_server extension's handlers in a real `jupyter server` on loopback, and the
reference service's own binding. Every route the extension registers is found by loading
it into a recording stand-in (so routes added later are covered with no change here), and
each is checked: no login → refused; an unsafe method without the XSRF token → refused;
no answer ever carries a token. Threats: CSRF from another page, token disclosure through
the panel's API, a service reachable from the network."""

from __future__ import annotations

import json
import logging
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from jupyter_design_projects.labserver import handlers
from jupyter_design_projects.server.cli import listening_notice
from jupyter_design_projects.transport.http import loopback_tls
from tests.jupyter_process import jupyter_process
from tests.reliability.battery import file_tokens
from tests.reliability.leaks import LeakScan

ROOT = Path(__file__).resolve().parents[2]
METHODS = ("get", "post", "put", "patch", "delete")
UNSAFE = ("post", "put", "patch", "delete")


def registered_routes() -> list[tuple[str, type]]:
    """Every (route, handler) the extension registers, from its own load function."""
    added: list[tuple[str, type]] = []

    class WebApp:
        settings = {"base_url": "/"}

        def add_handlers(self, host: str, handlers: list) -> None:
            added.extend((spec[0], spec[1]) for spec in handlers)

    handlers.register(WebApp(), None)  # type: ignore[arg-type]
    assert added, "the extension registers no route"
    return added


#: the sign-in pages a browser opens with a query (the sign-in request, the code, the
#: callback's code and state): without one, they answer a 400 page
PAGES_WITH_A_QUERY = {"/jupyter-design-projects/oauth/authorize",
                      "/jupyter-design-projects/oauth/code/callback",
                      "/jupyter-design-projects/oauth/callback"}


def concrete(route: str) -> str:
    """A URL path for a route pattern (each capture group becomes a sample value)."""
    path = re.sub(r"\(\?P<\w+>[^)]*\)|\([^)]*\)", "sample", route)
    return path.rstrip("$").lstrip("^")


def methods_of(handler: type) -> list[str]:
    from tornado.web import RequestHandler

    return [m for m in METHODS if getattr(handler, m) is not getattr(RequestHandler, m)]


CASES = [(concrete(route), method) for route, handler in registered_routes()
         for method in methods_of(handler)]


@pytest.fixture(scope="module")
def jupyter(module_reference_service, tmp_path_factory):
    """`jupyter server` with the extension, pointed at the reference service."""
    service = module_reference_service
    tmp = tmp_path_factory.mktemp("jupyter")
    config = tmp / "config"
    config.mkdir()
    (config / "jupyter_server_config.json").write_text(json.dumps(
        {"ServerApp": {"jpserver_extensions": {"jupyter_design_projects": True}}}))
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(config),
           "JUPYTER_DATA_DIR": str(tmp / "data"), "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"),
           "XDG_DATA_HOME": str(tmp / "xdg"),
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH"))
                                         if p),
           **service.client_env()}
    env.pop("CLAUDE_SESSION_JWT", None)

    def up(base: str, token: str) -> bool:
        return httpx.get(f"{base}/api/status", params={"token": token},
                         verify=loopback_tls()).status_code == 200

    with jupyter_process("server", [], env=env, root=tmp, log_file=tmp / "server.log",
                         ready=up) as (base, token):
        yield {"base": base, "token": token, "service": service}


def tokens_of(jupyter) -> LeakScan:
    service = jupyter["service"]
    return LeakScan(lambda: file_tokens(service.credentials_file) + [service.session_jwt])


def test_the_extension_registers_routes_under_its_own_prefix__threat_route_collision():
    assert all(concrete(route).startswith("/jupyter-design-projects/")
               for route, _ in registered_routes())


@pytest.mark.parametrize(("path", "method"), CASES)
def test_no_login_is_refused__threat_unauthenticated_api(jupyter, path, method):
    answer = httpx.request(method.upper(), jupyter["base"] + path, json={}, verify=loopback_tls())
    if method == "get" and answer.status_code == 302:
        # a browser page (the proxied sign-in and settings pages, the callback): Jupyter
        # sends a browser with no login to its login page, and nothing else
        assert answer.headers["location"].startswith("/login?next=")
        assert "form_token" not in answer.text
    else:
        assert answer.status_code in (401, 403)
    tokens_of(jupyter).check(extra=[answer.text, json.dumps(dict(answer.headers))])


@pytest.mark.parametrize(("path", "method"), CASES)
def test_a_logged_in_answer_never_carries_a_token__threat_token_disclosure(
        jupyter, path, method, caplog):
    caplog.set_level(logging.DEBUG)
    # the query every GET route may need (a search text, a seeded doc); others ignore it
    query = {"q": "release", "n": 5, "path": "release-process.md"} if method == "get" else None
    answer = httpx.request(method.upper(), jupyter["base"] + path, json={}, params=query,
                           headers={"Authorization": f"token {jupyter['token']}"}, timeout=60,
                           verify=loopback_tls())
    assert answer.status_code < 500
    if method == "get":
        # a sign-in page opened without its query is a 400 page, not a failure
        assert answer.status_code == 200 or (path in PAGES_WITH_A_QUERY
                                             and answer.status_code == 400)
        assert answer.headers["cache-control"] == "no-store"
    tokens_of(jupyter).check(extra=[answer.text, json.dumps(dict(answer.headers))],
                             records=caplog.records)


@pytest.mark.parametrize(("path", "method"), [c for c in CASES if c[1] in UNSAFE] or
                         [("/jupyter-design-projects/status", "post")])
def test_an_unsafe_method_without_xsrf_is_refused__threat_csrf(jupyter, path, method):
    """Logged in by cookie (as a browser is), an unsafe request without the XSRF token is
    refused before the handler runs, whatever the handler (a route without such a method
    answers 405 after the same check)."""
    with httpx.Client(base_url=jupyter["base"], verify=loopback_tls()) as browser:
        browser.get("/login")
        page = browser.get("/login").text
        xsrf = browser.cookies.get("_xsrf")
        assert xsrf and "_xsrf" in page
        logged_in = browser.post("/login", data={"password": jupyter["token"], "_xsrf": xsrf})
        assert logged_in.status_code in (200, 302)
        refused = browser.request(method.upper(), path, json={})
        assert refused.status_code == 403 and "argument missing" in refused.text
        allowed = browser.request(method.upper(), path, json={}, headers={"X-XSRFToken": xsrf})
        # past Jupyter's check (a proxied form's page may still refuse it: its form token)
        assert allowed.status_code != 403 or "argument missing" not in allowed.text
        tokens_of(jupyter).check(extra=[refused.text, allowed.text])


# ---------------------------------------------------------------- the reference service


def test_the_reference_service_binds_loopback_by_default_and_says_so__threat_exposure(
        tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-m", "jupyter_design_projects.server", "--port", "0",
         "--data-dir", str(tmp_path), "--seed", "demo"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        line = json.loads(process.stdout.readline())
        assert line["base_url"].startswith("http://127.0.0.1:")
        port = int(line["base_url"].rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
    finally:
        process.terminate()
        process.wait(30)
        stderr = process.stderr.read().decode()
        process.stdout.close()
        process.stderr.close()
    assert f"listening on {line['base_url']} (loopback only)" in stderr
    assert not re.search(r"(?i)warning.*listening", stderr)


@pytest.mark.parametrize(("host", "level"), [
    ("127.0.0.1", logging.INFO), ("::1", logging.INFO), ("localhost", logging.INFO),
    ("0.0.0.0", logging.WARNING), ("192.168.1.20", logging.WARNING)])
def test_a_host_that_is_not_loopback_is_announced_as_a_warning__threat_exposure(host, level):
    said_level, message = listening_notice(host, f"http://{host}:8080")
    assert said_level == level
    assert (level == logging.WARNING) == ("not loopback" in message)
