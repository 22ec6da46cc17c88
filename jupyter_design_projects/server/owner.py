"""The owner of this service run: the per-run secret kept in the 0700 data dir and the
check every owner-only page makes (the authorize page, the Design settings page and its
grant form). Another local user cannot read the data dir, so cannot make any of the proofs
`core.owner_proof` describes, and gets a 403 page that says whose service this is.

The APIs (Projects, Design REST and MCP) need no owner proof: they need a bearer token,
and a token comes only from the token endpoint, for a code the owner authorized or a
refresh token the owner holds.
"""

from __future__ import annotations

import html
import os
import secrets
from collections.abc import Mapping
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse

from ..core import owner_proof as proof
from .private_files import private_dir


class OwnerKey:
    """This run's owner secret (never in a repr) and the checks made with it."""

    def __init__(self, secret: str) -> None:
        self._secret = secret

    def __repr__(self) -> str:
        return "OwnerKey([redacted-owner-secret])"

    @classmethod
    def create(cls, data_dir: Path) -> OwnerKey:
        """A new secret, written 0600 (atomically, never through a symlink) to the data dir."""
        key = cls(secrets.token_urlsafe(32))
        private_dir(data_dir)
        target = Path(data_dir) / proof.OWNER_FILE
        partial = target.with_name(target.name + f".{os.getpid()}.partial")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            os.fchmod(out.fileno(), 0o600)
            out.write(key._secret)
        os.replace(partial, target)
        return key

    def by_header(self, request: Request) -> bool:
        return proof.same(request.headers.get(proof.OWNER_HEADER), self._secret)

    def is_owner(self, request: Request, fields: Mapping[str, str] | None = None,
                 *, now_s: float = 0.0) -> bool:
        """The request proves the owner: the header, the run's cookie, an authorize proof
        bound to the `state` and `code_challenge` in `fields`, or an unexpired settings
        link in `fields`."""
        if self.by_header(request):
            return True
        if proof.same(request.cookies.get(proof.OWNER_COOKIE), self.cookie()):
            return True
        fields = fields or {}
        given = fields.get(proof.PROOF_FIELD)
        if given and fields.get("state") and fields.get("code_challenge"):
            return proof.same(given, proof.authorize_proof(
                self._secret, fields["state"], fields["code_challenge"]))
        return proof.link_valid(self._secret, fields.get(proof.LINK_FIELD), now_s)

    def cookie(self) -> str:
        return proof.cookie_value(self._secret)

    def public_base(self, request: Request) -> str | None:
        """The public prefix the Jupyter server's sign-in proxy names (only with the
        secret): the pages link and redirect through it, not through this loopback port."""
        base = request.headers.get(proof.PUBLIC_BASE_HEADER)
        if not base or not self.by_header(request) or len(base) > 1024:
            return None
        if not base.startswith(("http://", "https://")) or any(
                c in base for c in ' \t\r\n\\"\'<>`'):
            return None
        return base.rstrip("/")


def refused() -> HTMLResponse:
    """The page another user (or a browser without the owner's link) gets."""
    body = ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>Not your service</title></head><body><h1>Not your service</h1>"
            f"<p id=\"refused\">{html.escape(REFUSAL)}</p></body></html>")
    return HTMLResponse(body, status_code=403, headers={
        "cache-control": "no-store", "x-frame-options": "DENY",
        "content-security-policy": "default-src 'none'; frame-ancestors 'none'"})


REFUSAL = ("This page belongs to the person who started this reference service. Open it "
           "from their notebook's sign-in, from the Design panel's Sign in button, "
           "or through their Jupyter server's address.")
