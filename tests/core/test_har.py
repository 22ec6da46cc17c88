"""The HAR builder: each trace record becomes a HAR 1.2 entry (table-tested), and the
document validates against the HAR 1.2 schema and loads in a HAR library nobody here
wrote (haralyzer)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from haralyzer import HarEntry, HarParser

from jupyter_design_projects.core.har import (
    entry_time,
    har_entry,
    har_log,
    har_timings,
)

SCHEMA = json.loads((Path(__file__).parent / "har_1_2.schema.json").read_text())
URL = "http://127.0.0.1:8123/v1/design/mcp"


def record(**fields):
    base = {
        "n": 1, "action": "design call", "method": "POST", "url": URL, "status": 200,
        "reason": "OK", "http_version": "HTTP/1.1", "started": "2026-05-28T20:26:40.250Z",
        "elapsed_ms": 12.5, "timings": {"send": 0.5, "wait": 10.0, "receive": 2.0},
        "request_bytes": 7, "response_bytes": 11,
        "request_headers": {"content-type": "application/json",
                            "authorization": "[redacted-oauth-token]"},
        "response_headers": {"content-type": "application/json"},
        "request_body": '{"q": 1}', "request_body_cut": False,
        "response_body": '{"ok": true}', "response_body_cut": False, "error": None,
    }
    base.update(fields)
    return base


def validate(document):
    jsonschema.Draft7Validator(SCHEMA).validate(document)


def test_the_log_names_its_version_and_creator():
    log = har_log([record()], creator="jupyter-design-projects", version="0.1.0")["log"]
    assert log["version"] == "1.2"
    assert log["creator"] == {"name": "jupyter-design-projects", "version": "0.1.0"}
    assert len(log["entries"]) == 1


def test_an_exchange_becomes_an_entry_with_its_request_and_answer():
    entry = har_entry(record(url=URL + "?a=1&b=&a=2"))
    request, response = entry["request"], entry["response"]
    assert (request["method"], request["url"], request["httpVersion"]) == (
        "POST", URL + "?a=1&b=&a=2", "HTTP/1.1")
    assert request["queryString"] == [{"name": "a", "value": "1"}, {"name": "b", "value": ""},
                                      {"name": "a", "value": "2"}]
    assert {"name": "authorization", "value": "[redacted-oauth-token]"} in request["headers"]
    assert request["postData"] == {"mimeType": "application/json", "text": '{"q": 1}',
                                   "params": []}
    assert (response["status"], response["statusText"]) == (200, "OK")
    assert response["content"] == {"size": 11, "mimeType": "application/json",
                                   "text": '{"ok": true}'}
    assert entry["_action"] == "design call" and entry["_n"] == 1
    assert entry["cache"] == {}
    assert entry["startedDateTime"] == "2026-05-28T20:26:40.250Z"


@pytest.mark.parametrize(("fields", "post_data"), [
    ({"method": "GET", "request_bytes": 0, "request_body": ""}, False),
    ({"method": "DELETE", "request_bytes": 2, "request_body": "{}"}, True),
    ({"request_bytes": 2_000_000, "request_body": "", "request_body_cut": True}, True),
])
def test_post_data_is_there_when_the_request_had_a_body(fields, post_data):
    assert ("postData" in har_entry(record(**fields))["request"]) is post_data


@pytest.mark.parametrize(("side", "fields"), [
    ("request", {"request_body": "x" * 5, "request_body_cut": True, "request_bytes": 90}),
    ("response", {"response_body": "y" * 5, "response_body_cut": True,
                  "response_bytes": 90}),
])
def test_a_body_the_trace_cut_is_marked_truncated(side, fields):
    entry = har_entry(record(**fields))
    body = entry["request"]["postData"] if side == "request" else entry["response"]["content"]
    assert body["_truncated"] is True
    assert "first 5 characters" in body["comment"] and "90 bytes" in body["comment"]


def test_an_uncut_body_carries_no_truncation_mark():
    entry = har_entry(record())
    assert "_truncated" not in entry["request"]["postData"]
    assert "_truncated" not in entry["response"]["content"]


def test_an_exchange_with_no_answer_has_status_0_and_its_error():
    entry = har_entry(record(status=None, reason="", response_headers={}, response_bytes=0,
                             response_body="", elapsed_ms=None, timings={},
                             error="no answer"))
    assert entry["response"]["status"] == 0 and entry["response"]["bodySize"] == -1
    assert entry["response"]["content"]["mimeType"] == "x-unknown"
    assert entry["response"]["_error"] == "no answer"
    assert entry["timings"]["send"] == 0 and entry["timings"]["wait"] == 0
    validate(har_log([record(status=None, timings={}, elapsed_ms=None)], creator="c",
                     version="v"))


def test_a_redirect_names_its_location():
    entry = har_entry(record(status=302, response_headers={"location": "/elsewhere"}))
    assert entry["response"]["redirectURL"] == "/elsewhere"


@pytest.mark.parametrize(("timings", "elapsed", "expected"), [
    # the connection layer reported every step
    ({"blocked": 0.1, "connect": 2.0, "send": 0.5, "wait": 10.0, "receive": 2.0}, 14.6,
     {"blocked": 0.1, "dns": -1, "connect": 2.0, "ssl": -1, "send": 0.5, "wait": 10.0,
      "receive": 2.0}),
    # a reused connection: no connect step
    ({"blocked": 0.0, "send": 0.5, "wait": 3.0, "receive": 1.0}, 4.5,
     {"blocked": 0.0, "dns": -1, "connect": -1, "ssl": -1, "send": 0.5, "wait": 3.0,
      "receive": 1.0}),
    # a transport that reports nothing (a mock): the total is all wait
    ({}, 7.25, {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": 7.25,
                "receive": 0}),
    # no answer, no time
    ({}, None, {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": 0,
                "receive": 0}),
])
def test_timings_are_never_negative_where_har_requires_it(timings, elapsed, expected):
    assert har_timings(record(timings=timings, elapsed_ms=elapsed)) == expected


@pytest.mark.parametrize(("timings", "total"), [
    ({"blocked": 1, "dns": -1, "connect": 2, "ssl": 1.5, "send": 1, "wait": 3, "receive": 4},
     11),
    ({"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": 5, "receive": 0},
     5),
])
def test_time_is_the_sum_of_the_known_timings_ssl_inside_connect(timings, total):
    assert entry_time(timings) == total


def test_a_record_without_a_start_gets_the_epoch():
    assert har_entry(record(started=None))["startedDateTime"] == "1970-01-01T00:00:00.000Z"


def test_dropped_exchanges_are_said_in_the_log():
    log = har_log([record()], creator="c", version="v", dropped=3)["log"]
    assert log["_dropped"] == 3 and "3 older exchange(s)" in log["comment"]


def document():
    return har_log([
        record(),
        record(n=2, method="GET", url=URL + "?x=1", request_body="", request_bytes=0,
               response_body="z" * 10, response_body_cut=True, response_bytes=5000),
        record(n=3, status=None, reason="", timings={}, elapsed_ms=None, error="no answer"),
        record(n=4, status=401, reason="Unauthorized",
               response_headers={"www-authenticate": "Bearer", "content-type": "text/plain"}),
    ], creator="jupyter-design-projects", version="0.1.0", dropped=1)


def test_the_document_validates_against_the_har_1_2_schema():
    validate(document())


def test_the_schema_is_not_a_rubber_stamp():
    broken = document()
    broken["log"]["entries"][0]["timings"]["wait"] = -1
    with pytest.raises(jsonschema.ValidationError):
        validate(broken)
    del broken["log"]["entries"][0]["timings"]["wait"]
    with pytest.raises(jsonschema.ValidationError):
        validate(broken)


def test_haralyzer_reads_every_entry():
    parsed = HarParser(json.loads(json.dumps(document())))
    assert parsed.creator["name"] == "jupyter-design-projects"
    (page,) = parsed.pages
    entries = page.entries
    assert [e.request.method for e in entries] == ["POST", "GET", "POST", "POST"]
    assert [e.status for e in entries] == [200, 200, 0, 401]
    assert entries[0].response.text == '{"ok": true}'
    assert entries[1].request.queryString == [{"name": "x", "value": "1"}]
    assert all(isinstance(e, HarEntry) for e in entries)
    assert entries[0].startTime.year == 2026
    assert page.filter_entries(status_code="401")[0].url == URL


def test_an_empty_record_is_a_get_of_nothing_with_no_answer():
    unknown = {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1}
    assert har_entry({}) == {
        "startedDateTime": "1970-01-01T00:00:00.000Z",
        "time": 0,
        "request": {"method": "GET", "url": "", "httpVersion": "HTTP/1.1", "cookies": [],
                    "headers": [], "queryString": [], "headersSize": -1, "bodySize": 0},
        "response": {"status": 0, "statusText": "", "httpVersion": "", "cookies": [],
                     "headers": [], "content": {"size": 0, "mimeType": "x-unknown",
                                                "text": ""},
                     "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {},
        "timings": {**unknown, "send": 0, "wait": 0, "receive": 0},
        "_action": "",
        "_resourceType": "fetch",
    }


def test_an_answer_keeps_its_headers_version_and_size():
    response = har_entry(record(status=302, reason="Found", http_version="HTTP/2",
                                response_headers={"location": "/next", "x-a": "1"},
                                response_body="", response_bytes=0))["response"]
    assert response == {
        "status": 302, "statusText": "Found", "httpVersion": "HTTP/2", "cookies": [],
        "headers": [{"name": "location", "value": "/next"}, {"name": "x-a", "value": "1"}],
        "content": {"size": 0, "mimeType": "x-unknown", "text": ""},
        "redirectURL": "/next", "headersSize": -1, "bodySize": 0,
    }


def test_a_record_without_a_version_is_http_1_1():
    entry = har_entry(record(http_version=None))
    assert entry["request"]["httpVersion"] == entry["response"]["httpVersion"] == "HTTP/1.1"


def test_timings_are_rounded_to_microseconds():
    assert har_timings({"timings": {"send": 0.12345, "wait": 1.5, "receive": 0.0}})[
        "send"] == 0.123
    assert entry_time({"send": 0.5, "wait": 1.00049, "receive": 0.25, "ssl": -1}) == 1.75


def test_a_log_without_dropped_exchanges_says_only_how_credentials_are_shown():
    log = har_log([], creator="c", version="v")["log"]
    assert log["_dropped"] == 0 and log["entries"] == []
    assert log["comment"] == ("Credentials are replaced by [redacted-oauth-token] in "
                              "headers, URLs, query strings and bodies.")
