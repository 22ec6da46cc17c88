"""A notebook read as slides: nbformat in, one slide page per slide (by the rules of
`core.slideshow`) out, each cell shown as a reader expects.

- Markdown through markdown-it-py, its raw HTML kept as Jupyter renders it (`<center>`,
  `<img>`, `<details>`, …) through `allowlist` (nothing that runs or loads survives), with
  `$…$` and `$$…$$` turned from TeX into MathML (latex2mathml, cleaned after conversion),
  which Chromium draws natively; a formula latex2mathml cannot read stays as its TeX, in
  code.
- Code cells show their outputs: PNG, JPEG and SVG figures become assets beside the slide
  (SVG first, as nbconvert chooses), `text/html` (a DataFrame) goes through the allowlist,
  `text/markdown` and `text/latex` are read as Markdown, `text/plain` and stdout are shown
  as text; error outputs and stderr are left out and listed. With `code=True` the inputs
  are shown too, highlighted by Pygments.
- The Jupyter Book tags: `remove-cell` (as if absent), `remove-input`, `remove-output`,
  and `hide-input` (a static slide has nothing to unfold, so the input is not shown).
- Images a Markdown cell references by a relative path (inside the notebook's folder), in
  Markdown or in its raw HTML, and cell attachments become assets; remote URLs are never
  fetched, only listed as skipped.
- A `fragment` cell is kept in a `<div class="fragment">` (it steps in the reveal.js
  export; a page and the PDF show it with its slide).
- Notes cells become the slide's speaker notes: kept in the page, never visible on it,
  cleaned as the slide is.
- Slides are numbered and named after the slides shown (the first is `01`), from their
  heading (Markdown or HTML); the first slide, when it has a top heading, is laid out as a
  title slide.

Each slide's cells are drawn by `notebook_cells`. Bad input (not JSON, not nbformat 4, an
image outside the notebook's folder) raises `InvalidArguments` before anything is staged.
"""

from __future__ import annotations

import dataclasses
import html
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...core import slideshow
from ...core.slideshow import CellView
from .notebook_cells import SlideCells, refuse, source_of
from .slides import Asset

#: the CSS a notebook slide adds to the deck's stylesheet
NOTEBOOK_CSS = (
    ".jdp-notes{display:none}"
    ".jdp-code{font-size:20px;line-height:1.35;margin:8px 0;padding:8px 12px;"
    "border-radius:6px;overflow:hidden;white-space:pre-wrap;color:#1b1f24}"
    ".jdp-output{font-size:22px;line-height:1.35;margin:8px 0;white-space:pre-wrap}"
    ".jdp-html table{font-size:22px}"
    "math[display=block]{margin:12px 0;font-size:1.1em}"
)


@dataclasses.dataclass(frozen=True)
class NotebookSlide:
    """One slide read from the notebook: its path, title, body and notes HTML, assets."""

    path: str
    title: str
    body: str
    notes: str
    assets: tuple[Asset, ...]
    cells: tuple[int, ...]
    #: "title" for the deck's title slide, else ""
    layout: str = ""


@dataclasses.dataclass
class NotebookReading:
    """The slides of a notebook, and what was left out of them (each listed)."""

    source: str
    rule: str  # "slideshow metadata" or "headings"
    slides: list[NotebookSlide]
    skipped: list[str] = dataclasses.field(default_factory=list)
    left_out: list[str] = dataclasses.field(default_factory=list)
    #: the notebook's authors (`metadata.authors`, as nbconvert reads them), or ""
    author: str = ""


def load(path: str | os.PathLike[str]) -> Any:
    """The notebook at `path` as an nbformat 4 node, or a clear InvalidArguments."""
    import nbformat

    file = Path(path)
    if file.suffix != ".ipynb":
        raise refuse("path", f"{str(path)!r} is not a notebook (.ipynb)")
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise refuse("path", f"{str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise refuse("path", f"{str(path)!r} cannot be read ({type(exc).__name__})") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise refuse("path", f"{str(path)!r} is not valid JSON (line {exc.lineno}, "
                             f"column {exc.colno}): is it a notebook?") from None
    major = raw.get("nbformat") if isinstance(raw, dict) else None
    if major != 4:
        raise refuse("path", f"{str(path)!r} is not an nbformat 4 notebook (nbformat "
                             f"{major!r}): open and save it in Jupyter to upgrade it")
    try:
        notebook = nbformat.reads(text, as_version=4)
        nbformat.validate(notebook)
    except Exception as exc:  # nbformat's ValidationError and its readers' errors
        line = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
        raise refuse("path", f"{str(path)!r} is not a valid nbformat 4 notebook: "
                             f"{line or type(exc).__name__}") from None
    return notebook


def cell_view(cell: Any) -> CellView:
    metadata = cell.get("metadata") or {}
    slideshow_meta = metadata.get("slideshow") or {}
    slide_type = slideshow_meta.get("slide_type") if isinstance(slideshow_meta, dict) else None
    tags = metadata.get("tags") or []
    return CellView(str(cell.get("cell_type", "")), source_of(cell),
                    slide_type if isinstance(slide_type, str) else None,
                    frozenset(t for t in tags if isinstance(t, str)))


def _plain_title(markdown: str) -> str:
    """A heading's text without its inline Markdown marks."""
    return re.sub(r"[*_`]|\$+|!?\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "",
                  markdown).strip()


_HTML_HEADING = re.compile(r"<h([1-6])\b[^>]*>(.*?)</h\1\s*>", re.IGNORECASE | re.DOTALL)


def heading(source: str) -> tuple[int, str] | None:
    """A Markdown cell's first heading (level, plain text): a Markdown heading, else an
    HTML `<h1>`…`<h6>` (as in `<center><h1>…</h1></center>`)."""
    fenced = False
    for line in source.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        found = None if fenced else slideshow.heading_of(line)
        if found:
            return found[0], _plain_title(found[1])
    tag = _HTML_HEADING.search(source)
    if tag:
        text = html.unescape(re.sub(r"<[^>]*>", "", tag.group(2)))
        return int(tag.group(1)), " ".join(text.split())
    return None


def title_for(cells: Sequence[CellView], indexes: Sequence[int], number: int) -> str:
    for i in indexes:
        if cells[i].kind == "markdown":
            found = heading(cells[i].source)
            if found:
                return found[1] or f"Slide {number}"
    return f"Slide {number}"


def authors_of(notebook: Any) -> str:
    """The notebook's `metadata.authors` names, joined (nbformat's documented field)."""
    authors = (notebook.get("metadata") or {}).get("authors") or []
    names = [a.get("name") if isinstance(a, dict) else a for a in authors]
    return ", ".join(n.strip() for n in names if isinstance(n, str) and n.strip())[:200]


def _is_title_slide(cells: Sequence[CellView], indexes: Sequence[int]) -> bool:
    """A slide whose first heading is a top one (H1): the deck's title slide."""
    for i in indexes:
        if cells[i].kind == "markdown" and (found := heading(cells[i].source)):
            return found[0] == 1
    return False


def _render(notebook: Any, cells: Sequence[CellView], group: Any, folder: Path,
            stem: str, code: bool, reading: NotebookReading) -> tuple[str, str, Any]:
    """A slide's body and notes HTML, and its renderer (holding its assets)."""
    renderer = SlideCells(notebook, folder, stem, code, reading.skipped, reading.left_out)
    body = []
    for i in group.cells:
        cell = notebook.cells[i]
        shown = ""
        if cells[i].kind == "markdown":
            shown = renderer.markdown(i, cell)
        elif cells[i].kind == "code":
            shown = renderer.code_cell(i, cell, cells[i].tags)
        if shown and cells[i].slide_type == "fragment":  # steps in the reveal.js export
            shown = f'<div class="fragment">{shown}</div>'
        body.append(shown)
    notes = []
    for i in group.notes:
        cell = notebook.cells[i]
        notes.append(renderer.markdown(i, cell) if cells[i].kind == "markdown"
                     else f"<pre>{html.escape(cells[i].source)}</pre>")
    notes_html = (f'<aside class="jdp-notes" hidden>{"".join(notes)}</aside>'
                  if notes else "")
    return "".join(body), notes_html, renderer


def read(path: str | os.PathLike[str], code: bool = False) -> NotebookReading:
    """The slides of the notebook at `path` (see the module's docstring)."""
    notebook = load(path)
    cells = [cell_view(c) for c in notebook.cells]
    rule = "slideshow metadata" if slideshow.has_slideshow_metadata(cells) else "headings"
    reading = NotebookReading(str(path), rule, [], author=authors_of(notebook))
    folder = Path(path).parent
    # a first pass finds the slides that show something, so they are numbered from 01
    scratch = NotebookReading(str(path), rule, [])
    groups = []
    for group in slideshow.slides_of(cells):
        body, notes, _ = _render(notebook, cells, group, folder, "x", code, scratch)
        if body.strip() or notes:
            groups.append(group)
        elif group.cells:  # said, never dropped silently
            numbers = ", ".join(str(i + 1) for i in group.cells)
            why = ("only code inputs: --code shows them" if not code and any(
                cells[i].kind == "code" for i in group.cells) else "nothing to show")
            reading.left_out.append(f"a slide of cell(s) {numbers} ({why})")
    titles = [title_for(cells, g.cells, n) for n, g in enumerate(groups, start=1)]
    for number, (group, title, stem) in enumerate(
            zip(groups, titles, slideshow.slide_stems(titles), strict=True), start=1):
        body, notes, renderer = _render(notebook, cells, group, folder, stem, code, reading)
        layout = "title" if number == 1 and _is_title_slide(cells, group.cells) else ""
        reading.slides.append(NotebookSlide(slideshow.slide_path(stem), title, body,
                                            notes, tuple(renderer.assets),
                                            group.cells + group.notes, layout))
    return reading
