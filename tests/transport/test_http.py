"""The capped exchange: byte caps at their exact boundary, gzip and slow-drip answers, redirects,
and redacted answer text."""

import asyncio
import gzip
import traceback

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jupyter_design_projects.core.redaction import REDACTED, Secret
from jupyter_design_projects.errors import (
    DeadlineExceeded,
    ResponseTooLarge,
    TransportError,
    UnexpectedContentType,
)
from jupyter_design_projects.transport.http import make_client, retry_after_seconds, send
from tests.transport.transport_doubles import drip

URL = "http://127.0.0.1:8123/v1/design/mcp"
DESIGN_CAP = 2_080_000


def client_for(handler):
    return make_client(transport=httpx.MockTransport(handler))


def stream_of(body: bytes, chunk: int = 65536):
    async def chunks():
        for start in range(0, len(body), chunk):
            yield body[start:start + chunk]

    return chunks()


async def fetch(handler, *, max_bytes=DESIGN_CAP, deadline_s=5.0, **kwargs):
    async with client_for(handler) as client:
        return await send(client, "POST", URL, action="design call", max_bytes=max_bytes,
                          deadline_s=deadline_s, json={}, **kwargs)


@pytest.mark.asyncio
@pytest.mark.parametrize(("size", "too_large"), [(DESIGN_CAP, False), (DESIGN_CAP + 1, True)])
async def test_streamed_answer_is_capped_at_exactly_max_bytes(size, too_large):
    handler = lambda r: httpx.Response(200, content=stream_of(b"x" * size))  # noqa: E731
    if too_large:
        with pytest.raises(ResponseTooLarge) as info:
            await fetch(handler)
        assert info.value.limit == DESIGN_CAP
    else:
        assert len((await fetch(handler)).body) == size


@pytest.mark.asyncio
@pytest.mark.parametrize(("declared", "too_large"), [(100, False), (101, True)])
async def test_declared_length_over_the_cap_is_refused_before_reading(declared, too_large):
    handler = lambda r: httpx.Response(  # noqa: E731
        200, headers={"content-length": str(declared)}, content=stream_of(b"x" * declared))
    if too_large:
        with pytest.raises(ResponseTooLarge):
            await fetch(handler, max_bytes=100)
    else:
        assert len((await fetch(handler, max_bytes=100)).body) == declared


@pytest.mark.asyncio
async def test_endless_answer_stops_at_the_cap():
    read = 0

    async def endless():
        nonlocal read
        while True:
            read += 65536
            yield b"x" * 65536

    with pytest.raises(ResponseTooLarge):
        await fetch(lambda r: httpx.Response(200, content=endless()), max_bytes=1_000_000)
    assert read <= 1_000_000 + 65536


@pytest.mark.asyncio
async def test_gzip_bomb_is_refused_without_inflating_it():
    bomb = gzip.compress(b" " * 20_000_000)
    handler = lambda r: httpx.Response(  # noqa: E731
        200, headers={"content-encoding": "gzip"}, content=stream_of(bomb))
    with pytest.raises(TransportError) as info:
        await fetch(handler)
    assert info.value.action == "design call"


@pytest.mark.asyncio
async def test_slow_drip_is_cut_at_the_total_deadline():
    with pytest.raises(DeadlineExceeded) as info:
        await fetch(lambda r: httpx.Response(200, content=drip()), deadline_s=0.2)
    assert info.value.seconds == 0.2


@pytest.mark.asyncio
async def test_identity_encoding_is_asked_for_and_redirects_are_not_followed():
    seen = []

    def handler(request):
        seen.append(request)
        return httpx.Response(307, headers={"location": "http://evil.example/"})

    answer = await fetch(handler)
    assert answer.status == 307
    assert len(seen) == 1
    assert seen[0].headers["accept-encoding"] == "identity"


def endless_events(read: list[int]):
    async def chunks():
        while True:  # a stream that never ends: reading it would hold the call forever
            read.append(1)
            yield b"event: message\ndata: {}\n\n"
            await asyncio.sleep(0.01)

    return chunks()


@pytest.mark.asyncio
@pytest.mark.parametrize("content_type", ["text/event-stream", "Text/Event-Stream; charset=utf-8"])
async def test_a_refused_content_type_is_refused_from_its_headers_unread(content_type):
    read: list[int] = []

    def handler(request):
        return httpx.Response(200, headers={"content-type": content_type},
                              content=endless_events(read))

    with pytest.raises(UnexpectedContentType) as info:
        await fetch(handler, deadline_s=30.0, refuse_content_type="text/event-stream")
    assert info.value.content_type == "text/event-stream" and info.value.status == 200
    assert read == []


@pytest.mark.asyncio
@pytest.mark.parametrize("refused", [None, "text/event-stream"])
async def test_another_content_type_is_read_as_usual(refused):
    def handler(request):
        return httpx.Response(200, headers={"content-type": "application/json"},
                              content=stream_of(b'{"ok": true}', chunk=4))

    answer = await fetch(handler, refuse_content_type=refused)
    assert answer.status == 200 and bytes(answer.body) == b'{"ok": true}'


@pytest.mark.asyncio
async def test_connection_failure_is_a_transport_error_without_a_chain():
    def handler(request):
        raise httpx.ConnectError("refused token-in-message-XYZ", request=request)

    with pytest.raises(TransportError) as info:
        await fetch(handler)
    text = "".join(traceback.format_exception(info.value))
    assert "token-in-message-XYZ" not in text
    assert info.value.__suppress_context__


@pytest.mark.asyncio
@pytest.mark.parametrize(("raised", "reason"), [
    (httpx.ConnectError, "connect"),
    (httpx.ConnectTimeout, "connect"),
    (httpx.ReadTimeout, "timeout"),
    (httpx.WriteTimeout, "timeout"),
    (httpx.PoolTimeout, "timeout"),
    (httpx.ReadError, "network"),
    (httpx.RemoteProtocolError, "network"),
])
async def test_a_failed_exchange_carries_its_kind_as_a_code(raised, reason):
    def handler(request):
        raise raised("the words of httpx", request=request)

    with pytest.raises(TransportError) as info:
        await fetch(handler)
    assert (info.value.reason, info.value.status) == (reason, None)
    assert info.value.detail == f"{raised.__name__} talking to the service"
    assert info.value.message == f"design call: {raised.__name__} talking to the service"


@pytest.mark.asyncio
async def test_an_answer_not_json_is_told_by_its_code():
    answer = await fetch(lambda r: httpx.Response(502, content=b"<html>"))
    with pytest.raises(TransportError) as info:
        answer.json()
    assert (info.value.reason, info.value.detail) == ("not_json",
                                                      "the answer (HTTP 502) is not JSON")


@pytest.mark.asyncio
async def test_malformed_json_answer_never_echoes_the_body():
    answer = await fetch(lambda r: httpx.Response(200, content=b"{not json SECRETBODY"))
    with pytest.raises(TransportError) as info:
        answer.json()
    assert "SECRETBODY" not in str(info.value)
    assert info.value.__suppress_context__


KNOWN = Secret("known-token-0000000001")


class KnowsSecrets(httpx.Auth):
    """An auth that adds nothing but knows secrets, as BearerAuth does."""

    def known_secrets(self):
        return (KNOWN,)


async def fetch_known(body: bytes, *, auth=None):
    client = make_client(transport=httpx.MockTransport(lambda r: httpx.Response(
        500, content=body)), auth=auth or KnowsSecrets())
    async with client:
        return await send(client, "POST", URL, action="design call", max_bytes=DESIGN_CAP,
                          deadline_s=5.0, json={})


@pytest.mark.asyncio
@pytest.mark.parametrize("body", [
    b"rejected known-token-0000000001",
    b'{"detail": "known-token-0000000001"}',
    b"t=known-token-0000000001&x=1",
    b'{"access_token": "fresh-unknown-0002"}',
    b"Authorization: Bearer fresh-unknown-0002",
], ids=["raw", "json", "form", "credential field", "bearer"])
async def test_answer_text_redacts_what_the_clients_auth_knows(body):
    shown = (await fetch_known(body)).text()
    assert "known-token" not in shown and "fresh-unknown" not in shown
    assert REDACTED in shown


@pytest.mark.asyncio
async def test_answer_text_redacts_before_it_cuts():
    answer = await fetch_known(b"x" * 10 + KNOWN.reveal().encode())
    assert answer.text(15) == "x" * 10 + REDACTED[:5] + "…"


@pytest.mark.asyncio
async def test_answer_text_without_a_secret_aware_auth_still_redacts_bearer_values():
    client = make_client(transport=httpx.MockTransport(lambda r: httpx.Response(
        500, content=b"Bearer abcdefgh-0001")))
    async with client:
        answer = await send(client, "GET", URL, action="a", max_bytes=100, deadline_s=5)
    assert "abcdefgh-0001" not in answer.text()


@pytest.mark.asyncio
async def test_answer_repr_never_shows_the_body():
    answer = await fetch_known(b'{"access_token": "AT-IN-BODY-0001"}')
    assert "AT-IN-BODY" not in repr(answer)
    assert answer.body == b'{"access_token": "AT-IN-BODY-0001"}'


def test_sniffio_is_installed_so_httpcore_imports_it_from_the_cache():
    """httpcore imports sniffio on every async request; it is a declared dependency, so
    each import after the first is a sys.modules hit, never a failed search of sys.path."""
    import asyncio
    import sys
    import types

    from httpcore._synchronization import current_async_library

    async def library() -> str:
        return current_async_library()

    assert asyncio.run(library()) == "asyncio"
    assert isinstance(sys.modules.get("sniffio"), types.ModuleType)


@pytest.mark.asyncio
@pytest.mark.parametrize(("size", "too_large"), [(300_000, False), (300_001, True)])
async def test_a_sink_gets_a_2xx_body_as_it_arrives_under_the_same_cap(size, too_large):
    handler = lambda r: httpx.Response(200, content=stream_of(b"x" * size))  # noqa: E731
    chunks: list[bytes] = []
    if too_large:
        with pytest.raises(ResponseTooLarge):
            await fetch(handler, max_bytes=300_000, sink=chunks.append)
        return
    answer = await fetch(handler, max_bytes=300_000, sink=chunks.append)
    assert answer.status == 200 and answer.body == b""
    assert len(chunks) > 1 and b"".join(chunks) == b"x" * size


@pytest.mark.asyncio
async def test_a_sink_never_sees_an_error_body_which_stays_on_the_answer():
    handler = lambda r: httpx.Response(404, json={"error": "gone"})  # noqa: E731
    chunks: list[bytes] = []
    answer = await fetch(handler, sink=chunks.append)
    assert chunks == [] and answer.status == 404 and answer.json() == {"error": "gone"}


def test_a_json_body_encodes_as_httpx_json_does_in_slices_and_again():
    import json as jsonlib

    from jupyter_design_projects.transport.http import JsonBody

    unit = 'é"\\\n\t€𝄞\x00 words '
    fields = {"file_name": "a/b.md", "content": (unit * 200_000)[: (1 << 20) * 2 + 5], "n": 3}
    body = JsonBody(fields)
    expected = httpx.Request("POST", URL, json=fields).content

    async def collect():
        return b"".join([piece async for piece in body])

    first, again = asyncio.run(collect()), asyncio.run(collect())
    assert first == again == expected and jsonlib.loads(first) == fields
    assert body.length == len(expected)
    assert body.headers == {"Content-Type": "application/json",
                            "Content-Length": str(len(expected))}


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60),
       st.integers(1, 9))
def test_a_json_bodys_length_is_counted_exactly_a_slice_at_a_time(text, slice_chars):
    from jupyter_design_projects.transport.http import JsonBody

    class Sliced(JsonBody):  # slices of a few characters: every escape meets a cut
        SLICE_CHARS = slice_chars

    body = Sliced({"content": text, "n": 1})
    assert body.length == len(b"".join(body.pieces())) == len(
        httpx.Request("POST", URL, json={"content": text, "n": 1}).content)


@pytest.mark.parametrize("unit", ['plain "quoted" back\\slash\n\ttab\x01\x1f ',
                                  'ascii with DEL \x7f kept raw as httpx keeps it\n',
                                  'only the short escapes: " \\ \\\\n \n\r\t\b\f words ',
                                  'no escape at all, a slice sent as its bytes '])
def test_an_ascii_body_takes_the_fast_encoder_with_the_same_bytes_as_httpx(unit):
    from jupyter_design_projects.transport.http import JsonBody

    fields = {"file_name": "a.md", "content": (unit * 80_000)[: (1 << 20) + 7]}
    body = JsonBody(fields)
    expected = httpx.Request("POST", URL, json=fields).content
    assert b"".join(body.pieces()) == expected and body.length == len(expected)


def test_a_json_body_with_a_lone_surrogate_is_refused_as_httpx_refuses_it():
    from jupyter_design_projects.transport.http import JsonBody

    with pytest.raises(UnicodeEncodeError):
        JsonBody({"content": "x" * (JsonBody.SLICE_CHARS + 1) + "\ud800"})


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [100, 2 * 1024 * 1024])
async def test_send_sends_a_json_body_with_its_length_whatever_its_size(size):
    from jupyter_design_projects.transport.http import JsonBody

    seen = {}

    async def handler(request):
        seen["length"] = request.headers["content-length"]
        seen["chunked"] = "transfer-encoding" in request.headers
        seen["body"] = await request.aread()
        return httpx.Response(200, json={"ok": True})

    fields = {"content": "x" * size}
    async with client_for(handler) as client:
        answer = await send(client, "POST", URL, action="create doc", max_bytes=100,
                            deadline_s=5, content=JsonBody(fields))
    assert answer.take_json() == {"ok": True} and answer.body == b""
    assert seen["length"] == str(len(seen["body"])) and not seen["chunked"]
    assert seen["body"] == httpx.Request("POST", URL, json=fields).content


@pytest.mark.asyncio
async def test_take_json_of_a_body_that_is_not_json_is_a_transport_error():
    handler = lambda r: httpx.Response(200, content=b"\xff not json")  # noqa: E731
    answer = await fetch(handler)
    with pytest.raises(TransportError):
        answer.take_json()


NOW = 1_445_412_480.0  # Wed, 21 Oct 2015 07:28:00 GMT


@pytest.mark.parametrize(("value", "expected"), [
    ("17", 17), (" 0 ", 0), ("999999999", 999_999_999),   # nine digits: the longest kept
    ("1000000000", None),                                   # ten: refused, not a huge wait
    ("-5", None), ("1.5", None), ("١٢", None), ("", None), ("soon", None),
    ("Wed, 21 Oct 2015 07:28:00 GMT", 0),                   # now
    ("Wed, 21 Oct 2015 07:28:30 GMT", 30),                  # 30 s ahead
    ("Wed, 21 Oct 2015 07:27:00 GMT", 0),                   # passed: retry now
    ("Wed, 21 Oct 2015 07:28:00 -0000", None),              # no zone: not an HTTP-date
    ("Wed, 99 Oct 2015 07:28:00 GMT", None),
])
def test_retry_after_reads_delta_seconds_and_http_dates(value, expected):
    assert retry_after_seconds(value, NOW) == expected


def test_retry_after_of_a_date_rounds_a_part_second_up():
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:10 GMT", NOW + 0.25) == 10


@pytest.mark.asyncio
async def test_an_answers_http_date_retry_after_is_seconds_from_now():
    import email.utils
    import time
    when = email.utils.formatdate(time.time() + 120, usegmt=True)
    client = make_client(transport=httpx.MockTransport(
        lambda r: httpx.Response(503, headers={"retry-after": when})))
    answer = await send(client, "GET", "http://127.0.0.1:9/x", action="a", max_bytes=10,
                        deadline_s=5)
    assert 115 <= answer.retry_after <= 121


# ---------------------------------------------------------------- each refusal's fields


def test_the_session_client_verifies_tls_follows_no_redirect_and_waits_60_s():
    import ssl

    client = make_client()
    pool = client._transport._pool  # the default transport httpx built from `verify`
    assert pool._ssl_context.verify_mode == ssl.CERT_REQUIRED
    assert client.follow_redirects is False
    assert client.timeout == httpx.Timeout(60.0)
    assert client.headers["accept-encoding"] == "identity"
    assert client.event_hooks == {"request": [], "response": []}


@pytest.mark.asyncio
async def test_a_url_that_cannot_be_built_names_the_action_and_reason():
    async with client_for(lambda r: httpx.Response(200)) as client:
        with pytest.raises(TransportError) as info:
            await send(client, "GET", "http://:x/", action="design call", max_bytes=10,
                       deadline_s=5)
    assert (info.value.action, info.value.reason, info.value.detail) == (
        "design call", "invalid_url", "the request URL is not valid")


@pytest.mark.asyncio
@pytest.mark.parametrize("encoding", ["", "identity", "Identity", "IDENTITY"])
async def test_an_identity_answer_is_read_however_it_is_spelled(encoding):
    answer = await fetch(lambda r: httpx.Response(
        200, headers={"content-encoding": encoding}, content=b'{"ok": 1}'))
    assert answer.json() == {"ok": 1}


@pytest.mark.asyncio
@pytest.mark.parametrize(("encoding", "shown"), [("gzip", "gzip"), ("X" * 50, "x" * 40)])
async def test_a_compressed_answer_names_the_action_and_its_encoding(encoding, shown):
    with pytest.raises(TransportError) as info:
        await fetch(lambda r: httpx.Response(200, headers={"content-encoding": encoding},
                                             content=b"x"))
    assert (info.value.action, info.value.reason, info.value.detail) == (
        "design call", "encoding", f"the answer is {shown}-encoded; asked for identity")


@pytest.mark.asyncio
async def test_a_refused_content_type_names_the_action_type_and_status():
    with pytest.raises(UnexpectedContentType) as info:
        await fetch(lambda r: httpx.Response(202, headers={"content-type": "Text/Event-Stream"},
                                             content=b""),
                    refuse_content_type="text/event-stream")
    assert (info.value.action, info.value.content_type, info.value.status) == (
        "design call", "text/event-stream", 202)


@pytest.mark.asyncio
async def test_an_answer_declared_too_large_names_the_action_cap_and_status():
    with pytest.raises(ResponseTooLarge) as info:
        await fetch(lambda r: httpx.Response(500, headers={"content-length": "11"},
                                             content=b"x" * 11), max_bytes=10)
    assert (info.value.action, info.value.limit, info.value.status) == ("design call", 10, 500)


@pytest.mark.asyncio
async def test_an_answer_read_past_the_cap_names_the_action_cap_and_status():
    with pytest.raises(ResponseTooLarge) as info:
        await fetch(lambda r: httpx.Response(404, content=stream_of(b"x" * 11, chunk=3)),
                    max_bytes=10)
    assert (info.value.action, info.value.limit, info.value.status) == ("design call", 10, 404)


@pytest.mark.asyncio
async def test_a_sinked_answer_past_the_cap_names_the_action_and_cap():
    with pytest.raises(ResponseTooLarge) as info:
        await fetch(lambda r: httpx.Response(200, content=stream_of(b"x" * 11, chunk=3)),
                    max_bytes=10, sink=lambda chunk: None)
    assert (info.value.action, info.value.limit) == ("design call", 10)


@pytest.mark.asyncio
@pytest.mark.parametrize(("status", "sinked"), [(199, False), (200, True), (299, True),
                                                (300, False)])
async def test_only_a_2xx_answer_goes_to_the_sink(status, sinked):
    chunks: list[bytes] = []
    answer = await fetch(lambda r: httpx.Response(status, content=b"body"),
                         sink=chunks.append)
    assert (b"".join(chunks), bytes(answer.body)) == ((b"body", b"") if sinked
                                                      else (b"", b"body"))


@pytest.mark.asyncio
async def test_a_deadline_names_the_action_and_its_seconds():
    with pytest.raises(DeadlineExceeded) as info:
        await fetch(lambda r: httpx.Response(200, content=drip()), deadline_s=0.05)
    assert (info.value.action, info.value.seconds) == ("design call", 0.05)


@pytest.mark.asyncio
async def test_a_broken_exchange_names_the_action_reason_and_httpx_error():
    def handler(request):
        raise httpx.ReadError("reset", request=request)

    with pytest.raises(TransportError) as info:
        await fetch(handler)
    assert (info.value.action, info.value.reason, info.value.detail) == (
        "design call", "network", "ReadError talking to the service")


@pytest.mark.asyncio
async def test_an_answer_carries_status_headers_body_and_action():
    answer = await fetch(lambda r: httpx.Response(201, headers={"x-k": "v"}, content=b"abc"))
    assert (answer.status, answer.headers["x-k"], bytes(answer.body), answer.action) == (
        201, "v", b"abc", "design call")


def test_take_json_parses_once_and_releases_the_buffer():
    from jupyter_design_projects.transport.http import Answer, _Body

    body = _Body(b'{"a": [1, "\xc3\xa9"]}')
    answer = Answer(200, httpx.Headers(), body, "design call")
    assert answer.take_json() == {"a": [1, "é"]}
    assert len(body) == 0
    assert Answer(200, httpx.Headers(), b'{"b": 2}', "x").take_json() == {"b": 2}


def test_take_json_of_a_body_that_is_not_utf8_reads_it_as_json_does():
    from jupyter_design_projects.transport.http import Answer, _Body

    utf16 = '{"a": 1}'.encode("utf-16")
    assert Answer(200, httpx.Headers(), _Body(utf16), "x").take_json() == {"a": 1}


@pytest.mark.parametrize("body", [b"not json", bytearray(b"not json"), bytearray(b"\xff")])
def test_an_answer_that_is_not_json_names_the_action_and_status(body):
    from jupyter_design_projects.transport.http import Answer

    answer = Answer(502, httpx.Headers(), body, "design call")
    for parse in (answer.json, answer.take_json):
        with pytest.raises(TransportError) as info:
            parse()
        assert (info.value.action, info.value.reason, info.value.detail) == (
            "design call", "not_json", "the answer (HTTP 502) is not JSON")


def test_answer_text_is_cut_at_2000_characters_by_default():
    from jupyter_design_projects.transport.http import Answer

    answer = Answer(500, httpx.Headers(), b"y" * 2001, "x")
    assert answer.text() == "y" * 2000 + "…"
    assert Answer(500, httpx.Headers(), b"y" * 2000, "x").text() == "y" * 2000


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_json_body_refuses_what_json_cannot_carry(value):
    from jupyter_design_projects.transport.http import JsonBody

    with pytest.raises(ValueError):
        b"".join(JsonBody({"x": value}).pieces())


def test_a_json_body_of_small_values_is_compact_utf8():
    from jupyter_design_projects.transport.http import JsonBody

    body = JsonBody({"é": ["ü", 1, {"k": None}], "n": 2.5})
    assert b"".join(body.pieces()) == '{"é":["ü",1,{"k":null}],"n":2.5}'.encode()
    assert body.length == len('{"é":["ü",1,{"k":null}],"n":2.5}'.encode())
