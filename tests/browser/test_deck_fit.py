"""What a person sees is what they hand out (issue 42): a seven-slide review talk (a title,
fragments, a skipped cell, a table, math, a matplotlib figure, a slide of 30 bullets,
notes) staged under the built-in dark and light looks, its pages exported as the project
holds them, then drawn where a person sees them — the slide pages (what the previews
draw), the PDF (rasterised by pypdfium2) and the reveal.js file in Chromium.

- Every PDF page of the dark talk is dark (its mean grey level and its corner pixel), and
  the light talk's table header keeps its fill.
- The 30-bullet slide is fitted and continued on a page of its own whose heading names it
  "(continued)": every bullet is inside the 1280x720 slide on its page, in its reveal.js
  section, and on its PDF page; staging and the export each name it once.
"""

from __future__ import annotations

import base64
import io

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from jupyter_design_projects.core import slide_fit
from jupyter_design_projects.design.deck import Deck
from jupyter_design_projects.design.deck.html_deck import REVEAL, html_document
from tests.deck_staged import pdf_pictures, printed, staged_export

BULLETS = 30
LONG = "slides/06-thirty-checks-before-release.html"
LONG_2 = "slides/06-thirty-checks-before-release_2.html"


def cell(kind: str, source: str = "", slide_type: str = "-", **extra):
    made = (new_markdown_cell(source) if kind == "md" else new_code_cell(source, **extra))
    made.metadata["slideshow"] = {"slide_type": slide_type}
    return made


def figure_png() -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3))
    ax.plot(range(12), [x * 3 for x in range(12)])
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=72)
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def review_talk(folder) -> str:
    table = ("<table><thead><tr><th>team</th><th>done</th></tr></thead><tbody>"
             "<tr><td>North</td><td>12</td></tr><tr><td>South</td><td>9</td></tr>"
             "</tbody></table>")
    cells = [
        cell("md", "# Quarterly review\n\nWhat shipped, what slipped", "slide"),
        cell("md", "## Highlights", "slide"),
        cell("md", "- search is faster", "fragment"),
        cell("md", "- the export is offline", "fragment"),
        cell("code", "secret = 1", "skip"),
        cell("md", "## By team", "slide"),
        cell("code", "frame", outputs=[new_output("execute_result", execution_count=1,
                                                  data={"text/html": table,
                                                        "text/plain": "frame"})]),
        cell("md", "## The model\n\n$$y = \\alpha + \\beta t$$", "slide"),
        cell("md", "## Weekly demand", "slide"),
        cell("code", "plot()", outputs=[new_output("display_data", data={
            "image/png": figure_png(), "text/plain": "<Figure size 432x216 with 1 Axes>"})]),
        cell("md", "## Thirty checks before release\n\n" + "\n".join(
            f"- check checkword{n} passes on every supported platform" for n in
            range(1, BULLETS + 1)), "slide"),
        cell("md", "Go quickly through these.", "notes"),
        cell("md", "## Thank you", "slide"),
    ]
    path = folder / "review.ipynb"
    nbformat.write(new_notebook(cells=cells), path)
    return str(path)


def staged(folder, theme: str) -> Deck:
    deck = Deck(client=None, project_id="p")
    deck.use_theme(theme)
    deck.add_notebook(review_talk(folder))
    return deck


@pytest.fixture(scope="module")
def dark(tmp_path_factory):
    deck = staged(tmp_path_factory.mktemp("dark"), "dark")
    export = staged_export(deck)
    return deck, export, printed(export)


def test_staging_continues_the_long_slide_and_says_so_once(dark):
    deck, export, _ = dark
    assert LONG in deck.stage.slides and LONG_2 in deck.stage.slides
    outcome = deck.stage.fitted[LONG]
    assert outcome.pages == 2 and outcome.scale >= slide_fit.FIT_FLOOR
    said = deck.stage.fit_summary()
    assert said.count(LONG) == 1 and "continued over 2 slides" in said
    assert export.slides[6].title == "Thirty checks before release (continued)"


def test_every_pdf_page_of_the_dark_talk_is_dark(dark):
    _, export, result = dark
    pictures = pdf_pictures(result.data)
    assert len(pictures) == len(export.slides) == 8
    from PIL import ImageStat

    for number, picture in enumerate(pictures, start=1):
        grey = picture.convert("L")
        width, height = grey.size
        # the slide's margins (its padding: 48 px top and bottom, 64 px each side) are
        # its background alone; the whole page is dark too, but for the figure's own
        # white plot (page 5)
        for box in ((0, 0, width, 40), (0, height - 40, width, height), (0, 0, 56, height),
                    (width - 56, 0, width, height)):
            assert ImageStat.Stat(grey.crop(box)).mean[0] < 50, f"page {number}: {box}"
        if number != 5:
            assert ImageStat.Stat(grey).mean[0] < 80, f"page {number} is not dark"


def test_every_bullet_is_on_a_pdf_page_and_the_continuation_names_its_slide(dark):
    from pypdf import PdfReader

    _, _, result = dark
    pages = [p.extract_text() for p in PdfReader(io.BytesIO(result.data)).pages]
    assert result.scaled == {} and result.continued == {}  # fitted before it was printed
    for n in range(1, BULLETS + 1):
        assert sum(f"checkword{n} " in p + " " for p in pages[5:7]) == 1, n
    assert "Thirty checks before release (continued)" in " ".join(pages[6].split())


def bullets_inside(page, scope: str = "") -> list[int]:
    """The bullets whose box lies inside the 1280x720 slide (of `scope`, a reveal.js
    section), by number."""
    return page.evaluate(
        """scope => {
          const root = scope ? document.querySelector(scope) : document;
          const box = scope ? root.getBoundingClientRect() : {top: 0, left: 0};
          return [...root.querySelectorAll('li')].filter(li => {
            const r = li.getBoundingClientRect();
            return r.bottom - box.top <= 720.5 && r.right - box.left <= 1280.5
              && r.top >= box.top; }).map(li => +li.textContent.match(/checkword(\\d+)/)[1]);
        }""", scope)


def test_every_bullet_can_be_seen_on_the_slide_pages(dark, chromium):
    deck, _, _ = dark
    context = chromium.new_context(viewport={"width": 1280, "height": 720},
                                   java_script_enabled=False)
    seen = []
    try:
        page = context.new_page()
        for path in (LONG, LONG_2):
            page.set_content(next(f.data for f in deck.stage.files if f.path == path).decode())
            assert page.evaluate("() => document.documentElement.scrollHeight") <= 720
            seen += bullets_inside(page)
    finally:
        context.close()
    assert sorted(seen) == list(range(1, BULLETS + 1))


def test_every_bullet_can_be_seen_in_the_reveal_export(dark, chromium, tmp_path):
    _, export, _ = dark
    document, kind = html_document(export, "Review", theme="dark")
    assert kind == REVEAL
    path = tmp_path / "review.html"
    path.write_text(document, encoding="utf-8")
    context = chromium.new_context(viewport={"width": 1280, "height": 720})
    seen = []
    try:
        page = context.new_page()
        for number in (5, 6):
            page.goto(path.as_uri() + f"#/{number}")
            page.wait_for_function("n => window.Reveal && Reveal.isReady() && "
                                   "Reveal.getIndices().h === n", arg=number)
            page.evaluate("() => Reveal.configure({margin: 0})")
            page.wait_for_function("() => Reveal.getScale() === 1")
            seen += bullets_inside(page, "section.present")
    finally:
        context.close()
    assert sorted(seen) == list(range(1, BULLETS + 1))


def test_the_light_talks_table_header_keeps_its_fill(tmp_path):
    deck = staged(tmp_path, "light")
    result = printed(staged_export(deck))
    table_page = pdf_pictures(result.data)[2]
    # the header's fill is the look's primary colour, #1f4e79
    import numpy

    pixels = numpy.asarray(table_page, dtype=int)[200:]  # under the heading (same colour)
    near = numpy.abs(pixels - numpy.array([0x1F, 0x4E, 0x79])).max(axis=2) < 12
    assert int(near.sum()) > 2000


def test_a_small_table_is_centred_under_its_heading(tmp_path, chromium):
    deck = staged(tmp_path, "light")
    page_html = next(f.data for f in deck.stage.files if f.path.startswith("slides/03-"))
    context = chromium.new_context(viewport={"width": 1280, "height": 720},
                                   java_script_enabled=False)
    try:
        page = context.new_page()
        page.set_content(page_html.decode())
        box = page.locator("table").bounding_box()
    finally:
        context.close()
    assert box is not None
    centre_x, centre_y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    assert abs(centre_x - 640) < 8
    assert 300 < centre_y < 500  # in the room under the heading, not at its top
