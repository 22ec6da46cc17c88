"""A deck out to PDF and HTML: an 8-slide deck read from a notebook (the talk fixture's
cells, repeated), exported with a warm Chromium (`design.deck.export.pdf_bytes` in an open
browser context: a fresh page per slide, `page.pdf` of page 1, pages merged by pypdf)
against a bare Playwright `page.set_content` + `page.pdf` of the same eight pages in the
same browser, interleaved, best of each; and the notebook reading itself."""

from __future__ import annotations

import asyncio
import html
import shutil
import time
from pathlib import Path

from .context import ROOT, Context
from .report import Row, ms, ratio

SLIDES = 8
TALK = ROOT / "tests" / "fixtures" / "talk"


def eight_slide_export(scratch: Path):
    import nbformat

    from jupyter_design_projects.design.deck import Deck
    from jupyter_design_projects.design.deck import export as exporting

    shutil.copytree(TALK, scratch / "talk")
    path = scratch / "talk" / "talk.ipynb"
    notebook = nbformat.read(path, as_version=4)
    extra = [nbformat.v4.new_markdown_cell(f"# Extra slide {i}\n\n- a point\n- another",
                                           metadata={"slideshow": {"slide_type": "slide"}})
             for i in range(SLIDES - 6)]
    notebook.cells += extra
    nbformat.write(notebook, path)
    deck = Deck(client=None, project_id="bench")
    started = time.perf_counter()
    deck.add_notebook(path)
    reading_ms = (time.perf_counter() - started) * 1000
    files = {f.path: f.data for f in deck.stage.files}

    class Answer:
        def __init__(self, text: str) -> None:
            self.blocks, self.is_error = [{"type": "text", "text": text}], False

    async def call(_operation: str, arguments: dict) -> Answer:
        return Answer(html.escape(files[arguments["path"]].decode()))

    local = {p: b for p, b in files.items() if not p.endswith(".html")}
    read = asyncio.run(exporting.read_deck(call, "bench", {p: "e" for p in files}, local))
    assert len(read.slides) == SLIDES, len(read.slides)
    return read, reading_ms


async def _measure(read, rounds: int) -> dict[str, float]:
    from playwright.async_api import async_playwright

    from jupyter_design_projects.design.deck import export as exporting

    best = {"export": float("inf"), "bare": float("inf"), "html": float("inf")}
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=exporting.find_browser(),
            args=["--no-sandbox", "--disable-dev-shm-usage"])
        context = await browser.new_context(
            viewport={"width": exporting.PAGE_WIDTH, "height": exporting.PAGE_HEIGHT})

        async def bare() -> None:
            page = await context.new_page()
            for slide in read.slides:
                await page.set_content(slide.html, wait_until="load")
                await page.pdf(width="1280px", height="720px", print_background=True)
            await page.close()

        for _ in range(rounds):
            started = time.perf_counter()
            await exporting.pdf_bytes(read, context=context)
            best["export"] = min(best["export"], time.perf_counter() - started)
            started = time.perf_counter()
            await bare()
            best["bare"] = min(best["bare"], time.perf_counter() - started)
            started = time.perf_counter()
            exporting.html_file(read, "bench")
            best["html"] = min(best["html"], time.perf_counter() - started)
        await browser.close()
    return {k: v * 1000 for k, v in best.items()}


def deck_export(ctx: Context) -> list[Row]:
    read, reading_ms = eight_slide_export(ctx.scratch("deck"))
    got = asyncio.run(_measure(read, ctx.n(5, 1)))
    return [
        Row(f"deck export: {SLIDES}-slide PDF, warm Chromium (one page reused, merged by pypdf)",
            ms(got["export"]), f"{ms(got['bare'])} (bare set_content + page.pdf)",
            ratio(got["export"], got["bare"]), "≤ 3 s", got["export"] <= 3000,
            "deck_export"),
        Row("… the same deck as one offline HTML file", ms(got["html"]), command="deck_export"),
        Row(f"… reading the notebook into {SLIDES} staged slides (nbformat, math, assets)",
            ms(reading_ms), command="deck_export"),
    ]


FIGURES = {"deck_export": deck_export}
