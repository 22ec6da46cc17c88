"""Page previews: the PNG is valid, sized from the viewport, and changes with the page."""

from __future__ import annotations

import struct
import zlib

import pytest

from jupyter_design_projects.server.design import preview

PAGE = ("<html><head><title>Q3 Review</title><style>body{background:#ffffff;color:#1b1f24}"
        "</style><script>var hidden = 1;</script></head><body><h1>Quarterly &amp; Review</h1>"
        "<p>Active teams: 42</p><img src=\"img/logo.png\"><a href=\"https://x.example/\">x</a>"
        "<a href=\"#top\">top</a><link href=\"../support.js?v=2\"></body></html>")


def chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """The PNG's chunks, each CRC checked."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    out, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at:at + 4])
        kind, data = png[at + 4:at + 8], png[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", png[at + 8 + length:at + 12 + length])
        assert crc == zlib.crc32(kind + data) & 0xFFFFFFFF
        out.append((kind, data))
        at += 12 + length
    return out


def test_png_has_signature_ihdr_idat_and_iend() -> None:
    parts = chunks(preview.render_png(PAGE))
    kinds = [kind for kind, _ in parts]
    assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND" and b"IDAT" in kinds
    width, height, depth, colour_type = struct.unpack(">IIBB", parts[0][1][:10])
    assert (width, height, depth, colour_type) == (320, 180, 8, 2)
    pixels = zlib.decompress(b"".join(data for kind, data in parts if kind == b"IDAT"))
    assert len(pixels) == height * (1 + width * 3)


def test_png_changes_when_the_page_text_changes() -> None:
    before = preview.render_png(PAGE)
    after = preview.render_png(PAGE.replace("Active teams: 42", "Active teams: 43"))
    assert before != after


def test_png_changes_when_the_page_colours_change() -> None:
    assert preview.render_png(PAGE) != preview.render_png(PAGE.replace("#ffffff", "#000000"))


def test_same_page_renders_the_same_png() -> None:
    assert preview.render_png(PAGE) == preview.render_png(PAGE)


@pytest.mark.parametrize(("viewport", "size"), [
    (None, (320, 180)),
    ((400, 300), (100, 75)),
    ((100, 100), (64, 64)),
    ((10_000, 10_000), (640, 640)),
])
def test_preview_size_follows_the_viewport_within_bounds(
        viewport: tuple[int, int] | None, size: tuple[int, int]) -> None:
    assert preview.preview_size(viewport) == size


def test_page_text_skips_scripts_and_styles_and_unescapes() -> None:
    title, text = preview.page_text(PAGE)
    assert title == "Q3 Review"
    assert text == "Quarterly & Review Active teams: 42 x top"


def test_title_falls_back_to_the_first_heading() -> None:
    assert preview.page_text("<h1>Agenda</h1><p>x</p>")[0] == "Agenda"


def test_referenced_keeps_only_relative_targets() -> None:
    assert preview.referenced(PAGE) == ["img/logo.png", "../support.js"]
