"""The streaming reader of raw-download answers: the same strict result whatever the chunk
boundaries, base64 checked across them, and the object around `data` checked as strictly
as `json.loads` would."""

from __future__ import annotations

import base64
import io
import json
import random

import pytest

from jupyter_design_projects.errors import DownloadFailed
from jupyter_design_projects.projects.raw_answer import FIELDS_MAX_BYTES, RawAnswerReader

UID = "0f8fad5b-d9cb-469f-a165-70867728950e"


def answer_bytes(data: bytes, **extra: object) -> bytes:
    return json.dumps({"file_uuid": UID, "file_name": "f.bin", "encoding": "base64",
                       "file_size_bytes": len(data), **extra,
                       "data": base64.b64encode(data).decode()}).encode()


def read(raw: bytes, sizes: list[int] | None = None) -> tuple[bytes, dict]:
    out = io.BytesIO()
    reader = RawAnswerReader(out.write, UID)
    at = 0
    for size in sizes or [len(raw)]:
        reader.feed(raw[at:at + size])
        at += size
    reader.feed(raw[at:])
    fields = reader.finish()
    assert reader.decoded == len(out.getvalue())
    return out.getvalue(), fields


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 7, 64, 1000])
def test_every_chunking_gives_the_same_bytes_and_fields(chunk):
    data = random.Random(chunk).randbytes(3000)
    raw = answer_bytes(data, mime_type="application/octet-stream")
    got, fields = read(raw, [chunk] * (len(raw) // chunk + 1))
    assert got == data
    assert fields == {**json.loads(raw), "data": ""}


def test_escaped_slashes_decode_even_when_a_chunk_cuts_the_escape():
    data = bytes(range(256)) * 8  # its base64 has many '/'
    raw = answer_bytes(data).replace(b"/", b"\\/")
    assert raw.count(b"\\/") > 10
    cut = raw.index(b"\\/") + 1  # between the backslash and its slash
    assert read(raw, [cut])[0] == data


def test_a_key_spelled_with_an_escape_is_still_data():
    raw = answer_bytes(b"pixels").replace(b'"data"', b'"d\\u0061ta"')
    assert read(raw)[0] == b"pixels"


def test_data_inside_a_nested_object_is_not_the_answers_data():
    raw = json.dumps({"meta": {"data": "eA=="}, "data": "cGl4ZWxz", "encoding": "base64",
                      "file_size_bytes": 6}).encode()
    assert read(raw)[0] == b"pixels"


@pytest.mark.parametrize("raw", [
    b'{"data": "eA==", "data": "eA=="}',          # data twice
    b'{"data": "eA=="',                           # cut off
    b'{"data": "eA==" "x": 1}',                   # not JSON around it
    b'["data", "eA=="]',                          # not an object
    b'{"data": "eA\\"=="}',                       # an escaped quote inside data
    b'{"data": "eA\\n=="}',                       # another escape inside data
    b'{"data": "eA"}',                            # a group cut short
    b'{"data": "e A="}',                          # a space
    b'{"data": null}',                            # not a string
    b'{"name": "x"}',                             # no data at all
    b'{"\\x": 1, "data": "eA=="}',                # a key with a bad escape
    b'{"a\x01": 1, "data": "eA=="}',               # a raw control character in a key
    b'{"\xff": 1, "data": "eA=="}',                # a key that is not UTF-8
])
def test_a_malformed_answer_is_refused_whole_or_in_pieces(raw):
    for sizes in (None, [1] * len(raw)):
        with pytest.raises(DownloadFailed) as caught:
            read(raw, sizes)
        assert caught.value.file_uuid == UID


def test_padding_then_more_data_is_refused_across_a_chunk_boundary():
    raw = b'{"data": "eA==eA=="}'
    with pytest.raises(DownloadFailed):
        read(raw, [raw.index(b"eA==") + 4])


def test_fields_other_than_data_are_capped_at_their_limit():
    def answer(n: int) -> bytes:
        return b'{"pad": "' + b"x" * n + b'", "data": "eA=="}'
    fits = FIELDS_MAX_BYTES - len(answer(0)) + len(b"eA==")
    assert read(answer(fits))[0] == b"x"
    with pytest.raises(DownloadFailed):
        read(answer(fits + 1))


@pytest.mark.parametrize("text", [
    b"", b"AAAA", b"AA==", b"AAA=", b"AQ==", b"////", b"+/+/AAAA",
    b"A===", b"AAAAA", b"AA=A", b"=AAA", b"AA==AAAA", b"AA-_", b"AA\tA", b"AAA",
    b"AAAA\xc3\xa9AA",
])
@pytest.mark.parametrize("chunk", [1, 3, 4, 6, 1000])
def test_data_decodes_exactly_as_strict_base64_in_any_chunking(text, chunk):
    """The reader decodes views of the chunks it is fed (no copies): whatever the cuts,
    it gives the bytes base64.b64decode(validate=True) gives, and refuses what it refuses."""
    raw = b'{"data": "' + text + b'"}'
    try:
        expected = base64.b64decode(text, validate=True)
    except ValueError:
        with pytest.raises(DownloadFailed):
            read(raw, [chunk] * (len(raw) // chunk + 1))
    else:
        assert read(raw, [chunk] * (len(raw) // chunk + 1))[0] == expected


def test_data_of_a_bytearray_chunk_decodes():
    data = random.Random(2).randbytes(999)
    out = io.BytesIO()
    reader = RawAnswerReader(out.write, UID)
    reader.feed(bytearray(answer_bytes(data)))
    assert reader.finish()["data"] == "" and out.getvalue() == data
