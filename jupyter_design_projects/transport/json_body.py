"""A JSON object request body encoded a slice at a time as it is sent (`JsonBody`), so a
25 MiB string is never also held as its JSON text and its bytes; `transport.http.send`
sends it with its exact Content-Length."""

from __future__ import annotations

import json as jsonlib
import re
from collections.abc import AsyncIterator, Iterator
from json.encoder import encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

#: characters JSON writes as a backslash and one more character
_SHORT_ESCAPES = '"\\\n\r\t\b\f'
#: the other control characters, which JSON writes as six (`\\u00XX`)
_OTHER_CONTROLS = re.compile("[\x00-\x07\x0b\x0e-\x1f]")
_SHORT_ESCAPE_BYTES = _SHORT_ESCAPES.encode("ascii")
_OTHER_CONTROL_BYTES = bytes(c for c in range(32) if chr(c) not in _SHORT_ESCAPES)
#: each two-character escape as JSON writes it, the backslash first (the others add one)
_SHORT_ESCAPE_PAIRS = tuple((char.encode("ascii"), jsonlib.dumps(char)[1:-1].encode("ascii"))
                            for char in "\\" + _SHORT_ESCAPES.replace("\\", ""))


class JsonBody:
    """A JSON object request body encoded a slice at a time as it is sent, so a 25 MiB
    string is never also held as its JSON text and its bytes. Its exact length goes in
    Content-Length (no chunked encoding); it can be iterated again (an auth retry sends
    it twice). Encoded as httpx encodes `json=`: UTF-8, compact, no NaN."""

    SLICE_CHARS = 1 << 18

    def __init__(self, fields: dict[str, Any]) -> None:
        self._fields = fields
        #: for each slice of a long string, in order: whether it holds a control character
        #: JSON writes as `\\u00XX` (counted by the length pass, used when sending)
        self._controlled: list[bool] = []
        self.length = sum(self._measured(piece) if isinstance(piece, str) else len(piece)
                          for piece in self._parts())

    def _measured(self, text: str) -> int:
        size, others = self._escaped_size(text)
        self._controlled.append(others > 0)
        return size

    @property
    def headers(self) -> dict[str, str]:
        return {"Content-Type": "application/json", "Content-Length": str(self.length)}

    @staticmethod
    def _dumps(value: Any) -> bytes:
        return jsonlib.dumps(value, ensure_ascii=False, separators=(",", ":"),
                             allow_nan=False).encode("utf-8")

    @staticmethod
    def _plain_ascii(text: str) -> bool:
        """ASCII without DEL: the C encoder for ASCII writes such a slice exactly as
        `_dumps` does (it would escape DEL, which `_dumps` keeps), at twice the speed."""
        return text.isascii() and "\x7f" not in text

    @classmethod
    def _escaped(cls, text: str, controlled: bool = True) -> bytes:
        """`_dumps(text)[1:-1]`: one slice of a long string as it is sent. ASCII with no
        control character but the two-character escapes (most text: `controlled` says) is
        its bytes with those escapes replaced, seven C passes that copy only where one is
        found (DEL stays raw, as `_dumps` keeps it)."""
        if not controlled and text.isascii():
            data = text.encode("ascii")
            for char, escape in _SHORT_ESCAPE_PAIRS:
                if char in data:
                    data = data.replace(char, escape)
            return data
        if cls._plain_ascii(text):
            return encode_basestring_ascii(text).encode("ascii")[1:-1]
        return cls._dumps(text)[1:-1]

    @classmethod
    def _escaped_size(cls, text: str) -> tuple[int, int]:
        """The bytes of `_escaped(text)`, counted without escaping it, and how many control
        characters it writes as six (`\\u00XX`): its UTF-8 bytes, plus one for each
        two-character escape, plus five for each other control character; an ASCII slice
        counts them by deleting them from its bytes (two C passes, faster than a count per
        character). A lone surrogate raises UnicodeEncodeError here as `_dumps` would."""
        if cls._plain_ascii(text):
            data = text.encode("ascii")
            size = len(data)
            others = size - len(data.translate(None, _OTHER_CONTROL_BYTES))
            shorts = size - len(data.translate(None, _SHORT_ESCAPE_BYTES))
            return size + shorts + 5 * others, others
        size = len(text.encode("utf-8"))
        size += sum(text.count(c) for c in _SHORT_ESCAPES)
        others = sum(1 for _ in _OTHER_CONTROLS.finditer(text))
        return size + 5 * others, others

    def _parts(self) -> Iterator[bytes | str]:
        """`pieces`, with each slice of a long string left as its text."""
        yield b"{"
        for index, (key, value) in enumerate(self._fields.items()):
            yield (b"," if index else b"") + self._dumps(key) + b":"
            if isinstance(value, str) and len(value) > self.SLICE_CHARS:
                yield b'"'
                for at in range(0, len(value), self.SLICE_CHARS):
                    yield value[at:at + self.SLICE_CHARS]
                yield b'"'
            else:
                yield self._dumps(value)
        yield b"}"

    def pieces(self) -> Iterator[bytes]:
        controlled = iter(self._controlled)
        for part in self._parts():
            yield self._escaped(part, next(controlled)) if isinstance(part, str) else part

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces():
            yield piece
