"""A raw download's answer read as it arrives: a flat JSON object whose `data` string is
base64, decoded strictly into a file chunk by chunk, so memory stays flat whatever the
size. Every other field is kept (at most `FIELDS_MAX_BYTES` of them) and parsed by `json`
at the end with `data` standing as `""`, so the object is checked as strictly as
`json.loads` checks it."""

from __future__ import annotations

import binascii
import json
from collections.abc import Callable
from typing import Any

import pybase64

from ..core.budgets import RAW_MAX_BYTES
from ..errors import DownloadFailed

#: the longest base64 text that can decode to at most RAW_MAX_BYTES
RAW_MAX_BASE64_CHARS = -(-RAW_MAX_BYTES // 3) * 4
#: the fields other than `data` (ids, names, sizes) are small; more is not a raw answer
FIELDS_MAX_BYTES = 64 * 1024


class RawAnswerReader:
    """Feed the answer's bytes with `feed`, then `finish()` gives the other fields; the
    decoded bytes went to `write` (`decoded` counts them)."""

    def __init__(self, write: Callable[[bytes], object], file_uuid: str) -> None:
        self._write = write
        self._file_uuid = file_uuid
        self._fields = bytearray()  # the answer with data's text left out
        self._in_data = False
        self._data_seen = False
        self._pending = b""  # base64 characters not yet a whole group of four
        self._ended = False  # a group with padding was decoded: nothing may follow
        self._chars = 0
        self.decoded = 0
        # the scanner's place in the object outside data
        self._depth = 0
        self._in_string = False
        self._escaped = False
        self._key_start: int | None = None
        self._expect_key = False
        self._key: bytes | None = None  # the key whose value comes next (depth 1)

    def _fail(self, reason: str) -> DownloadFailed:
        return DownloadFailed(self._file_uuid, reason)

    def feed(self, chunk: bytes) -> None:
        at = 0
        while at < len(chunk):
            if self._in_data:
                end = chunk.find(b'"', at)
                self._data_text(chunk, at, len(chunk) if end < 0 else end)
                if end < 0:
                    return
                self._end_data()
                at = end + 1
            else:
                at = self._scan(chunk, at)

    def _read_key(self, quoted: bytes) -> bytes:
        """A top-level key, as the UTF-8 of its JSON string; a key that is not a JSON
        string (a bad escape, a raw control character, bytes that are not UTF-8) fails the
        download as a malformed answer."""
        try:
            return str(json.loads(quoted)).encode()
        except ValueError:  # UnicodeDecodeError is one
            raise self._fail("the answer is not a JSON object") from None

    def _scan(self, chunk: bytes, at: int) -> int:
        """Outside data: copy bytes to the fields, tracking strings, depth and keys, up to
        the opening quote of data's value (then return just past it)."""
        fields = self._fields
        for i in range(at, len(chunk)):
            byte = chunk[i]
            if self._in_string:
                fields.append(byte)
                if self._escaped:
                    self._escaped = False
                elif byte == 0x5C:  # backslash
                    self._escaped = True
                elif byte == 0x22:  # the string ends
                    self._in_string = False
                    if self._key_start is not None:
                        self._key = self._read_key(bytes(fields[self._key_start:]))
                        self._key_start = None
            elif byte == 0x22 and self._depth == 1 and not self._expect_key \
                    and self._key == b"data":
                if self._data_seen:
                    raise self._fail("the answer names data twice")
                fields += b'"'
                self._in_data = self._data_seen = True
                return i + 1
            else:
                fields.append(byte)
                if byte == 0x22:
                    self._in_string = True
                    if self._depth == 1 and self._expect_key:
                        self._key_start = len(fields) - 1
                        self._expect_key = False
                elif byte in b"{[":
                    self._depth += 1
                    if self._depth == 1 and byte == 0x7B:
                        self._expect_key = True
                elif byte in b"}]":
                    self._depth -= 1
                elif byte == 0x2C and self._depth == 1:  # comma: the next key follows
                    self._expect_key, self._key = True, None
            if len(fields) > FIELDS_MAX_BYTES:
                raise self._fail("the answer's fields other than data are too large")
        return len(chunk)

    def _data_text(self, chunk: bytes, start: int, stop: int) -> None:
        """`chunk[start:stop]`, base64 text of data: decoded in place (a view, no copy)
        after completing the group the last chunk left open; its last 0-3 characters wait."""
        if chunk.find(b"\\", start, stop) >= 0 or self._pending.endswith(b"\\"):
            self._escaped_text(chunk[start:stop])
            return
        text = memoryview(chunk)[start:stop]
        if self._pending:
            head = self._pending + bytes(text[:4 - len(self._pending)])
            text = text[4 - len(self._pending):]
            if len(head) < 4:
                self._pending = head
                return
            self._decode(head)
        whole = len(text) - len(text) % 4
        self._pending = bytes(text[whole:])
        if whole:
            self._decode(text[:whole])

    def _escaped_text(self, text: bytes) -> None:
        """The rare data text holding a backslash: JSON may escape '/' as '\\/'; no other
        escape can stand in base64. An escape cut by the chunk boundary waits for its
        second byte."""
        text = self._pending + text
        held = b""
        if text.endswith(b"\\"):
            text, held = text[:-1], b"\\"
        text = text.replace(b"\\/", b"/")
        if b"\\" in text:
            raise self._fail("the data is not valid base64")
        whole = len(text) - len(text) % 4
        self._pending = text[whole:] + held
        if whole:
            self._decode(text[:whole])

    def _decode(self, groups: bytes | memoryview) -> None:
        """Whole groups of four: counted against the cap, decoded strictly (SIMD
        `pybase64`, the same verdicts as `base64.b64decode(validate=True)`), written."""
        if self._ended:
            raise self._fail("the data is not valid base64")
        self._chars += len(groups)
        if self._chars > RAW_MAX_BASE64_CHARS:
            raise self._fail(f"the upload is larger than {RAW_MAX_BYTES:,} bytes")
        try:
            data = pybase64.b64decode(groups, validate=True)
        except (binascii.Error, ValueError):
            raise self._fail("the data is not valid base64") from None
        self._ended = groups[-1] == 0x3D  # '=': padding ends the data
        self.decoded += len(data)
        if self.decoded > RAW_MAX_BYTES:
            raise self._fail(f"the upload is larger than {RAW_MAX_BYTES:,} bytes")
        self._write(data)

    def _end_data(self) -> None:
        if self._pending:  # a group cut short, or an escape left open
            raise self._fail("the data is not valid base64")
        self._in_data = False
        self._fields += b'"'

    def finish(self) -> dict[str, Any]:
        """The answer's other fields, checked; `data` was a string that decoded."""
        if self._in_data or self._in_string:
            raise self._fail("the answer ends inside a string")
        try:
            fields = json.loads(bytes(self._fields))
        except ValueError:
            raise self._fail("the answer is not a JSON object") from None
        if not isinstance(fields, dict):
            raise self._fail("the answer is not a JSON object")
        if not self._data_seen or fields.get("data") != "":
            raise self._fail("the answer has no data or file_size_bytes")
        return fields
