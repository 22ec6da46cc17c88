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

Bad input (not JSON, not nbformat 4, an image outside the notebook's folder) raises
`InvalidArguments` before anything is staged.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import html
import json
import os
import posixpath
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ...core import slideshow
from ...core.slideshow import CellView
from ...errors import InvalidArguments
from .allowlist import clean
from .slides import Asset

OPERATION = "deck from-notebook"
#: output types in the order a cell's richest one is chosen (as nbconvert does)
MIME_ORDER = ("text/html", "image/svg+xml", "image/png", "image/jpeg", "text/markdown",
              "text/latex", "text/plain")
IMAGE_TYPES = {"image/png": "png", "image/jpeg": "jpeg", "image/svg+xml": "svg",
               "image/gif": "gif", "image/webp": "webp"}
EXTENSION_TYPES = {"png": "png", "jpg": "jpeg", "jpeg": "jpeg", "svg": "svg", "gif": "gif",
                   "webp": "webp"}
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


def _refuse(field: str, rule: str) -> InvalidArguments:
    return InvalidArguments(OPERATION, field, rule)


def load(path: str | os.PathLike[str]) -> Any:
    """The notebook at `path` as an nbformat 4 node, or a clear InvalidArguments."""
    import nbformat

    file = Path(path)
    if file.suffix != ".ipynb":
        raise _refuse("path", f"{str(path)!r} is not a notebook (.ipynb)")
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise _refuse("path", f"{str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise _refuse("path", f"{str(path)!r} cannot be read ({type(exc).__name__})") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _refuse("path", f"{str(path)!r} is not valid JSON (line {exc.lineno}, "
                              f"column {exc.colno}): is it a notebook?") from None
    major = raw.get("nbformat") if isinstance(raw, dict) else None
    if major != 4:
        raise _refuse("path", f"{str(path)!r} is not an nbformat 4 notebook (nbformat "
                              f"{major!r}): open and save it in Jupyter to upgrade it")
    try:
        notebook = nbformat.reads(text, as_version=4)
        nbformat.validate(notebook)
    except Exception as exc:  # nbformat's ValidationError and its readers' errors
        line = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
        raise _refuse("path", f"{str(path)!r} is not a valid nbformat 4 notebook: "
                              f"{line or type(exc).__name__}") from None
    return notebook


def _source(cell: Any) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def cell_view(cell: Any) -> CellView:
    metadata = cell.get("metadata") or {}
    slideshow_meta = metadata.get("slideshow") or {}
    slide_type = slideshow_meta.get("slide_type") if isinstance(slideshow_meta, dict) else None
    tags = metadata.get("tags") or []
    return CellView(str(cell.get("cell_type", "")), _source(cell),
                    slide_type if isinstance(slide_type, str) else None,
                    frozenset(t for t in tags if isinstance(t, str)))


# ---------------------------------------------------------------- Markdown with math


def _math(tex: str, display: bool) -> str:
    from latex2mathml.converter import convert

    try:
        return convert(tex.strip(), display="block" if display else "inline")
    except Exception:  # latex2mathml raises its own errors (and others) on unknown TeX
        return f'<code class="jdp-tex">{html.escape(tex)}</code>'


def _markdown() -> Any:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    dollarmath_plugin(md, allow_space=True, allow_digits=False, double_inline=True,
                      renderer=lambda content, options: _math(content,
                                                              options["display_mode"]))
    return md


#: `<img … src=…>` in raw HTML: the part before the value, and the value in its quotes
_HTML_SRC = re.compile(r"""(<img\b[^>]*?\bsrc\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s>]+))""",
                       re.IGNORECASE)


def _is_remote(src: str) -> bool:
    parts = urlsplit(src)
    return bool(parts.scheme) or src.startswith("//")


class _Cells:
    """Turns the cells of one slide into HTML, collecting assets and what was left out."""

    def __init__(self, notebook: Any, folder: Path, stem: str, code: bool,
                 reading: NotebookReading) -> None:
        self.notebook = notebook
        self.folder = folder
        self.stem = stem
        self.code = code
        self.reading = reading
        self.assets: list[Asset] = []
        self.md = _markdown()

    # ------------------------------------------------------------ assets

    def _asset(self, data: bytes, extension: str) -> str:
        """Add an asset; its path relative to the slide page."""
        for asset in self.assets:  # the same picture twice on a slide is one asset
            if asset.data == data and asset.path.endswith("." + extension):
                return posixpath.relpath(asset.path, slideshow.FOLDER)
        path = slideshow.asset_path(self.stem, len(self.assets) + 1, extension)
        self.assets.append(Asset(path, data))
        return posixpath.relpath(path, slideshow.FOLDER)

    def _image_src(self, index: int, cell: Any, src: str) -> str | None:
        """The slide-relative asset for an image reference, or None (listed as skipped)."""
        where = f"cell {index + 1}"
        if src.startswith("attachment:"):
            name = unquote(src[len("attachment:"):])
            bundle = (cell.get("attachments") or {}).get(name) or {}
            for mime, extension in IMAGE_TYPES.items():
                if mime in bundle:
                    return self._asset(_bytes_of(bundle[mime], mime), extension)
            self.reading.skipped.append(f"{where}: attachment {name!r} (not found or not "
                                        "an image)")
            return None
        if _is_remote(src):
            self.reading.skipped.append(f"{where}: {src} (remote; not fetched)")
            return None
        relative = unquote(urlsplit(src).path)
        kind = EXTENSION_TYPES.get(relative.rsplit(".", 1)[-1].lower())
        root = self.folder.resolve()
        target = (root / relative).resolve()
        if relative.startswith("/") or not target.is_relative_to(root):
            raise _refuse("image", f"{src!r} ({where}) leaves the notebook's folder "
                                   f"{str(root)!r}: copy the image beside the notebook")
        if kind is None:
            self.reading.skipped.append(f"{where}: {src} (not a PNG, JPEG, GIF, WebP or "
                                        "SVG image)")
            return None
        try:
            data = target.read_bytes()
        except OSError:
            self.reading.skipped.append(f"{where}: {src} (no such file)")
            return None
        return self._asset(data, kind)

    # ------------------------------------------------------------ cells

    def markdown(self, index: int, cell: Any, text: str | None = None) -> str:
        tokens = self.md.parse(_source(cell) if text is None else text)
        for token in tokens:
            for child in token.children or []:
                if child.type != "image":
                    continue
                src = str(child.attrGet("src") or "")
                new = self._image_src(index, cell, src)
                if new is None:  # shown as its alt text
                    child.type, child.tag, child.nesting = "text", "", 0
                    child.content = "[image: " + (child.content or src) + "]"
                    child.attrs = {}
                    child.children = None
                else:
                    child.attrSet("src", new)
        for token in tokens:  # raw HTML: its images too
            if token.type == "html_block":
                token.content = self._html_images(index, cell, token.content)
            for child in token.children or []:
                if child.type == "html_inline":
                    child.content = self._html_images(index, cell, child.content)
        return str(self.md.renderer.render(tokens, self.md.options, {}))

    def _html_images(self, index: int, cell: Any, raw: str) -> str:
        """Raw HTML with each `<img src>` made the slide's asset, or left without a source
        (listed as skipped) when it is remote or not an image."""
        def swap(match: re.Match[str]) -> str:
            src = html.unescape(match.group(2) or match.group(3) or match.group(4) or "")
            if src.startswith("data:"):
                return match.group(0)
            new = self._image_src(index, cell, src)
            return f'{match.group(1)}"{html.escape(new or "", quote=True)}"'

        return _HTML_SRC.sub(swap, raw)

    def code_cell(self, index: int, cell: Any, tags: frozenset[str]) -> str:
        parts = []
        hidden = {slideshow.REMOVE_INPUT, slideshow.HIDE_INPUT} & tags
        if self.code and not hidden and _source(cell).strip():
            parts.append(self._highlight(_source(cell)))
        if slideshow.REMOVE_OUTPUT not in tags:
            for output in cell.get("outputs") or []:
                parts.append(self._output(index, output))
        return "".join(parts)

    def _highlight(self, source: str) -> str:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import get_lexer_by_name
        from pygments.util import ClassNotFound

        info = self.notebook.get("metadata", {}).get("language_info") or {}
        try:
            lexer = get_lexer_by_name(str(info.get("name") or "python"))
        except ClassNotFound:
            lexer = get_lexer_by_name("text")
        formatter = HtmlFormatter(noclasses=True, nowrap=True, style="default")
        return (f'<pre class="jdp-code" style="background-color:#f6f8fa">'
                f"{highlight(source, lexer, formatter)}</pre>")

    def _output(self, index: int, output: Any) -> str:
        kind = output.get("output_type")
        where = f"cell {index + 1}"
        if kind == "error":
            self.reading.left_out.append(f"{where}: error output {output.get('ename', '')}: "
                                         f"{str(output.get('evalue', ''))[:120]}")
            return ""
        if kind == "stream":
            if output.get("name") == "stderr":
                self.reading.left_out.append(f"{where}: stderr output")
                return ""
            return f'<pre class="jdp-output">{html.escape(_text(output.get("text")))}</pre>'
        data = output.get("data") or {}
        mime = next((m for m in MIME_ORDER if m in data), None)
        if mime is None:
            if data:
                self.reading.left_out.append(f"{where}: output of type "
                                             f"{', '.join(sorted(data))}")
            return ""
        value = data[mime]
        if mime in IMAGE_TYPES:
            src = self._asset(_bytes_of(value, mime), IMAGE_TYPES[mime])
            alt = html.escape(_text(data.get("text/plain", "figure"))[:200], quote=True)
            return (f'<figure><img class="jdp-figure" src="{html.escape(src, quote=True)}" '
                    f'alt="{alt}"></figure>')
        if mime == "text/html":
            return f'<div class="jdp-html">{sanitize(_text(value))}</div>'
        if mime in ("text/markdown", "text/latex"):
            return self.markdown(index, {}, _text(value))
        return f'<pre class="jdp-output">{html.escape(_text(value))}</pre>'


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _bytes_of(value: Any, mime: str) -> bytes:
    """An output's or attachment's bytes: SVG is text, the others base64."""
    text = _text(value)
    if mime == "image/svg+xml":
        return text.encode("utf-8")
    try:
        return base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise _refuse("output", f"a {mime} output is not valid base64") from None


def sanitize(fragment: str) -> str:
    """HTML from an output, reduced to what a slide may hold (`allowlist`)."""
    return clean(fragment)


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
    renderer = _Cells(notebook, folder, stem, code, reading)
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
