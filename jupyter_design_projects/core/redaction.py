"""Secrets as a type, and the one redactor every message, log line and trace goes through.

A secret is redacted by value wherever it appears in a text, in every spelling a wire or a
file gives it (raw, URL-encoded with either case of hex, form-encoded, JSON-escaped, the
solidus escaped too), and by name: the value of a credential-named JSON field is blanked
even when its value is not known yet. `SeenSecrets` keeps the credentials a session has
seen go by in its traffic (a plan token in a `finalize_plan` answer, a verifier in a token
request), so they are redacted by value from then on.
"""

from __future__ import annotations

import collections
import json
import re
from collections.abc import Iterable, Iterator
from typing import Any
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


#: shorter than this is not a token: replacing it would shred ordinary text
MIN_SECRET_CHARS = 8
_PERCENT_HEX = re.compile(r"%[0-9A-F]{2}")


def _forms(value: str) -> set[str]:
    """Every spelling under which a token can appear in text (each once): raw, URL- and
    form-encoded, JSON-escaped — and each of those JSON-escaped once more, as it reads in a
    JSON text held in a JSON string (an MCP result's text block, a body quoted in an
    error), where a backslash of the first escaping is doubled."""
    forms = {value}
    for encoded in (quote(value, safe=""), quote_plus(value)):
        forms.add(encoded)
        forms.add(_PERCENT_HEX.sub(lambda m: m.group().lower(), encoded))  # %2f, not %2F
    forms |= _escaped_forms(value)
    for form in list(forms):
        forms |= _escaped_forms(form)
    forms.discard("")
    return forms


def _escaped_forms(value: str) -> set[str]:
    """`value` JSON-escaped, as ASCII or not, with the solidus escaped too or not."""
    out = set()
    for escaped in (json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]):
        out.add(escaped)
        out.add(escaped.replace("/", "\\/"))  # JSON encoders that also escape the solidus
    return out


def _values(secrets: Iterable[Secret | str]) -> list[str]:
    """The values to redact, longest first; a value with blanks around it counts also
    without them (a token passed with a leading space reaches the wire either way)."""
    values: set[str] = set()
    for secret in secrets:
        value = secret.reveal() if isinstance(secret, Secret) else secret
        for candidate in (value, value.strip()):
            if len(candidate) >= MIN_SECRET_CHARS:
                values.add(candidate)
    return sorted(values, key=len, reverse=True)


class Redactor:
    """`redact` for many texts: the spellings of its secrets worked out once (a trace of
    500 exchanges is redacted string by string, with up to a hundred secrets)."""

    __slots__ = ("_forms", "_shortest")

    def __init__(self, secrets: Iterable[Secret | str] = ()) -> None:
        forms: list[str] = []
        for value in _values(secrets):  # longest value first, then its longest spelling
            forms += sorted(_forms(value) - set(forms), key=len, reverse=True)
        self._forms = tuple(forms)
        #: a text shorter than every spelling holds none (most strings of an answer: ids)
        self._shortest = min(map(len, forms), default=0)

    def __call__(self, text: str) -> str:
        return _BEARER.sub("Bearer " + REDACTED, self.by_value(text))

    def by_value(self, text: str) -> str:
        """`text` with every spelling of every secret replaced, and nothing else (no
        `Bearer …` pattern: for a service's answer, where ordinary content may say it)."""
        if len(text) < self._shortest:
            return text
        for form in self._forms:
            if form in text:
                text = text.replace(form, REDACTED)
        return text

    def __bool__(self) -> bool:
        return bool(self._forms)

    def __repr__(self) -> str:
        return f"<Redactor: {len(self._forms)} spellings>"


def redact_values(value: Any, redact: Redactor) -> Any:
    """Decoded JSON with every known secret replaced, by value, in every string in it, keys
    too (`Redactor.by_value`): what a service answered, before anything reads it. Lists and
    objects are changed in place (the value is the caller's own, freshly decoded); walked
    with a stack, so nesting as deep as the decoder allows is no recursion."""
    if not redact:
        return value
    if isinstance(value, str):
        return redact.by_value(value)
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            for index, item in enumerate(node):
                if isinstance(item, str):
                    node[index] = redact.by_value(item)
                elif isinstance(item, (list, dict)):
                    stack.append(item)
        elif isinstance(node, dict):
            for key, item in list(node.items()):
                if isinstance(item, str):
                    item = node[key] = redact.by_value(item)
                elif isinstance(item, (list, dict)):
                    stack.append(item)
                clean = redact.by_value(key) if isinstance(key, str) else key
                if clean != key:  # a secret in a key: the entry moves to its clean key
                    del node[key]
                    node[clean] = item
    return value


Secrets = Iterable[Secret | str] | Redactor


def redactor(secrets: Secrets) -> Redactor:
    """`secrets` as a Redactor (one given is used as it is)."""
    return secrets if isinstance(secrets, Redactor) else Redactor(secrets)


def redact(text: str, secrets: Secrets = ()) -> str:
    """Replace every known secret (in each spelling of `_forms`) and any `Bearer …`."""
    return redactor(secrets)(text)


def redact_then_truncate(text: str, limit: int, secrets: Secrets = ()) -> str:
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


#: a credential field's name and value in a text that is not JSON (cut short, an event
#: stream), plain or inside a JSON text held in a string (quotes escaped)
_FIELD_VALUE = re.compile(
    r'"(' + "|".join(sorted(SECRET_FIELDS)) + r')"\s*:\s*"((?:[^"\\]|\\.)*)"')
_ESCAPED_FIELD_VALUE = re.compile(
    r'\\"(' + "|".join(sorted(SECRET_FIELDS)) + r')\\"\s*:\s*\\"([^"\\]*)\\"')
#: a field named `code` is a credential only in a token request (beside its grant type);
#: elsewhere it is an error's kind (`{"error": …, "code": "not_found"}`), never learned
_GRANT_ONLY = "code"


def field_secrets(value: object) -> list[str]:
    """The values of the credential-named fields of decoded JSON, in order (a string that
    is itself a JSON object or array is searched too, as `redact_fields` blanks it)."""
    found: list[str] = []

    def walk(node: object, depth: int) -> None:
        if depth > 64:
            return
        if isinstance(node, dict):
            for key, item in node.items():
                if (key in SECRET_FIELDS and isinstance(item, str) and item
                        and (key != _GRANT_ONLY or "grant_type" in node)):
                    found.append(item)
                else:
                    walk(item, depth + 1)
        elif isinstance(node, list):
            for item in node:
                walk(item, depth + 1)
        elif isinstance(node, str) and node[:1] in ("{", "[") and _SECRET_NAME.search(node):
            try:
                walk(json.loads(node), depth + 1)
            except (ValueError, RecursionError):
                found.extend(_pattern_secrets(node))

    walk(value, 0)
    return found


def _pattern_secrets(text: str) -> list[str]:
    """Credential field values found by pattern in a text that does not parse as JSON."""
    found = [v for name, v in _FIELD_VALUE.findall(text) if name != _GRANT_ONLY]
    found += [v for name, v in _ESCAPED_FIELD_VALUE.findall(text) if name != _GRANT_ONLY]
    out = []
    for value in found:
        try:
            out.append(json.loads(f'"{value}"'))
        except ValueError:
            out.append(value)
    return out


def secrets_in_body(raw: bytes) -> list[str]:
    """The credentials a request or answer body carries in credential-named fields (a plan
    token in a `finalize_plan` answer, a code and verifier in a token request): decoded
    JSON walked, or a text that is not JSON searched by pattern."""
    if not any(b'"' + name.encode() in raw for name in SECRET_FIELDS):  # most: no parse
        return []
    text = raw.decode("utf-8", "replace")
    try:
        return field_secrets(json.loads(text))
    except (ValueError, RecursionError):
        return _pattern_secrets(text)


class SeenSecrets:
    """The credentials a session has seen in its traffic, the newest `kept`, for redaction
    by value: added as they go by, never shown (iteration yields `Secret`s). Not locked:
    its owner (the HTTP trace) holds a lock around adding and reading."""

    def __init__(self, kept: int = 64) -> None:
        self._values: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._kept = kept

    def add(self, values: Iterable[str]) -> None:
        for value in values:
            if len(value.strip()) < MIN_SECRET_CHARS or REDACTED in value:
                continue
            self._values[value] = None
            self._values.move_to_end(value)
        while len(self._values) > self._kept:
            self._values.popitem(last=False)

    def __iter__(self) -> Iterator[Secret]:
        return iter([Secret(v) for v in self._values])

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"<SeenSecrets: {len(self._values)}>"


class CredentialFields(dict):
    """A JSON object that carries credentials (a token request or answer): an ordinary
    dict to the code that sends or reads it, whose repr blanks every credential-named
    field, so a traceback that prints locals shows no token."""

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(redact_fields(dict(self)))

    __str__ = __repr__


def redact_body(raw: bytes, limit: int, secrets: Secrets = ()) -> str:
    """A body for display: credential fields blanked when it is JSON, every known secret
    redacted, then (only then) truncated to `limit` characters (an ellipsis marks a cut)."""
    text, cut = redact_body_cut(raw, limit, secrets)
    return text + "…" if cut else text


def redact_body_cut(raw: bytes, limit: int, secrets: Secrets = ()) -> tuple[str, bool]:
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
