"""Which notebook cells make which slide: the slideshow-metadata rules RISE, `jupyter
nbconvert --to slides` and Quarto read, the heading rule for a notebook without them, the
Jupyter Book tags, and the stable path of each slide.

Rules, in order:

- a cell tagged `remove-cell` is treated as if it were not there;
- with slideshow metadata (any cell's `metadata.slideshow.slide_type`): `slide` and
  `subslide` start a new slide page; `fragment`, `-` and cells without a type join the
  current one; `skip` cells are left out; `notes` cells become the current slide's speaker
  notes (kept with the slide, never shown on it). Cells before the first start open the
  first slide;
- without slideshow metadata: a Markdown cell whose first line is a level-1 or level-2
  heading (`# …`, `## …`) starts a slide, and every other cell joins the current one;
- a slide with nothing to show and no notes is dropped;
- slide `n` (from 1) of the deck is `FOLDER/NN-slug.html`, NN its number with two digits
  (three past 99), slug the first heading's words in lower-case ASCII, cut so that every
  path of the slide, its assets' too, has at most MAX_PATH_CHARS characters.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Sequence

from .display import MAX_PATH_CHARS

#: the slide types of `metadata.slideshow.slide_type`
STARTS = frozenset({"slide", "subslide"})
JOINS = frozenset({"fragment", "-"})
SKIP, NOTES = "skip", "notes"
SLIDE_TYPES = STARTS | JOINS | {SKIP, NOTES}
#: the Jupyter Book tags honoured
REMOVE_CELL, REMOVE_INPUT, REMOVE_OUTPUT, HIDE_INPUT = (
    "remove-cell", "remove-input", "remove-output", "hide-input")
#: the folder of a deck's slide pages (the Design prompt's convention: `slides/NN-topic.html`)
FOLDER = "slides"
#: the longest asset suffix a slide's stem must leave room for: `-NN.jpeg`
ASSET_SUFFIX_CHARS = 8
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


@dataclasses.dataclass(frozen=True)
class CellView:
    """What the rules need of one cell."""

    kind: str  # "markdown", "code" or "raw"
    source: str
    slide_type: str | None = None
    tags: frozenset[str] = frozenset()


@dataclasses.dataclass(frozen=True)
class SlideCells:
    """One slide: the indexes of the cells shown on it and of its notes cells, in order."""

    cells: tuple[int, ...]
    notes: tuple[int, ...] = ()


def has_slideshow_metadata(cells: Sequence[CellView]) -> bool:
    return any(c.slide_type in SLIDE_TYPES for c in cells)


def heading_of(source: str, levels: int = 6) -> tuple[int, str] | None:
    """The (level, text) of the first line when it is an ATX heading of at most `levels`."""
    first = next((line for line in source.splitlines() if line.strip()), "")
    match = _HEADING.match(first)
    if match is None or len(match.group(1)) > levels:
        return None
    return len(match.group(1)), match.group(2)


def _starts(cell: CellView, by_metadata: bool) -> bool:
    if by_metadata:
        return cell.slide_type in STARTS
    return cell.kind == "markdown" and heading_of(cell.source, 2) is not None


def slides_of(cells: Sequence[CellView]) -> list[SlideCells]:
    """The slides of a notebook, by the rules above."""
    by_metadata = has_slideshow_metadata(cells)
    groups: list[tuple[list[int], list[int]]] = []
    for index, cell in enumerate(cells):
        if REMOVE_CELL in cell.tags or (by_metadata and cell.slide_type == SKIP):
            continue
        if not groups or _starts(cell, by_metadata):
            groups.append(([], []))
        if by_metadata and cell.slide_type == NOTES:
            groups[-1][1].append(index)
        else:
            groups[-1][0].append(index)
    return [SlideCells(tuple(shown), tuple(notes)) for shown, notes in groups
            if any(cells[i].source.strip() or cells[i].kind == "code" for i in shown) or notes]


def slug(text: str, limit: int) -> str:
    """Lower-case ASCII words of `text` joined by `-`, at most `limit` characters, cut at a
    word where it can be."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    out = ""
    for word in words:
        candidate = f"{out}-{word}" if out else word
        if len(candidate) > limit:
            if not out:
                out = word[:limit]
            break
        out = candidate
    return out


def slide_stems(titles: Sequence[str]) -> list[str]:
    """Each slide's file stem `NN-slug` (or `NN` alone when the title has no ASCII word)."""
    digits = max(2, len(str(len(titles))))
    folder = len(FOLDER) + len("/assets/")
    room = MAX_PATH_CHARS - folder - ASSET_SUFFIX_CHARS
    stems = []
    for number, title in enumerate(titles, start=1):
        head = f"{number:0{digits}d}"
        words = slug(title, room - len(head) - 1)
        stems.append(f"{head}-{words}" if words else head)
    return stems


def slide_path(stem: str, folder: str = FOLDER) -> str:
    return f"{folder}/{stem}.html"


def asset_path(stem: str, number: int, extension: str, folder: str = FOLDER) -> str:
    return f"{folder}/assets/{stem}-{number:02d}.{extension}"
