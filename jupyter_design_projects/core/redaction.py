"""Secrets as a type, and the one redactor every message, log line and trace goes through."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from urllib.parse import quote, quote_plus

REDACTED = "[redacted-oauth-token]"

_BEARER = re.compile(r"(?i)\bBearer\s+[A-Za-z0-9._~+/=-]+")


class Secret:
    """A token value that never prints: repr, str and format all show the placeholder."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return REDACTED

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return REDACTED

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("Secret", self._value))

    def __reduce__(self):  # pickling would write the value somewhere: refuse
        raise TypeError("Secret values cannot be pickled")


def as_secret(value: Secret | str) -> Secret:
    """`value` as a Secret. A function that rebinds its parameter with this keeps no clear
    copy in its frame, so a traceback that prints locals shows none."""
    return value if isinstance(value, Secret) else Secret(value)


def _forms(value: str) -> Iterable[str]:
    """Every spelling under which a token can appear in text."""
    yield value
    yield quote(value, safe="")
    yield quote_plus(value)
    escaped = json.dumps(value)[1:-1]
    yield escaped
    yield escaped.replace("/", "\\/")  # JSON encoders that also escape the solidus


def redact(text: str, secrets: Iterable[Secret | str] = ()) -> str:
    """Replace every known secret (raw, URL-encoded, JSON-escaped) and any `Bearer …`."""
    values = sorted(
        {s.reveal() if isinstance(s, Secret) else s for s in secrets if s},
        key=len,
        reverse=True,
    )
    for value in values:
        if len(value) < 8:  # too short to be a token; replacing would shred normal text
            continue
        for form in _forms(value):
            if form:
                text = text.replace(form, REDACTED)
    return _BEARER.sub("Bearer " + REDACTED, text)


def redact_then_truncate(text: str, limit: int, secrets: Iterable[Secret | str] = ()) -> str:
    """Redact first, then cut: a cut never leaves half a token behind."""
    clean = redact(text, secrets)
    return clean if len(clean) <= limit else clean[:limit] + "…"


#: JSON fields whose values are credentials wherever they appear (token answers, login bodies)
SECRET_FIELDS = frozenset(
    {
        "access_token",
        "refresh_token",
        "id_token",
        "token",
        "code",
        "code_verifier",
        "client_secret",
        "session_jwt",
        "password",
        "plan_token",
    }
)


#: the same field inside a JSON text that is itself a JSON string (quotes escaped)
_ESCAPED_FIELD = re.compile(
    r'(\\"(?:' + "|".join(sorted(SECRET_FIELDS)) + r')\\"\s*:\s*)\\"[^"\\]*(?:\\"|$)'
)
#: a credential-named field anywhere in a text (cheap test before parsing a nested JSON text)
_SECRET_NAME = re.compile(r'"(?:' + "|".join(sorted(SECRET_FIELDS)) + r')"\s*:')
_SECRET_FIELD = re.compile(
    r'("(?:' + "|".join(sorted(SECRET_FIELDS)) + r')"\s*:\s*)"(?:[^"\\]|\\.)*"?'
)


def redact_fields(value: object) -> object:
    """A copy of decoded JSON with the value of every credential-named field replaced:
    catches tokens the caller does not know yet (a fresh token answer). A string that is
    itself a JSON object or array (an MCP result's text block) is blanked the same way."""
    if isinstance(value, dict):
        return {
            k: REDACTED if k in SECRET_FIELDS and isinstance(v, str) and v else redact_fields(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [redact_fields(v) for v in value]
    if isinstance(value, str) and value[:1] in ("{", "[") and _SECRET_NAME.search(value):
        try:
            inner = json.loads(value)
        except (ValueError, RecursionError):
            return _SECRET_FIELD.sub(lambda m: f'{m.group(1)}"{REDACTED}"', value)
        return json.dumps(redact_fields(inner), ensure_ascii=False)
    return value


class CredentialFields(dict):
    """A JSON object that carries credentials (a token request or answer): an ordinary
    dict to the code that sends or reads it, whose repr blanks every credential-named
    field, so a traceback that prints locals shows no token."""

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(redact_fields(dict(self)))

    __str__ = __repr__


def redact_body(raw: bytes, limit: int, secrets: Iterable[Secret | str] = ()) -> str:
    """A body for display: credential fields blanked when it is JSON, every known secret
    redacted, then (only then) truncated to `limit` characters (an ellipsis marks a cut)."""
    text, cut = redact_body_cut(raw, limit, secrets)
    return text + "…" if cut else text


def redact_body_cut(
    raw: bytes, limit: int, secrets: Iterable[Secret | str] = ()
) -> tuple[str, bool]:
    """`redact_body` as (the first `limit` characters, whether it was cut), no ellipsis:
    for a file that marks a cut in a field of its own (the HAR) or replays the text."""
    text = raw.decode("utf-8", "replace")
    try:
        text = json.dumps(redact_fields(json.loads(text)), ensure_ascii=False)
    except (ValueError, RecursionError):  # not JSON, cut short, or nested too deep: blank
        # the fields by pattern instead
        text = _SECRET_FIELD.sub(lambda m: f'{m.group(1)}"{REDACTED}"', text)
        # and inside a JSON text held in a string (an MCP text block, cut short)
        text = _ESCAPED_FIELD.sub(lambda m: f'{m.group(1)}\\"{REDACTED}\\"', text)
    clean = redact(text, secrets)
    return (clean, False) if len(clean) <= limit else (clean[:limit], True)
