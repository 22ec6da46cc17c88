"""The fit-then-continue rule of a slide too long for its page (core/slide_fit.py)."""

from __future__ import annotations

import pytest

from jupyter_design_projects.core import slide_fit
from jupyter_design_projects.core.slide_fit import Block, Outcome, Part, Run

HEADING = Block(8, (Run(10, 30, 70),), heading=True)
LINE = Block(0, (Run(10, 10, 40),))  # one line of 40 px at any width over 100 px


def bullets(count: int) -> Block:
    return Block(30, indent_px=40, items=tuple(Block(0, (Run(5, 10, 40),))
                                                for _ in range(count)))


@pytest.mark.parametrize(("blocks", "room", "scale", "pages"), [
    # fits as it is: 78 + 10 x 40 = 478 px
    ([HEADING] + [LINE] * 10, 478, 1.0, 1),
    # one px short: the next size down (0.95 x 478 = 454.1 fits 477)
    ([HEADING] + [LINE] * 10, 477, 0.95, 1),
    # exactly at the floor: 0.5 x 478 = 239
    ([HEADING] + [LINE] * 10, 239, 0.5, 1),
    # below it: continued; 2 slides at the floor, and 2 still at 85 % (280 px a slide:
    # the heading and 5 lines), not at 90 % (264 px: 4 lines, 3 slides)
    ([HEADING] + [LINE] * 10, 238, 0.85, 2),
])
def test_fitted_down_to_the_floor_then_continued(blocks, room, scale, pages):
    shown = slide_fit.fit(blocks, 1000, room)
    assert (shown.scale, len(shown.pages)) == (scale, pages)


def test_fitted_text_reflows_across_the_wider_column():
    """At a smaller size a run takes fewer lines: 200 characters of 10 px are 2 lines at
    1000 px, 1 line at 2000 px (a fit of 50 %): 0.5 x 40 = 20 px."""
    paragraph = Block(0, (Run(200, 10, 40),))
    assert slide_fit.height(paragraph, 1000) == 80
    assert slide_fit.height(paragraph, 2000) == 40
    assert slide_fit.fit([paragraph], 1000, 20).scale == 0.5


def test_a_long_list_is_cut_between_its_items_and_each_page_repeats_the_heading():
    # at the floor (600 px a page): 78 heading + 30 list + 12 x 40 = 588, so 3 pages
    # (12, 12, 6); 3 pages are still enough at 55 % (545 px: 10 items a page), not at 60 %
    # (500 px: 9 a page, 4 pages)
    shown = slide_fit.fit([HEADING, bullets(30)], 1000, 300)
    assert shown.scale == 0.55 and shown.continued
    for page in shown.pages:
        assert page[0] == Part(0)
    items = [p.items for page in shown.pages for p in page if p.block == 1]
    assert items[0][0] == 0 and items[-1][1] == 30
    assert all(a[1] == b[0] for a, b in zip(items, items[1:], strict=False))
    assert items == [(0, 10), (10, 20), (20, 30)]


def test_a_block_that_cannot_be_cut_starts_a_new_page_with_the_heading():
    tall = Block(500)
    shown = slide_fit.fit([HEADING, LINE, tall, LINE], 1000, 150)
    assert shown.pages == ((Part(0), Part(1)), (Part(0), Part(2)), (Part(0), Part(3)))


def test_without_a_heading_nothing_is_repeated():
    shown = slide_fit.fit([LINE] * 20, 1000, 200)
    assert shown.pages == ((tuple(Part(n) for n in range(10))),
                           (tuple(Part(n) for n in range(10, 20))))


def test_a_block_taller_than_a_page_stays_whole_on_its_own():
    shown = slide_fit.fit([HEADING, Block(5000)], 1000, 300)
    assert shown.pages == ((Part(0), Part(1)),)


def test_scales_are_the_steps_down_to_the_floor():
    assert slide_fit.scales() == [1.0, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5]


@pytest.mark.parametrize(("outcomes", "said"), [
    ({}, ""),
    ({"slides/01-a.html": Outcome(1.0)}, ""),
    ({"slides/02-b.html": Outcome(0.8)},
     "Too long for one slide: slides/02-b.html fitted at 80 %."),
    ({"slides/02-b.html": Outcome(0.5, 2), "slides/03-c.html": Outcome(0.95)},
     "Too long for one slide: slides/02-b.html continued over 2 slides at 50 %; "
     "slides/03-c.html fitted at 95 %."),
])
def test_one_phrase_per_slide(outcomes, said):
    assert slide_fit.summary(outcomes) == said


def test_pictured_slides_are_named_with_their_heading():
    assert slide_fit.pictured_summary({}) == ""
    said = slide_fit.pictured_summary({"slides/06-weekly-demand.html": "Weekly demand"})
    assert "slides/06-weekly-demand.html ('Weekly demand')" in said
    assert "not text" in said
