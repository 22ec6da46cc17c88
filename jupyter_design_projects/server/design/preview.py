"""Page previews for `render_preview`: a real headless browser where one is installed
(`browser.Browser`: real text, CSS, images, console messages and failed requests), and
otherwise a readable fallback picture of the page's title and text, drawn with Pillow and a
DejaVu font when both are there, else with 3x5 block glyphs from the standard library
(zlib + struct). The result says which renderer drew it, and why it is not the browser.

The browser draws at device scale 2 (a 1280x720 slide is a 2560x1440 picture, its 30 px
body text 60 px high), and `fit` then encodes the picture to the image budget the client's
limits leave beside the result's text (`core.result_limits`): the PNG as drawn when it
fits, else a 64-colour palette PNG (text stays sharp; flat slides shrink several times),
then fewer colours, then smaller, until one fits.
"""

from __future__ import annotations

import dataclasses
import io
import re
import struct
import zlib
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

from ...core.result_limits import base64_chars
from .browser import Browser, BrowserUnavailable, Fetch

__all__ = ["Browser", "Preview", "Previewer", "find_font", "fit", "render_png",
           "render_pillow"]

#: the fallback preview is the viewport scaled down by this factor
SCALE_DOWN = 4
#: the browser draws a preview at this device scale factor
DEVICE_SCALE = 2
#: where Pillow is missing and the PNG as drawn does not fit: the page is drawn again at
#: these smaller scales, in order, until one fits
REDRAW_SCALES = (1.0, 0.5, 0.25)
#: the encodings `fit` tries, in order: (size factor, palette colours, zlib level)
FIT_LADDER = ((1.0, 64, 6), (1.0, 64, 9), (1.0, 16, 9), (0.5, 64, 9), (0.25, 64, 9))
#: where the fallback looks for a real font, in order
FONT_PATHS = (Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
              Path("/usr/share/fonts/dejavu/DejaVuSans.ttf"))
RENDERER_BROWSER = "chromium"
RENDERER_PILLOW = "pillow-dejavu"
RENDERER_GLYPHS = "block-glyphs"
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


def find_font() -> Path | None:
    """A DejaVu font: the system's, else the copy matplotlib ships, else None."""
    for path in FONT_PATHS:
        if path.is_file():
            return path
    try:
        import matplotlib
    except ImportError:
        return None
    bundled = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    return bundled if bundled.is_file() else None


def render_pillow(html: str, viewport: tuple[int, int] | None, font: Path) -> bytes | None:
    """The fallback picture in a real font: a title band, then the wrapped visible text,
    in the page's colours, at half the viewport (None when Pillow is missing)."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        return None
    width, height = viewport or DEFAULT_VIEWPORT
    width, height = max(MIN_SIDE, min(2 * MAX_SIDE, width // 2)), max(
        MIN_SIDE, min(2 * MAX_SIDE, height // 2))
    background, ink = colours(html)
    title, text = page_text(html)
    image = Image.new("RGB", (width, height), background)
    draw = ImageDraw.Draw(image)
    band = max(24, height // 8)
    draw.rectangle((0, 0, width, band), fill=ink)
    heading = ImageFont.truetype(str(font), max(10, band * 3 // 5))
    body = ImageFont.truetype(str(font), max(9, height // 24))
    draw.text((12, band // 5), title, font=heading, fill=background)
    y, line_height = band + 10, int(body.size * 1.35)
    for line in _wrap(text, lambda s: draw.textlength(s, font=body), width - 24):
        if y + line_height > height:
            break
        draw.text((12, y), line, font=body, fill=ink)
        y += line_height
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _wrap(text: str, measure: Callable[[str], float], width: int) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}".strip()
        if current and measure(candidate) > width:
            lines.append(current)
            current = word
        else:
            current = candidate
    return lines + ([current] if current else [])


@dataclasses.dataclass(frozen=True)
class Preview:
    png: bytes
    text: str
    console_logs: list
    failed_requests: list
    #: RENDERER_BROWSER, RENDERER_PILLOW or RENDERER_GLYPHS
    renderer: str
    #: why the browser did not draw it (None when it did)
    fallback_reason: str | None = None


def fit(png: bytes, budget_chars: int) -> bytes | None:
    """`png`, or the first encoding of FIT_LADDER, whose base64 string is at most
    `budget_chars` long; None when none is (or Pillow is missing and `png` is over)."""
    if base64_chars(len(png)) <= budget_chars:
        return png
    try:
        from PIL import Image
    except ImportError:
        return None
    picture = Image.open(io.BytesIO(png)).convert("RGB")
    for factor, colours, level in FIT_LADDER:
        sized = picture if factor == 1.0 else picture.resize(
            (max(1, round(picture.width * factor)), max(1, round(picture.height * factor))),
            Image.Resampling.LANCZOS)
        palette = sized.quantize(colors=colours, method=Image.Quantize.FASTOCTREE,
                                 dither=Image.Dither.NONE)
        out = io.BytesIO()
        palette.save(out, format="PNG", compress_level=level)
        if base64_chars(out.tell()) <= budget_chars:
            return out.getvalue()
    return None


class Previewer:
    """Renders pages for `render_preview`: the browser when it can, the fallback otherwise."""

    def __init__(self, browser: Browser | None = None, font: Path | None | bool = True) -> None:
        self.browser = browser if browser is not None else Browser()
        self.font = find_font() if font is True else (font or None)

    def render(self, path: str, page: str, fetch: Fetch,
               viewport: tuple[int, int] | None, key: str = "") -> Preview:
        """The page drawn at DEVICE_SCALE (`key` names the project: its pages share one
        browser context), its PNG as drawn; `fitted` sizes it for a result."""
        size = viewport or DEFAULT_VIEWPORT
        reason = self.browser.unavailable
        if reason is None:
            try:
                shot = self.browser.render(path, fetch, size, DEVICE_SCALE, key)
                return Preview(shot.png, shot.text, shot.console_logs, shot.failed_requests,
                               RENDERER_BROWSER)
            except BrowserUnavailable as exc:
                reason = exc.reason
        return self.fallback(path, page, fetch, viewport, reason)

    def fitted(self, shown: Preview, budget_chars: int, path: str, fetch: Fetch,
               viewport: tuple[int, int] | None, key: str = "") -> bytes | None:
        """The preview's picture within `budget_chars` base64 characters (`fit`); where
        that needs Pillow and there is none, the browser draws it again smaller."""
        png = fit(shown.png, budget_chars)
        if png is not None or shown.renderer != RENDERER_BROWSER:
            return png
        for scale in REDRAW_SCALES:
            try:
                shot = self.browser.render(path, fetch, viewport or DEFAULT_VIEWPORT, scale,
                                           key)
            except BrowserUnavailable:
                return None
            if base64_chars(len(shot.png)) <= budget_chars:
                return shot.png
        return None

    def fallback(self, path: str, page: str, fetch: Fetch, viewport: tuple[int, int] | None,
                 reason: str) -> Preview:
        """No browser: the page's text, the relative resources it names that the project
        lacks, and a picture in a real font where one is available."""
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        failed = []
        for ref in referenced(page):
            target = _join(folder, ref)
            if target is None or fetch(target) is None:
                failed.append({"url": ref, "status": 404})
        png = render_pillow(page, viewport, self.font) if self.font is not None else None
        renderer = RENDERER_PILLOW if png is not None else RENDERER_GLYPHS
        return Preview(png or render_png(page, viewport), page_text(page)[1], [], failed,
                       renderer, reason)

    def close(self) -> None:
        self.browser.close()


def _join(folder: str, ref: str) -> str | None:
    """`ref` resolved against `folder` inside the project, or None when it climbs out."""
    parts: list[str] = []
    for part in (folder.split("/") if folder else []) + ref.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts)
