"""The HTTP trace: what each exchange records, its bound, and redaction before truncation and
again when shown."""

import json

import httpx
import pytest

from jupyter_design_projects.core.redaction import REDACTED, Secret
from jupyter_design_projects.errors import DeadlineExceeded, TransportError
from jupyter_design_projects.transport.http import make_client, send
from jupyter_design_projects.transport.trace import HttpTrace
from tests.transport.transport_doubles import ORIGIN, build_rig, drip, make_cred

URL = ORIGIN + "/v1/design/mcp"
KNOWN = Secret("known-token-0001")


def traced_client(handler, trace):
    return make_client(transport=httpx.MockTransport(handler), event_hooks=trace.event_hooks())


async def call(client, *, deadline_s=5.0, max_bytes=1_000_000, **kwargs):
    return await send(client, "POST", URL, action="design call", max_bytes=max_bytes,
                      deadline_s=deadline_s, **kwargs)


@pytest.mark.asyncio
async def test_each_exchange_is_recorded_with_sizes_status_and_action():
    trace = HttpTrace(True, lambda: [KNOWN])
    async with traced_client(lambda r: httpx.Response(200, json={"ok": True}), trace) as client:
        await call(client, json={"q": 1})
    (row,) = trace.records()
    assert row["action"] == "design call"
    assert row["method"] == "POST" and row["url"] == URL and row["status"] == 200
    assert row["request_bytes"] == len(b'{"q":1}')
    assert row["response_bytes"] == len(b'{"ok":true}')
    assert row["error"] is None and row["elapsed_ms"] >= 0
    assert json.loads(row["response_body"]) == {"ok": True}


@pytest.mark.asyncio
async def test_disabled_trace_records_nothing():
    trace = HttpTrace(False, lambda: [])
    async with traced_client(lambda r: httpx.Response(200, json={}), trace) as client:
        await call(client)
    assert trace.records() == []


@pytest.mark.asyncio
@pytest.mark.parametrize(("exchanges", "kept"), [(3, 3), (4, 3)])
async def test_trace_keeps_only_the_last_limit_exchanges(exchanges, kept):
    trace = HttpTrace(True, lambda: [], limit=3)
    async with traced_client(lambda r: httpx.Response(200, json={}), trace) as client:
        for _ in range(exchanges):
            await call(client)
    assert len(trace.records()) == kept


@pytest.mark.asyncio
async def test_tokens_are_redacted_in_url_headers_and_bodies():
    def handler(request):
        return httpx.Response(
            200,
            headers={"set-cookie": "s=1", "x-echo": KNOWN.reveal()},
            json={"access_token": "fresh-token-0002", "echo": KNOWN.reveal()},
        )

    trace = HttpTrace(True, lambda: [KNOWN])
    async with traced_client(handler, trace) as client:
        await call(client, params={"t": KNOWN.reveal()}, json={"refresh_token": "rt-0000003"},
                   headers={"Authorization": "Bearer " + KNOWN.reveal()})
    text = json.dumps(trace.records())
    for token in (KNOWN.reveal(), "fresh-token-0002", "rt-0000003"):
        assert token not in text
    row = trace.records()[0]
    assert row["request_headers"]["authorization"] == REDACTED
    assert row["response_headers"]["set-cookie"] == REDACTED


@pytest.mark.asyncio
async def test_bodies_are_redacted_before_they_are_cut():
    body = b"x" * 95 + KNOWN.reveal().encode()
    trace = HttpTrace(True, lambda: [KNOWN], body_chars=100)

    async def stream():
        yield body

    async with traced_client(lambda r: httpx.Response(200, content=stream()), trace) as client:
        await call(client)
    row = trace.records()[0]
    assert "known" not in row["response_body"]
    assert len(row["response_body"]) == 100 and row["response_body_cut"] is True


@pytest.mark.asyncio
async def test_a_request_that_never_got_an_answer_is_recorded_as_such():
    def handler(request):
        raise httpx.ConnectError("refused", request=request)

    trace = HttpTrace(True, lambda: [])
    async with traced_client(handler, trace) as client:
        with pytest.raises(TransportError):
            await call(client)
    (row,) = trace.records()
    assert row["status"] is None and row["error"] == "no answer"


@pytest.mark.asyncio
async def test_an_answer_cut_at_the_deadline_is_flagged():
    trace = HttpTrace(True, lambda: [])
    async with traced_client(lambda r: httpx.Response(200, content=drip()), trace) as client:
        with pytest.raises(DeadlineExceeded):
            await call(client, deadline_s=0.1)
    (row,) = trace.records()
    assert row["status"] == 200 and row["error"] == "body not fully read"


@pytest.mark.asyncio
async def test_a_retried_401_and_the_refresh_are_both_in_the_trace(tmp_path):
    rig = build_rig(tmp_path, make_cred())
    trace = HttpTrace(True, rig.manager.known_secrets)
    rig.http.event_hooks = trace.event_hooks()
    rig.service.access.clear()
    async with rig.http:
        answer = await send(rig.http, "GET", ORIGIN + "/resource", action="probe",
                            max_bytes=1000, deadline_s=5)
    assert answer.status == 200
    rows = trace.records()
    assert [(r["action"], r["status"]) for r in rows] == [
        ("probe", 401), ("oauth refresh", 200), ("probe", 200)]
    text = json.dumps(rows)
    for secret in rig.manager.known_secrets():
        assert secret.reveal() not in text


@pytest.mark.asyncio
async def test_a_secret_learned_after_its_exchange_is_not_shown_either():
    known: list[Secret] = []
    trace = HttpTrace(True, lambda: known)
    page = b'<pre id="code">late-code-000001#state</pre>'
    async with traced_client(lambda r: httpx.Response(200, content=page), trace) as client:
        await call(client)
    assert "late-code-000001" in trace.records()[0]["response_body"]
    known.append(Secret("late-code-000001"))  # the login reads the code off the page
    assert "late-code-000001" not in json.dumps(trace.records())


# ---------------------------------------------------------------- on/off, the ring, caps


def ok(request):
    return httpx.Response(200, json={})


@pytest.mark.asyncio
async def test_tracing_switched_on_mid_session_records_from_then_on():
    trace = HttpTrace(False, lambda: [])
    async with traced_client(ok, trace) as client:
        await call(client)
        trace.enabled = True
        await call(client)
        await call(client)
        trace.enabled = False
        await call(client)
    assert [r["n"] for r in trace.records()] == [1, 2]


@pytest.mark.asyncio
@pytest.mark.parametrize(("exchanges", "dropped", "kept"), [
    (3, 0, [1, 2, 3]), (4, 1, [2, 3, 4]), (7, 4, [5, 6, 7])])
async def test_the_ring_drops_the_oldest_and_counts_them(exchanges, dropped, kept):
    trace = HttpTrace(True, lambda: [], limit=3)
    async with traced_client(ok, trace) as client:
        for _ in range(exchanges):
            await call(client)
    assert trace.dropped == dropped
    assert [r["n"] for r in trace.records()] == kept


@pytest.mark.asyncio
async def test_clear_forgets_the_exchanges_and_the_drop_count_but_not_the_numbers():
    trace = HttpTrace(True, lambda: [], limit=2)
    async with traced_client(ok, trace) as client:
        for _ in range(3):
            await call(client)
        trace.clear()
        assert trace.records() == [] and trace.dropped == 0
        await call(client)
    assert [r["n"] for r in trace.records()] == [4]


@pytest.mark.asyncio
@pytest.mark.parametrize(("exchanges", "cleared", "newest", "held"), [
    (0, False, 0, 0), (1, False, 1, 1), (3, False, 3, 3), (7, False, 7, 3), (3, True, 0, 0)])
async def test_the_newest_number_and_the_count_follow_the_ring(exchanges, cleared, newest,
                                                               held):
    trace = HttpTrace(True, lambda: [], limit=3)
    async with traced_client(ok, trace) as client:
        for _ in range(exchanges):
            await call(client)
    if cleared:
        trace.clear()
    assert trace.newest == newest and trace.held == held == len(trace.records())
    assert trace.newest == (trace.records()[-1]["n"] if trace.records() else 0)
    assert trace  # an empty trace is still a trace where code asks `if trace`


@pytest.mark.asyncio
async def test_the_newest_number_is_read_without_redacting_the_ring():
    """A call history reads it twice a call: through `records()` that redacted every row
    the ring holds (up to 500) each time."""
    asked: list[int] = []

    def known() -> list[Secret]:
        asked.append(1)
        return [KNOWN]

    trace = HttpTrace(True, known)
    async with traced_client(ok, trace) as client:
        for _ in range(3):
            await call(client)
    before = len(asked)
    assert (trace.newest, trace.held) == (3, 3)
    assert len(asked) == before
    trace.records()
    assert len(asked) == before + 1  # showing the rows still redacts them with what is known


@pytest.mark.asyncio
async def test_a_smaller_ring_keeps_the_newest():
    trace = HttpTrace(True, lambda: [], limit=5)
    async with traced_client(ok, trace) as client:
        for _ in range(4):
            await call(client)
        trace.resize(2)
        await call(client)
    assert [r["n"] for r in trace.records()] == [4, 5] and trace.limit == 2
    assert trace.dropped == 3


@pytest.mark.parametrize("limit", [0, 100_001, True, 2.5])
def test_a_ring_size_outside_its_range_is_refused(limit):
    with pytest.raises(ValueError, match="1 to 100,000"):
        HttpTrace(True, lambda: [], limit=limit)


@pytest.mark.parametrize("limit", [1, 100_000])
def test_the_ring_size_bounds_are_allowed(limit):
    assert HttpTrace(True, lambda: [], limit=limit).limit == limit


@pytest.mark.asyncio
@pytest.mark.parametrize(("chars", "cut"), [(8, False), (7, True)])
async def test_request_bodies_follow_their_own_cap(chars, cut):
    trace = HttpTrace(True, lambda: [], request_body_chars=chars, body_chars=1000)
    async with traced_client(ok, trace) as client:
        await call(client, json={"q": 1})  # shown re-serialized as {"q": 1}: 8 characters
    row = trace.records()[0]
    assert row["request_body_cut"] is cut and row["response_body_cut"] is False
    assert row["request_body"] == '{"q": 1}'[:chars]


@pytest.mark.asyncio
async def test_a_streamed_request_body_is_marked_cut_with_its_size():
    from jupyter_design_projects.transport.http import JsonBody

    body = JsonBody({"text": "a" * (JsonBody.SLICE_CHARS + 1)})
    trace = HttpTrace(True, lambda: [])
    async with traced_client(ok, trace) as client:
        await call(client, content=body)
    row = trace.records()[0]
    assert row["request_bytes"] == body.length
    assert row["request_body"] == "" and row["request_body_cut"] is True


@pytest.mark.asyncio
async def test_each_record_has_its_start_reason_version_and_timings():
    trace = HttpTrace(True, lambda: [], clock=lambda: 1_780_000_000.5)
    async with traced_client(lambda r: httpx.Response(404, json={}), trace) as client:
        await call(client)
    row = trace.records()[0]
    assert row["started"] == "2026-05-28T20:26:40.500Z"
    assert (row["status"], row["reason"], row["http_version"]) == (404, "Not Found",
                                                                   "HTTP/1.1")
    assert set(row["timings"]) == {"send", "wait", "receive"}  # a mock reports no steps
    assert row["timings"]["send"] == 0.0 and row["response_body_cut"] is False


def test_timings_from_the_connection_steps():
    from jupyter_design_projects.transport.trace import timings

    marks = {"start": 1.0, "connection.connect_tcp.started": 1.001,
             "connection.connect_tcp.complete": 1.003,
             "http11.send_request_headers.started": 1.004,
             "http11.send_request_body.complete": 1.005,
             "http11.receive_response_headers.complete": 1.015,
             "headers": 1.016, "closed": 1.020}
    assert timings(marks) == {"connect": 2.0, "blocked": 1.0, "send": 1.0, "wait": 10.0,
                              "receive": 4.0}


@pytest.mark.parametrize(("epoch", "text"), [
    (0.0, "1970-01-01T00:00:00.000Z"),
    (1_780_000_000.0015, "2026-05-28T20:26:40.001Z"),
])
def test_start_times_are_utc_to_the_millisecond(epoch, text):
    from jupyter_design_projects.transport.trace import iso_time

    assert iso_time(epoch) == text


# ---------------------------------------------------------------- each field of a record

FIELDS = {"n", "action", "method", "url", "status", "reason", "http_version", "started",
          "elapsed_ms", "timings", "request_bytes", "response_bytes", "request_headers",
          "response_headers", "request_body", "request_body_cut", "response_body",
          "response_body_cut", "error"}


@pytest.mark.asyncio
async def test_a_request_without_an_answer_is_recorded_field_by_field():
    def handler(request):
        raise httpx.ConnectError("refused", request=request)

    trace = HttpTrace(True, lambda: [], clock=lambda: 0.0)
    async with traced_client(handler, trace) as client:
        with pytest.raises(TransportError):
            await call(client, json={"q": 1})
    (row,) = trace.records()
    headers = row.pop("request_headers")
    assert row == {
        "n": 1, "action": "design call", "method": "POST", "url": URL, "status": None,
        "reason": "", "http_version": "", "started": "1970-01-01T00:00:00.000Z",
        "elapsed_ms": None, "timings": {}, "request_bytes": 7, "response_bytes": 0,
        "response_headers": {}, "request_body": '{"q": 1}', "request_body_cut": False,
        "response_body": "", "response_body_cut": False, "error": "no answer"}
    assert (headers["content-length"], headers["user-agent"]) == (
        "7", "jupyter-design-projects/0.1")


@pytest.mark.asyncio
async def test_an_answered_exchange_has_exactly_the_fields_of_a_record():
    trace = HttpTrace(True, lambda: [])
    async with traced_client(ok, trace) as client:
        await call(client)
        await client.get(URL)  # not through `send`: no action
    rows = trace.records()
    assert [set(row) for row in rows] == [FIELDS, FIELDS]
    assert [(row["action"], row["request_bytes"]) for row in rows] == [
        ("design call", 0), ("", 0)]


@pytest.mark.asyncio
async def test_a_secret_the_provider_later_forgets_stays_redacted():
    known = [KNOWN]
    trace = HttpTrace(True, lambda: list(known), request_body_chars=24)
    async with traced_client(ok, trace) as client:
        # the token straddles the request body's cut: only redaction first hides it
        await call(client, params={"t": KNOWN.reveal()}, json={"q": "x" * 10 + KNOWN.reveal()},
                   headers={"X-Echo": KNOWN.reveal()})
    known.clear()  # rotated out of the provider's memory
    (row,) = trace.records()
    text = json.dumps(row)
    assert "known" not in text
    assert row["request_headers"]["x-echo"] == REDACTED and REDACTED in row["url"]
    assert row["request_body_cut"] is True


@pytest.mark.asyncio
async def test_the_connection_steps_a_transport_reports_become_timings():
    async def handler(request):  # reports its steps as httpcore does
        for name in ("connection.connect_tcp.started", "connection.connect_tcp.complete",
                     "http11.send_request_headers.started",
                     "http11.send_request_body.complete",
                     "http11.receive_response_headers.complete"):
            await request.extensions["trace"](name, {})
        return httpx.Response(200, json={})

    trace = HttpTrace(True, lambda: [])
    async with traced_client(handler, trace) as client:
        await call(client)
    timed = trace.records()[0]["timings"]
    assert set(timed) == {"connect", "blocked", "send", "wait", "receive"}
    assert all(value >= 0.0 for value in timed.values())


@pytest.mark.asyncio
async def test_a_callers_own_connection_trace_is_kept():
    seen = []

    async def mine(name, info):
        seen.append(name)

    def handler(request):
        assert request.extensions["trace"] is mine
        return httpx.Response(200, json={})

    trace = HttpTrace(True, lambda: [])
    async with traced_client(handler, trace) as client:
        await client.get(URL, extensions={"trace": mine})
    assert trace.records()[0]["status"] == 200


@pytest.mark.parametrize(("marks", "expected"), [
    # TLS: connect includes the handshake, which is also ssl
    ({"start": 1.0, "connection.connect_tcp.started": 1.001,
      "connection.connect_tcp.complete": 1.003, "connection.start_tls.started": 1.003,
      "connection.start_tls.complete": 1.006, "http2.send_request_headers.started": 1.007,
      "http2.send_request_body.complete": 1.008,
      "http2.receive_response_headers.complete": 1.018, "headers": 1.019, "closed": 1.021},
     {"connect": 5.0, "ssl": 3.0, "blocked": 1.0, "send": 1.0, "wait": 10.0, "receive": 2.0}),
    # a reused connection: blocked until the headers went out
    ({"start": 1.0, "http11.send_request_headers.started": 1.002,
      "http11.send_request_body.complete": 1.003, "headers": 1.010, "closed": 1.011},
     {"blocked": 2.0, "send": 1.0, "wait": 7.0, "receive": 1.0}),
    # headers went out but the body's end was not reported: timed as if no steps
    ({"start": 1.0, "http11.send_request_headers.started": 1.002, "headers": 1.004,
      "closed": 1.005},
     {"blocked": 2.0, "send": 0.0, "wait": 4.0, "receive": 1.0}),
    # a connect that never completed is no connect phase
    ({"start": 1.0, "connection.connect_tcp.started": 1.001,
      "connection.start_tls.complete": 1.002, "headers": 1.004, "closed": 1.005},
     {"blocked": 1.0, "send": 0.0, "wait": 4.0, "receive": 1.0}),
    # no steps at all: everything up to the headers is the wait
    ({"start": 1.0, "headers": 1.004, "closed": 1.005},
     {"send": 0.0, "wait": 4.0, "receive": 1.0}),
    # no answer: nothing to time
    ({"start": 1.0, "closed": 1.5}, {}),
])
def test_timings_take_each_phase_from_the_steps_that_were_reported(marks, expected):
    from jupyter_design_projects.transport.trace import timings

    assert timings(marks) == pytest.approx(expected)


@pytest.mark.parametrize(("began", "ended", "ms"), [
    (1.0, 1.0012344, 1.234), (1.0, 0.5, 0.0), (2.0, 2.0, 0.0)])
def test_a_phase_is_whole_microseconds_and_never_negative(began, ended, ms):
    from jupyter_design_projects.transport.trace import _ms

    assert _ms(began, ended) == ms


@pytest.mark.parametrize(("headers", "body", "size"), [
    ({}, b"", 0), ({"content-length": "12"}, b"", 12), ({"content-length": "x1"}, b"", 0),
    ({"content-length": "99"}, b"abc", 3)])
def test_a_request_size_is_its_body_or_its_declared_length(headers, body, size):
    from jupyter_design_projects.transport.trace import _request_size

    assert _request_size(httpx.Request("POST", URL, headers=headers), body) == size


@pytest.mark.asyncio
async def test_a_long_answer_keeps_its_head_and_counts_every_byte():
    body = b"".join(bytes([97 + n]) * 7_000 for n in range(7)) + b"h" * 1_000
    trace = HttpTrace(True, lambda: [], body_chars=100)

    async def stream():
        for at in range(0, len(body), 7_000):
            yield body[at:at + 7_000]

    async with traced_client(lambda r: httpx.Response(200, content=stream()), trace) as client:
        await call(client)
    (row,) = trace.records()
    assert (row["response_bytes"], row["response_body"], row["response_body_cut"]) == (
        50_000, "a" * 100, True)
    assert row["error"] is None and row["elapsed_ms"] is not None


@pytest.mark.asyncio
async def test_an_answer_longer_than_its_kept_head_is_cut_even_if_the_head_shrinks():
    # the kept head is exactly one long known token, which redacts to a few characters
    token = Secret("t" * (4 * 100 + 8192))
    trace = HttpTrace(True, lambda: [token], body_chars=100)
    body = token.reveal().encode() + b" and more"
    async with traced_client(lambda r: httpx.Response(200, content=stream_of(body)),
                             trace) as client:
        await call(client)
    (row,) = trace.records()
    assert row["response_body"] == REDACTED and row["response_body_cut"] is True


def stream_of(body: bytes):
    async def chunks():
        yield body

    return chunks()
