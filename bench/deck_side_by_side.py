"""This deck export beside `jupyter nbconvert --to slides`, on talk notebooks given by path
(public talks: docs/decks.md names the ones measured). Prints one Markdown table: slides,
slide titles present in each output's text, fragments, notes, offline (no remote script,
style, image or frame), size and time; for this export, the PDF with a warm Chromium and the
HTML file (reveal.js when the build has the renderer). Run:

    PYTHONPATH=. .venv/bin/python bench/deck_side_by_side.py talk1.ipynb talk2.ipynb

Not a test and not timed in one: the numbers go in the docs as measured, with the machine.
"""

from __future__ import annotations

import asyncio
import html
import io
import re
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path
from types import SimpleNamespace

#: a reference that makes a browser fetch: a script, stylesheet, image or frame source
REMOTE = re.compile(r"""<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*["']?"""
                    r"""(?:https?:)?//""", re.IGNORECASE)


def text_of(document: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", document)).split())


def words(text: str) -> set[str]:
    """The words of a text as compared here: lower case, letters and digits, 3 or more
    (NFKC first: a PDF's text holds ligatures, ﬁ for fi)."""
    plain = unicodedata.normalize("NFKC", text).lower()
    return {w for w in re.findall(r"[a-z0-9]+", plain) if len(w) >= 3}


def present(slides: list[set[str]], text: str) -> int:
    """How many slides have every word of theirs in `text`."""
    found = words(text)
    return sum(1 for wanted in slides if wanted <= found)


def ours(path: Path, browser, run) -> dict:
    from pypdf import PdfReader

    from jupyter_design_projects.design.deck import Deck, pdf
    from jupyter_design_projects.design.deck import export as exporting
    from jupyter_design_projects.design.deck.html_deck import html_document

    started = time.perf_counter()
    deck = Deck(client=None, project_id="p")
    reading = deck.add_notebook(path)
    files = {f.path: f.data for f in deck.stage.files}

    async def call(_operation: str, arguments: dict) -> SimpleNamespace:
        return SimpleNamespace(is_error=False, blocks=[{"type": "text", "text": (
            '<untrusted-project-content path="x" etag="e">'
            f"{html.escape(files[arguments['path']].decode())}</untrusted-project-content>")}])

    read = run(exporting.read_deck(
        call, "p", {p: "e" for p in files},
        {p: b for p, b in files.items() if not p.endswith(".html")},
        sizes={p: len(b) for p, b in files.items()}))
    staged_s = time.perf_counter() - started

    async def printed():
        return await pdf.pdf_bytes(read, launched=browser, title=read.slides[0].title)

    started = time.perf_counter()
    result = run(printed())
    pdf_s = time.perf_counter() - started
    started = time.perf_counter()
    document, kind = html_document(read, read.slides[0].title, notes=True)
    html_s = time.perf_counter() - started
    titles = [words(text_of(re.sub(r'<aside class="jdp-notes".*?</aside>', "", s.body,
                                   flags=re.S))) for s in reading.slides]
    pdf_text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(result.data)).pages)
    return {"slides": len(reading.slides), "titles": titles,
            "in_pdf": present(titles, pdf_text), "in_html": present(titles, text_of(document)),
            "fragments": document.count('class="fragment"'),
            "notes": document.count('class="notes"'), "remote": len(REMOTE.findall(document)),
            "pdf_bytes": len(result.data), "html_bytes": len(document.encode()),
            "read_s": staged_s, "pdf_s": pdf_s, "html_s": html_s, "kind": kind,
            "scaled": len(result.scaled), "continued": len(result.continued),
            "skipped": len(reading.skipped)}


def nbconvert(path: Path, titles: list[set[str]]) -> dict:
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "nbconvert", "--to", "slides", "--output-dir",
                        out, str(path)], check=True, capture_output=True)
        seconds = time.perf_counter() - started
        document = next(Path(out).glob("*.html")).read_text(encoding="utf-8")
    innermost = re.findall(r"<section\b[^>]*>(?!\s*<section\b)", document)
    return {"slides": len(innermost), "in_html": present(titles, text_of(document)),
            "fragments": document.count('class="fragment"'),
            "notes": document.count('class="notes"'), "remote": len(REMOTE.findall(document)),
            "html_bytes": len(document.encode()), "html_s": seconds}


def main(paths: list[str]) -> None:
    from playwright.async_api import async_playwright

    from jupyter_design_projects.design.deck.export import find_browser

    async def launch():
        playwright = await async_playwright().start()
        return playwright, await playwright.chromium.launch(
            executable_path=find_browser(), args=["--no-sandbox", "--disable-dev-shm-usage"])

    loop = asyncio.new_event_loop()  # one loop: the warm browser lives in it
    run = loop.run_until_complete
    playwright, browser = run(launch())
    print("| talk | tool | slides | slides with all their text | fragments | notes | remote refs | "
          "size | time |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in paths:
        path = Path(name)
        ours(path, browser, run)  # warm-up: the first PDF page pays for the context
        mine = ours(path, browser, run)
        theirs = nbconvert(path, mine["titles"])
        n = mine["slides"]
        print(f"| {path.name} | this export, PDF | {n} | {mine['in_pdf']}/{n} | shown | "
              f"with --notes | 0 | {mine['pdf_bytes'] / 1024:,.0f} KB | "
              f"{mine['read_s'] + mine['pdf_s']:.2f} s |")
        print(f"| | this export, HTML ({mine['kind']}) | {n} | {mine['in_html']}/{n} | "
              f"{mine['fragments']} | {mine['notes']} | {mine['remote']} | "
              f"{mine['html_bytes'] / 1024:,.0f} KB | {mine['read_s'] + mine['html_s']:.2f} s |")
        print(f"| | nbconvert --to slides | {theirs['slides']} | {theirs['in_html']}/{n} | "
              f"{theirs['fragments']} | {theirs['notes']} | {theirs['remote']} | "
              f"{theirs['html_bytes'] / 1024:,.0f} KB | {theirs['html_s']:.2f} s |")
        print(f"<!-- {path.name}: PDF scaled {mine['scaled']}, continued "
              f"{mine['continued']}, skipped {mine['skipped']} -->")
    run(browser.close())
    run(playwright.stop())


if __name__ == "__main__":
    main(sys.argv[1:])
