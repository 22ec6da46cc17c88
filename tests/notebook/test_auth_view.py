"""`%design auth` in an IPython shell against a real reference service: the sign-in step by
step after a loopback sign-in and after a 401 refresh, Refresh now (a new token, said so),
Sign out (the stored file gone, the next call "Not signed in" with the sign-in remedy),
and never a token, code or verifier in what it shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from IPython.core.error import UsageError

from jupyter_design_projects.notebook.widgets.auth_view import REFRESH, SIGN_OUT, AuthView
from tests.faults_client import faults
from tests.sign_in_page import click_authorize

DONE_S = 60.0


def stored_file(live) -> Path:
    return Path(live.session.settings.credentials_file)


def stored_tokens(live) -> list[str]:
    data = json.loads(stored_file(live).read_text())
    return [data["access_token"], data["refresh_token"]]


def everything_shown(view: AuthView) -> str:
    bundle = view._repr_mimebundle_()
    widget_html = "".join(getattr(child, "value", "") for child in view.widget.children)
    return (bundle["text/plain"] + bundle["text/html"] + widget_html + repr(view)
            + json.dumps(view.data) + repr(view.status))


def no_secret_in(live, view: AuthView, *also: str) -> None:
    secrets = [s.reveal() for s in live.session.secrets()] + list(also)
    assert len(secrets) >= 2
    shown = everything_shown(view)
    assert not [s for s in secrets if s and s in shown]


def signed_in(shell, live) -> None:
    card = shell.run_line_magic("design", "login")
    click_authorize(card.url)
    assert card.wait(DONE_S) is True


def test_after_a_sign_in_it_shows_discovery_the_url_the_exchange_and_both_buttons(shell,
                                                                                  live):
    signed_in(shell, live)
    view = shell.run_line_magic("design", "auth")
    assert isinstance(view, AuthView)
    status = view.status
    assert status.signed_in and status.has_refresh_token
    assert [s.ok for s in status.discovery] == [True, True]
    server, resource = (dict(s.fields) for s in status.discovery)
    assert server["status"] == "200" and server["token_endpoint"].endswith("/v1/oauth/token")
    assert "S256" in server["code_challenge_methods_supported"]
    assert resource["resource"].endswith("/v1/design/mcp")
    kinds = [s.kind for s in status.steps]
    assert kinds[:2] == ["authorize_url", "code_exchange"]
    url = dict(status.steps[0].fields)["url"]
    assert "state=" in url and "code_challenge=" in url and "chars)" in url
    exchange = status.steps[1]
    assert exchange.ok and dict(exchange.fields)["status"] == "200"
    assert set(status.scopes_held) >= {"user:design:read", "user:projects:read"}
    assert status.expires_at_ms > status.now_ms
    assert view.buttons == (REFRESH, SIGN_OUT)
    text = view._repr_mimebundle_()["text/plain"]
    assert "Expires: " in text and "Last refresh: none in this session." in text
    no_secret_in(live, view, *stored_tokens(live))


def test_after_a_401_the_record_says_a_refresh_happened_and_the_new_expiry(shell, live,
                                                                           pointed_at_service):
    before = shell.run_line_magic("design", "auth").status
    assert before.signed_in and before.last_refresh is None
    assert faults(pointed_at_service).expire_tokens() >= 1
    assert not shell.run_line_magic("design", "list").is_error  # 401 → refresh → retry
    view = shell.run_line_magic("design", "auth")
    last = view.status.last_refresh
    assert last is not None and last.ok and dict(last.fields)["why"] == "after_401"
    assert view.status.expires_at_ms > before.expires_at_ms
    text = view._repr_mimebundle_()["text/plain"]
    assert "the service answered 401" in text and "new expiry" in text
    no_secret_in(live, view, *stored_tokens(live))


def test_refresh_now_changes_the_token_and_says_it_was_asked_by_you(shell, live):
    view = shell.run_line_magic("design", "auth")
    old = live.session.credentials.current().access_token
    old_stored = stored_tokens(live)
    view.widget  # noqa: B018 - the buttons exist, as in a notebook
    view._buttons[REFRESH].click()
    new = live.session.credentials.current().access_token
    assert new != old and stored_tokens(live)[0] == new.reveal() != old.reveal()
    assert "asked by you" in view.said and view._said_ok
    assert dict(view.status.last_refresh.fields)["why"] == "asked"
    assert "asked by you" in view._html_view.value
    no_secret_in(live, view, *old_stored, *stored_tokens(live))


def test_sign_out_deletes_the_file_and_the_next_call_says_not_signed_in(shell, live):
    view = shell.run_line_magic("design", "auth")
    tokens = stored_tokens(live)
    view.widget  # noqa: B018
    view._buttons[SIGN_OUT].click()
    assert not stored_file(live).exists()
    assert live.session.credentials.current() is None
    assert view.buttons == () and not view.status.signed_in
    assert all(b.layout.display == "none" for b in view._buttons.values())
    with pytest.raises(UsageError) as failed:
        shell.run_line_magic("design", "list")
    assert "Not signed in" in str(failed.value) and "%design login" in str(failed.value)
    again = shell.run_line_magic("design", "auth")
    assert "Not signed in. Next: %design login." in again._repr_mimebundle_()["text/plain"]
    assert again.buttons == ()
    assert [(s.kind, s.ok) for s in again.status.steps[-2:]] == [
        ("sign_out", True), ("revoke", True)]  # revoked at the reference service too
    no_secret_in(live, again, *tokens)


def test_a_store_that_cannot_be_read_offers_sign_out_which_deletes_it(shell, live):
    stored_file(live).write_text("{not json")
    live.session.credentials._cred = None  # as a new kernel finds it
    view = shell.run_line_magic("design", "auth")
    assert view.status.store_problem and not view.status.signed_in
    assert view.buttons == (SIGN_OUT,)
    view.widget  # noqa: B018
    view._buttons[SIGN_OUT].click()
    assert not stored_file(live).exists()
    assert view.buttons == () and not view.status.store_problem


def test_a_typo_of_auth_gets_a_did_you_mean_and_the_help_names_it(shell, live, capsys):
    with pytest.raises(UsageError) as typo:
        shell.run_line_magic("design", "auht")
    assert "Did you mean 'auth'?" in str(typo.value)
    shell.run_line_magic("design", "auth --help")
    assert "Refresh now" in capsys.readouterr().out
    shell.run_line_magic("design", "--help")
    assert "%design auth" in capsys.readouterr().out


# ---------------------------------------------------------------- the view alone


class StubAuth:
    """A session's `auth` part whose sign-in status is given; refresh fails as told."""

    def __init__(self, status, refresh_error=None) -> None:
        self.shown, self.refresh_error, self.asked = status, refresh_error, []

    def status(self, *, discover: bool = True):
        return self.shown

    def refresh(self):
        self.asked.append("refresh")
        raise self.refresh_error


def a_status(**changes):
    from jupyter_design_projects.core.sign_in_steps import AuthStatus

    values = dict(now_ms=0, signed_in=True, client_id="c", store="file f",
                  scopes_held=("user:a",), expires_at_ms=60_000, has_refresh_token=True)
    return AuthStatus(**{**values, **changes})


@pytest.mark.parametrize(("changes", "buttons", "line"), [
    ({}, (REFRESH, SIGN_OUT), None),
    ({"has_refresh_token": False}, (SIGN_OUT,), "No refresh token"),
    ({"signed_in": False, "expires_at_ms": None}, (), "Not signed in. Next: %design login."),
])
def test_a_button_shows_only_when_it_would_work_and_a_line_says_why_not(changes, buttons,
                                                                        line):
    view = AuthView(StubAuth(a_status(**changes)))
    assert view.buttons == buttons
    view.widget  # noqa: B018 - the buttons exist, as in a notebook
    shown = {label for label, b in view._buttons.items() if b.layout.display != "none"}
    assert shown == set(buttons)
    if line:
        assert line in view._html_view.value and line in view._repr_mimebundle_()["text/plain"]


def test_a_refresh_that_fails_says_why_with_the_sign_in_remedy():
    from jupyter_design_projects.errors import AuthError

    session = StubAuth(a_status(), AuthError("refresh_failed", "The token could not be "
                                                                  "refreshed (invalid_grant)."))
    view = AuthView(session)
    view.widget  # noqa: B018
    view._buttons[REFRESH].click()
    assert session.asked == ["refresh"] and view._said_ok is False
    assert "invalid_grant" in view.said and "%design login" in view.said
    assert "invalid_grant" in view._html_view.value


def test_what_the_service_says_in_discovery_is_shown_escaped():
    from jupyter_design_projects.core.sign_in_steps import Step
    from tests.hostile_content import payloads

    fields = tuple(payloads("http://127.0.0.1:9").items())
    found = (Step(0, "discovery", True, "<b>metadata</b>", fields),)
    html_shown = AuthView(StubAuth(a_status(discovery=found)))._html()
    for tag in ("<script", "<img", "<svg", "<iframe", "<style", "<object", "<embed", "<meta",
                "<a ", "<input", "<math", "<b>metadata"):
        assert tag not in html_shown.replace("<b>Discovery</b>", "").replace(
            "<b>Steps</b>", "").replace("<b>discovery</b>", "")
    assert "&lt;b&gt;metadata&lt;/b&gt;" in html_shown
