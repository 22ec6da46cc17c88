"""The HTML a slide may hold, and the one function that reduces any HTML to it: what a
notebook's Markdown, outputs, TeX and notes become on a slide, and what the export keeps of
a page the project holds (which a collaborator, an agent or the service can have written).

Jupyter renders a Markdown cell's raw HTML, so slides keep it too, through nh3 (Ammonia):
`center`, `div`/`span` with a few style properties, `img`, `br`, `sub`/`sup`,
`details`/`summary`, `kbd`, tables and `align`, and the MathML latex2mathml writes. Nothing
that runs or loads survives: no script, style element, event handler, frame, object,
embed, form, `meta`, `base` or `srcset`; an image's `src` is a `data:` image or a path
relative to the slide (the deck's own assets, `assets/…`); a link is http(s), mailto or a
`#fragment`; a `style` attribute keeps only STYLE_PROPERTIES, and none whose value could
name a URL. MathML is cleaned after conversion, so TeX cannot smuggle script (`\\text{}`)
or a link (`\\href{}`).
"""

from __future__ import annotations

import re

#: HTML elements kept (Ammonia's defaults, plus what slides are made of)
HTML_TAGS = frozenset({
    "a", "abbr", "article", "aside", "b", "bdi", "bdo", "blockquote", "br", "caption",
    "center", "cite", "code", "col", "colgroup", "dd", "del", "details", "dfn", "div", "dl",
    "dt", "em", "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "hr", "i", "img", "ins", "kbd", "li", "main", "mark", "ol", "p", "pre", "q",
    "s", "samp", "section", "small", "span", "strike", "strong", "sub", "summary", "sup",
    "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "tt", "u", "ul", "var",
    "wbr",
})
#: the MathML elements latex2mathml writes (Chromium draws MathML Core natively)
MATHML_TAGS = frozenset({
    "math", "menclose", "merror", "mfenced", "mfrac", "mi", "mmultiscripts", "mn", "mo",
    "mover", "mpadded", "mphantom", "mprescripts", "mroot", "mrow", "ms", "mspace",
    "msqrt", "mstyle", "msub", "msubsup", "msup", "mtable", "mtd", "mtext", "mtr",
    "munder", "munderover", "none", "semantics", "annotation",
})
#: elements dropped with everything inside them (the rest of a disallowed element's text
#: is kept, as Jupyter shows it)
DROPPED_WITH_CONTENT = frozenset({
    "script", "style", "iframe", "object", "embed", "noscript", "template", "svg",
    "textarea", "select", "title", "frameset", "noembed", "noframes", "xmp",
})
#: the style properties a `style` attribute keeps (none takes a URL)
STYLE_PROPERTIES = frozenset({
    "color", "background-color", "font-weight", "font-style", "font-size", "font-family",
    "text-align", "text-decoration", "vertical-align", "width", "height", "max-width",
    "margin", "margin-left", "margin-right", "margin-top", "margin-bottom", "padding",
    "border", "border-collapse", "white-space", "display",
})
_STYLED = ("center", "div", "span", "p", "pre", "code", "img", "table", "tr", "td", "th",
           "figure", "h1", "h2", "h3", "h4", "h5", "h6", "section", "main", "mark")
_MATH_ATTRIBUTES = frozenset({
    "display", "mathvariant", "stretchy", "fence", "separator", "lspace", "rspace",
    "accent", "accentunder", "columnalign", "columnspacing", "rowspacing", "width",
    "height", "depth", "linethickness", "minsize", "maxsize", "movablelimits",
    "symmetric", "largeop", "form", "notation", "encoding", "scriptlevel", "displaystyle",
    "xmlns", "open", "close", "separators",
})
_COMMON = frozenset({"class", "title", "align", "lang", "dir", "hidden"})
ATTRIBUTES: dict[str, frozenset[str]] = {
    "*": _COMMON,
    "a": frozenset({"href"}),
    "img": frozenset({"src", "alt", "width", "height"}),
    "td": frozenset({"colspan", "rowspan", "valign"}),
    "th": frozenset({"colspan", "rowspan", "valign", "scope"}),
    "ol": frozenset({"start"}),
    "details": frozenset({"open"}),
    "col": frozenset({"span"}),
    "colgroup": frozenset({"span"}),
    **{tag: _MATH_ATTRIBUTES for tag in MATHML_TAGS},
}
for _tag in _STYLED:
    ATTRIBUTES[_tag] = ATTRIBUTES.get(_tag, frozenset()) | {"style"}
#: an image's source: a data: image (base64), or a path relative to the slide
DATA_IMAGE = re.compile(r"^data:image/(png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/=\s]*$")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)
_LINK_SCHEMES = ("http:", "https:", "mailto:")
#: anything in a style value that could load or escape (url(), image-set(), @import,
#: escapes, old IE expressions)
_STYLE_UNSAFE = re.compile(r"url\s*\(|image|expression|\\|@|&|/\*", re.IGNORECASE)


def own_source(src: str) -> bool:
    """An image source a slide may load: a data: image, or a relative path inside the
    deck's folder (no scheme, not absolute, no `..` out of it)."""
    value = src.strip()
    if DATA_IMAGE.match(value):
        return True
    if not value or _SCHEME.match(value) or value.startswith(("/", "\\")):
        return False
    return ".." not in value.split("#")[0].split("?")[0].split("/")


def _keep(tag: str, attribute: str, value: str) -> str | None:
    if attribute == "src":
        return value if own_source(value) else None
    if attribute == "href":
        bare = value.strip()
        if bare.startswith("#") or bare.lower().startswith(_LINK_SCHEMES):
            return bare
        return None
    if attribute == "style" and _STYLE_UNSAFE.search(value):
        return None
    return value


def clean(fragment: str) -> str:
    """`fragment` reduced to what a slide may hold (see the module's docstring)."""
    import nh3

    return str(nh3.clean(
        fragment, tags=set(HTML_TAGS | MATHML_TAGS),
        clean_content_tags=set(DROPPED_WITH_CONTENT),
        attributes={tag: set(names) for tag, names in ATTRIBUTES.items()},
        attribute_filter=_keep, url_schemes={"http", "https", "mailto", "data"},
        filter_style_properties=set(STYLE_PROPERTIES), link_rel="noopener noreferrer",
        strip_comments=True))


_CSS_IMPORT = re.compile(r"@import[^;]*;?", re.IGNORECASE)
_CSS_URL = re.compile(r"url\(\s*(['\"]?)(?!data:image/)[^)]*\)", re.IGNORECASE)


def clean_css(css: str) -> str:
    """A page's stylesheet with nothing it would fetch: `@import` rules and `url()`s that
    are not data: images are dropped (the rest of the look is kept)."""
    return _CSS_URL.sub("none", _CSS_IMPORT.sub("", css)).replace("</", "<\\/")
