"""The HTTP trace as an HTTP Archive (HAR 1.2): a pure function from the trace's records
to the `log` object browser devtools, mitmproxy, Charles, Insomnia and HAR libraries read.

Each record is one exchange as `transport/trace.py` keeps it, already redacted: the
builder only reshapes it and adds nothing secret. What HAR has no field for goes in
custom fields (HAR allows names that start with an underscore): `_action` (the pipeline's
name for the exchange), `_n` (its number in `%design trace`), `_truncated` on a body the
trace's caps cut, and — spelled as Chromium's DevTools writes them — `_resourceType`
"fetch" (its importer files the entry under Fetch/XHR) and the response's `_error` (no
answer, or a body not read to its end).

Timings follow the spec: `send`, `wait` and `receive` are never negative (an exchange the
connection layer did not time in detail counts its whole time to the answer's headers as
`wait`); `blocked`, `dns`, `connect` and `ssl` are -1 where unknown or not applicable,
and `time` is the sum of the timings that are not -1.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

HAR_VERSION = "1.2"
#: the timings HAR requires, never negative
REQUIRED_TIMINGS = ("send", "wait", "receive")
#: the timings HAR allows to be -1 (unknown or not applicable)
OPTIONAL_TIMINGS = ("blocked", "dns", "connect", "ssl")
#: what HAR calls a body of unknown type
UNKNOWN_MIME = "x-unknown"
DEFAULT_HTTP_VERSION = "HTTP/1.1"
#: the start of a record that has none
EPOCH = "1970-01-01T00:00:00.000Z"
#: what DevTools calls a request a program made (its Network panel's Fetch/XHR filter)
RESOURCE_TYPE = "fetch"


def har_log(
    records: Iterable[Mapping[str, Any]],
    *,
    creator: str,
    version: str,
    dropped: int = 0,
) -> dict[str, Any]:
    """The HAR document (`{"log": …}`) of `records`, oldest first. `dropped` (exchanges the
    ring let go before these) goes in the log's comment and `_dropped`."""
    log: dict[str, Any] = {
        "version": HAR_VERSION,
        "creator": {"name": creator, "version": version},
        "entries": [har_entry(r) for r in records],
        "comment": "Credentials are replaced by [redacted-oauth-token] in headers, URLs, "
                   "query strings and bodies."
                   + (f" {dropped} older exchange(s) were dropped by the trace's ring."
                      if dropped else ""),
        "_dropped": dropped,
    }
    return {"log": log}


def har_entry(record: Mapping[str, Any]) -> dict[str, Any]:
    """One exchange as a HAR entry."""
    timings = har_timings(record)
    entry: dict[str, Any] = {
        "startedDateTime": str(record.get("started") or EPOCH),
        "time": entry_time(timings),
        "request": _request(record),
        "response": _response(record),
        "cache": {},
        "timings": timings,
        "_action": str(record.get("action") or ""),
        "_resourceType": RESOURCE_TYPE,
    }
    if record.get("n") is not None:
        entry["_n"] = record["n"]
    return entry


def har_timings(record: Mapping[str, Any]) -> dict[str, float]:
    """The record's timings, each a number of milliseconds: the required ones never
    negative, the optional ones -1 where not known."""
    known: Mapping[str, Any] = record.get("timings") or {}
    out: dict[str, float] = {}
    for name in OPTIONAL_TIMINGS:
        out[name] = _ms(known.get(name), -1)
    for name in REQUIRED_TIMINGS:
        out[name] = _ms(known.get(name), 0)
    if not any(_measured(known.get(n)) for n in REQUIRED_TIMINGS):
        out["wait"] = _ms(record.get("elapsed_ms"), 0)  # only the total is known
    return out


def entry_time(timings: Mapping[str, float]) -> float:
    """HAR's `time`: the sum of the timings that are not -1 (`ssl` is inside `connect`)."""
    return round(sum(v for k, v in timings.items() if k != "ssl" and v >= 0), 3)


def _ms(value: Any, unknown: float) -> float:
    return round(float(value), 3) if _measured(value) else unknown


def _measured(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def _pairs(headers: Mapping[str, str] | None) -> list[dict[str, str]]:
    return [{"name": str(k), "value": str(v)} for k, v in (headers or {}).items()]


def _mime(headers: Mapping[str, str] | None) -> str:
    for name, value in (headers or {}).items():
        if name.lower() == "content-type":
            return str(value)
    return ""


def _http_version(record: Mapping[str, Any]) -> str:
    return str(record.get("http_version") or DEFAULT_HTTP_VERSION)


def _cut_comment(kept: int, size: int) -> str:
    return (f"cut by the trace: the first {kept:,} characters (after redaction) of "
            f"{size:,} bytes")


def _request(record: Mapping[str, Any]) -> dict[str, Any]:
    url = str(record.get("url") or "")
    headers = record.get("request_headers") or {}
    size = int(record.get("request_bytes") or 0)
    request: dict[str, Any] = {
        "method": str(record.get("method") or "GET"),
        "url": url,
        "httpVersion": _http_version(record),
        "cookies": [],
        "headers": _pairs(headers),
        "queryString": [{"name": k, "value": v}
                        for k, v in parse_qsl(urlsplit(url).query, keep_blank_values=True)],
        "headersSize": -1,
        "bodySize": size,
    }
    text = str(record.get("request_body") or "")
    if size or text:
        post: dict[str, Any] = {"mimeType": _mime(headers), "text": text, "params": []}
        if record.get("request_body_cut"):
            post["_truncated"] = True
            post["comment"] = _cut_comment(len(text), size)
        request["postData"] = post
    return request


def _response(record: Mapping[str, Any]) -> dict[str, Any]:
    status = record.get("status")
    headers = record.get("response_headers") or {}
    size = int(record.get("response_bytes") or 0)
    text = str(record.get("response_body") or "")
    content: dict[str, Any] = {"size": size, "mimeType": _mime(headers) or UNKNOWN_MIME,
                               "text": text}
    if record.get("response_body_cut"):
        content["_truncated"] = True
        content["comment"] = _cut_comment(len(text), size)
    response: dict[str, Any] = {
        "status": int(status) if isinstance(status, int) else 0,
        "statusText": str(record.get("reason") or ""),
        "httpVersion": _http_version(record) if status is not None else "",
        "cookies": [],
        "headers": _pairs(headers),
        "content": content,
        "redirectURL": str(headers.get("location", "")),
        "headersSize": -1,
        "bodySize": size if status is not None else -1,
    }
    if record.get("error"):  # where Chromium's DevTools export puts a failure
        response["_error"] = str(record["error"])
    return response
