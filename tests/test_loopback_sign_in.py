"""Sign-in as a native app (RFC 8252) against the real reference service: the sign-in page
(clicked by a real HTTP client) redirects to the session's one-time loopback listener,
which checks the state, exchanges the code with the PKCE verifier and the same
redirect_uri, stores the credential and closes; every way it can go wrong is refused."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
import traceback
from concurrent.futures import Future
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.errors import AuthError
from jupyter_design_projects.errors.remedy import Remedy
from jupyter_design_projects.session import Session
from jupyter_design_projects.transport.credential_manager import LoginAttempt
from jupyter_design_projects.transport.http import loopback_tls
from jupyter_design_projects.transport.oauth import OAuthClient
from jupyter_design_projects.transport.redirect_listener import RedirectListener
from tests.sign_in_page import click_authorize, redirect_fields

#: bounds every wait on the sign-in's Future
DONE_S = 60.0


def failure_of(done: Future) -> AuthError:
    with pytest.raises(AuthError) as info:
        done.result(timeout=DONE_S)
    return info.value


def verbose_traceback(error: BaseException) -> str:
    """The traceback as a debugger would show it, every frame's locals included."""
    return "".join(traceback.TracebackException.from_exception(
        error, capture_locals=True).format())


def listener_port(url: str) -> int:
    redirect = parse_qs(urlsplit(url).query)["redirect_uri"][0]
    return urlsplit(redirect).port


def nothing_listens_on(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def started(session: Session, timeout_s: float = DONE_S) -> tuple[LoginAttempt, Future]:
    """A loopback sign-in whose attempt (and so its verifier) the test can see."""
    listener = session.run(RedirectListener.open())
    attempt = session.credentials.begin_login(redirect_uri=listener.redirect_uri)
    return attempt, session.submit(
        session.credentials.login_by_redirect(attempt, listener, timeout_s))


def deliver(attempt: LoginAttempt, fields: dict[str, str]) -> httpx.Response:
    """The browser arriving at the listener with `fields` in the query."""
    return httpx.get(f"{attempt.redirect_uri}?{urlencode(fields)}", timeout=DONE_S,
                     trust_env=False, verify=loopback_tls())


def stored(session: Session) -> dict | None:
    """The credential file's content, None while there is none."""
    path = Path(session.settings.credentials_file)
    return json.loads(path.read_text()) if path.exists() else None


def test_authorize_redirects_to_the_listener_which_stores_the_credential(session) -> None:
    credentials = session.settings.credentials_file
    url, done = session.login_start(timeout_s=DONE_S)
    assert urlsplit(parse_qs(urlsplit(url).query)["redirect_uri"][0]).hostname == "127.0.0.1"
    assert parse_qs(urlsplit(url).query)["code_challenge_method"] == ["S256"]
    landed = click_authorize(url)
    assert landed.status_code == 200 and "you can close this tab" in landed.text
    done.result(timeout=DONE_S)
    assert stat.S_IMODE(os.stat(credentials).st_mode) == 0o600
    assert stored(session)["access_token"] == session.credentials.current().access_token.reveal()
    assert not session.run(session.design.list()).is_error  # a following Design call
    assert nothing_listens_on(listener_port(url))


def test_other_paths_get_404_and_the_listener_keeps_waiting(session) -> None:
    url, done = session.login_start(timeout_s=DONE_S)
    port = listener_port(url)
    favicon = httpx.get(f"http://127.0.0.1:{port}/favicon.ico", timeout=DONE_S,
                        verify=loopback_tls())
    assert favicon.status_code == 404 and not done.done()
    click_authorize(url)
    done.result(timeout=DONE_S)


def test_a_redirect_with_another_state_is_refused_and_nothing_is_exchanged(session) -> None:
    attempt, done = started(session)
    _, fields = redirect_fields(click_authorize(attempt.url, follow=False))
    page = deliver(attempt, {"code": fields["code"], "state": "someone-elses-state"})
    assert page.status_code == 400 and "another sign-in attempt" in page.text
    error = failure_of(done)
    assert error.reason == "state_mismatch"
    assert fields["code"] not in verbose_traceback(error)
    assert stored(session) is None
    assert fields["code"] not in page.text
    # the code was never spent: the attempt's own verifier still exchanges it
    cred = session.run(session.credentials._oauth.exchange_code(
        code=Secret(fields["code"]), verifier=attempt.verifier, state=attempt.state,
        scopes=(), redirect_uri=attempt.redirect_uri))
    assert cred.access_token.reveal()


def test_a_redirect_uri_that_is_not_loopback_is_refused_by_the_service(session) -> None:
    url, done = session.login_start(timeout_s=DONE_S)
    done.cancel()
    parts = urlsplit(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    for elsewhere in ("https://evil.example/callback", "http://localhost:8080/callback",
                      "http://127.0.0.1@evil.example/callback"):
        page = httpx.get(parts._replace(query=urlencode(
            {**query, "redirect_uri": elsewhere})).geturl(), timeout=DONE_S, verify=loopback_tls())
        assert page.status_code == 400 and "location" not in page.headers
        assert "<form" not in page.text and "loopback" in page.text


def test_a_code_is_exchanged_once(session) -> None:
    attempt, done = started(session)
    _, fields = redirect_fields(click_authorize(attempt.url, follow=False))
    assert deliver(attempt, fields).status_code == 200
    done.result(timeout=DONE_S)
    with pytest.raises(AuthError) as info:
        session.run(session.credentials._oauth.exchange_code(
            code=Secret(fields["code"]), verifier=attempt.verifier, state=attempt.state,
            scopes=(), redirect_uri=attempt.redirect_uri))
    assert info.value.reason == "invalid_grant"
    assert fields["code"] not in str(info.value)


@pytest.mark.parametrize("wrong", ["verifier", "redirect_uri"])
def test_a_code_with_another_verifier_or_redirect_uri_is_refused(session, wrong) -> None:
    attempt, done = started(session)
    done.cancel()
    _, fields = redirect_fields(click_authorize(attempt.url, follow=False))
    oauth: OAuthClient = session.credentials._oauth
    verifier = Secret("w" * 43) if wrong == "verifier" else attempt.verifier
    redirect_uri = ("http://127.0.0.1:1/callback" if wrong == "redirect_uri"
                    else attempt.redirect_uri)
    with pytest.raises(AuthError) as info:
        session.run(oauth.exchange_code(code=Secret(fields["code"]), verifier=verifier,
                                        state=attempt.state, scopes=(),
                                        redirect_uri=redirect_uri))
    assert info.value.reason == "invalid_grant"
    assert fields["code"] not in str(info.value) and "w" * 43 not in str(info.value)


def test_a_refused_exchange_answers_the_browser_and_fails_the_sign_in(session) -> None:
    attempt, done = started(session)
    _, fields = redirect_fields(click_authorize(attempt.url, follow=False))
    oauth: OAuthClient = session.credentials._oauth
    with pytest.raises(AuthError):  # someone spends the code first (with a wrong verifier)
        session.run(oauth.exchange_code(code=Secret(fields["code"]), verifier=Secret("w" * 43),
                                        state=attempt.state, scopes=(),
                                        redirect_uri=attempt.redirect_uri))
    page = deliver(attempt, fields)
    assert page.status_code == 400 and "Sign-in failed" in page.text
    error = failure_of(done)
    assert error.reason == "invalid_grant"
    shown = verbose_traceback(error)
    assert fields["code"] not in shown and attempt.verifier.reveal() not in shown
    assert fields["code"] not in page.text and stored(session) is None


def test_deny_on_the_page_fails_the_sign_in_and_says_so(session) -> None:
    url, done = session.login_start(timeout_s=DONE_S)
    page = click_authorize(url, "deny")
    assert page.status_code == 400 and "denied" in page.text
    assert failure_of(done).reason == "access_denied"
    assert stored(session) is None


def test_a_sign_in_that_times_out_closes_its_listener_and_says_what_to_do(session) -> None:
    url, done = session.login_start(timeout_s=0.2)
    error = failure_of(done)
    assert error.reason == "login_timeout"
    assert error.remedy == Remedy("login", paste=True) and "listener is closed" in str(error)
    assert nothing_listens_on(listener_port(url))
    assert stored(session) is None


def test_a_cancelled_sign_in_closes_its_listener(session) -> None:
    url, done = session.login_start(timeout_s=DONE_S)
    done.cancel()
    port = listener_port(url)
    assert session.run(_closed(port))


async def _closed(port: int) -> bool:
    """Whether the listener on `port` closes within a bounded number of loop turns (the
    cancellation runs on the session's loop: each turn lets it go one step further)."""
    for _ in range(1000):
        if nothing_listens_on(port):
            return True
        await asyncio.sleep(0)
    return False


def test_the_paste_fallback_still_signs_in(session) -> None:
    from tests.sign_in_page import pasted_code

    url, attempt = session.login_begin()
    assert parse_qs(urlsplit(url).query)["redirect_uri"][0].endswith("/oauth/code/callback")
    session.login_finish(attempt, pasted_code(url))
    assert not session.run(session.design.list()).is_error
