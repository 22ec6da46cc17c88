"""Nothing foreign runs or phones home on the deck path, in a real Chromium with a loopback
beacon (a tiny HTTP server on 127.0.0.1 counting every request it gets): a hostile notebook
(payloads in Markdown, raw HTML, `text/html`, `text/markdown` and `text/latex` outputs,
TeX and notes) and a hostile page in the project, each payload pointing at the beacon,
through the staged slides (opened with JavaScript on, as a person or the service would),
the previews grid (the service's browser drawing the hostile page), the PDF export and the
HTML export with its speaker notes (opened and stepped through). The beacon stays at zero;
a control request from a plain page proves it counts.

Two layers are tested each on its own: what the allowlist leaves (the normal path), and
what the export's browser side stops when given a raw page the allowlist never saw (the
PDF's lock-down, the HTML export's Content-Security-Policy)."""

from __future__ import annotations

import asyncio
import html
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from jupyter_design_projects.design.deck import Deck, pdf
from jupyter_design_projects.design.deck import export as exporting

CHROMIUM = Path("/usr/bin/chromium")
#: the longest any one page may take to settle (every wait is bounded by it)
SETTLE_MS = 10_000
HOSTILE_PAGE = "slides/09-theirs.html"


class Beacon:
    """An HTTP server on 127.0.0.1 that counts the requests it gets."""

    def __init__(self) -> None:
        hits: list[str] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self) -> None:
                hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            do_GET = do_POST = do_HEAD = _answer  # noqa: N815

            def log_message(self, *args: object) -> None:
                pass

        self.hits = hits
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


@pytest.fixture
def beacon() -> Iterator[Beacon]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium")
    found = Beacon()
    yield found
    found.close()


def payloads(b: str) -> str:
    """Every payload of the issue, each aimed at the beacon `b`."""
    return "\n".join([
        f"<script>fetch('{b}/script')</script>",
        f'<img src="x" onerror="fetch(\'{b}/onerror\')">',
        f'<svg onload="fetch(\'{b}/onload\')"></svg>',
        f'<p title=\'"><script>fetch("{b}/breakout")</script>\'>t</p>',
        f'<a href="#" title="x"onmouseover="fetch(\'{b}/attr\')">a</a>',
        f'<details open ontoggle="fetch(\'{b}/ontoggle\')"><summary>s</summary>d</details>',
        f'<iframe src="{b}/iframe"></iframe>',
        f"<style>@import url({b}/import.css); p{{background:url({b}/bg.png)}}</style>",
        f'<object data="{b}/object"></object>',
        f'<embed src="{b}/embed">',
        f'<img srcset="{b}/srcset.png 1x">',
        f'<meta http-equiv="refresh" content="0;url={b}/refresh">',
        f"<a href=\"javascript:fetch('{b}/js')\">j</a>",
        f'<img src="{b}/remote.png" alt="remote">',
        f'<link rel="stylesheet" href="{b}/link.css">',
        f'<video poster="{b}/poster.png" src="{b}/video"></video>',
        f'<span style="background-image:url({b}/style.png)">s</span>',
    ])


def hostile_notebook(folder: Path, b: str) -> Path:
    tex = f"$\\text{{<script>fetch('{b}/tex')</script>}}$ and $\\href{{javascript:fetch(1)}}{{x}}$"
    raw = payloads(b)
    notebook = new_notebook(cells=[
        new_markdown_cell(f"# Hostile talk\n\n{raw}\n\n{tex}\n\n![remote]({b}/md.png)",
                          metadata={"slideshow": {"slide_type": "slide"}}),
        new_markdown_cell(f"Notes {raw} {tex}", metadata={"slideshow": {"slide_type": "notes"}}),
        new_markdown_cell("## Outputs", metadata={"slideshow": {"slide_type": "slide"}}),
        new_code_cell("show()", outputs=[
            new_output("display_data", data={"text/html": raw}),
            new_output("display_data", data={"text/markdown": raw}),
            new_output("display_data", data={"text/latex": tex})]),
    ])
    path = folder / "hostile.ipynb"
    nbformat.write(notebook, path)
    return path


def hostile_page(b: str) -> str:
    """A page someone else put in the project: a whole document, nothing cleaned."""
    return (f'<!doctype html><html><head><meta http-equiv="refresh" content="0;url={b}/head">'
            f"<title>Theirs</title><style>@import url({b}/head.css);</style>"
            f'<script src="{b}/head.js"></script></head><body onload="fetch(\'{b}/body\')">'
            f"<h1>Their slide</h1>{payloads(b)}"
            f'<aside class="jdp-notes" hidden>{payloads(b)}</aside></body></html>')


def staged_deck(folder: Path, b: str) -> dict[str, bytes]:
    deck = Deck(client=None, project_id="p")
    deck.add_notebook(hostile_notebook(folder, b))
    deck.add_markdown("slides/08-slide-cell.html", f"# Cell\n\n![x]({b}/slide-cell.png)")
    files = {f.path: f.data for f in deck.stage.files}
    files[HOSTILE_PAGE] = hostile_page(b).encode()
    return files


def service_of(files: dict[str, bytes]):
    async def call(operation: str, arguments: dict) -> SimpleNamespace:
        if operation != "read_file":
            return SimpleNamespace(is_error=True, blocks=[])
        part = files[arguments["path"]].decode()
        return SimpleNamespace(is_error=False, blocks=[{"type": "text", "text": (
            f'<untrusted-project-content path="x" etag="e">{html.escape(part)}'
            "</untrusted-project-content>")}])
    return call


async def settle(page) -> None:
    """Let a page finish whatever it would load (bounded)."""
    await page.wait_for_load_state("load", timeout=SETTLE_MS)
    await page.wait_for_load_state("networkidle", timeout=SETTLE_MS)


async def open_staged(context, files: dict[str, bytes], path: str) -> None:
    """A staged page opened with JavaScript on, its assets answered from the stage (as the
    service's preview does); every other request goes out to the network."""
    origin = "http://staged.invalid/"

    async def answer(route) -> None:
        url = route.request.url
        if url.startswith(origin):
            body = files.get(url[len(origin):])
            await route.fulfill(status=200 if body is not None else 404, body=body or b"")
        else:
            await route.continue_()

    page = await context.new_page()
    await page.route("**/*", answer)
    await page.goto(origin + path)
    await settle(page)
    await page.close()


async def every_surface(tmp: Path, beacon: Beacon) -> dict[str, int]:
    """The beacon's count after each surface, in order."""
    from playwright.async_api import async_playwright

    from jupyter_design_projects.design.deck.html_deck import REVEAL, html_document
    from jupyter_design_projects.notebook.views.deck_outcomes import preview_grid
    from jupyter_design_projects.server.design.browser import Browser

    counts: dict[str, int] = {}
    files = staged_deck(tmp, beacon.url)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM),
                                                   args=["--no-sandbox"])
        context = await browser.new_context()
        for path in [p for p in files if p.endswith(".html") and p != HOSTILE_PAGE]:
            await open_staged(context, files, path)
        counts["staged slides"] = len(beacon.hits)

        service_browser = Browser(CHROMIUM)  # the previews grid: the service draws them
        try:
            shots = [(p, await asyncio.to_thread(service_browser.render, p, files.get,
                                                 (1280, 720), 1.0, "p"))
                     for p in (HOSTILE_PAGE, "slides/01-hostile-talk.html")]
        finally:
            service_browser.close()
        assert all(shot.failed_requests for _, shot in shots[:1])  # it tried; blocked
        grid = preview_grid([(p, s.png, {"failed_requests": s.failed_requests})
                             for p, s in shots])
        page = await context.new_page()
        await page.set_content(grid)
        await settle(page)
        await page.close()
        counts["previews grid"] = len(beacon.hits)

        read = await exporting.read_deck(service_of(files), "p", {p: "e" for p in files},
                                         sizes={p: len(b) for p, b in files.items()})
        printed = await pdf.pdf_bytes(read, notes=True, launched=browser,
                                      title="Hostile", author="x")
        assert printed.data.startswith(b"%PDF")
        counts["PDF"] = len(beacon.hits)

        target = tmp / "deck.html"
        document, kind = html_document(read, "Hostile", notes=True)
        target.write_text(document, encoding="utf-8")
        page = await context.new_page()
        await page.goto(target.as_uri())
        await settle(page)
        for _ in range(3 * len(read.slides)):  # every slide and fragment
            await page.keyboard.press("ArrowRight")
        if kind == REVEAL:  # and the speaker view, with the notes
            async with page.expect_popup(timeout=SETTLE_MS) as opened:
                await page.keyboard.press("s")
            speaker = await opened.value
            await settle(speaker)
            await speaker.close()
        await settle(page)
        assert page.url.split("#")[0] == target.as_uri()  # nothing navigated it away
        if kind == REVEAL:
            last = await page.evaluate("Reveal.getIndices().h")
            shown = [await page.evaluate("document.querySelector('.slides').textContent")]
        else:
            last = int(await page.evaluate("document.body.dataset.slide")) - 1
            shown = [await f.evaluate("document.body.innerText") for f in page.frames[1:]]
        assert last == len(read.slides) - 1
        assert any("Hostile talk" in text for text in shown)  # the slides do draw
        await page.close()
        counts["HTML export with notes"] = len(beacon.hits)
        await browser.close()
    return counts


def test_the_beacon_stays_at_zero_on_every_deck_surface(beacon, tmp_path):
    counts = asyncio.run(every_surface(tmp_path, beacon))
    assert counts == {"staged slides": 0, "previews grid": 0, "PDF": 0,
                      "HTML export with notes": 0}, beacon.hits
    control(beacon)


async def raw_layers(tmp: Path, beacon: Beacon) -> tuple[pdf.Printed, int, int]:
    """The browser-side guards alone: a raw hostile page the allowlist never saw, printed
    and put in the HTML export as is."""
    from playwright.async_api import async_playwright

    raw = hostile_page(beacon.url)
    export = exporting.Export([exporting.ExportedSlide(HOSTILE_PAGE, "Theirs", raw, raw)])
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM),
                                                   args=["--no-sandbox"])
        printed = await pdf.pdf_bytes(export, notes=True, launched=browser)
        after_pdf = len(beacon.hits)
        target = tmp / "raw.html"
        page_html = exporting.html_file(export, "Raw", notes=True)
        target.write_text(page_html, encoding="utf-8")
        page = await browser.new_page()
        await page.goto(target.as_uri())
        await settle(page)
        assert page.url == target.as_uri()
        await browser.close()
    return printed, after_pdf, len(beacon.hits)


def test_the_pdf_lockdown_and_the_html_policy_stop_a_raw_page_on_their_own(beacon, tmp_path):
    printed, after_pdf, after_html = asyncio.run(raw_layers(tmp_path, beacon))
    assert (after_pdf, after_html) == (0, 0), beacon.hits
    assert printed.blocked > 0  # the raw page did try, and each request was aborted
    control(beacon)


def control(beacon: Beacon) -> None:
    """The beacon counts: a plain page in the same Chromium reaches it."""
    from playwright.sync_api import sync_playwright

    before = len(beacon.hits)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                             args=["--no-sandbox"])
        page = browser.new_page()
        page.set_content(f'<img src="{beacon.url}/control.png">')
        page.wait_for_load_state("networkidle", timeout=SETTLE_MS)
        browser.close()
    assert len(beacon.hits) == before + 1
