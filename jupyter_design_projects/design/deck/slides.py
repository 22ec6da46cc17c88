"""One slide as files: Markdown rendered by markdown-it-py (CommonMark plus tables; raw
HTML in the Markdown is shown as text, never run), each `$name` replaced by what it names —
a matplotlib figure (a PNG asset beside the slide), a pandas DataFrame (an HTML table of at
most TABLE_MAX_ROWS rows) or a string (text) — inside a self-contained page that carries
the deck's stylesheet. Every page's body goes through `allowlist.clean`, whatever made it;
an image that is not the deck's own (`![x](http://…)`) is shown as its alt text, marked as
not loaded.

Objects are recognised by what they can do (`savefig`, `to_html`), so this module imports
neither matplotlib nor pandas.
"""

from __future__ import annotations

import dataclasses
import html
import io
import posixpath
import re
from collections.abc import Mapping
from typing import Any

from ...errors import InvalidArguments
from .allowlist import clean, own_source
from .theme import Theme, stylesheet

#: `$name` in a slide's Markdown; `\$name` stays literal
PLACEHOLDER = re.compile(r"(?<![\\\w$])\$([A-Za-z_][A-Za-z0-9_]*)")
#: the most rows a DataFrame shows on a slide; the rest are counted under the table
TABLE_MAX_ROWS = 30
FIGURE_DPI = 110
_MARK = "JDPPIECE{}X"
_MARK_RE = re.compile(r"JDPPIECE([0-9]+)X")


@dataclasses.dataclass(frozen=True)
class Asset:
    """A file a slide needs besides its page (a figure's PNG)."""

    path: str
    data: bytes
    kind: str = "image"


@dataclasses.dataclass(frozen=True)
class Piece:
    """What one `$name` becomes: HTML (a block of its own, or inline text) and its assets."""

    html: str
    block: bool
    assets: tuple[Asset, ...] = ()


def placeholders(markdown: str) -> list[str]:
    """The names `$name` refers to, each once, in order."""
    return list(dict.fromkeys(PLACEHOLDER.findall(markdown)))


def asset_path(slide_path: str, name: str) -> str:
    """Where the figure `name` of `slide_path` goes: `<folder>/assets/<stem>-<name>.png`."""
    folder, file = posixpath.split(slide_path)
    stem = file.rsplit(".", 1)[0]
    return posixpath.join(folder, "assets", f"{stem}-{name}.png")


def figure_piece(figure: Any, slide_path: str, name: str, caption: str | None = None) -> Piece:
    """A matplotlib figure (or anything with `.savefig`, or an Axes) as a PNG asset."""
    figure = figure if hasattr(figure, "savefig") else getattr(figure, "figure", None)
    if not hasattr(figure, "savefig"):
        raise InvalidArguments("deck", name, "is not a matplotlib figure")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=FIGURE_DPI, bbox_inches="tight")
    path = asset_path(slide_path, name)
    src = posixpath.relpath(path, posixpath.dirname(slide_path) or ".")
    caption_html = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
    return Piece(f'<figure><img src="{html.escape(src, quote=True)}" '
                 f'alt="{html.escape(caption or name, quote=True)}">{caption_html}</figure>',
                 True, (Asset(path, buffer.getvalue()),))


def table_piece(frame: Any, name: str = "table", max_rows: int = TABLE_MAX_ROWS) -> Piece:
    """A DataFrame (anything with `.to_html`, `.head` and a length) as an HTML table of at
    most `max_rows` rows, the rest counted under it."""
    if not (hasattr(frame, "to_html") and hasattr(frame, "head")):
        raise InvalidArguments("deck", name, "is not a pandas DataFrame")
    total = len(frame)
    plain_index = type(getattr(frame, "index", None)).__name__ == "RangeIndex"
    table = frame.head(max_rows).to_html(border=0, escape=True, index=not plain_index)
    more = (f'<p class="jdp-more-rows">Showing the first {max_rows:,} of {total:,} rows.</p>'
            if total > max_rows else "")
    return Piece(table + more, True)


def text_piece(value: str) -> Piece:
    return Piece(html.escape(value), False)


def piece_of(value: Any, slide_path: str, name: str) -> Piece:
    """What `$name` places on a slide, by what the value is."""
    if isinstance(value, str):
        return text_piece(value)
    if hasattr(value, "savefig") or hasattr(getattr(value, "figure", None), "savefig"):
        return figure_piece(value, slide_path, name)
    if hasattr(value, "to_html") and hasattr(value, "head"):
        return table_piece(value, name)
    raise InvalidArguments("deck", f"${name}", f"is a {type(value).__name__}: a slide takes "
                           "a matplotlib figure, a pandas DataFrame or a string")


def _markdown() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table")


def render_markdown(markdown: str, pieces: Mapping[str, Piece]) -> str:
    """The slide's body HTML; each `$name` must be in `pieces`."""
    order: list[Piece] = []

    def mark(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in pieces:
            raise InvalidArguments("deck", f"${name}", "is not defined")
        order.append(pieces[name])
        return _MARK.format(len(order) - 1)

    md = _markdown()
    tokens = md.parse(PLACEHOLDER.sub(mark, markdown))
    for token in tokens:
        for child in token.children or []:
            if child.type == "image" and not own_source(str(child.attrGet("src") or "")):
                not_loaded(child)
    body = md.renderer.render(tokens, md.options, {})

    def block(match: re.Match[str]) -> str:
        piece = order[int(match.group(1))]
        return piece.html if piece.block else f"<p>{piece.html}</p>"

    body = re.sub(r"<p>JDPPIECE([0-9]+)X</p>", block, body)
    return _MARK_RE.sub(lambda m: order[int(m.group(1))].html, body)


def not_loaded(image: Any, why: str = "not loaded") -> None:
    """Turn a Markdown image token into the text `[image: ALT (why)]`."""
    alt = image.content or str(image.attrGet("src") or "")
    image.type, image.tag, image.nesting = "text", "", 0
    image.content = f"[image: {alt} ({why})]"
    image.attrs, image.children = {}, None


def title_of(markdown: str, fallback: str) -> str:
    """The first heading's text (its `$name`s as written), else `fallback`."""
    for line in markdown.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            text = stripped.lstrip("#").strip()
            if text:
                return text
    return fallback


def page(title: str, body: str, theme: Theme, extra_css: str = "", layout: str = "",
         author: str = "") -> str:
    """A self-contained slide page (`extra_css` follows the deck's stylesheet, before the
    person's own theme file, which has the last word); the body
    reduced to the allowlist. `layout` "title" centres it as a title slide; `author` is
    named in a `<meta name="author">` (the export's PDF metadata reads it)."""
    classes = "slide title" if layout == "title" else "slide"
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            + (f'<meta name="author" content="{html.escape(author, quote=True)}">'
               if author else "")
            + f"<title>{html.escape(title)}</title><style>{stylesheet(theme, extra_css)}"
            "</style></head>\n"
            f"<body><main class=\"{classes}\">\n{clean(body)}</main></body></html>\n")
