"""PKCE (RFC 7636, S256), the pasted `code#state` answer and the loopback redirect's query
(RFC 8252), with randomness passed in."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from urllib.parse import parse_qs

from ..errors import AuthError
from .redaction import Secret, as_secret

VERIFIER_MIN = 43
VERIFIER_MAX = 128
_UNRESERVED = re.compile(r"[A-Za-z0-9._~-]+")


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def verifier_from_bytes(raw: bytes) -> str:
    """A code verifier from caller-supplied random bytes (32 bytes give 43 characters)."""
    return check_verifier(_b64url(raw))


def state_from_bytes(raw: bytes) -> str:
    return _b64url(raw)


def check_verifier(verifier: str) -> str:
    if not VERIFIER_MIN <= len(verifier) <= VERIFIER_MAX or not _UNRESERVED.fullmatch(verifier):
        raise AuthError(
            "invalid_verifier",
            f"A PKCE code verifier must be {VERIFIER_MIN}-{VERIFIER_MAX} unreserved characters.",
        )
    return verifier


def challenge_for(verifier: str) -> str:
    """The S256 code challenge: base64url(sha256(verifier)) without padding."""
    return _b64url(hashlib.sha256(check_verifier(verifier).encode("ascii")).digest())


def parse_pasted(pasted: Secret | str, expected_state: str) -> Secret:
    """The authorization code out of a pasted `code#state`, after checking the state.

    The code is a credential: it comes back as a Secret, and the frame that raises holds
    it only as one, so a traceback that prints locals shows no code."""
    pasted = as_secret(pasted)
    problem = _pasted_problem(pasted.reveal(), expected_state)
    if problem is not None:
        raise AuthError(problem, PASTE_PROBLEMS[problem])
    return Secret(pasted.reveal().strip().partition("#")[0])


PASTE_PROBLEMS = {
    "malformed_code": "Paste the whole code the sign-in page shows, in the form code#state.",
    "state_mismatch": "The pasted code belongs to another sign-in attempt.",
}


def _pasted_problem(text: str, expected_state: str) -> str | None:
    """What is wrong with a pasted answer, or None (returns rather than raises: see above)."""
    code, sep, state = text.strip().partition("#")
    if not sep or not code or not state or any(c.isspace() for c in code):
        return "malformed_code"
    if not hmac.compare_digest(state.encode(), expected_state.encode()):
        return "state_mismatch"
    return None


def parse_redirect(query: Secret | str, expected_state: str) -> Secret:
    """The authorization code out of the query the sign-in page redirected the browser
    with (`code=…&state=…`, or `error=…&state=…`), after checking the state. As with
    `parse_pasted`, the code leaves only as a Secret."""
    query = as_secret(query)
    problem = _redirect_problem(query.reveal(), expected_state)
    if problem is not None:
        raise AuthError(problem, REDIRECT_PROBLEMS[problem])
    return Secret(parse_qs(query.reveal())["code"][0])


REDIRECT_PROBLEMS = {
    "malformed_code": "The sign-in page sent the browser back without a code.",
    "state_mismatch": "The sign-in answer belongs to another sign-in attempt (its state does "
    "not match); nothing was exchanged.",
    "access_denied": "The sign-in was denied on the sign-in page; nothing was issued.",
    "authorization_error": "The sign-in page answered with an error.",
}


def _redirect_problem(query: str, expected_state: str) -> str | None:
    fields = parse_qs(query, keep_blank_values=True)
    states = fields.get("state", [])
    if len(states) != 1 or not hmac.compare_digest(states[0].encode(),
                                                   expected_state.encode()):
        return "state_mismatch"
    if "error" in fields:
        return "access_denied" if fields["error"] == ["access_denied"] else "authorization_error"
    codes = fields.get("code", [])
    if len(codes) != 1 or not codes[0] or any(c.isspace() for c in codes[0]):
        return "malformed_code"
    return None
