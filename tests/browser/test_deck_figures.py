"""A matplotlib figure is sized to the room the slide's other content leaves (issue 33 item
5), in each place a slide is drawn: the slide page itself (what the service's previews
draw), the reveal.js export and the PDF. A heading and a figure: the figure's box is at
least 60 % of the slide's height and the slide does not overflow. A heading, four bullets
and a figure: nothing overflows either, and the figure still takes what is left. Twelve
bullets and a figure: with the figure at its least height (FIGURE_MIN_HEIGHT) that slide
is too long, so it is fitted when staged (`fit`: drawn smaller) as any other; it then
overflows nowhere, and the PDF needs no scaling of its own (every bullet on the page)."""

from __future__ import annotations

import base64
import io

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from jupyter_design_projects.design.deck import Deck
from jupyter_design_projects.design.deck.html_deck import REVEAL, html_document
from jupyter_design_projects.design.deck.theme import FIGURE_MIN_HEIGHT
from tests.deck_staged import printed, staged_export

SLIDE_HEIGHT = 720
MEASURE = "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"


def figure_output(kind: str) -> dict:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3))
    ax.plot(range(12), [x * x for x in range(12)], marker="o")
    ax.set_xlabel("week")
    buffer = io.BytesIO()
    fig.savefig(buffer, format=kind, dpi=72, bbox_inches="tight")
    plt.close(fig)
    data = (buffer.getvalue().decode() if kind == "svg"
            else base64.b64encode(buffer.getvalue()).decode())
    return new_output("display_data", data={f"image/{'svg+xml' if kind == 'svg' else kind}": data,
                                            "text/plain": "<Figure>"})


def slide(source: str):
    return new_markdown_cell(source, metadata={"slideshow": {"slide_type": "slide"}})


def bullets(count: int) -> str:
    return "\n".join(f"- point bulletword{n}" for n in range(1, count + 1))


def fragment(cell):
    cell.metadata["slideshow"] = {"slide_type": "fragment"}
    return cell


#: slide number (1-based) -> what it holds
CASES = {1: "heading + SVG figure", 2: "heading + PNG figure",
         3: "heading + 4 bullets + figure", 4: "heading + figure as a fragment",
         5: "heading + 12 bullets + figure"}


@pytest.fixture(scope="module")
def figures_deck(tmp_path_factory):
    folder = tmp_path_factory.mktemp("figures")
    notebook = new_notebook(cells=[
        slide("## An SVG figure"), new_code_cell("plot()", outputs=[figure_output("svg")]),
        slide("## A PNG figure"), new_code_cell("plot()", outputs=[figure_output("png")]),
        slide("## Points and a figure\n\n" + bullets(4)),
        new_code_cell("plot()", outputs=[figure_output("svg")]),
        slide("## A figure that steps in"),
        fragment(new_code_cell("plot()", outputs=[figure_output("svg")])),
        slide("## Too many points\n\n" + bullets(12)),
        new_code_cell("plot()", outputs=[figure_output("svg")]),
    ])
    path = folder / "figures.ipynb"
    nbformat.write(notebook, path)
    deck = Deck(client=None, project_id="p")
    deck.add_notebook(path)
    export = staged_export(deck)
    assert len(export.slides) == len(CASES)
    return export


def figure_and_overflow(page, scope: str = "") -> tuple[float, float]:
    """The figure's rendered height and the slide's content height, in CSS px of the
    1280x720 slide."""
    image = page.locator(f"{scope} figure img".strip()).first
    height = image.evaluate("img => img.getBoundingClientRect().height")
    if scope:  # a reveal.js section: its content height (the deck is drawn at scale 1)
        content = page.locator(scope).evaluate("s => s.scrollHeight")
    else:
        content = page.evaluate(MEASURE)[1]
    return height, content


def least(number: int) -> float:
    """The least figure height expected: 60 % of the slide beside a heading alone; beside
    four bullets, what they leave (a third of the slide), no less than the floor."""
    return FIGURE_MIN_HEIGHT if number == 3 else 0.6 * SLIDE_HEIGHT


@pytest.fixture
def slide_page(chromium):
    context = chromium.new_context(viewport={"width": 1280, "height": SLIDE_HEIGHT},
                                   java_script_enabled=False)
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("number", [1, 2, 3, 4])
def test_a_figure_fills_the_room_left_on_the_slide_page(figures_deck, slide_page, number):
    slide_page.set_content(figures_deck.slides[number - 1].html)
    height, content = figure_and_overflow(slide_page)
    assert content <= SLIDE_HEIGHT, CASES[number]
    assert height >= least(number), CASES[number]


def test_a_slide_too_full_is_fitted_keeping_the_figure_at_least_its_least_height(
        figures_deck, slide_page):
    scale = figures_deck.fitted[figures_deck.slides[4].path].scale
    assert 0.5 <= scale < 1.0
    slide_page.set_content(figures_deck.slides[4].html)
    height, content = figure_and_overflow(slide_page)
    assert height >= FIGURE_MIN_HEIGHT * scale - 1
    assert content <= SLIDE_HEIGHT


@pytest.mark.parametrize("number", [1, 2, 3, 4])
def test_a_figure_fills_the_room_left_in_the_reveal_export(figures_deck, chromium, tmp_path,
                                                           number):
    document, kind = html_document(figures_deck, "Figures")
    assert kind == REVEAL
    path = tmp_path / "figures.html"
    path.write_text(document, encoding="utf-8")
    context = chromium.new_context(viewport={"width": 1280, "height": SLIDE_HEIGHT})
    try:
        page = context.new_page()
        page.goto(path.as_uri() + f"#/{number - 1}")
        page.wait_for_function("n => window.Reveal && Reveal.isReady() && "
                               "Reveal.getIndices().h === n", arg=number - 1)
        page.evaluate("() => Reveal.configure({margin: 0})")  # drawn at scale 1
        page.wait_for_function("() => Reveal.getScale() === 1")
        height, content = figure_and_overflow(page, "section.present")
    finally:
        context.close()
    assert content <= SLIDE_HEIGHT, CASES[number]
    assert height >= least(number), CASES[number]


@pytest.fixture(scope="module")
def figures_pdf(figures_deck):
    return printed(figures_deck)


def test_only_the_too_full_slide_is_fitted_and_its_text_is_all_on_its_pdf_page(
        figures_deck, figures_pdf):
    from pypdf import PdfReader

    result = figures_pdf
    pages = PdfReader(io.BytesIO(result.data)).pages
    assert len(pages) == len(CASES) and result.continued == {} and result.scaled == {}
    assert list(figures_deck.fitted) == [figures_deck.slides[4].path]
    assert all(f"bulletword{n}" in pages[4].extract_text() for n in range(1, 13))
    assert all(f"bulletword{n}" in pages[2].extract_text() for n in range(1, 5))


def test_the_svg_figure_is_drawn_large_on_its_pdf_page(figures_pdf):
    import pypdfium2

    document = pypdfium2.PdfDocument(figures_pdf.data)
    bitmap = document[0].render(scale=1).to_pil().convert("L")
    # rows holding anything but the white background: the heading and the figure
    width, height = bitmap.size
    pixels = bitmap.load()
    inked = [y for y in range(height) if any(pixels[x, y] < 200 for x in range(0, width, 2))]
    assert inked and (inked[-1] - inked[0]) >= 0.7 * height
