"""PKCE against RFC 7636 appendix B, verifier bounds, and the pasted code#state answer."""

import pytest

from jupyter_design_projects.core import pkce
from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.errors import AuthError

# RFC 7636, appendix B
RFC_BYTES = bytes([116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186,
                   22, 212, 37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121])
RFC_VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
RFC_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


def test_verifier_from_rfc_bytes_matches_appendix_b():
    assert pkce.verifier_from_bytes(RFC_BYTES) == RFC_VERIFIER


def test_challenge_of_rfc_verifier_matches_appendix_b():
    assert pkce.challenge_for(RFC_VERIFIER) == RFC_CHALLENGE


@pytest.mark.parametrize(
    ("length", "ok"),
    [(42, False), (43, True), (128, True), (129, False)],
)
def test_verifier_length_is_43_to_128(length, ok):
    verifier = "a" * length
    if ok:
        assert pkce.check_verifier(verifier) == verifier
    else:
        with pytest.raises(AuthError) as info:
            pkce.check_verifier(verifier)
        assert info.value.reason == "invalid_verifier"


@pytest.mark.parametrize("bad", ["a" * 42 + "!", "a" * 42 + " ", "a" * 42 + "é"])
def test_verifier_refuses_reserved_characters(bad):
    with pytest.raises(AuthError):
        pkce.check_verifier(bad)


@pytest.mark.parametrize(
    ("pasted", "code"),
    [
        ("abc#s1", "abc"),
        ("  abc#s1\n", "abc"),
    ],
)
def test_pasted_code_with_matching_state_gives_the_code_as_a_secret(pasted, code):
    assert pkce.parse_pasted(pasted, "s1") == Secret(code)
    assert pkce.parse_pasted(Secret(pasted), "s1") == Secret(code)


@pytest.mark.parametrize(
    ("pasted", "reason"),
    [
        ("abc", "malformed_code"),
        ("#s1", "malformed_code"),
        ("abc#", "malformed_code"),
        ("a c#s1", "malformed_code"),
        ("abc#s2", "state_mismatch"),
        ("abc#s1#x", "state_mismatch"),
    ],
)
def test_pasted_code_is_refused_when_malformed_or_state_differs(pasted, reason):
    with pytest.raises(AuthError) as info:
        pkce.parse_pasted(pasted, "s1")
    assert info.value.reason == reason


def test_state_from_bytes_is_url_safe():
    assert pkce.state_from_bytes(b"\xff" * 24) == "_" * 32


# ------------------------------------------------------------- the loopback redirect's query


def test_redirect_query_with_matching_state_gives_the_code_as_a_secret():
    assert pkce.parse_redirect("code=abc&state=s1", "s1") == Secret("abc")
    assert pkce.parse_redirect(Secret("state=s1&code=a%2Bb"), "s1") == Secret("a+b")


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("code=abc&state=s2", "state_mismatch"),
        ("code=abc", "state_mismatch"),
        ("code=abc&state=s1&state=s1", "state_mismatch"),
        ("error=access_denied&state=s2", "state_mismatch"),
        ("error=access_denied&state=s1", "access_denied"),
        ("error=server_error&state=s1", "authorization_error"),
        ("state=s1", "malformed_code"),
        ("code=&state=s1", "malformed_code"),
        ("code=a+b&state=s1", "malformed_code"),
        ("code=a&code=b&state=s1", "malformed_code"),
        ("", "state_mismatch"),
    ],
)
def test_a_redirect_query_that_is_not_this_attempts_code_is_refused(query, reason):
    with pytest.raises(AuthError) as info:
        pkce.parse_redirect(query, "s1")
    assert info.value.reason == reason


def test_a_refused_redirect_never_shows_the_code():
    with pytest.raises(AuthError) as info:
        pkce.parse_redirect("code=SECRETCODE123&state=other", "s1")
    assert "SECRETCODE123" not in str(info.value) + repr(info.value)


@pytest.mark.parametrize(("raw", "text"), [(b"\x00\x00\x17", "AAAX"), (b"\x00", "AA"),
                                           (b"\xfb\xff", "-_8")])
def test_base64url_drops_only_the_padding(raw, text):
    assert pkce.state_from_bytes(raw) == text


def test_a_pasted_code_ends_at_the_first_hash():
    assert pkce.parse_pasted("abc#x#s1", "x#s1") == Secret("abc")


@pytest.mark.parametrize("pasted", ["abc", "abc#s2"])
def test_a_refused_paste_carries_its_problems_sentence(pasted):
    with pytest.raises(AuthError) as info:
        pkce.parse_pasted(pasted, "s1")
    assert info.value.message == pkce.PASTE_PROBLEMS[info.value.reason]


@pytest.mark.parametrize("query", ["code=abc&state=s2", "error=access_denied&state=s1",
                                   "error=x&state=s1", "state=s1"])
def test_a_refused_redirect_carries_its_problems_sentence(query):
    with pytest.raises(AuthError) as info:
        pkce.parse_redirect(query, "s1")
    assert info.value.message == pkce.REDIRECT_PROBLEMS[info.value.reason]


def test_a_blank_error_in_the_redirect_is_still_an_error():
    with pytest.raises(AuthError) as info:
        pkce.parse_redirect("error=&state=s1&code=abc", "s1")
    assert info.value.reason == "authorization_error"
