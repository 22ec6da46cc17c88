"""The HTTP trace: what each exchange records, its bound, and redaction before truncation and
again when shown."""

import json

import httpx
import pytest
from transport_doubles import ORIGIN, build_rig, drip, make_cred

from jupyter_design_projects.core.redaction import REDACTED, Secret
from jupyter_design_projects.errors import DeadlineExceeded, TransportError
from jupyter_design_projects.transport.http import make_client, send
from jupyter_design_projects.transport.trace import HttpTrace

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
