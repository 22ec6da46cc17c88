"""One traced exchange as a curl command that reproduces it, with no credential in it.

The command names the method and URL, sends every header the client sent, and the body.
A header the trace blanked is sent from an environment variable instead of its value:
`Authorization: Bearer $JDP_TOKEN` (the bearer the request carried: the OAuth access
token, or the session token on the remote-session route), `Cookie: $JDP_COOKIE`, and
`$JDP_<NAME>` for any other. `Content-Length` is left to curl, which computes it from the
body it sends (the trace's body is the redacted text, which may differ in length from the
bytes first sent). Every word is quoted with `shlex.quote`; a variable is inside double
quotes so the shell expands it.

A body of at most `INLINE_BODY_CHARS` characters goes on the command line
(`--data-binary 'text'`). A larger one is piped in: `printf '%s' 'text' | curl …
--data-binary @-`. printf is a shell builtin, so the body never meets the kernel's limit
on one argument of a program (128 KiB on Linux), and it arrives byte for byte (a heredoc
would add a final newline).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from .redaction import REDACTED

TOKEN_VARIABLE = "JDP_TOKEN"
#: bodies up to this many characters go on the command line; longer ones are piped in
INLINE_BODY_CHARS = 4096
#: headers curl writes itself from what it sends
COMPUTED_HEADERS = frozenset({"content-length"})
#: blanked headers and the variable each is read from
HEADER_VARIABLES = {"authorization": "Bearer $" + TOKEN_VARIABLE, "cookie": "$JDP_COOKIE"}


def header_variable(name: str) -> str:
    """The shell expression that stands for a blanked header's value."""
    known = HEADER_VARIABLES.get(name.lower())
    if known is not None:
        return known
    return "$JDP_" + "".join(c if c.isalnum() else "_" for c in name.upper())


def _header_word(name: str, value: str) -> str:
    if value == REDACTED:  # the trace blanked it: its value comes from the environment
        return f'"{name}: {header_variable(name)}"'
    return shlex.quote(f"{name}: {value}")


def curl_command(record: Mapping[str, Any]) -> str:
    """The curl command (one line, or printf piped into curl) for a trace record."""
    words = ["curl", "-X", shlex.quote(str(record.get("method") or "GET")),
             shlex.quote(str(record.get("url") or ""))]
    headers = record.get("request_headers") or {}
    for name, value in headers.items():
        if name.lower() in COMPUTED_HEADERS:
            continue
        words += ["-H", _header_word(str(name), str(value))]
    body = str(record.get("request_body") or "")
    if not body and not record.get("request_bytes"):
        return " ".join(words)
    if len(body) <= INLINE_BODY_CHARS:
        return " ".join([*words, "--data-binary", shlex.quote(body)])
    return " ".join(["printf", "'%s'", shlex.quote(body), "|", *words, "--data-binary", "@-"])


def curl_notes(record: Mapping[str, Any]) -> list[str]:
    """What keeps the command from reproducing the exchange exactly, in words."""
    notes = []
    headers = record.get("request_headers") or {}
    needed = sorted({header_variable(n).split("$", 1)[1] for n, v in headers.items()
                     if v == REDACTED})
    if needed:
        notes.append("Set " + ", ".join(f"${v}" for v in needed)
                     + " in the environment first (the trace never holds their values).")
    if record.get("request_body_cut"):
        notes.append("The trace cut this request's body, so the command sends only its "
                     "first part.")
    body = str(record.get("request_body") or "")
    if REDACTED in body or REDACTED in str(record.get("url") or ""):
        notes.append(f"Credentials in the URL or body are shown as {REDACTED}; put the real "
                     "values in before running it.")
    return notes
