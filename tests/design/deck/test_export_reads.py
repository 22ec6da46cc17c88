"""A big file is exported whole, or the export says so (`export.read_text`, `read_deck`):
files are read by pages of PAGE_BYTES, each answer under the client's 100,000-character
result ceiling however much it escapes, checked against the size `list_files` gave. The
service here answers `read_file` as PROTOCOL §3 says (HTML-escaped, `[partial …]` notes)
and its answers pass through the client's own result mapping (`core.results`), ceiling and
spill included, as in a session."""

from __future__ import annotations

import asyncio
import base64
import html
import re
from types import SimpleNamespace

import pytest

from jupyter_design_projects.core.result_limits import RESULT_MAX_CHARS
from jupyter_design_projects.core.results import PREVIEW_CHARS, map_result, spilled
from jupyter_design_projects.design.deck import export as exporting

PAGE = "slides/01-figure.html"
SVG = "slides/assets/01-figure-01.svg"


class Service:
    """read_file as the reference service answers it, through the client's mapping."""

    def __init__(self, files: dict[str, bytes], paged: bool = True) -> None:
        self.files, self.paged = files, paged
        self.reads: list[dict] = []

    async def call(self, operation: str, arguments: dict) -> SimpleNamespace:
        if operation == "render_preview":  # a service without a browser
            return SimpleNamespace(blocks=[], is_error=True)
        assert operation == "read_file", operation
        self.reads.append(arguments)
        content = self.files[arguments["path"]]
        offset = arguments.get("offset", 0)
        limit = arguments.get("limit", 256 * 1024) if self.paged else len(content)
        part = content[offset:offset + limit].decode("utf-8", errors="replace")
        blocks = [{"type": "text", "text": f'<untrusted-project-content path="'
                   f'{html.escape(arguments["path"])}" etag="e">{html.escape(part)}'
                   "</untrusted-project-content>"}]
        end = offset + limit
        if end < len(content):
            blocks.append({"type": "text", "text": f"[partial: bytes {offset}-{end} of "
                                                   f"{len(content)}; continue with offset={end}]"})
        mapped = map_result({"content": blocks})
        if mapped.whole_text is not None:
            mapped = spilled(mapped, "/tmp/result.txt")
        return SimpleNamespace(blocks=mapped.blocks, is_error=mapped.is_error)


def quoted_svg(size: int) -> bytes:
    """An SVG of exactly `size` bytes, mostly quotes (each escapes to six characters)."""
    head, tail = b'<svg xmlns="http://www.w3.org/2000/svg"><text>', b"</text></svg>"
    return head + b'"' * (size - len(head) - len(tail)) + tail


def deck_with(svg: bytes) -> dict[str, bytes]:
    page = ('<!doctype html><html><head><title>Figure</title></head><body>'
            '<main class="slide"><h1>Figure</h1><img src="assets/01-figure-01.svg" alt="f">'
            "</main></body></html>")
    return {PAGE: page.encode(), SVG: svg}


def export_of(service: Service, sizes: dict[str, int] | None = None) -> exporting.Export:
    listing = {path: "e" for path in service.files}
    sizes = {p: len(b) for p, b in service.files.items()} if sizes is None else sizes
    return asyncio.run(exporting.read_deck(service.call, "p", listing, sizes=sizes))


def inlined_svg(export: exporting.Export) -> bytes:
    found = re.search(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", export.slides[0].html)
    assert found, "the SVG is not inlined"
    return base64.b64decode(found.group(1))


@pytest.mark.parametrize("size, one_read_gives", [
    (16_000, "whole"),  # escaped to about 96,000 characters: under the ceiling
    (18_000, "preview"),  # about 108,000: past the 100,000 ceiling, its preview
    (63 * 1024, "omitted"),  # about 387,000: past the 130,000 aggregate, a notice
])
def test_a_svg_one_read_would_lose_is_exported_whole(size, one_read_gives):
    svg = quoted_svg(size)
    service = Service(deck_with(svg), paged=False)
    one_read = asyncio.run(service.call("read_file", {"project_id": "p", "path": SVG}))
    first = one_read.blocks[0]["text"]
    gives = ("whole" if exporting.unwrap(first).encode() == svg
             else "preview" if len(first) == PREVIEW_CHARS
             else "omitted" if "omitted" in first else first[:80])
    assert gives == one_read_gives  # what one read_file, as the export did, gives
    service = Service(deck_with(svg))
    export = export_of(service)
    assert inlined_svg(export) == svg and export.partial == []
    svg_reads = [r for r in service.reads if r["path"] == SVG]
    assert len(svg_reads) == -(-len(svg) // exporting.PAGE_BYTES)
    assert all(r["limit"] == exporting.PAGE_BYTES for r in svg_reads)


@pytest.mark.parametrize("size", [exporting.PAGE_BYTES - 1, exporting.PAGE_BYTES,
                                  exporting.PAGE_BYTES + 1, 3 * exporting.PAGE_BYTES])
def test_each_side_of_a_page_boundary_is_whole_and_each_answer_under_the_ceiling(size):
    svg = quoted_svg(size)
    service = Service(deck_with(svg))
    export = export_of(service)
    assert inlined_svg(export) == svg and export.partial == []
    assert 6 * exporting.PAGE_BYTES + exporting.ANSWER_OVERHEAD <= RESULT_MAX_CHARS


def test_a_character_a_page_boundary_splits_comes_back_whole():
    text = ("<svg><text>" + "é" * exporting.PAGE_BYTES + "</text></svg>").encode()
    assert text[:exporting.PAGE_BYTES].decode("utf-8", errors="replace").endswith("\ufffd")
    export = export_of(Service(deck_with(text)))
    assert inlined_svg(export) == text and export.partial == []


def test_a_file_shorter_than_list_files_says_is_named():
    svg = quoted_svg(5_000)
    service = Service(deck_with(svg))
    sizes = {PAGE: len(service.files[PAGE]), SVG: 6_000}
    export = export_of(service, sizes)
    assert export.partial == [f"{SVG}: read 5,000 of its 6,000 bytes (not inlined)"]
    assert "data:image/svg" not in export.slides[0].html


def test_a_file_longer_than_the_export_reads_is_named(monkeypatch):
    monkeypatch.setattr(exporting, "READ_PAGES_MAX", 2)
    svg = quoted_svg(2 * exporting.PAGE_BYTES + 1)
    export = export_of(Service(deck_with(svg)))
    assert export.partial and export.partial[0].startswith(f"{SVG}: longer than ")
    fits = quoted_svg(2 * exporting.PAGE_BYTES)
    assert export_of(Service(deck_with(fits))).partial == []


def test_a_service_that_ignores_limit_is_named_not_silently_cut():
    page = ("<!doctype html><html><head><title>Long</title></head><body><p>"
            + '"' * 40_000 + "</p></body></html>").encode()
    service = Service({PAGE: page}, paged=False)
    export = export_of(service)
    assert export.partial == [f"{PAGE}: the service's answer was cut before its end"]
