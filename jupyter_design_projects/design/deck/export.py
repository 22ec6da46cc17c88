"""A deck out of the project: its slide pages as the Design project holds them (what was
pushed, from this notebook or another), written as one self-contained HTML file (every
slide, assets inlined as data: URIs, arrow keys to move, opens offline) or as a PDF (`pdf`).

Each page is read with `read_file` by pages of PAGE_BYTES (`offset`/`limit`, PROTOCOL §3),
small enough that an answer stays under the client's 100,000-character result ceiling even
when every byte is escaped; the bytes read are checked against the size `list_files`
gives, and a file not read whole is named in `Export.partial` (a page is still exported
with what was read; an SVG asset is not inlined). A page from the project can have been
written by anyone: it is reduced to `allowlist` (its `<style>` kept, without `@import` or
`url()`s), so no script, handler, frame, object or remote URL reaches the export, and its
images are inlined from the deck's own assets or dropped.

A binary asset (PNG, JPEG) comes from the deck's own staged bytes when the project still
holds exactly what this deck pushed. PROTOCOL §3 has no read of a binary file, so for a deck
pushed from another notebook the bytes of its PNG assets cannot be had: such a slide is
exported as the service's own picture of it (`render_preview`, drawn by its browser with
every asset the project holds, at device scale 2), and listed in `pictured` with the
assets that made it so. An asset that cannot be had either way is listed in `missing`, and
the slide shows its alt text.
"""

from __future__ import annotations

import base64
import dataclasses
import html
import os
import posixpath
import re
import shutil
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from ...core import slide_fit, slideshow
from ...core.result_limits import RESULT_MAX_CHARS
from ...errors import InvalidArguments
from ...private_files import replace_private
from .allowlist import DATA_IMAGE, clean, clean_css
from .picture import picture_page, service_picture

OPERATION = "deck export"
#: the PDF page and the viewport a slide is drawn in (16:9)
PAGE_WIDTH, PAGE_HEIGHT = 1280, 720
#: where a Chromium is looked for, in order (PATH names, then JDP_CHROMIUM)
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
NO_BROWSER = ("needs Playwright and a Chromium: pip install 'jupyter-design-projects[export]' "
              "and a chromium from your system's packages (e.g. apt-get install chromium); "
              "the HTML export (PATH.html) needs neither")
#: room an answer's wrapper (path, etag) and `[partial …]` note may take
ANSWER_OVERHEAD = 4_000
#: bytes asked for per `read_file`: escaped 6 to 1 at worst (`&quot;`, `&#x27;`), a page
#: stays under the result ceiling
PAGE_BYTES = (RESULT_MAX_CHARS - ANSWER_OVERHEAD) // 6
#: the most pages read of one file (PAGE_BYTES x this, about 1 MB)
READ_PAGES_MAX = 64
_WRAPPED = re.compile(r"^<untrusted-project-content [^>]*>(.*)</untrusted-project-content>$",
                      re.DOTALL)
_PARTIAL = re.compile(r"continue with offset=([0-9]+)")
_SRC = re.compile(r'(<img\b[^>]*?\bsrc=")([^"]*)(")', re.IGNORECASE)
_NOTES = re.compile(r'<aside class="jdp-notes"[^>]*>(.*?)</aside>', re.DOTALL)
_TITLE = re.compile(r"<title>(.*?)</title>", re.DOTALL | re.IGNORECASE)
_STYLE = re.compile(r"<style\b[^>]*>(.*?)</style\s*>", re.DOTALL | re.IGNORECASE)
_BODY = re.compile(r"<body\b[^>]*>(.*?)(?:</body\s*>|$)", re.DOTALL | re.IGNORECASE)
_HEAD_END = re.compile(r"</head\s*>|<body\b", re.IGNORECASE)
_AUTHOR = re.compile(r'<meta\s+name="author"\s+content="([^"]*)"', re.IGNORECASE)
MIME_OF = {"png": "image/png", "jpeg": "image/jpeg", "jpg": "image/jpeg", "gif": "image/gif",
           "webp": "image/webp", "svg": "image/svg+xml"}


@dataclasses.dataclass(frozen=True)
class ExportedSlide:
    path: str
    title: str
    html: str  # the page with its assets inlined
    notes: str  # the speaker notes' HTML ("" when none)
    #: the page's body (cleaned, assets inlined, notes still in it) and its stylesheet
    #: (cleaned), as a renderer that lays slides out itself takes them
    body: str = ""
    css: str = ""


@dataclasses.dataclass
class Export:
    """What an export read: the slides in order, and the assets it could not inline."""

    slides: list[ExportedSlide]
    missing: list[str] = dataclasses.field(default_factory=list)
    #: "page: asset" of each binary asset the protocol cannot read back, whose slide was
    #: exported as the service's picture of it instead
    pictured: list[str] = dataclasses.field(default_factory=list)
    #: "path: why" of each file not read whole (the export names them)
    partial: list[str] = dataclasses.field(default_factory=list)
    #: the deck's author, as its first page names it (`<meta name="author">`), or ""
    author: str = ""
    #: slide path -> what fitting did, for each slide fitted or continued (`fit`)
    fitted: dict[str, slide_fit.Outcome] = dataclasses.field(default_factory=dict)
    #: slide path -> its heading, for each slide exported as the service's picture of it
    pictures: dict[str, str] = dataclasses.field(default_factory=dict)


def checked_target(path: str | os.PathLike[str]) -> tuple[Path, str]:
    """The export file and its kind ("pdf" or "html"), or a clear InvalidArguments before
    anything is read."""
    target = Path(path).expanduser()
    kind = target.suffix.lower().lstrip(".")
    if kind not in ("pdf", "html"):
        raise InvalidArguments(OPERATION, "path", f"{str(path)!r} must end in .pdf or .html")
    folder = target.parent
    if not folder.is_dir():
        raise InvalidArguments(OPERATION, "path", f"the folder {str(folder)!r} does not "
                                                  "exist: create it, or export elsewhere")
    if target.is_dir():
        raise InvalidArguments(OPERATION, "path", f"{str(path)!r} is a folder")
    return target, kind


def find_browser() -> str | None:
    """A Chromium executable: JDP_CHROMIUM, else the first of BROWSER_NAMES on PATH."""
    named = os.environ.get("JDP_CHROMIUM")
    if named:
        return named if Path(named).is_file() else None
    return next((found for name in BROWSER_NAMES if (found := shutil.which(name))), None)


def unwrap(text: str) -> str:
    """read_file's answer, unwrapped and unescaped."""
    match = _WRAPPED.match(text.strip())
    return html.unescape(match.group(1) if match else text)


Read = Callable[[str, dict], Awaitable[Any]]


@dataclasses.dataclass(frozen=True)
class ReadText:
    text: str
    #: why the text is not the whole file, or None when it is
    short: str | None = None


async def read_text(call: Read, project_id: str, path: str, size: int | None = None) -> ReadText:
    """A file's text, read by pages of PAGE_BYTES, and why it is not whole when it is not
    (an answer cut by the result ceiling, more pages than READ_PAGES_MAX, or fewer bytes
    than `size`, the size `list_files` gave)."""
    parts: list[str] = []
    offset, short = 0, None
    for _ in range(READ_PAGES_MAX):
        outcome = await call("read_file", {"project_id": project_id, "path": path,
                                           "limit": PAGE_BYTES,
                                           **({"offset": offset} if offset else {})})
        texts = [b.get("text", "") for b in getattr(outcome, "blocks", [])
                 if b.get("type") == "text"]
        if getattr(outcome, "is_error", False) or not texts:
            raise InvalidArguments(OPERATION, "path", f"{path!r} could not be read from the "
                                                      "project")
        if _WRAPPED.match(texts[0].strip()) is None:  # cut or spilled on the way
            parts.append(unwrap(texts[0]))
            short = "the service's answer was cut before its end"
            break
        part = unwrap(texts[0])
        more = next((m for t in texts[1:] if (m := _PARTIAL.search(t))), None)
        if more is None:
            parts.append(part)
            break
        whole_chars = part.rstrip("\ufffd")  # a character the page boundary split
        consumed = len(whole_chars.encode("utf-8"))
        parts.append(whole_chars if consumed else part)
        offset = offset + consumed if consumed else int(more.group(1))
    else:
        short = f"longer than {READ_PAGES_MAX * PAGE_BYTES:,} bytes, the most an export reads"
    text = "".join(parts)
    if short is None and size is not None and len(text.encode("utf-8")) != size:
        short = f"read {len(text.encode('utf-8')):,} of its {size:,} bytes"
    return ReadText(text, short)


def page_for_export(text: str) -> tuple[str, str]:
    """A page from the project as the export shows it: its stylesheets (without imports
    or URLs) and its body reduced to `allowlist`; and its title. (`parts` takes it apart
    again.)"""
    title = _TITLE.search(text)
    shown_title = html.unescape(title.group(1)).strip() if title else ""
    head_end = _HEAD_END.search(text)
    head = text[:head_end.start()] if head_end else ""
    css = "".join(clean_css(style) for style in _STYLE.findall(head))
    body = _BODY.search(text)
    inner = body.group(1) if body else (text[head_end.start():] if head_end else text)
    page = ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(shown_title)}</title><style>{css}</style></head>"
            f"<body>{clean(inner)}</body></html>\n")
    return page, shown_title


def slide_pages(listing: Mapping[str, str | None], folder: str = slideshow.FOLDER) -> list[str]:
    """The deck's slide pages in the project: the HTML files directly in `folder`, by path
    (the `NN-` prefix orders them)."""
    return sorted(p for p in listing if posixpath.dirname(p) == folder
                  and p.lower().endswith((".html", ".htm")))


async def read_deck(call: Read, project_id: str, listing: Mapping[str, str | None],
                    local: Mapping[str, bytes] | None = None, folder: str = slideshow.FOLDER,
                    sizes: Mapping[str, int] | None = None) -> Export:
    """Every slide page of the project, cleaned, with its assets inlined. `listing` is
    path -> etag as the project holds it; `local` is path -> bytes the caller knows the
    project holds (this deck's pushed files whose etag still matches); `sizes` is path ->
    bytes as `list_files` gave them."""
    pages = slide_pages(listing, folder)
    if not pages:
        raise InvalidArguments(OPERATION, "deck", f"the project has no slide pages under "
                                                  f"{folder}/: push the deck first")
    reading = _DeckReading(call, project_id, listing, local or {}, sizes or {})
    for number, page in enumerate(pages):
        await reading.add_page(page, first=number == 0)
    return reading.export


class _DeckReading:
    """One `read_deck`: the export so far, and each asset's data: URI by path."""

    def __init__(self, call: Read, project_id: str, listing: Mapping[str, str | None],
                 local: Mapping[str, bytes], sizes: Mapping[str, int]) -> None:
        self._call, self._project_id = call, project_id
        self._listing, self._local, self._sizes = listing, local, sizes
        self.export = Export([])
        self._cache: dict[str, str | None] = {}
        #: "page: src" of each image of the page being read that was not inlined
        self._unread: list[str] = []

    async def add_page(self, page: str, *, first: bool) -> None:
        """Read one slide page, inline its images, and add its slides to the export (as
        the service's picture of it when an asset the project holds cannot be read)."""
        export = self.export
        read = await read_text(self._call, self._project_id, page, self._sizes.get(page))
        if read.short is not None:
            export.partial.append(f"{page}: {read.short}")
        if first and (author := _AUTHOR.search(read.text)):
            export.author = html.unescape(author.group(1))
        text, shown_title = page_for_export(read.text)
        shown_title = shown_title or posixpath.basename(page)
        inlined, unread = await self._inlined(page, text)
        notes = "".join(_NOTES.findall(inlined))
        held = [item for item in unread
                if _asset_path(page, item.split(": ", 1)[1]) in self._listing]
        picture = await service_picture(self._call, self._project_id, page) if held else None
        if picture is not None:
            inlined = picture_page(shown_title, picture, notes, PAGE_WIDTH, PAGE_HEIGHT)
            export.pictured += held
            export.pictures[page] = shown_title
            export.missing += [item for item in unread if item not in held]
        else:
            export.missing += unread
        _add_fitted(export, page, shown_title, inlined)

    async def _inlined(self, page: str, text: str) -> tuple[str, list[str]]:
        """`text` with each `<img src>` made a data: URI, and those emptied instead."""
        self._unread = []
        pieces, last = [], 0
        for match in _SRC.finditer(text):
            uri = await self._data_uri(page, html.unescape(match.group(2)))
            pieces += [text[last:match.start(2)], html.escape(uri or "", quote=True)]
            last = match.end(2)
        pieces.append(text[last:])
        return "".join(pieces), self._unread

    async def _data_uri(self, page: str, src: str) -> str | None:
        """The data: URI of an image `src` of `page`: as it is, from the deck's own bytes,
        or an SVG read from the project; None (listed as unread) otherwise."""
        if DATA_IMAGE.match(src):
            return src
        if re.match(r"^[a-z][a-z0-9+.-]*:", src, re.I) or src.startswith(("/", "#")):
            self._unread.append(f"{page}: {src}")  # not the deck's own (the allowlist drops these)
            return None
        path = _asset_path(page, src)
        if path in self._cache:
            return self._cache[path]
        extension = path.rsplit(".", 1)[-1].lower()
        mime = MIME_OF.get(extension)
        data = await self._asset_bytes(path, extension)
        if data is None or mime is None:
            self._unread.append(f"{page}: {src}")
            if path not in self._listing or mime is None:
                self._cache[path] = None
            return None
        self._cache[path] = f"data:{mime};base64," + base64.b64encode(data).decode("ascii")
        return self._cache[path]

    async def _asset_bytes(self, path: str, extension: str) -> bytes | None:
        """An asset's bytes: the deck's own, or an SVG the project holds read whole."""
        if path in self._local:
            return self._local[path]
        if path in self._listing and extension == "svg":
            svg = await read_text(self._call, self._project_id, path, self._sizes.get(path))
            if svg.short is None:
                return svg.text.encode("utf-8")
            self.export.partial.append(f"{path}: {svg.short} (not inlined)")
        return None


def _add_fitted(export: Export, path: str, title: str, page: str) -> None:
    """The slide's pages as shown (a page from the project is fitted and continued as
    staging does it: a page pushed before, or by someone else, is shown whole too)."""
    from .fit import CONTINUED, fit_page, record

    shown = fit_page(path, page)
    record(export.fitted, path, shown)
    for number, (page_path, text) in enumerate(shown.pages):
        export.slides.append(ExportedSlide(page_path, title + (CONTINUED if number else ""),
                                           text, "".join(_NOTES.findall(text)), *parts(text)))


def parts(page: str) -> tuple[str, str]:
    """The body and the stylesheet of a page `page_for_export` made."""
    body = _BODY.search(page)
    return (body.group(1) if body else page), "".join(_STYLE.findall(page))


def _asset_path(page: str, src: str) -> str:
    return posixpath.normpath(posixpath.join(posixpath.dirname(page), src.split("#")[0]))


# ---------------------------------------------------------------- HTML

_VIEWER_CSS = (
    "html,body{margin:0;height:100%;background:#1b1f24;font-family:sans-serif;"
    "overflow:hidden}"
    ".deck{position:relative;width:100vw;height:100vh}"
    "body.with-notes .deck{height:72vh}"
    f"iframe{{position:absolute;left:50%;top:50%;width:{PAGE_WIDTH}px;height:{PAGE_HEIGHT}px;"
    "border:0;background:#fff;pointer-events:none;display:none;"
    "transform:translate(-50%,-50%) scale(var(--fit,1))}"
    "iframe.current{display:block}"
    ".count{position:fixed;right:12px;bottom:8px;color:#fff;background:#000000c0;"
    "padding:2px 10px;border-radius:10px;font-size:14px}"
    ".notes{display:none;color:#eee;padding:8px 24px;height:28vh;overflow:auto;"
    "font-size:18px;box-sizing:border-box}"
    ".notes.current{display:block}"
)
#: one slide at a time, drawn at PAGE_WIDTH x PAGE_HEIGHT and scaled to fit the window
_VIEWER_JS = (
    "(function(){var s=document.querySelectorAll('iframe'),"
    "n=document.querySelectorAll('.notes'),c=document.querySelector('.count'),"
    "d=document.querySelector('.deck'),i=0;"
    f"function fit(){{d.style.setProperty('--fit',Math.min(d.clientWidth/{PAGE_WIDTH},"
    f"d.clientHeight/{PAGE_HEIGHT}))}}"
    "function go(k){i=Math.max(0,Math.min(s.length-1,k));"
    "s.forEach(function(f,j){f.classList.toggle('current',j===i)});"
    "n.forEach(function(f,j){f.classList.toggle('current',j===i)});"
    "c.textContent=(i+1)+' / '+s.length;document.body.dataset.slide=String(i+1)}"
    "document.addEventListener('keydown',function(e){"
    "if(e.key==='ArrowRight'||e.key==='PageDown'||e.key===' '){go(i+1);e.preventDefault()}"
    "if(e.key==='ArrowLeft'||e.key==='PageUp'){go(i-1);e.preventDefault()}"
    "if(e.key==='Home'){go(0)}if(e.key==='End'){go(s.length-1)}});"
    "window.addEventListener('resize',fit);fit();go(0)})();"
)


def content_policy(script: str) -> str:
    """The HTML export's Content-Security-Policy: only what the file inlines (its styles,
    data: images and fonts, and the one viewer script, by its hash); no request leaves it,
    and the slides' frames (srcdoc) inherit it."""
    import hashlib

    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    return ("default-src 'none'; img-src data:; font-src data:; style-src 'unsafe-inline'; "
            f"script-src 'sha256-{digest}'; frame-src 'none'; child-src 'none'; "
            "base-uri 'none'; form-action 'none'")


def html_file(export: Export, title: str, notes: bool = False) -> str:
    """One self-contained file: each slide in a sandboxed frame (no script of a page runs),
    one shown at a time; arrow keys, Page Up/Down, Home and End move. Its
    Content-Security-Policy lets nothing load; notes are cleaned as slides are."""
    frames, notes_html = [], []
    for number, slide in enumerate(export.slides, start=1):
        frames.append(f'<iframe sandbox="" title="{html.escape(slide.title, quote=True)}" '
                      f'data-path="{html.escape(slide.path, quote=True)}" '
                      f'srcdoc="{html.escape(slide.html, quote=True)}"></iframe>')
        if notes:
            notes_html.append(f'<section class="notes" data-slide="{number}">'
                              f"{clean(slide.notes) or '<p><i>No notes.</i></p>'}</section>")
    body_class = ' class="with-notes"' if notes else ""
    author = (f'<meta name="author" content="{html.escape(export.author, quote=True)}">'
              if export.author else "")
    policy = html.escape(content_policy(_VIEWER_JS), quote=True)
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{policy}">{author}'
            f"<title>{html.escape(title)}</title><style>{_VIEWER_CSS}</style></head>"
            f"<body{body_class}>"
            f'<div class="deck">{"".join(frames)}</div>{"".join(notes_html)}'
            f'<div class="count"></div><script>{_VIEWER_JS}</script></body></html>\n')


def write_export(target: Path, data: bytes) -> None:
    """Write the export next to its final name, then move it there: a failure never leaves
    half a file, and never loses the one that was there."""
    replace_private(target, data)  # 0600, atomic, never through a symlink
