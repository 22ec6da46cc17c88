"""PKCE (RFC 7636, S256) and the pasted `code#state` answer, with randomness passed in."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re

from ..errors import AuthError

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


def parse_pasted(pasted: str, expected_state: str) -> str:
    """The authorization code out of a pasted `code#state`, after checking the state."""
    code, sep, state = pasted.strip().partition("#")
    if not sep or not code or not state or any(c.isspace() for c in code):
        raise AuthError(
            "malformed_code",
            "Paste the whole code the sign-in page shows, in the form code#state.",
        )
    if not hmac.compare_digest(state.encode(), expected_state.encode()):
        raise AuthError(
            "state_mismatch",
            "The pasted code belongs to another sign-in attempt; run `%design login` again.",
        )
    return code
