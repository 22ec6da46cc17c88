"""The echo switch (only with --faults, set from loopback, off until set): a service that
hands every token it was given back to the person, in every field it can fill.

With faults on, the middleware always notes the credentials the traffic carries — the
bearer of each request, the credential-named fields of a JSON or form request body (the
login's code and verifier, a refresh token, a plan token in a tool's arguments) and of a
token answer or a Design answer (the access and refresh tokens issued, a plan token) — so
a switch turned on after the sign-in still knows them. While the switch is on, every JSON
answer of the Design and Projects routes carries all of them, each in several spellings
(raw, URL-encoded, form-encoded, JSON-escaped), appended to every string a person may be
shown (the hostile switch's rule: `hostile.taint`; ids, URLs and paths stay usable), and
so does each message of the Design event stream (log messages, notifications). Token
answers themselves are never changed. Pure: the middleware in `switches` applies it."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus

from . import hostile

#: fields whose values are credentials, in a request or an answer
CREDENTIAL_FIELDS = frozenset({"access_token", "refresh_token", "code", "code_verifier",
                               "plan_token", "token"})
#: the most credentials remembered (the oldest forgotten first)
KEPT = 64
#: shorter values are not tokens (a `code` field of an error envelope, say)
MIN_CHARS = 12
#: kept clean so the client can still read by path, name what it wrote, and match a plan
#: to the paths its card showed
KEEP = frozenset({"path", "file_name", "paths", "writes", "deletes"})
#: nesting walked at most in a body
MAX_DEPTH = 32


def spellings(token: str) -> list[str]:
    """The spellings the switch writes each token in (each once, in order)."""
    out: list[str] = []
    for form in (token, quote(token, safe=""), quote_plus(token), json.dumps(token)[1:-1]):
        if form not in out:
            out.append(form)
    return out


class Echo:
    """The credentials seen so far, and whether answers carry them back."""

    def __init__(self) -> None:
        self.on = False
        self._tokens: dict[str, None] = {}

    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(self._tokens)

    def _add(self, value: Any) -> None:
        if isinstance(value, str) and len(value) >= MIN_CHARS and value not in self._tokens:
            self._tokens[value] = None
            for old in list(self._tokens)[:-KEPT]:
                del self._tokens[old]

    def learn_request(self, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
        """The bearer and the credential fields of a request (JSON or a form)."""
        for name, value in headers:
            if name.lower() == b"authorization" and value[:7].lower() == b"bearer ":
                self._add(value[7:].decode("latin-1").strip())
        if not body or not any(name.encode() in body for name in CREDENTIAL_FIELDS):
            return  # most bodies (a 25 MiB upload too) name no credential: never parsed
        try:
            self.learn_answer(body, strict=True)
        except ValueError:
            for field, text in parse_qsl(body.decode("latin-1")):
                if field in CREDENTIAL_FIELDS:
                    self._add(text)

    def learn_answer(self, body: bytes, *, strict: bool = False) -> None:
        """The credential fields of a JSON body (a text block holding JSON is read too);
        `strict`: a body that is not JSON raises ValueError."""
        try:
            value = json.loads(body)
        except (ValueError, RecursionError):
            if strict:
                raise ValueError("not JSON") from None
            return
        self._walk(value, 0)

    def _walk(self, node: Any, depth: int) -> None:
        if depth > MAX_DEPTH:
            return
        if isinstance(node, dict):
            for key, item in node.items():
                if key in CREDENTIAL_FIELDS:
                    self._add(item)
                self._walk(item, depth + 1)
        elif isinstance(node, list):
            for item in node:
                self._walk(item, depth + 1)
        elif isinstance(node, str) and node[:1] in ("{", "["):
            try:
                self._walk(json.loads(node), depth + 1)
            except (ValueError, RecursionError):
                return

    def payload(self) -> str:
        """What is appended to each string: every token, newest first (what a cut keeps),
        in every spelling."""
        forms = [form for token in reversed(self._tokens) for form in spellings(token)]
        return " [echo: " + " | ".join(forms) + "]" if forms else ""

    def rewrite(self, body: bytes) -> bytes | None:
        """A JSON answer with the tokens in its strings (and in a field of their own where
        it is an object), or None when it is not JSON or nothing is known yet."""
        payload = self.payload()
        if not payload:
            return None
        try:
            value = json.loads(body)
        except (ValueError, RecursionError):
            return None
        echoing = hostile.Hostile(payload, keep=KEEP)
        params = value.get("params") if isinstance(value, dict) else None
        if isinstance(params, dict) and "data" in params:  # a log message's data is text
            params["data"] = hostile.taint(params["data"], echoing)
        return json.dumps(hostile.taint(value, echoing), ensure_ascii=False).encode("utf-8")


class EventEcho:
    """The Design event stream passed through with each `data:` line's JSON message given
    the tokens; lines are held until whole (an event can arrive in pieces)."""

    def __init__(self, echo: Echo) -> None:
        self._echo = echo
        self._held = b""

    def feed(self, chunk: bytes) -> bytes:
        lines = (self._held + chunk).split(b"\n")
        self._held = lines.pop()
        return b"".join(self._line(line) + b"\n" for line in lines)

    def flush(self) -> bytes:
        held, self._held = self._held, b""
        return self._line(held) if held else b""

    def _line(self, line: bytes) -> bytes:
        if not line.startswith(b"data:"):
            return line
        tainted = self._echo.rewrite(line[5:].strip())
        return line if tainted is None else b"data: " + tainted
