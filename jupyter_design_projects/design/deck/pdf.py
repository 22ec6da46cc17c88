"""A deck as a PDF: one PAGE_WIDTH x PAGE_HEIGHT (16:9) page per slide, drawn by a local
Chromium through Playwright with nothing of the page running or loading — JavaScript is
off for the drawing context and every request it would make is aborted (the slides' assets
are already inlined as data: URIs, which never leave the page), and counted; a navigation
away (a meta refresh) is answered "204 No Content", so the slide stays where it is. The
slides are loaded at once, each a frame of one sheet, and measured there (every frame
asked at once); the sheet prints in one go, a frame a page, and the pages of the slides
that fit are taken from it; the others are printed one by one, fitted.

Nothing is lost on a page. A slide that overflows 16:9 is fitted as reveal.js fits one, by
scaling it down (Chromium's print scale, so text stays text), as far as FIT_FLOOR; a slide
that would need less is printed at FIT_FLOOR and continued on the next page(s), and
`Printed.continued` names it. Width is always fitted (print cannot continue sideways),
down to Chromium's smallest print scale, PRINT_SCALE_MIN; anything still wider is named in
`Printed.cut`. The file carries the deck's title and author (PDF metadata).
"""

from __future__ import annotations

import dataclasses
import html
import io
import re
from typing import Any

from ...errors import ConfigError
from .export import NO_BROWSER, PAGE_HEIGHT, PAGE_WIDTH, Export, ExportedSlide, find_browser

#: the smallest scale a slide is fitted to before it is continued on a next page (half
#: size: 30 px body text prints as 15 px, still read easily on a 16:9 page)
FIT_FLOOR = 0.5
#: Chromium's smallest print scale
PRINT_SCALE_MIN = 0.1
#: a fitted slide printed one page too long (rounding) is tried again this much smaller
RETRY_SHRINK = 0.95
RETRIES = 3
NO_PYPDF = ("needs pypdf to put the pages together: pip install "
            "'jupyter-design-projects[export]' (the `lab` extra includes it)")


@dataclasses.dataclass
class Printed:
    """The PDF, and how each slide was fitted."""

    data: bytes
    #: slide path -> the scale it was printed at, for each slide scaled down
    scaled: dict[str, float] = dataclasses.field(default_factory=dict)
    #: slide path -> the pages it was continued over (more than one)
    continued: dict[str, int] = dataclasses.field(default_factory=dict)
    #: slide paths wider than a page even at PRINT_SCALE_MIN (cut at the right edge)
    cut: list[str] = dataclasses.field(default_factory=list)
    #: requests the pages tried to make, every one aborted
    blocked: int = 0


def _pypdf() -> Any:
    try:
        import pypdf
    except ImportError:
        raise ConfigError("PDF export", NO_PYPDF) from None
    return pypdf


async def pdf_bytes(export: Export, notes: bool = False, browser: str | None = None,
                    launched: Any = None, title: str = "", author: str = "") -> Printed:
    """The PDF of `export` (with `notes`, a notes page after each slide that has notes).
    `launched` is an open Playwright browser to draw in (the bench keeps one warm); the
    drawing context is always made here, locked down."""
    pypdf = _pypdf()
    documents: list[tuple[str, str]] = []
    for slide in export.slides:
        documents.append((slide.path, slide.html))
        if notes and slide.notes:
            documents.append((f"{slide.path} (notes)", _notes_page(slide)))
    printed = Printed(b"")
    if launched is not None:
        parts = await _draw(launched, documents, printed)
    else:
        async with _Chromium(browser) as opened:
            parts = await _draw(opened, documents, printed)
    writer = pypdf.PdfWriter()
    for reader, pages in parts:
        for number in pages:
            writer.add_page(reader.pages[number])
    metadata = {"/Title": title, "/Author": author, "/Creator": "jupyter-design-projects"}
    writer.add_metadata({k: v for k, v in metadata.items() if v})
    out = io.BytesIO()
    writer.write(out)
    printed.data = out.getvalue()
    return printed


def _notes_page(slide: ExportedSlide) -> str:
    return ("<!doctype html><html><head><meta charset=\"utf-8\"><style>"
            "body{margin:0;padding:48px 64px;font-family:DejaVu Sans,sans-serif;"
            "font-size:24px;line-height:1.4}h2{font-size:28px;margin:0 0 16px}"
            f"</style></head><body><h2>Notes: {html.escape(slide.title)}</h2>"
            f"{slide.notes}</body></html>")


def fit_scale(width: float, height: float) -> tuple[float, bool]:
    """The print scale for content of `width` x `height` CSS px, and whether it is
    continued over pages (its height needs less than FIT_FLOOR)."""
    across = min(1.0, PAGE_WIDTH / max(width, 1.0))
    down = PAGE_HEIGHT / max(height, 1.0)
    scale = min(1.0, across, down)
    if scale < FIT_FLOOR and down < across:  # too tall to fit at the floor: continue it
        scale = min(across, FIT_FLOOR)
    return max(PRINT_SCALE_MIN, scale), scale > down


#: what the sheet's frames may load: only what is inlined (srcdoc frames inherit the
#: policy; a request from such a frame does not always reach the context's route)
SHEET_POLICY = ("default-src 'none'; img-src data:; font-src data:; "
                "style-src 'unsafe-inline'; frame-src 'none'; base-uri 'none'; "
                "form-action 'none'")
#: one page holding every slide that fits, each in a 16:9 frame of its own (sandboxed, as
#: the context runs no script anyway), a page break after each
_SHEET = ("<!doctype html><html><head><meta charset=\"utf-8\">"
          f"<meta http-equiv=\"Content-Security-Policy\" content=\"{SHEET_POLICY}\">"
          "<style>@page{margin:0}"
          f"html,body{{margin:0}}iframe{{display:block;width:{PAGE_WIDTH}px;"
          f"height:{PAGE_HEIGHT}px;border:0;break-after:page}}"
          "*{-webkit-print-color-adjust:exact;print-color-adjust:exact}</style></head><body>"
          "{frames}</body></html>")
_MEASURE = "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"


#: every background and colour printed as the page shows it: Chromium leaves them out of a
#: frame's print, even with `print_background`, unless the frame's own CSS says so (a page
#: staged before the deck's stylesheet said it, or someone else's, gets it here)
EXACT_COLOURS = ("<style>*{-webkit-print-color-adjust:exact !important;"
                 "print-color-adjust:exact !important}</style>")


def exact_colours(document: str) -> str:
    """`document` printed with its backgrounds and colours."""
    head = re.search(r"<head\b[^>]*>", document, re.IGNORECASE)
    at = head.end() if head else 0
    return document[:at] + EXACT_COLOURS + document[at:]


def _sheet(documents: list[str]) -> str:
    return _SHEET.replace("{frames}", "".join(
        f'<iframe sandbox="" srcdoc="{html.escape(exact_colours(d), quote=True)}"></iframe>'
        for d in documents))


async def _draw(browser: Any, documents: list[tuple[str, str]],
                printed: Printed) -> list[tuple[Any, list[int]]]:
    """Each document's pages (a reader and its page numbers), in order. All of them are
    loaded at once, as frames of one sheet, and measured; the sheet prints in one go (a
    frame a page), which gives the pages of those that fit as they are; the others are
    printed one by one, fitted (`_print`)."""
    pypdf = _pypdf()
    context = await browser.new_context(
        viewport={"width": PAGE_WIDTH, "height": PAGE_HEIGHT}, java_script_enabled=False,
        service_workers="block", accept_downloads=False)

    async def refuse(route: Any) -> None:
        printed.blocked += 1
        if route.request.is_navigation_request():
            # a meta refresh or link leaving the slide: "204 No Content" keeps it where
            # it is (an aborted navigation would replace it with an error page)
            await route.fulfill(status=204, body=b"")
        else:
            await route.abort("blockedbyclient")

    await context.route("**/*", refuse)
    parts: list[tuple[Any, list[int]]] = [(None, [])] * len(documents)
    try:
        page = await context.new_page()
        await page.emulate_media(media="screen")
        await page.set_content(_sheet([d for _, d in documents]), wait_until="load")
        sizes = await _measure(page)
        fits = [n for n, (width, height) in enumerate(sizes)
                if width <= PAGE_WIDTH and height <= PAGE_HEIGHT]
        rest = [n for n in range(len(documents)) if n not in fits]
        if fits:
            # the sheet as loaded: a frame is one page whatever it holds, so the pages of
            # the slides that fit are taken from it and the others printed on their own
            data = bytes(await page.pdf(width=f"{PAGE_WIDTH}px", height=f"{PAGE_HEIGHT}px",
                                        print_background=True))
            reader = pypdf.PdfReader(io.BytesIO(data))
            if len(reader.pages) == len(documents):
                for n in fits:
                    parts[n] = (reader, [n])
            else:  # the sheet did not print one page per slide: each on its own
                rest = list(range(len(documents)))
        for n in rest:
            path, document = documents[n]
            data = await _print(page, path, document, printed, pypdf)
            reader = pypdf.PdfReader(io.BytesIO(data))
            parts[n] = (reader, list(range(len(reader.pages))))
    finally:
        await context.close()
    return parts


async def _measure(page: Any) -> list[tuple[float, float]]:
    """Each frame's content size (CSS px), in the sheet's order, asked of all frames at
    once (one round trip's wait instead of one per frame)."""
    import asyncio

    frames = await asyncio.gather(*(handle.content_frame()
                                    for handle in await page.query_selector_all("iframe")))

    async def size(frame: Any) -> tuple[float, float]:
        if frame is None:
            return (0.0, 0.0)
        width, height = await frame.evaluate(_MEASURE)
        return (float(width), float(height))

    return list(await asyncio.gather(*(size(frame) for frame in frames)))


async def _print(page: Any, path: str, document: str, printed: Printed, pypdf: Any) -> bytes:
    """One document as a PDF: measured, fitted, printed (again smaller when rounding made
    a fitted slide one page too long), and noted in `printed`."""
    await page.set_content(exact_colours(document), wait_until="load")
    width, height = await page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    scale, continued = fit_scale(float(width), float(height))
    if PAGE_WIDTH / max(float(width), 1.0) < PRINT_SCALE_MIN:
        printed.cut.append(path)
    for attempt in range(RETRIES + 1):
        data = bytes(await page.pdf(width=f"{PAGE_WIDTH}px", height=f"{PAGE_HEIGHT}px",
                                    print_background=True, scale=round(scale, 3)))
        pages = len(pypdf.PdfReader(io.BytesIO(data)).pages)
        smaller = scale * RETRY_SHRINK
        if pages == 1 or continued or attempt == RETRIES or smaller < FIT_FLOOR:
            break
        scale = smaller
    if pages > 1:  # one message a slide: continued (at its scale), else scaled
        printed.continued[path] = pages
    elif scale < 1.0:
        printed.scaled[path] = round(scale, 3)
    return data


class _Chromium:
    """A headless Chromium, closed on leaving."""

    def __init__(self, browser: str | None) -> None:
        self.executable = browser or find_browser()
        self._playwright: Any = None
        self._browser: Any = None

    async def __aenter__(self) -> Any:
        try:
            from playwright.async_api import async_playwright
        except ImportError:
            raise ConfigError("PDF export", NO_BROWSER) from None
        if self.executable is None:
            raise ConfigError("PDF export", NO_BROWSER)
        self._playwright = await async_playwright().start()
        try:
            self._browser = await self._playwright.chromium.launch(
                executable_path=self.executable,
                args=["--no-sandbox", "--disable-dev-shm-usage"])
        except Exception as exc:  # Playwright's own Error: the executable did not start
            await self._playwright.stop()
            raise ConfigError("PDF export", f"Chromium at {self.executable!r} did not start "
                                            f"({type(exc).__name__}); {NO_BROWSER}") from None
        return self._browser

    async def __aexit__(self, *exc: object) -> None:
        await self._browser.close()
        await self._playwright.stop()
