"""The hand-framed event-stream parser (core/sse.py): fields, line endings, comments,
the byte order mark, the per-event cap, and the same events from any split of the bytes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_design_projects.core.sse import SseEvent, SseParser
from jupyter_design_projects.errors import ResponseTooLarge

STREAM = (b"\xef\xbb\xbf: ping - 2026-12-06\r\n\r\n"
          b"event: message\r\ndata: {\"a\":1}\r\nid: 7\r\n\r\n"
          b"data: line one\ndata:line two\n\n"
          b"retry: 2500\rdata: cr only\r\r"
          b"data: caf\xc3\xa9\n\n"
          b"event: message\n\n"  # names no data: not dispatched
          b"id: bad\x00id\ndata: kept id\n\n"
          b"data: unfinished")


def events_of(chunks: list[bytes], cap: int = 262_144) -> list[SseEvent]:
    parser = SseParser(max_event_bytes=cap)
    out: list[SseEvent] = []
    for chunk in chunks:
        out += parser.feed(chunk)
    return out


def test_the_stream_yields_its_events_with_their_fields() -> None:
    assert events_of([STREAM]) == [
        SseEvent('{"a":1}', "message", "7"),
        SseEvent("line one\nline two", "message", "7"),
        SseEvent("cr only", "message", "7", 2500),
        SseEvent("café", "message", "7", 2500),
        SseEvent("kept id", "message", "7", 2500),
    ]


def test_an_event_is_dispatched_only_at_its_blank_line() -> None:
    parser = SseParser()
    assert parser.feed(b"data: x\n") == []
    assert parser.feed(b"\n") == [SseEvent("x")]


def test_a_comment_alone_is_no_event() -> None:
    assert events_of([b": ping\n\n: another\r\n\r\n"]) == []


@pytest.mark.parametrize("split", range(1, 4))
def test_a_byte_order_mark_split_across_chunks_is_skipped(split: int) -> None:
    raw = b"\xef\xbb\xbfdata: x\n\n"
    assert events_of([raw[:split], raw[split:]]) == [SseEvent("x")]


def test_a_cr_and_its_lf_in_two_chunks_end_one_line() -> None:
    assert events_of([b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]) == [SseEvent("a\nb")]


def test_an_event_at_the_cap_passes_and_one_byte_over_is_refused() -> None:
    line = b"data: " + b"x" * 94  # 100 bytes, 101 with its line ending
    assert events_of([line + b"\n\n"], cap=101) == [SseEvent("x" * 94)]
    with pytest.raises(ResponseTooLarge) as refused:
        events_of([line + b"x\n\n"], cap=101)
    assert refused.value.limit == 101


def test_a_line_that_never_ends_is_refused_at_the_cap() -> None:
    parser = SseParser(max_event_bytes=1000)
    parser.feed(b"data: " + b"x" * 900)
    with pytest.raises(ResponseTooLarge):
        parser.feed(b"x" * 200)


def test_the_cap_is_per_event_not_per_stream() -> None:
    one = b"data: " + b"x" * 50 + b"\n\n"
    assert len(events_of([one * 100], cap=100)) == 100


@settings(max_examples=300, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=12))
def test_any_split_of_the_bytes_parses_the_same(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    chunks = [STREAM[a:b] for a, b in zip([0, *points], [*points, len(STREAM)], strict=True)]
    assert events_of(chunks) == events_of([STREAM])


@settings(max_examples=200, deadline=None)
@given(raw=st.binary(max_size=300), cuts=st.lists(st.integers(0, 300), max_size=8))
def test_any_bytes_in_any_split_parse_the_same_and_never_raise_below_the_cap(
        raw: bytes, cuts: list[int]) -> None:
    points = sorted({c for c in cuts if c <= len(raw)})
    chunks = [raw[a:b] for a, b in zip([0, *points], [*points, len(raw)], strict=True)]
    assert events_of(chunks) == events_of([raw])
