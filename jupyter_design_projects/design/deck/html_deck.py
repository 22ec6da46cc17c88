"""The HTML export: the deck read from the project (`export.read_deck`) handed to the
reveal.js renderer (`reveal.reveal_document`: one offline file, fragments stepping, the
speaker view with `--notes`) when this install has it, else the plain viewer of
`export.html_file`, and which of the two it is.

A slide page carries its own stylesheet, written for a page of its own (`html, body`,
`100vh`); for reveal.js, which lays every slide out in one 1280x720 `<section>`, it is
scoped to the slides (`scoped`), its viewport heights turned into pixels of that box and
its `@`-rules left out.
"""

from __future__ import annotations

import importlib
import re

from .allowlist import clean, clean_css
from .export import PAGE_HEIGHT, Export, html_file

#: what the outcome says of each kind of HTML export
REVEAL, PLAIN = "reveal.js", "plain viewer"
SCOPE = ".reveal .slides section"
_AT_RULE = re.compile(r"@[^{;]*(?:;|\{(?:[^{}]*\{[^{}]*\})*[^{}]*\})")
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_VH = re.compile(r"(\d+(?:\.\d+)?)vh\b")
_PAGE_LEVEL = {"html", "body", "html,body", ":root"}


def scoped(css: str, scope: str = SCOPE) -> str:
    """`css` applying only inside the slides (see the module)."""
    flat = _AT_RULE.sub("", clean_css(css))
    flat = _VH.sub(lambda m: f"{float(m.group(1)) * PAGE_HEIGHT / 100:g}px", flat)
    rules = []
    for selectors, declarations in _RULE.findall(flat):
        names = []
        for selector in selectors.split(","):
            selector = selector.strip()
            if not selector:
                continue
            names.append(scope if selector in _PAGE_LEVEL
                         else f"{scope} {selector}")
        if names:
            rules.append(f"{','.join(dict.fromkeys(names))}{{{declarations}}}")
    # reveal.js's themes set headings in capitals; a slide keeps its own case
    return "".join(rules) + f"{scope} h1,{scope} h2,{scope} h3{{text-transform:none}}"


def html_document(export: Export, title: str, notes: bool = False,
                  theme: str = "light") -> tuple[str, str]:
    """The HTML export and its kind (REVEAL or PLAIN)."""
    try:
        reveal = importlib.import_module(".reveal", __package__)
    except ImportError:  # a build without the reveal.js renderer
        return html_file(export, title, notes), PLAIN
    slides = []
    for slide in export.slides:
        body = re.sub(r'<aside class="jdp-notes".*?</aside>', "", slide.body, flags=re.S)
        slides.append(reveal.RevealSlide(
            body=body, notes=clean(slide.notes) if notes else "", title=slide.title,
            classes=("jdp-title",) if '<main class="slide title">' in body else ()))
    css = scoped(export.slides[0].css) if export.slides else ""
    document = reveal.reveal_document(slides, title=title, author=export.author,
                                      notes=notes, theme=theme, theme_css=css)
    return document, REVEAL
