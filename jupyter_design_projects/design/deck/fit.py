"""A slide page too long for its 16:9 page, fitted and continued (`core.slide_fit`'s rule)
on its HTML: the same pages reach the previews, the PDF and the reveal.js file.

The body of the page's `<main class="slide">` is read as a column of blocks, each
estimated from its text at the deck stylesheet's sizes (30 px body text, 42 px lines;
tables at 26 px; code at 20 px). A fitted page's main gets the class `jdp-fit-NN` (its
blocks drawn at NN %, by `zoom`, which reflows their text across the full width: the
stylesheet holds the rules, `fit_css`); a continued slide becomes more pages, each after
the first named `STEM_2.html`, `STEM_3.html` (they sort right after the slide), opening
with the slide's heading marked "(continued)". A list continued keeps its numbering, a
table its header row. The speaker notes stay with the first page.
"""

from __future__ import annotations

import dataclasses
import html
import re

from ...core import slide_fit
from ...core.slide_fit import Block, Run

#: the slide's column (the stylesheet's padding: 48 px top and bottom, 64 px each side)
COLUMN_WIDTH, COLUMN_ROOM = 1280 - 2 * 64, 720 - 2 * 48
#: the last block's bottom margin, which the column also holds
END_MARGIN = 30
#: a character's average advance, in em (DejaVu Sans, with room to spare; headings bold)
CHAR_EM, BOLD_CHAR_EM, MONO_CHAR_EM = 0.58, 0.66, 0.61
#: a picture of unknown size (an <img> in text): 60 % of the slide, as a figure may take
PICTURE_PX = 432
CONTINUED = " (continued)"
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9:-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>")
_VOID = frozenset({"br", "img", "hr", "wbr", "col", "source", "area", "input", "meta",
                   "link", "base", "embed", "param", "track"})
_MAIN = re.compile(r'(<main class="slide( title)?)(?: jdp-fit-([0-9]+))?(">)(.*)(</main>)',
                   re.DOTALL)
_CONTINUATION = re.compile(r"^(.*)_([0-9]+)(\.html?)$", re.IGNORECASE)
_NOTES = re.compile(r'<aside class="jdp-notes".*?</aside>', re.DOTALL)
_TITLE = re.compile(r"(<title>)(.*?)(</title>)", re.DOTALL)
_HEADINGS = {"h1": 60, "h2": 50, "h3": 38, "h4": 30, "h5": 30, "h6": 30}
_CONTAINERS = frozenset({"div", "section", "center", "blockquote", "details", "article",
                         "header", "footer", "aside", "dl"})


def fit_css() -> str:
    """The rules a fitted page's class names (every deck stylesheet carries them)."""
    return "".join(f".slide.jdp-fit-{round(s * 100)}>*{{zoom:{s:g}}}"
                   for s in slide_fit.scales()[1:])


@dataclasses.dataclass
class _Node:
    """An element of the column: its whole HTML, and for one that can be cut, its
    opening and closing tags and its parts (leaf HTML or nodes)."""

    html: str
    block: Block
    tag: str = ""
    open: str = ""
    close: str = ""
    parts: list[_Node] = dataclasses.field(default_factory=list)

    def leaves(self) -> list[_Node]:
        return [leaf for part in self.parts for leaf in (part.leaves() if part.parts
                                                         else [part])]


def children(fragment: str) -> list[tuple[str, str, str, str]]:
    """The top-level children of an HTML fragment: (tag, attributes, inner, whole); text
    between elements is a child of tag "" when it is not blank."""
    found, depth, start, text_from = [], 0, 0, 0
    opened = ("", "")
    for match in _TAG.finditer(fragment):
        closing, tag, attrs = match.group(1), match.group(2).lower(), match.group(3)
        void = tag in _VOID or attrs.rstrip().endswith("/")
        if depth == 0 and not closing:
            text = fragment[text_from:match.start()]
            if text.strip():
                found.append(("", "", text, text))
            if void:
                found.append((tag, attrs, "", match.group(0)))
                text_from = match.end()
                continue
            start, opened, depth = match.start(), (tag, attrs), 1
            inner_from = match.end()
            continue
        if void:
            continue
        depth += -1 if closing else 1
        if depth == 0:
            found.append((opened[0], opened[1], fragment[inner_from:match.start()],
                          fragment[start:match.end()]))
            text_from = match.end()
        depth = max(depth, 0)
    tail = fragment[text_from:] if depth == 0 else ""
    if tail.strip():
        found.append(("", "", tail, tail))
    return found


def text_of(fragment: str) -> str:
    return " ".join(html.unescape(_TAG.sub(" ", fragment)).split())


def _runs(inner: str, font: float, line: float, em: float = CHAR_EM) -> tuple[Run, ...]:
    pieces = re.split(r"<br\s*/?>", inner, flags=re.IGNORECASE)
    return tuple(Run(len(text_of(p)), font * em, line) for p in pieces)


def _pictures(inner: str) -> float:
    return PICTURE_PX * len(re.findall(r"<img\b", inner, re.IGNORECASE))


def node(tag: str, attrs: str, inner: str, whole: str, first: bool = False) -> _Node:
    """One element of the column, estimated (see the module)."""
    classes = re.search(r'class="([^"]*)"', attrs)
    cls = classes.group(1).split() if classes else []
    if tag in _HEADINGS:
        size = _HEADINGS[tag]
        margin = 8 if size > 30 else 40
        return _Node(whole, Block(margin, _runs(inner, size, size * 1.4, BOLD_CHAR_EM),
                                  heading=first and size > 30), tag)
    if tag == "pre" or "jdp-output" in cls or "jdp-code" in cls:
        font, line = (20, 27) if "jdp-code" in cls else (22, 29.7)
        # every line of code is a line, a blank one too
        runs = tuple(Run(max(1, len(html.unescape(_TAG.sub("", text)))),
                         font * MONO_CHAR_EM, line) for text in inner.rstrip("\n").split("\n"))
        return _Node(whole, Block(32, runs), tag)
    if tag in ("ul", "ol"):
        items = [_Node(w, Block(30 * w.count("<p"), _runs(_TAG.sub(" ", i), 30, 42)), t)
                 for t, _, i, w in children(inner) if t == "li"]
        return _Node(whole, Block(30, indent_px=40, items=tuple(n.block for n in items)),
                     tag, f"<{tag}{attrs}>", f"</{tag}>", list(items))
    if tag == "table":
        return _table(attrs, inner, whole)
    if tag == "figure":
        caption = 28 if "<figcaption" in inner else 0
        return _Node(whole, Block(16 + caption + 216), tag)
    if tag == "math" or tag == "img":
        return _Node(whole, Block(100 if tag == "math" else PICTURE_PX), tag)
    if tag == "hr":
        return _Node(whole, Block(32), tag)
    if tag in _CONTAINERS and any(t for t, *_ in children(inner)):
        parts = [node(*child) for child in children(inner)]
        leaves = [leaf for p in parts for leaf in (p.leaves() if p.parts else [p])]
        fixed = sum(p.block.fixed_px for p in parts if p.parts)
        return _Node(whole, Block(fixed, items=tuple(leaf.block for leaf in leaves)), tag,
                     f"<{tag}{attrs}>", f"</{tag}>", parts)
    margin = 30 if tag in ("p", "") and tag else 0
    return _Node(whole, Block(margin + _pictures(inner), _runs(inner, 30, 42)), tag)


def _table(attrs: str, inner: str, whole: str) -> _Node:
    head, rows = "", []
    for tag, _, part_inner, part in children(inner):
        if tag == "thead":
            head = part
        elif tag in ("tbody", "tfoot"):
            rows += [w for t, _, _, w in children(part_inner) if t == "tr"]
        elif tag == "tr":
            rows.append(part)

    def row_block(row: str) -> Block:
        cells = [text_of(c) for t, _, c, _ in children(_inner(row)) if t in ("td", "th")]
        width = COLUMN_WIDTH / max(len(cells), 1)
        lines = max((slide_fit.lines(Run(len(c), 26 * CHAR_EM, 1), width - 20)
                     for c in cells), default=1)
        return Block(9 + 36.4 * lines)

    head_rows = [w for t, _, i, _ in children(head) for _t, _, _, w in
                 ([(t, "", i, i)] if t == "tr" else []) if _t == "tr"] if head else []
    head_px = sum(row_block(f"<tr>{r}</tr>").fixed_px for r in head_rows)
    leaves = [_Node(r, row_block(r), "tr") for r in rows]
    return _Node(whole, Block(16 + head_px, items=tuple(n.block for n in leaves)), "table",
                 f"<table{attrs}>{head}<tbody>", "</tbody></table>", leaves)


def _inner(element: str) -> str:
    found = children(element)
    return found[0][2] if found else element


def render(part: _Node, start: int, end: int, offset: int = 0) -> str:
    """The HTML of leaves [start, end) of `part` (counted from `offset`), its structure
    kept: a list cut keeps its numbering, a table its header."""
    out, at = [], offset
    for child in part.parts:
        count = len(child.leaves()) if child.parts else 1
        lo, hi = max(start, at), min(end, at + count)
        if lo < hi:
            if child.parts:
                out.append(render(child, lo, hi, at))
            else:
                out.append(child.html)
        at += count
    opening = part.open
    if part.tag == "ol" and start > offset:
        first = re.search(r'\bstart="([0-9]+)"', opening)
        number = (int(first.group(1)) if first else 1) + start - offset
        opening = re.sub(r'\s*\bstart="[0-9]+"', "", opening)[:-1] + f' start="{number}">'
    return opening + "".join(out) + part.close


@dataclasses.dataclass(frozen=True)
class Fitted:
    """A slide page as shown: its pages (path, HTML; the first is the slide itself), and
    what fitting did (`core.slide_fit.Outcome`)."""

    pages: tuple[tuple[str, str], ...]
    outcome: slide_fit.Outcome

    @property
    def changed(self) -> bool:
        return self.outcome.pages > 1 or self.outcome.scale < 1.0


def continuation_path(path: str, number: int) -> str:
    """Page `number` (2, 3, …) of the slide at `path`: `STEM_N.html`, which sorts right
    after it (`_` comes after `.`)."""
    stem, dot, extension = path.rpartition(".")
    return f"{stem}_{number}.{extension}" if dot else f"{path}_{number}"


def continued_from(path: str) -> tuple[str, int] | None:
    """The slide a continuation page's path names, and its page number; else None."""
    found = _CONTINUATION.match(path)
    if found is None or int(found.group(2)) < 2:
        return None
    return found.group(1) + found.group(3), int(found.group(2))


def fit_page(path: str, page: str) -> Fitted:
    """`page` (a deck slide page) fitted and continued as its content needs."""
    main = _MAIN.search(page)
    if main is None:
        return Fitted(((path, page),), slide_fit.Outcome(1.0))
    notes = "".join(_NOTES.findall(main.group(5)))
    body = _NOTES.sub("", main.group(5))
    nodes = [node(*child, first=n == 0) for n, child in enumerate(children(body))]
    blocks = [n.block for n in nodes]
    plan = slide_fit.fit(blocks, COLUMN_WIDTH, COLUMN_ROOM - END_MARGIN)
    outcome = slide_fit.Outcome(plan.scale, len(plan.pages))
    already = int(main.group(3)) / 100 if main.group(3) else 1.0
    if not plan.continued and plan.scale >= already:  # as it is (fitted when staged)
        return Fitted(((path, page),), slide_fit.Outcome(already))
    classes = main.group(1) + (f" jdp-fit-{round(plan.scale * 100)}" if plan.fitted else "")
    if plan.fitted and ".slide.jdp-fit-" not in page[:main.start()]:
        # a page staged before its stylesheet carried the rules
        page = page.replace("</head>", f"<style>{fit_css()}</style></head>", 1)
        main = _MAIN.search(page)
        assert main is not None
    pages = []
    for number, parts in enumerate(plan.pages, start=1):
        shown = []
        for part in parts:
            item = nodes[part.block]
            if number > 1 and part.block == 0 and item.block.heading:
                shown.append(_continued(item.html))
            elif part.items is None:
                shown.append(item.html)
            else:
                shown.append(render(item, *part.items))
        inner = "\n".join(shown) + ("\n" + notes if number == 1 and notes else "")
        text = (page[:main.start()] + classes + main.group(4) + "\n" + inner + "\n"
                + main.group(6) + page[main.end():])
        if number > 1:
            text = _TITLE.sub(lambda m: m.group(1) + m.group(2) + html.escape(CONTINUED)
                              + m.group(3), text, count=1)
        pages.append((path if number == 1 else continuation_path(path, number), text))
    return Fitted(tuple(pages), outcome)


def _continued(heading: str) -> str:
    """The heading, marked as a continuation."""
    at = heading.rfind("</")
    return (heading[:at] + f'<span class="jdp-continued">{html.escape(CONTINUED)}</span>'
            + heading[at:])


def record(fitted: dict[str, slide_fit.Outcome], path: str, shown: Fitted) -> None:
    """Note in `fitted` (slide path -> outcome) what fitting did to the page at `path`; a
    continuation page staging made counts as one more page of its slide."""
    slide = continued_from(path)
    if slide is not None and slide[0] in fitted:
        before = fitted[slide[0]]
        fitted[slide[0]] = dataclasses.replace(before, pages=before.pages + 1)
    elif shown.changed:
        fitted[path] = shown.outcome
