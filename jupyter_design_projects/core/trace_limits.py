"""The HTTP trace's limits: how many exchanges its ring keeps and how much of each body."""

from __future__ import annotations

#: how many exchanges the trace keeps by default (the oldest go first); the
#: `trace_limit` setting changes it
TRACE_LIMIT = 500
#: the least and the most the `trace_limit` setting may name
TRACE_LIMIT_MIN = 1
TRACE_LIMIT_MAX = 100_000
#: how many characters of each answer's body a record keeps, after redaction
RESPONSE_BODY_CHARS = 2000
#: how many characters of each request's body a record keeps, after redaction: enough for
#: `%design trace --curl` to replay a Design call or a Projects write of a few pages
#: (the ring at its default size then holds at most 500 × 64 Ki characters)
REQUEST_BODY_CHARS = 64 * 1024


def check_trace_limit(value: object) -> int:
    """`value` as a ring size, or ValueError naming the range."""
    if isinstance(value, bool) or not isinstance(value, int) or not (
            TRACE_LIMIT_MIN <= value <= TRACE_LIMIT_MAX):
        raise ValueError(f"must be a whole number from {TRACE_LIMIT_MIN} to "
                         f"{TRACE_LIMIT_MAX:,}, got {value!r}")
    return value
