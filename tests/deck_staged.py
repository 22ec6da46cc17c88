"""A deck's staged pages exported as `%design deck export` reads them from a project
(`export.read_deck`), with no service: each `read_file` is answered from the staged bytes,
wrapped as the service wraps it. For tests that look at the export of a deck's own pages.
The coroutines run in a thread of their own, so a test may call these while Playwright's
sync API holds the thread's loop."""

from __future__ import annotations

import asyncio
import html
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

from jupyter_design_projects.design.deck import export as exporting


def staged_export(deck) -> exporting.Export:
    files = {f.path: f.data for f in deck.stage.files}

    async def call(_operation: str, arguments: dict) -> SimpleNamespace:
        part = files[arguments["path"]].decode()
        return SimpleNamespace(is_error=False, blocks=[{"type": "text", "text": (
            f'<untrusted-project-content path="x" etag="e">{html.escape(part)}'
            "</untrusted-project-content>")}])

    return run(exporting.read_deck(call, "p", {p: "e" for p in files}, files,
                                   sizes={p: len(b) for p, b in files.items()}))


def run(coroutine):
    """`asyncio.run(coroutine)` in a thread of its own."""
    with ThreadPoolExecutor(1) as worker:
        return worker.submit(asyncio.run, coroutine).result()


def printed(export: exporting.Export, **options):
    """The PDF of `export` (`pdf.pdf_bytes`), drawn by a Chromium of its own."""
    from jupyter_design_projects.design.deck import pdf

    return run(pdf.pdf_bytes(export, **options))


# ---------------------------------------------------------------- three renderings of a slide

#: the size both pictures are brought to before they are compared (a 16:9 thumbnail: a
#: line of 30 px text is 3.75 px high, so a line moved or missing still shows, while the
#: anti-aliasing of two renderers does not)
COMPARE_SIZE = (320, 180)
#: the least similarity of two renderings of one slide (1 - mean |difference| / 255 on
#: grey levels at COMPARE_SIZE); the docs' table shows what each slide gets
AGREE_MIN = 0.95


def similarity(first, second) -> float:
    """1 - the mean absolute difference of two pictures' grey levels (0..255) / 255,
    after both are resized to COMPARE_SIZE: 1.0 for the same picture."""
    from PIL import Image, ImageChops, ImageStat

    a = first.convert("L").resize(COMPARE_SIZE, Image.Resampling.BOX)
    b = second.convert("L").resize(COMPARE_SIZE, Image.Resampling.BOX)
    return 1.0 - ImageStat.Stat(ImageChops.difference(a, b)).mean[0] / 255.0


def staged_files(deck) -> dict[str, bytes]:
    return {f.path: f.data for f in deck.stage.files}


def previews(files: dict[str, bytes], paths: list[str]) -> list:
    """Each page at `paths` as the reference service's preview draws it (its own browser
    code, at device scale 2, the assets answered from `files`), as PIL pictures."""
    import io

    from PIL import Image

    from jupyter_design_projects.server.design.browser import Browser
    from jupyter_design_projects.server.design.preview import DEFAULT_VIEWPORT, DEVICE_SCALE

    browser = Browser()
    try:
        return [Image.open(io.BytesIO(browser.render(
            path, files.get, DEFAULT_VIEWPORT, DEVICE_SCALE, "agree").png)).convert("RGB")
            for path in paths]
    finally:
        browser.close()


def pdf_pictures(data: bytes) -> list:
    """Each page of a PDF drawn by pypdfium2 at the slide's 1280x720 CSS px."""
    import pypdfium2

    document = pypdfium2.PdfDocument(data)
    return [document[n].render(scale=4 / 3).to_pil().convert("RGB")
            for n in range(len(document))]


def reveal_pictures(chromium, document: str, folder, count: int) -> list:
    """Each slide of a reveal.js file as Chromium shows it in a 1280x720 window (every
    fragment shown, the slide's transition ended)."""
    import io

    from PIL import Image

    path = folder / "agree.html"
    path.write_text(document, encoding="utf-8")
    context = chromium.new_context(viewport={"width": 1280, "height": 720})
    shots = []
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        page.wait_for_function("() => window.Reveal && Reveal.isReady()")
        page.evaluate("() => Reveal.configure({margin: 0, controls: false, progress: false,"
                      " slideNumber: false, transition: 'none'})")
        for number in range(count):
            page.evaluate("n => { Reveal.slide(n, 0, 99); }", number)
            # the slide shown, its pictures loaded, its fragments faded in all the way
            page.wait_for_function(
                "n => Reveal.getIndices().h === n && [...document.querySelectorAll("
                "'section.present img')].every(i => i.complete) && [...document"
                ".querySelectorAll('section.present .fragment')].every(f => "
                "getComputedStyle(f).opacity === '1')", arg=number)
            shots.append(Image.open(io.BytesIO(page.screenshot())).convert("RGB"))
    finally:
        context.close()
    return shots


def agreement(deck, chromium, folder, theme: str) -> list[tuple[str, float, float, float]]:
    """For each slide of the staged `deck`: its path and the similarity of its preview to
    its PDF page, of its preview to its reveal.js screenshot, and of its PDF page to its
    reveal.js screenshot."""
    from jupyter_design_projects.design.deck.html_deck import REVEAL, html_document

    export = staged_export(deck)
    paths = [s.path for s in export.slides]
    drawn = previews(staged_files(deck), paths)
    result = printed(export)
    # fitted when staged: the print has nothing left to scale or continue
    assert (result.scaled, result.continued, result.cut) == ({}, {}, [])
    pages = pdf_pictures(result.data)
    document, kind = html_document(export, export.slides[0].title, theme=theme)
    assert kind == REVEAL
    shots = reveal_pictures(chromium, document, folder, len(paths))
    assert len(pages) == len(shots) == len(paths)
    return [(path, similarity(a, b), similarity(a, c), similarity(b, c))
            for path, a, b, c in zip(paths, drawn, pages, shots, strict=True)]
