"""The slideshow rules as a table: which cells make which slide (metadata, headings, the
Jupyter Book tags) and each slide's stable path within the card's path limit."""

from __future__ import annotations

import pytest

from jupyter_design_projects.core import slideshow
from jupyter_design_projects.core.slideshow import CellView, SlideCells, slides_of


def md(source: str, kind: str | None = None, *tags: str) -> CellView:
    return CellView("markdown", source, kind, frozenset(tags))


def code(source: str = "x", kind: str | None = None, *tags: str) -> CellView:
    return CellView("code", source, kind, frozenset(tags))


CASES = {
    "slide and subslide start pages; fragment and - join": (
        [md("# A", "slide"), md("b", "fragment"), md("c", "-"), md("# D", "subslide"),
         code("e")],
        [SlideCells((0, 1, 2)), SlideCells((3, 4))]),
    "skip is left out": (
        [md("# A", "slide"), code("import x", "skip"), md("b")],
        [SlideCells((0, 2))]),
    "notes are the current slide's notes": (
        [md("# A", "slide"), md("say hi", "notes"), md("# B", "slide"), md("n", "notes")],
        [SlideCells((0,), (1,)), SlideCells((2,), (3,))]),
    "cells before the first start open the first slide": (
        [md("intro"), md("# A", "slide")],
        [SlideCells((0,)), SlideCells((1,))]),
    "remove-cell is as if absent, its slide start too": (
        [md("# A", "slide"), code("secret", "slide", "remove-cell"), md("b", "fragment")],
        [SlideCells((0, 2))]),
    "a slide with nothing to show and no notes is dropped": (
        [md("# A", "slide"), md("   ", "slide"), md("# C", "slide")],
        [SlideCells((0,)), SlideCells((2,))]),
    "without metadata a level-1 or level-2 heading starts a slide": (
        [md("intro"), md("# One\ntext"), code(), md("### three is no start"),
         md("## Two")],
        [SlideCells((0,)), SlideCells((1, 2, 3)), SlideCells((4,))]),
    "without metadata a heading not on the first line does not start": (
        [md("# One"), md("text\n## not first")],
        [SlideCells((0, 1))]),
    "without metadata notes is not a type anyone used, so nothing is notes": (
        [md("# One"), md("plain")],
        [SlideCells((0, 1))]),
    "a code heading is no heading": (
        [md("# One"), code("# a comment")],
        [SlideCells((0, 1))]),
}


@pytest.mark.parametrize("name", CASES)
def test_which_cells_make_which_slide(name):
    cells, expected = CASES[name]
    assert slides_of(cells) == expected


def test_any_cell_with_a_slide_type_switches_to_the_metadata_rule():
    cells = [md("# One"), md("## Two", "-")]
    assert slideshow.has_slideshow_metadata(cells)
    assert slides_of(cells) == [SlideCells((0, 1))]


@pytest.mark.parametrize("source, found", [
    ("# Title", (1, "Title")), ("## Two ##", (2, "Two")), ("\n\n  ### Three", (3, "Three")),
    ("#NoSpace", None), ("    # indented code", None), ("text\n# later", None)])
def test_a_heading_is_the_first_line_when_it_is_an_atx_heading(source, found):
    assert slideshow.heading_of(source) == found


@pytest.mark.parametrize("title, stem", [
    ("Forecasting weekly demand", "01-forecasting-weekly-demand"),
    ("Ünïcödé & C++ — 2026!", "01-unicode-c-2026"),
    ("日本語", "01"),
    ("", "01")])
def test_a_stem_is_the_number_and_the_title_in_ascii_words(title, stem):
    assert slideshow.slide_stems([title]) == [stem]


def test_numbers_have_three_digits_past_99_slides():
    stems = slideshow.slide_stems(["a"] * 100)
    assert stems[0] == "001-a" and stems[-1] == "100-a"


def test_every_path_of_a_slide_fits_the_card_at_the_exact_limit():
    room = (slideshow.MAX_PATH_CHARS - len("slides/assets/") - slideshow.ASSET_SUFFIX_CHARS
            - len("01-"))
    at_limit = "a" * room
    over = "a" * (room + 1)
    for title, fits_whole in ((at_limit, True), (over, False)):
        stem = slideshow.slide_stems([title])[0]
        asset = slideshow.asset_path(stem, 99, "jpeg")
        assert len(asset) <= slideshow.MAX_PATH_CHARS
        assert len(slideshow.slide_path(stem)) <= slideshow.MAX_PATH_CHARS
        assert (stem == "01-" + title) is fits_whole
    assert len(slideshow.asset_path(slideshow.slide_stems([at_limit])[0], 99, "jpeg")) == \
        slideshow.MAX_PATH_CHARS


def test_a_long_title_is_cut_at_a_word():
    stem = slideshow.slide_stems(["word " * 40])[0]
    assert stem.startswith("01-word-word") and not stem.endswith("-")
    assert all(part in ("01", "word") for part in stem.split("-"))


def test_a_slide_of_only_an_empty_code_cell_is_kept():
    assert slides_of([md("# A", "slide"), code("", "slide")]) == [SlideCells((0,)),
                                                                  SlideCells((1,))]


@pytest.mark.parametrize("source", ["", "\n   \n"])
def test_a_blank_cell_has_no_heading(source):
    assert slideshow.heading_of(source) is None


@pytest.mark.parametrize(("text", "limit", "expected"), [
    ("ab cd", 5, "ab-cd"),          # exactly the limit
    ("ab cd", 4, "ab"),
    ("abcdefgh ij", 3, "abc"),      # a first word longer than the limit is cut
    ("", 10, ""),
    ("\u65e5\u672c", 10, ""),       # no ASCII word
])
def test_slug_is_cut_at_a_word_within_the_limit(text, limit, expected):
    assert slideshow.slug(text, limit) == expected
