"""Nothing is lost on a PDF page (`design/deck/pdf.py`), in a real Chromium: a tall slide, a
long code cell and a 12-bullet slide are fitted when staged (`fit`: drawn smaller, to
FIT_FLOOR at most), a slide too tall even then is continued on slides of its own, each
repeating its heading "(continued)"; a wide table is fitted by the print's scale (width
cannot be continued); pypdf finds every visible text of every slide on the pages; the PDF
carries the deck's title and author."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from jupyter_design_projects.design.deck import Deck, pdf
from jupyter_design_projects.design.deck import export as exporting
from tests.deck_staged import staged_export


def slide(source: str, kind: str = "slide"):
    return new_markdown_cell(source, metadata={"slideshow": {"slide_type": kind}})


def wide_table() -> str:
    head = "".join(f"<th>col{c}</th>" for c in range(24))
    row = "".join(f"<td>{c * 1000 + 123}.45</td>" for c in range(24))
    return f"<table><thead><tr>{head}</tr></thead><tbody><tr>{row}</tr></tbody></table>"


def talk(tmp_path: Path) -> Path:
    code = "\n".join(f"value_{i:02d} = compute({i})  # step {i}" for i in range(40))
    notebook = new_notebook(cells=[
        slide("# Nothing lost\n\nA deck for the printer\n\n*Ana Ruiz*"),
        slide("## Twelve points\n\n" + "\n".join(f"- bullet point number {i}"
                                                 for i in range(1, 13))),
        slide("## Tall\n\n" + "\n\n".join(f"Paragraph tallword{i} of the tall slide."
                                          for i in range(1, 11))),
        slide("## Wide"), new_code_cell("frame", outputs=[
            new_output("display_data", data={"text/html": wide_table()})]),
        slide("## Long code"), new_code_cell(code),
        slide("## Very tall\n\n" + "\n\n".join(f"Line verytall{i} goes on." for i in
                                               range(1, 41))),
        slide("## The end\n\nThank you, endword."),  # fits, after slides that do not
    ])
    notebook.metadata["authors"] = [{"name": "Ana Ruiz"}, {"name": "Bo Chen"}]
    path = tmp_path / "printer.ipynb"
    nbformat.write(notebook, path)
    return path


def exported(tmp_path: Path) -> exporting.Export:
    deck = Deck(client=None, project_id="p")
    deck.add_notebook(talk(tmp_path), code=True)
    return staged_export(deck)


@pytest.fixture(scope="module")
def printed(tmp_path_factory) -> tuple[exporting.Export, pdf.Printed]:
    read = exported(tmp_path_factory.mktemp("printer"))
    return read, asyncio.run(pdf.pdf_bytes(read, title=read.slides[0].title,
                                           author=read.author))


def words(text: str) -> set[str]:
    return set(text.split())


def test_every_visible_text_of_every_slide_is_on_the_pages(printed):
    from pypdf import PdfReader

    read, result = printed
    reader = PdfReader(io.BytesIO(result.data))
    on_pages = words(" ".join(page.extract_text() for page in reader.pages))
    expected = ([f"number {i}" for i in range(1, 13)] + [f"tallword{i}" for i in range(1, 11)]
                + [f"{c * 1000 + 123}.45" for c in range(24)] + ["col0", "col23"]
                + [f"value_{i:02d}" for i in range(40)] + [f"verytall{i}" for i in
                                                            range(1, 41)])
    missing = [e for e in expected if not set(e.split()) <= on_pages]
    assert missing == []


def test_each_slide_is_on_its_own_pages_in_the_decks_order(printed):
    """The slides that fit come from one print of the whole sheet and the others are
    printed on their own: each must still land at its place."""
    from pypdf import PdfReader

    read, result = printed
    texts = [words(page.extract_text()) for page in PdfReader(io.BytesIO(result.data)).pages]
    marks = ["Nothing", "number", "tallword1", "col0", "value_00", "verytall1",
             "verytall16", "verytall31", "endword."]
    assert len(marks) == len(read.slides) == len(texts)
    first = [next(n for n, text in enumerate(texts) if mark in text) for mark in marks]
    assert first == list(range(len(marks)))
    assert "endword." not in set().union(*texts[:-1])


def test_overflowing_slides_are_fitted_no_lower_than_the_floor_and_named_once(printed):
    read, result = printed
    paths = [s.path for s in read.slides]
    assert paths[0] == "slides/01-nothing-lost.html" and paths[0] not in read.fitted
    for fitted in ("slides/02-twelve-points.html", "slides/03-tall.html",
                   "slides/05-long-code.html"):
        assert pdf.FIT_FLOOR <= read.fitted[fitted].scale < 1.0, fitted
        assert read.fitted[fitted].pages == 1
    # fitted before printing: the print scales only what is too wide (width is always
    # fitted), and says so once
    assert list(result.scaled) == ["slides/04-wide.html"] and result.continued == {}
    assert result.scaled["slides/04-wide.html"] < 1.0


def test_a_slide_too_tall_at_the_floor_is_continued_and_named(printed):
    from pypdf import PdfReader

    read, result = printed
    tall = "slides/06-very-tall.html"
    assert read.fitted[tall].pages == 3 and read.fitted[tall].scale >= pdf.FIT_FLOOR
    assert [s.path for s in read.slides][5:8] == [
        tall, "slides/06-very-tall_2.html", "slides/06-very-tall_3.html"]
    pages = PdfReader(io.BytesIO(result.data)).pages
    assert len(pages) == len(read.slides)
    for page in pages[6:8]:  # a continuation repeats its slide's heading, marked
        assert " ".join(page.extract_text().split()).startswith("Very tall (continued)")
    assert all(round(float(p.mediabox.width) / float(p.mediabox.height), 3)
               == round(16 / 9, 3) for p in pages)


def test_the_pdf_carries_the_decks_title_and_author(printed):
    from pypdf import PdfReader

    metadata = PdfReader(io.BytesIO(printed[1].data)).metadata
    assert metadata.title == "Nothing lost" and metadata.author == "Ana Ruiz, Bo Chen"


@pytest.mark.parametrize("width, height, scale, continued", [
    (1280, 720, 1.0, False),  # fits
    (1280, 1440, 0.5, False),  # exactly the floor
    (1280, 1441, 0.5, True),  # just under it: continued
    (2560, 720, 0.5, False),  # twice too wide: fitted, never continued
    (12800 * 2, 720, pdf.PRINT_SCALE_MIN, False),  # wider than the smallest print scale
])
def test_fit_scale_on_each_side_of_the_floor(width, height, scale, continued):
    got, more = pdf.fit_scale(width, height)
    assert (round(got, 4), more) == (scale, continued)


def test_without_pypdf_the_export_is_one_line_naming_the_extra(monkeypatch):
    import sys

    from jupyter_design_projects.errors import ConfigError

    monkeypatch.setitem(sys.modules, "pypdf", None)  # import pypdf raises ImportError
    export = exporting.Export([exporting.ExportedSlide("slides/01.html", "t", "<p>x</p>", "")])
    with pytest.raises(ConfigError) as refused:
        asyncio.run(pdf.pdf_bytes(export))
    assert "\n" not in str(refused.value) and "[export]" in str(refused.value)
    assert "`lab` extra" in str(refused.value)


def test_the_lab_extra_holds_what_export_needs():
    import tomllib

    extras = tomllib.loads((Path(__file__).parents[3] / "pyproject.toml").read_text())[
        "project"]["optional-dependencies"]
    names = {req.split(">")[0].split("=")[0].split("[")[0] for req in extras["lab"]}
    needs = {req.split(">")[0] for req in extras["export"]}
    assert needs <= names
