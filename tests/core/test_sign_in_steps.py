"""The pure words of `%design auth` (`core/sign_in_steps.py`): the authorize URL redacted,
times in UTC without a clock, time left on each side of the expiry, and the status lines
for each state a person can be in."""

from __future__ import annotations

import datetime

import pytest

from jupyter_design_projects.core.sign_in_steps import (
    AuthStatus,
    Step,
    iso,
    lines,
    redacted_authorize_url,
    shortened,
    time_left,
)

URL = ("http://127.0.0.1:5/oauth/authorize?response_type=code&client_id=jdp-client"
       "&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcallback&scope=user%3Aa+user%3Ab"
       "&state=STATE-abcdefghijklmnop&code_challenge=CHALLENGE-0123456789"
       "&code_challenge_method=S256")


@pytest.mark.parametrize("extra", ["", "&code=CODE-SECRET-1",
                                   "&code_verifier=VERIFIER-SECRET-1",
                                   "&access_token=AT-SECRET-1#frag-SECRET"])
def test_the_authorize_url_keeps_the_client_and_hides_what_could_be_used(extra):
    shown = redacted_authorize_url(URL + extra)
    assert "client_id=jdp-client" in shown and "code_challenge_method=S256" in shown
    assert "redirect_uri=http://127.0.0.1:9/callback" in shown
    assert "state=STATE-…(22 chars)" in shown and "code_challenge=CHALLE…(20 chars)" in shown
    assert "abcdefghijklmnop" not in shown and "0123456789" not in shown
    assert "SECRET" not in shown


@pytest.mark.parametrize(("value", "shown"), [("", "(0 chars)"), ("abc", "…(3 chars)"),
                                              ("abcdef", "…(6 chars)"),
                                              ("abcdefg", "abcdef…(7 chars)")])
def test_a_shortened_value_shows_at_most_six_characters_and_never_a_short_one(value, shown):
    assert shortened(value) == shown


@pytest.mark.parametrize("ms", [0, 951_782_400_000, 1_709_164_799_999, 4_102_444_799_000,
                                1_796_000_000_123])
def test_iso_is_the_utc_time_to_the_second(ms):
    expected = datetime.datetime.fromtimestamp(ms // 1000, tz=datetime.UTC)
    assert iso(ms) == expected.strftime("%Y-%m-%d %H:%M:%S UTC")


@pytest.mark.parametrize(("left_ms", "said"), [
    (3_600_000 * 2 + 61_000, "in 2 h 1 min"), (61_000, "in 1 min 1 s"), (1_000, "in 1 s"),
    (999, "expires now"), (0, "expires now"), (-1_000, "expired 1 s ago"),
    (-62_000, "expired 1 min 2 s ago")])
def test_time_left_on_each_side_of_the_expiry(left_ms, said):
    assert time_left(10_000_000 + left_ms, 10_000_000) == said


def status(**changes) -> AuthStatus:
    values = dict(now_ms=0, signed_in=True, client_id="c", store="file f",
                  scopes_held=("user:a",), expires_at_ms=60_000, has_refresh_token=True)
    return AuthStatus(**{**values, **changes})


def test_not_signed_in_names_how_to_sign_in_and_offers_nothing():
    shown = lines(status(signed_in=False, expires_at_ms=None), "%design login")
    assert shown[0] == "Not signed in. Next: %design login."
    assert not any(line.startswith("Expires") for line in shown)
    assert status(signed_in=False).can_refresh is False


def test_no_refresh_token_says_why_there_is_no_refresh():
    without = status(has_refresh_token=False)
    assert without.can_refresh is False and "No refresh token" in without.refresh_note()
    assert status().refresh_note() is None and status().can_refresh is True


def test_the_last_refresh_is_the_newest_refresh_step_with_its_expiry():
    steps = (Step(1_000, "refresh", True, "after a 401", (("expires", "T1"),)),
             Step(2_000, "code_exchange", True, "code"),
             Step(3_000, "refresh", False, "asked by you", reason="invalid_grant"))
    shown = "\n".join(lines(status(steps=steps)))
    assert "Last refresh: 1970-01-01 00:00:03 UTC — asked by you (failed: invalid_grant)" in shown
    assert "new expiry T1" in "\n".join(lines(status(steps=steps[:2])))
    assert status(steps=steps).failures == steps[2:]
