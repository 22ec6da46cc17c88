"""When a slide is too long for its 16:9 page: fitted, then continued. One rule for the
previews, the PDF and the reveal.js file alike, since all three show the same pages.

A slide is a column of blocks (a heading, paragraphs, lists, tables, figures), each
estimated from its text: a run of text starting on its own line takes
ceil(characters x character width / line width) lines. Its content is then:

- shown as it is when it fits the page's room;
- else **fitted**: its blocks drawn smaller, by SCALE_STEP down to FIT_FLOOR, at the
  largest scale where it fits. Its text reflows across the full width at that size (the
  width a block has grows as its size shrinks), so a fitted slide keeps its margins and
  its lines get longer, not just smaller;
- else **continued**: cut between blocks, or between the items of a list or the rows of a
  table (`Block.items`), over as many slides as it needs at FIT_FLOOR, and drawn at the
  largest size that needs no more (so 30 bullets become two slides of 15 at the size 16
  fit, not a full slide and a last bullet alone); each
  continuation repeats the slide's heading (the first block, when it is one), which the
  renderer marks "(continued)". A block with no items that is taller than a page stays
  whole on a page of its own (the PDF fits what is left over).

Every length is in CSS px of the unscaled slide. Nothing here knows HTML.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

#: the smallest size a slide is fitted to before it is continued (half size: 30 px body
#: text is drawn at 15 px, still read easily on a 16:9 page)
FIT_FLOOR = 0.5
#: the sizes tried between 100 % and FIT_FLOOR
SCALE_STEP = 0.05


@dataclasses.dataclass(frozen=True)
class Run:
    """Text that starts on a line of its own."""

    chars: int
    char_px: float  # a character's average advance
    line_px: float  # a line's height


@dataclasses.dataclass(frozen=True)
class Block:
    """A block of the slide's column."""

    #: height that does not depend on the width: margins, padding, a figure's least height
    fixed_px: float = 0.0
    runs: tuple[Run, ...] = ()
    #: width its text and items lose (a list's indent)
    indent_px: float = 0.0
    #: the parts it may be cut between (a list's items, a table's rows); each part shown
    #: on a slide carries the block's `fixed_px` again
    items: tuple[Block, ...] = ()
    #: the slide's heading: repeated on each continuation
    heading: bool = False


@dataclasses.dataclass(frozen=True)
class Part:
    """A block on a page: whole (`items` None) or items [start, end) of it."""

    block: int
    items: tuple[int, int] | None = None


@dataclasses.dataclass(frozen=True)
class Fit:
    scale: float
    pages: tuple[tuple[Part, ...], ...]

    @property
    def fitted(self) -> bool:
        return self.scale < 1.0

    @property
    def continued(self) -> bool:
        return len(self.pages) > 1


def lines(run: Run, width: float) -> int:
    if run.chars <= 0:
        return 0
    return max(1, math.ceil(run.chars * run.char_px / max(width, 1.0)))


def height(block: Block, width: float) -> float:
    """The block's estimated height when its column is `width` px wide."""
    inner = max(width - block.indent_px, 1.0)
    return (block.fixed_px + sum(lines(r, inner) * r.line_px for r in block.runs)
            + sum(height(item, inner) for item in block.items))


def _items_height(block: Block, start: int, end: int, width: float) -> float:
    inner = max(width - block.indent_px, 1.0)
    head = Block(block.fixed_px, block.runs, block.indent_px)
    return height(head, width) + sum(height(i, inner) for i in block.items[start:end])


def scales(floor: float = FIT_FLOOR, step: float = SCALE_STEP) -> list[float]:
    """The sizes tried, largest first: 1.0, 0.95, …, `floor`."""
    count = int(round((1.0 - floor) / step))
    return [round(1.0 - n * step, 4) for n in range(count + 1)]


def fit(blocks: Sequence[Block], width: float, room: float,
        floor: float = FIT_FLOOR, step: float = SCALE_STEP) -> Fit:
    """How the slide of `blocks` is shown in a column `width` px wide and `room` px high
    (see the module)."""
    whole = (tuple(Part(n) for n in range(len(blocks))),)
    for scale in scales(floor, step):
        if scale * sum(height(b, width / scale) for b in blocks) <= room:
            return Fit(scale, whole)
    fewest = paginate(blocks, width / floor, room / floor)
    for scale in scales(floor, step):  # as large as the fewest continuations allow
        pages = paginate(blocks, width / scale, room / scale)
        if len(pages) <= len(fewest) and all(
                _page_px(blocks, page, width / scale) <= room / scale for page in pages):
            return Fit(scale, pages)
    return Fit(floor, fewest)  # a block taller than a page even at the floor


def _page_px(blocks: Sequence[Block], page: Sequence[Part], width: float) -> float:
    return sum(height(blocks[p.block], width) if p.items is None
               else _items_height(blocks[p.block], *p.items, width) for p in page)


def paginate(blocks: Sequence[Block], width: float, room: float) -> tuple[tuple[Part, ...], ...]:
    """`blocks` cut into pages of `room` px (at the size they are drawn), each page after
    the first opening with the heading."""
    heading = 0 if blocks and blocks[0].heading else None
    opening = [] if heading is None else [Part(heading)]
    opening_px = 0.0 if heading is None else height(blocks[heading], width)
    pages: list[list[Part]] = []
    page: list[Part] = []
    used = 0.0

    def new_page() -> None:
        nonlocal page, used
        pages.append(page)
        page, used = list(opening), opening_px

    for number, block in enumerate(blocks):
        if number == heading:
            page.append(Part(number))
            used += opening_px
            continue
        size = height(block, width)
        alone = len(page) == len(opening)
        if used + size <= room or (alone and not block.items):
            page.append(Part(number))
            used += size
            continue
        if not block.items:
            new_page()
            page.append(Part(number))
            used += size
            continue
        start = 0
        while start < len(block.items):
            end = start
            while (end < len(block.items)
                   and used + _items_height(block, start, end + 1, width) <= room):
                end += 1
            if end == start:
                if len(page) > len(opening):
                    new_page()
                    continue
                end = start + 1  # one item taller than a page: alone on its page
            page.append(Part(number, (start, end)))
            used += _items_height(block, start, end, width)
            start = end
            if start < len(block.items):
                new_page()
    pages.append(page)
    return tuple(tuple(p) for p in pages if p)


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What fitting did to one slide, as the messages name it."""

    scale: float
    pages: int = 1


def describe(outcome: Outcome) -> str:
    """'fitted at 80 %' or 'continued over 2 slides at 50 %' (one phrase per slide)."""
    percent = f"{round(outcome.scale * 100)} %"
    if outcome.pages > 1:
        return f"continued over {outcome.pages} slides at {percent}"
    return f"fitted at {percent}"


def summary(outcomes: Mapping[str, Outcome]) -> str:
    """One line naming each slide fitted or continued, once each, or "" when there is
    none: what staging, the push card and the export say."""
    said = [f"{path} {describe(o)}" for path, o in outcomes.items()
            if o.pages > 1 or o.scale < 1.0]
    if not said:
        return ""
    return "Too long for one slide: " + "; ".join(said) + "."


def pictured_summary(titles: Mapping[str, str]) -> str:
    """One line naming, slide by slide, those exported as a picture (path -> heading)."""
    if not titles:
        return ""
    said = [f"{path} ({title!r})" for path, title in titles.items()]
    return ("Exported as the service's picture of the slide (its text is part of the "
            "picture, not text): " + "; ".join(said) + ".")
