"""The cells of one notebook slide drawn as HTML (`from_notebook` reads the notebook and
groups its cells into slides): Markdown through markdown-it-py with `$…$` / `$$…$$` as
MathML and its raw HTML through `allowlist`; code cells' outputs in nbconvert's order of
richness (figures as assets beside the slide, HTML through the allowlist, Markdown and
LaTeX as Markdown, text as text; errors and stderr left out and listed); inputs shown with
`code`, highlighted by Pygments; images a cell references inside the notebook's folder and
cell attachments made assets, remote URLs never fetched (listed as skipped)."""

from __future__ import annotations

import base64
import binascii
import html
import posixpath
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ...core import slideshow
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


def refuse(field: str, rule: str) -> InvalidArguments:
    """The error of a notebook that cannot be read as slides (nothing is staged)."""
    return InvalidArguments(OPERATION, field, rule)


def source_of(cell: Any) -> str:
    """A cell's source as one string (nbformat keeps it as a string or a list of lines)."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


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


class SlideCells:
    """Turns the cells of one slide into HTML, collecting its assets, and listing what was
    skipped (images not made assets) and left out (outputs not shown) in the two lists
    given (the reading's)."""

    def __init__(self, notebook: Any, folder: Path, stem: str, code: bool,
                 skipped: list[str], left_out: list[str]) -> None:
        self.notebook = notebook
        self.folder = folder
        self.stem = stem
        self.code = code
        self.skipped = skipped
        self.left_out = left_out
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
            self.skipped.append(f"{where}: attachment {name!r} (not found or not an image)")
            return None
        if _is_remote(src):
            self.skipped.append(f"{where}: {src} (remote; not fetched)")
            return None
        relative = unquote(urlsplit(src).path)
        kind = EXTENSION_TYPES.get(relative.rsplit(".", 1)[-1].lower())
        root = self.folder.resolve()
        target = (root / relative).resolve()
        if relative.startswith("/") or not target.is_relative_to(root):
            raise refuse("image", f"{src!r} ({where}) leaves the notebook's folder "
                                   f"{str(root)!r}: copy the image beside the notebook")
        if kind is None:
            self.skipped.append(f"{where}: {src} (not a PNG, JPEG, GIF, WebP or SVG image)")
            return None
        try:
            data = target.read_bytes()
        except OSError:
            self.skipped.append(f"{where}: {src} (no such file)")
            return None
        return self._asset(data, kind)

    # ------------------------------------------------------------ cells

    def markdown(self, index: int, cell: Any, text: str | None = None) -> str:
        tokens = self.md.parse(source_of(cell) if text is None else text)
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
        if self.code and not hidden and source_of(cell).strip():
            parts.append(self._highlight(source_of(cell)))
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
            self.left_out.append(f"{where}: error output {output.get('ename', '')}: "
                                 f"{str(output.get('evalue', ''))[:120]}")
            return ""
        if kind == "stream":
            if output.get("name") == "stderr":
                self.left_out.append(f"{where}: stderr output")
                return ""
            return f'<pre class="jdp-output">{html.escape(_text(output.get("text")))}</pre>'
        data = output.get("data") or {}
        mime = next((m for m in MIME_ORDER if m in data), None)
        if mime is None:
            if data:
                self.left_out.append(f"{where}: output of type {', '.join(sorted(data))}")
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
        raise refuse("output", f"a {mime} output is not valid base64") from None


def sanitize(fragment: str) -> str:
    """HTML from an output, reduced to what a slide may hold (`allowlist`)."""
    return clean(fragment)
