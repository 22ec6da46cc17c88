"""Page previews: the visible text of an HTML page, the relative resources it references,
and a small PNG drawn from that text with the standard library only (zlib + struct).

Each character is drawn as a 3x5 block glyph derived from its code point, so the picture is
deterministic and changes whenever the page's title, text or colours change.
"""

from __future__ import annotations

import re
import struct
import zlib
from html.parser import HTMLParser

#: the preview is the viewport scaled down by this factor
SCALE_DOWN = 4
DEFAULT_VIEWPORT = (1280, 720)
MIN_SIDE, MAX_SIDE = 64, 640
_HEX_COLOUR = r"#([0-9a-fA-F]{6})\b"


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title: list[str] = []
        self.heading: list[str] = []
        self.text: list[str] = []
        self.refs: list[str] = []
        self._stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._stack.append(tag)
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.refs.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._stack:
            while self._stack and self._stack.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if any(tag in ("script", "style") for tag in self._stack):
            return
        if "title" in self._stack:
            self.title.append(data)
        elif "h1" in self._stack:
            self.heading.append(data)
            self.text.append(data)
        else:
            self.text.append(data)


def _squash(parts: list[str]) -> str:
    return " ".join(" ".join(parts).split())


def page_text(html: str) -> tuple[str, str]:
    """(title, visible text) of a page; the title falls back to the first <h1>."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    return _squash(parser.title) or _squash(parser.heading), _squash(parser.text)


def referenced(html: str) -> list[str]:
    """Relative src/href targets of the page (no scheme, no fragment-only, no data:)."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    out = []
    for ref in parser.refs:
        target = ref.split("#", 1)[0].split("?", 1)[0]
        if target and not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//", target):
            out.append(target)
    return out


def colours(html: str) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(background, ink) from the first `background:#rrggbb` and `color:#rrggbb` in the page."""
    background = re.search(r"background(?:-color)?\s*:\s*" + _HEX_COLOUR, html)
    ink = re.search(r"(?<![-\w])color\s*:\s*" + _HEX_COLOUR, html)
    return (_rgb(background.group(1)) if background else (255, 255, 255),
            _rgb(ink.group(1)) if ink else (27, 31, 36))


def _rgb(hex6: str) -> tuple[int, int, int]:
    return int(hex6[0:2], 16), int(hex6[2:4], 16), int(hex6[4:6], 16)


def preview_size(viewport: tuple[int, int] | None) -> tuple[int, int]:
    width, height = viewport or DEFAULT_VIEWPORT
    return (max(MIN_SIDE, min(MAX_SIDE, width // SCALE_DOWN)),
            max(MIN_SIDE, min(MAX_SIDE, height // SCALE_DOWN)))


class _Canvas:
    def __init__(self, width: int, height: int, fill: tuple[int, int, int]) -> None:
        self.width, self.height = width, height
        self.pixels = bytearray(bytes(fill) * (width * height))

    def rect(self, x: int, y: int, w: int, h: int, colour: tuple[int, int, int]) -> None:
        x0, y0 = max(0, x), max(0, y)
        x1, y1 = min(self.width, x + w), min(self.height, y + h)
        if x0 >= x1 or y0 >= y1:
            return
        row = bytes(colour) * (x1 - x0)
        for yy in range(y0, y1):
            start = (yy * self.width + x0) * 3
            self.pixels[start:start + len(row)] = row

    def text(self, x: int, y: int, text: str, scale: int, colour: tuple[int, int, int],
             max_lines: int) -> int:
        """Draw wrapped text; returns the y below the last line drawn."""
        advance, line_height = 4 * scale, 7 * scale
        per_line = max(1, (self.width - x - 4) // advance)
        lines = [text[i:i + per_line] for i in range(0, len(text), per_line)][:max_lines]
        for line in lines:
            for column, char in enumerate(line):
                _glyph(self, x + column * advance, y, char, scale, colour)
            y += line_height
        return y

    def png(self) -> bytes:
        stride = self.width * 3
        raw = b"".join(b"\x00" + bytes(self.pixels[r * stride:(r + 1) * stride])
                       for r in range(self.height))
        return (b"\x89PNG\r\n\x1a\n"
                + _chunk(b"IHDR", struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0))
                + _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b""))


def _glyph(canvas: _Canvas, x: int, y: int, char: str, scale: int,
           colour: tuple[int, int, int]) -> None:
    if char.isspace():
        return
    bits = zlib.crc32(char.encode("utf-8", errors="replace")) | 0b010_000_000_000_010
    for index in range(15):
        if bits >> index & 1:
            canvas.rect(x + (index % 3) * scale, y + (index // 3) * scale, scale, scale, colour)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def render_png(html: str, viewport: tuple[int, int] | None = None) -> bytes:
    """A PNG picture of the page: a title band, then the visible text, in the page's colours."""
    width, height = preview_size(viewport)
    background, ink = colours(html)
    title, text = page_text(html)
    canvas = _Canvas(width, height, background)
    canvas.rect(0, 0, width, 22, ink)
    canvas.text(6, 5, title, 2, background, max_lines=1)
    canvas.text(6, 30, text, 1, ink, max_lines=max(1, (height - 34) // 7))
    return canvas.png()
