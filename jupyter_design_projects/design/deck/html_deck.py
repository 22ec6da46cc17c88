"""The HTML export: the deck read from the project (`export.read_deck`) handed to the
reveal.js renderer (`reveal.reveal_document`: one offline file, fragments stepping, the
speaker view with `--notes`) when the build put reveal.js's files in the package, else the
plain viewer of `export.html_file`, and which of the two it is.

A slide page carries its own stylesheet, written for a page of its own (`html, body`,
`100vh`); for reveal.js, which lays every slide out in one 1280x720 `<section>`, it is
scoped to the slides (`scoped`), its viewport heights turned into pixels of that box and
its `@`-rules left out. Every look the slides carry is kept (`deck_css`): the deck's
theme, a theme file of the person's own included, reaches the reveal.js file whichever
slide comes first.
"""

from __future__ import annotations

import re

from ...errors import ConfigError
from .allowlist import clean, clean_css
from .export import PAGE_HEIGHT, Export, html_file

#: what the outcome says of each kind of HTML export
REVEAL, PLAIN = "reveal.js", "plain viewer"
SCOPE = ".reveal .slides section"
_AT_RULE = re.compile(r"@[^{;]*(?:;|\{(?:[^{}]*\{[^{}]*\})*[^{}]*\})")
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_VH = re.compile(r"(\d+(?:\.\d+)?)vh\b")
_PAGE_LEVEL = {"html", "body", "html,body", ":root"}
#: the elements reveal.js's themes restyle (margins, sizes, line heights, a shadow under
#: code, a border round pictures): inside a slide they are reset to the browser's own
#: rules first, so the slide's stylesheet draws them as its page and the PDF do
RESET = ("h1,h2,h3,h4,h5,h6,p,pre,code,ul,ol,li,dl,dt,dd,table,thead,tbody,tr,th,td,"
         "blockquote,img,figure,figcaption,a,strong,em,q,small,sub,sup")


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
    # reveal.js centres the slides' text and its themes set headings in capitals; a slide
    # keeps its own alignment (left, as on its page and in the PDF, unless its rules say
    # otherwise: they come after) and its own case
    # `:where` adds nothing to the scope's weight: the slide's own rules, `*` included,
    # come after and win
    return (f"{scope}{{text-align:left}}{scope} :where({RESET}){{all:revert}}"
            + "".join(rules)
            + f"{scope} h1,{scope} h2,{scope} h3{{text-transform:none}}")


def html_document(export: Export, title: str, notes: bool = False,
                  theme: str = "light") -> tuple[str, str]:
    """The HTML export and its kind (REVEAL or PLAIN)."""
    from . import reveal, reveal_assets

    try:  # reveal.js's files, which the build copies into the package
        assets = reveal_assets.packaged_assets()
    except ConfigError:  # a source tree never built: the plain viewer, and its kind says so
        return html_file(export, title, notes), PLAIN
    looks = list(dict.fromkeys(slide.css for slide in export.slides))
    slides = []
    for slide in export.slides:
        body = re.sub(r'<aside class="jdp-notes".*?</aside>', "", slide.body, flags=re.S)
        title_layout = ("jdp-title",) if '<main class="slide title' in body else ()
        look = (look_class(looks.index(slide.css)),) if len(looks) > 1 else ()
        slides.append(reveal.RevealSlide(
            body=body, notes=clean(slide.notes) if notes else "", title=slide.title,
            classes=title_layout + look))
    document = reveal.reveal_document(slides, title=title, author=export.author,
                                      notes=notes, theme=theme, theme_css=deck_css(looks),
                                      assets=assets)
    return document, REVEAL


def look_class(number: int) -> str:
    return f"jdp-look-{number + 1}"


def deck_css(looks: list[str]) -> str:
    """The slides' stylesheets for reveal.js: one look (every slide carries the same, as
    a deck staged with one theme does) scoped to every slide; several (slides staged under
    different themes, or a slide exported as the service's picture of it) each scoped to
    the slides that carry it (`look_class`). The page background of the look most slides
    share is also the window's around the slides."""
    if not looks:
        return ""
    if len(looks) == 1:
        css = scoped(looks[0])
    else:
        css = "".join(scoped(look, f"{SCOPE}.{look_class(n)}") for n, look in enumerate(looks))
    background = page_background(looks[0])
    return (f".reveal-viewport{{{background}}}" if background else "") + css


def page_background(css: str) -> str:
    """The `background` declarations of `css`'s page-level rules (`html`, `body`,
    `:root`), the last of each kind; cleaned as `scoped` cleans them."""
    flat = _AT_RULE.sub("", clean_css(css))
    found: dict[str, str] = {}
    for selectors, declarations in _RULE.findall(flat):
        if not any(s.strip() in _PAGE_LEVEL for s in selectors.split(",")):
            continue
        for declaration in declarations.split(";"):
            name, _, value = declaration.partition(":")
            name = name.strip().lower()
            if name in ("background", "background-color") and value.strip():
                found.pop(name, None)  # kept in the order they last came
                found[name] = f"{name}:{value.strip()}"
    return ";".join(found.values())
