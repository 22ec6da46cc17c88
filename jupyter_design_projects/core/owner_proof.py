"""How the owner of a reference service proves it is them (docs/reference-service.md,
"Only its owner"): the names both sides use and the keyed proofs, computed the same way by
the service (which checks them) and by the owner's client (which makes them).

The service writes a random secret, new each run, to `OWNER_FILE` in its 0700 data dir;
only its owner's processes can read it. A request proves the owner by one of:

- the secret itself in the `OWNER_HEADER` header (the Jupyter server's sign-in proxy, a
  kernel playing the person's part);
- an authorize link whose `owner_proof` is `authorize_proof(secret, state, challenge)`:
  good for that one PKCE attempt only, whose verifier only the owner's process holds;
- a settings link whose `owner_link` is `link_proof(secret, expires_s)`, good until then,
  which leaves the `OWNER_COOKIE` cookie (`cookie_value(secret)`) for the rest of the run.

Pure: the secret and the clock come in as arguments.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

OWNER_FILE = "owner-secret"
OWNER_HEADER = "x-jdp-owner"
#: the public prefix of the Jupyter server's sign-in proxy (only honoured with the secret)
PUBLIC_BASE_HEADER = "x-jdp-public-base"
OWNER_COOKIE = "jdp_owner"
PROOF_FIELD = "owner_proof"
LINK_FIELD = "owner_link"
#: a settings link is good for this long
LINK_TTL_S = 600


def _mac(secret: str, message: str) -> str:
    digest = hmac.new(secret.encode("utf-8"), message.encode("utf-8"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def authorize_proof(secret: str, state: str, challenge: str) -> str:
    """The proof an authorize link carries: bound to its state and PKCE challenge."""
    return _mac(secret, f"authorize\n{state}\n{challenge}")


def cookie_value(secret: str) -> str:
    return _mac(secret, "owner-cookie")


def link_proof(secret: str, expires_s: int) -> str:
    """`<expires>.<mac>`: a settings link good until `expires_s` (epoch seconds)."""
    message = "settings-link\n" + str(expires_s)
    return f"{expires_s}.{_mac(secret, message)}"


def same(given: str | None, expected: str) -> bool:
    """Constant-time comparison of a presented value (as bytes: it may be non-ASCII)."""
    return given is not None and hmac.compare_digest(given.encode("utf-8"),
                                                     expected.encode("utf-8"))


def link_valid(secret: str, given: str | None, now_s: float) -> bool:
    """Whether `given` is a settings link of this secret that has not expired."""
    if not given or "." not in given or len(given) > 200:
        return False
    expires, _, _mac_part = given.partition(".")
    if not expires.isascii() or not expires.isdigit() or int(expires) < now_s:
        return False
    return same(given, link_proof(secret, int(expires)))
