"""`%design login` in an IPython shell against a real reference service: the card shows the
link and returns at once; the sign-in page's redirect (clicked by a real HTTP client)
completes it in the background; a timeout, a newer login and a port that cannot be bound
each end as the card says."""

from __future__ import annotations

import socket
from urllib.parse import parse_qs, urlsplit

import pytest

from jupyter_design_projects.notebook.views.outcome import Outcome
from jupyter_design_projects.notebook.widgets.sign_in import SignInCard
from jupyter_design_projects.transport.redirect_listener import RedirectListener
from tests.sign_in_page import click_authorize, pasted_code

DONE_S = 60.0


def port_of(card: SignInCard) -> int:
    return urlsplit(parse_qs(urlsplit(card.url).query)["redirect_uri"][0]).port


def nothing_listens_on(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def shown(card: SignInCard) -> str:
    return "".join(child.value for child in card.widget.children)


def test_login_returns_a_card_and_the_redirect_signs_in_in_the_background(shell, live):
    card = shell.run_line_magic("design", "login")
    assert isinstance(card, SignInCard) and card.result is None
    assert 'target="_blank"' in shown(card) and "Waiting for the sign-in page" in shown(card)
    assert card.url in card._repr_mimebundle_()["text/plain"]  # a terminal shows the URL
    click_authorize(card.url)
    assert card.wait(DONE_S) is True
    assert "Signed in" in card.status.value
    assert nothing_listens_on(port_of(card))
    assert not shell.run_line_magic("design", "list").is_error
    assert shell.run_line_magic("project", "info").data["project"]["name"] == "Team Handbook"
    token = live.session.credentials.current().access_token.reveal()
    assert token not in shown(card) + repr(card) + str(card._repr_mimebundle_())


def test_a_login_that_times_out_says_so_on_the_card_and_leaves_no_listener(shell, live):
    live.login_timeout = 1.0
    card = shell.run_line_magic("design", "login")
    assert card.wait(DONE_S) is False
    assert card.result == "login_timeout"
    assert "No answer from the sign-in page within 1 s" in card.status.value
    assert "%design login" in card.status.value
    assert nothing_listens_on(port_of(card))


def test_a_denied_sign_in_says_so_on_the_card(shell, live):
    card = shell.run_line_magic("design", "login")
    click_authorize(card.url, "deny")
    assert card.wait(DONE_S) is False
    assert card.result == "access_denied" and "denied" in card.status.value


def test_a_newer_login_replaces_the_waiting_one(shell, live):
    first = shell.run_line_magic("design", "login")
    second = shell.run_line_magic("design", "login")
    assert first.wait(DONE_S) is False and first.result == "cancelled"
    assert "cancelled" in first.status.value
    click_authorize(second.url)
    assert second.wait(DONE_S) is True


def test_login_paste_shows_the_link_and_the_code_finishes_it(shell, live):
    page = shell.run_line_magic("design", "login --paste")
    assert isinstance(page, Outcome)
    assert parse_qs(urlsplit(page.data["url"]).query)["redirect_uri"][0].endswith(
        "/oauth/code/callback")
    signed_in = shell.run_line_magic("design", f"login '{pasted_code(page.data['url'])}'")
    assert signed_in.data["signed_in"] is True


def test_when_no_loopback_port_can_be_bound_login_falls_back_to_paste(shell, live,
                                                                     monkeypatch, capsys):
    async def no_port(cls):
        raise OSError(98, "Address already in use")

    monkeypatch.setattr(RedirectListener, "open", classmethod(no_port))
    page = shell.run_line_magic("design", "login")
    assert isinstance(page, Outcome) and "paste the code instead" in capsys.readouterr().out
    signed_in = shell.run_line_magic("design", f"login '{pasted_code(page.data['url'])}'")
    assert signed_in.data["signed_in"] is True


@pytest.mark.parametrize(("seconds", "ok"), [(0.99, False), (1.0, True), (3600.0, True),
                                             (3600.01, False)])
def test_the_login_timeout_is_1_to_3600_seconds(shell, seconds: float, ok: bool):
    from traitlets import TraitError

    magics = shell.magics_manager.registry["DesignProjects"]
    before = magics.login_timeout
    try:
        if ok:
            magics.login_timeout = seconds
            assert magics.login_timeout == seconds
        else:
            with pytest.raises(TraitError):
                magics.login_timeout = seconds
    finally:
        magics.login_timeout = before
