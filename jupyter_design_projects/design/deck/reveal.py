"""The HTML export as one reveal.js file that opens offline: the deck's slides (already
sanitized) in reveal.js's markup, reveal.js's script and styles inlined, and a
Content-Security-Policy that allows only what the file inlines.

Fragments step in order (`class="fragment"`), `Esc` shows the overview, the 1280×720 slides
scale to the window, `?print-pdf` prints one page per slide with its fragments shown, and
with `notes=True` (only then) the notes plugin is inlined and `S` opens the speaker view.

The policy: scripts only by the SHA-256 of each inline script (reveal.js, the notes plugin,
the speaker view's own script, the start-up call); images and fonts only as `data:` URIs;
no remote connection, frame, form, object or base URL. Styles are `'unsafe-inline'` with no
source: reveal.js adds `<style>` elements at run time (the print layout's page size) and
the sanitizer keeps a few `style` attributes, neither of which a hash can cover; with no
remote source allowed a stylesheet can still load nothing. Frames are allowed from the
file itself only with notes: the speaker view shows the current and next slide as frames
of this same file. Slide content has no business with document-level tags or frames, so
`<meta>`, `<base>`, `<link>`, `<iframe>` and `<frame>` in it are shown as text: a refresh
or a preconnect is not something a policy can stop, and Chromium's `'self'` for a file://
page matches every local file, so a frame in a slide could show one.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
from collections.abc import Sequence

from .reveal_assets import RevealAssets, csp_hash, packaged_assets

#: reveal.js's slide size: slides are laid out at this size and scaled to the window
WIDTH, HEIGHT = 1280, 720
_SHOWN_AS_TEXT = re.compile(r"<(?=(?:meta|base|link|i?frame)\b)", re.IGNORECASE)
_CLOSE_SCRIPT = re.compile(r"</script", re.IGNORECASE)


@dataclasses.dataclass(frozen=True)
class RevealSlide:
    """One slide: its HTML, the fragments shown one step each after it (in order), and its
    speaker notes. All three are sanitized HTML; an element of `body` that has
    `class="fragment"` steps too, before the listed fragments."""

    body: str
    fragments: tuple[str, ...] = ()
    notes: str = ""
    title: str = ""  # read out by screen readers and shown in the overview's labels
    classes: tuple[str, ...] = ()  # e.g. ("jdp-title",) for a title layout


def reveal_document(slides: Sequence[RevealSlide], *, title: str, author: str = "",
                    notes: bool = False, theme: str = "light", theme_css: str = "",
                    assets: RevealAssets | None = None) -> str:
    """The whole HTML file. `theme` picks reveal.js's light or dark theme, `theme_css`
    (the deck's own look) comes after it; `assets` defaults to the packaged reveal.js."""
    assets = assets or packaged_assets()
    if theme not in assets.themes:
        raise ValueError(f"theme {theme!r} is not one of {sorted(assets.themes)}")
    scripts = [assets.script, *([assets.notes_plugin] if notes else []), _start(notes)]
    for script in scripts:
        if _CLOSE_SCRIPT.search(script):
            raise ValueError("an inline script would end early: it holds '</script'")
    allowed = [*scripts, *([assets.speaker_script] if notes else [])]
    author_meta = (f'<meta name="author" content="{html.escape(author, quote=True)}">\n'
                   if author else "")
    return (
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{policy(allowed, notes)}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n{author_meta}"
        f'<meta name="generator" content="jupyter-design-projects, reveal.js {assets.version}">\n'
        f"{_licence_comment(assets)}"
        f"<style>{_style_text(assets.stylesheet)}</style>\n"
        f"<style>{_style_text(assets.themes[theme])}</style>\n"
        f"<style>{_style_text(theme_css)}</style>\n"
        "</head>\n<body>\n<div class=\"reveal\"><div class=\"slides\">\n"
        + "".join(_section(number, slide, notes)
                  for number, slide in enumerate(slides, start=1))
        + "</div></div>\n"
        + "".join(f"<script>{script}</script>\n" for script in scripts)
        + "</body>\n</html>\n")


def policy(scripts: Sequence[str], notes: bool) -> str:
    """The Content-Security-Policy allowing exactly these inline scripts (see the module)."""
    directives = [
        "default-src 'none'",
        "script-src " + " ".join(dict.fromkeys(csp_hash(s) for s in scripts)),
        "style-src 'unsafe-inline'",
        "img-src data:",
        "font-src data:",
        "frame-src 'self'" if notes else "frame-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        "object-src 'none'",
    ]
    return "; ".join(directives)


def _start(notes: bool) -> str:
    config = {
        # a slide's content starts at its top, as on its page and in the PDF (reveal.js
        # would centre it)
        "width": WIDTH, "height": HEIGHT, "margin": 0.04, "center": False,
        "minScale": 0.05, "maxScale": 2.0,
        "hash": True, "controls": True, "progress": True, "slideNumber": "c/t",
        "pdfSeparateFragments": False, "previewLinks": False, "autoPlayMedia": False,
    }
    plugins = "[RevealNotes]" if notes else "[]"
    return f"Reveal.initialize(Object.assign({json.dumps(config)}, {{plugins: {plugins}}}));"


def _section(number: int, slide: RevealSlide, notes: bool) -> str:
    label = slide.title or f"Slide {number}"
    classes = " ".join(slide.classes)
    class_attr = f' class="{html.escape(classes, quote=True)}"' if classes else ""
    fragments = "".join(f'<div class="fragment">{_content(f)}</div>\n'
                        for f in slide.fragments)
    aside = (f'<aside class="notes">{_content(slide.notes)}</aside>\n'
             if notes and slide.notes else "")
    return (f'<section{class_attr} data-jdp-slide="{number}" '
            f'aria-label="{html.escape(label, quote=True)}">\n'
            f"{_content(slide.body)}\n{fragments}{aside}</section>\n")


def _content(fragment_html: str) -> str:
    """Sanitized HTML with any document-level tag or frame left as text."""
    return _SHOWN_AS_TEXT.sub("&lt;", fragment_html)


def _style_text(css: str) -> str:
    """CSS that cannot end its <style> element early."""
    return re.sub(r"</(?=style)", r"<\\/", css, flags=re.IGNORECASE)


def _licence_comment(assets: RevealAssets) -> str:
    # the licence travels with the copy; URL schemes left out so the file names no remote
    # address, and no "--" so the comment cannot end early
    text = re.sub(r"https?://", "", assets.licence).replace("--", "- -").strip()
    return f"<!-- reveal.js {assets.version}, inlined below under its MIT licence:\n{text}\n-->\n"
