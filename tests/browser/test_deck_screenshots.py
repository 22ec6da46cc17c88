"""The pictures of a real talk's export that docs/decks.md shows (retaken into
docs/screenshots/ by `python3 tasks.py screenshots`, as the panel screenshots are; an
ordinary run writes them to a temporary folder): RISE's own slideshow
(tests/fixtures/talks/rise-readme/, BSD-3-Clause) staged as `%design deck from-notebook`
stages it, its pages exported as the project holds them, then one slide as a page of the
PDF (drawn by pypdfium2) and as the reveal.js file shows it in Chromium. Each picture must
show that slide: its text is on that PDF page (pypdf) and in that reveal.js section, its
figure is drawn, and the picture is the slide's size and not blank."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from PIL import Image, ImageStat

from jupyter_design_projects.design.deck import Deck
from jupyter_design_projects.design.deck.export import PAGE_HEIGHT, PAGE_WIDTH
from jupyter_design_projects.design.deck.html_deck import REVEAL, html_document
from tests.deck_staged import printed, staged_export

ROOT = Path(__file__).parents[2]
TALK = ROOT / "tests" / "fixtures" / "talks" / "rise-readme"
PDF_SHOT = "deck-talk-pdf.png"
REVEAL_SHOT = "deck-talk-reveal.png"
#: the slide shown: "How to create slideshows", text and a screenshot of the toolbar
SLIDE = 8
TEXTS = ("How to create slideshows", "Step 1: enable slideshow cell toolbar")
#: a PDF point is 4/3 CSS px: the page drawn at this scale is the slide's 1280x720
PDF_PIXELS_PER_POINT = 4 / 3


@pytest.fixture(scope="module")
def talk_export(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rise") / "talk"
    shutil.copytree(TALK, folder)
    deck = Deck(client=None, project_id="p")
    deck.add_notebook(folder / "README.ipynb")
    export = staged_export(deck)
    assert export.slides[SLIDE - 1].title == TEXTS[0]
    assert export.missing == [] and export.partial == []
    return export


def not_blank(picture: Image.Image) -> None:
    """A picture of a slide: its size, and more than one flat colour (the heading, the
    text and the figure each add their own)."""
    assert picture.size == (PAGE_WIDTH, PAGE_HEIGHT)
    grey = picture.convert("L")
    assert ImageStat.Stat(grey).stddev[0] > 20
    assert len(grey.getcolors(256) or []) > 32


def test_the_talks_pdf_page_is_retaken_for_the_docs(talk_export, screenshots):
    import pypdfium2
    from pypdf import PdfReader

    result = printed(talk_export, title=talk_export.slides[0].title, author=talk_export.author)
    assert result.continued == {}  # one page a slide: page SLIDE is slide SLIDE
    text = PdfReader(io.BytesIO(result.data)).pages[SLIDE - 1].extract_text()
    assert all(t in text for t in TEXTS)
    page = pypdfium2.PdfDocument(result.data)[SLIDE - 1]
    assert page.get_size() == (PAGE_WIDTH / PDF_PIXELS_PER_POINT,
                                PAGE_HEIGHT / PDF_PIXELS_PER_POINT)
    picture = page.render(scale=PDF_PIXELS_PER_POINT).to_pil().convert("RGB")
    not_blank(picture)
    picture.save(screenshots / PDF_SHOT, optimize=True)


def test_the_talks_reveal_slide_is_retaken_for_the_docs(talk_export, chromium, tmp_path,
                                                      screenshots):
    document, kind = html_document(talk_export, talk_export.slides[0].title)
    assert kind == REVEAL
    path = tmp_path / "talk.html"
    path.write_text(document, encoding="utf-8")
    context = chromium.new_context(viewport={"width": PAGE_WIDTH, "height": PAGE_HEIGHT})
    try:
        page = context.new_page()
        remote: list[str] = []
        page.on("request", lambda r: None if r.url.startswith(("file:", "data:"))
                else remote.append(r.url))
        page.goto(path.as_uri() + f"#/{SLIDE - 1}")
        page.wait_for_function("n => window.Reveal && Reveal.isReady() && "
                               "Reveal.getIndices().h === n", arg=SLIDE - 1)
        section = page.locator("section.present")
        page.wait_for_function("s => [...s.querySelectorAll('img')].every("
                               "i => i.complete && i.naturalWidth > 0)",
                               arg=section.element_handle())
        page.wait_for_function("s => getComputedStyle(s).opacity === '1'",
                               arg=section.element_handle())  # the slide transition ended
        shown = section.inner_text()
        images = section.locator("img").count()
        shot = page.screenshot()
    finally:
        context.close()
    assert all(t in shown for t in TEXTS) and images == 1 and remote == []
    picture = Image.open(io.BytesIO(shot)).convert("RGB")
    not_blank(picture)
    picture.save(screenshots / REVEAL_SHOT, optimize=True)
