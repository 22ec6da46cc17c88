"""A deck's look: the Design project's design system where the service offers one, else
the documented default, and the slide stylesheet built from it; or, chosen by the person
(`--theme`), the built-in `light` or `dark` look, or a CSS file of their own added after
the stylesheet (without `@import` or `url()`s: a slide loads nothing).

The service describes a project's design system in `get_claude_design_prompt(project_id=…)`
(PROTOCOL §3 offers no other read of it): a `## Design system: NAME` section of
`` - `token`: `value` `` lines. Only values that are safe inside CSS are taken; any other
token keeps the default's value.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping

#: token name in the design system → Theme field
TOKENS = {
    "color.primary": "primary", "color.accent": "accent", "color.background": "background",
    "color.text": "text", "font.heading": "heading_font", "font.body": "body_font",
    "radius": "radius", "spacing.unit": "spacing",
}
_SAFE = {
    "colour": re.compile(r"^#[0-9a-fA-F]{6}$"),
    "font": re.compile(r"^[A-Za-z0-9 ,'\"-]{1,120}$"),
    "length": re.compile(r"^[0-9]{1,3}(?:\.[0-9]{1,2})?(?:px|rem|em)$"),
}
_KIND = {"primary": "colour", "accent": "colour", "background": "colour", "text": "colour",
         "heading_font": "font", "body_font": "font", "radius": "length", "spacing": "length"}
_SECTION = re.compile(r"^## Design system: (.+)$", re.MULTILINE)
_TOKEN_LINE = re.compile(r"^- `([^`]+)`: `([^`]*)`$")


@dataclasses.dataclass(frozen=True)
class Theme:
    name: str
    primary: str = "#1f4e79"
    accent: str = "#f2a541"
    background: str = "#ffffff"
    text: str = "#1b1f24"
    heading_font: str = "DejaVu Sans, Helvetica, Arial, sans-serif"
    body_font: str = "DejaVu Sans, Helvetica, Arial, sans-serif"
    radius: str = "6px"
    spacing: str = "8px"
    #: CSS of the person's own, after the stylesheet (already cleaned)
    extra_css: str = ""


#: the look of a deck whose project has no design system (or a service that offers none)
DEFAULT_THEME = Theme("built-in default")
#: the looks `--theme` names
BUILT_IN = {
    "light": dataclasses.replace(DEFAULT_THEME, name="light"),
    "dark": Theme("dark", primary="#8ab4f8", accent="#f2a541", background="#1b1f24",
                  text="#e8eaed"),
}
#: the largest CSS theme file read
CSS_FILE_MAX_BYTES = 256 * 1024


def chosen_theme(choice: str, base: Theme = DEFAULT_THEME) -> Theme:
    """`--theme light|dark` (a built-in look) or `--theme PATH.css` (`base` with the file's
    CSS after the stylesheet); a clear InvalidArguments otherwise."""
    from pathlib import Path

    from ...errors import InvalidArguments
    from .allowlist import clean_css

    if choice in BUILT_IN:
        return BUILT_IN[choice]
    path = Path(choice).expanduser()
    if path.suffix.lower() != ".css":
        raise InvalidArguments("deck", "theme", f"{choice!r} is not light, dark or a .css file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidArguments("deck", "theme", f"{choice!r} cannot be read "
                                                f"({type(exc).__name__})") from None
    if len(data) > CSS_FILE_MAX_BYTES:
        raise InvalidArguments("deck", "theme", f"{choice!r} is over "
                                                f"{CSS_FILE_MAX_BYTES:,} bytes")
    css = clean_css(data.decode("utf-8", errors="replace"))
    name = base.name.split(" + ", 1)[0]
    return dataclasses.replace(base, name=f"{name} + {path.name}", extra_css=css)


def theme_from_tokens(name: str, tokens: Mapping[str, str]) -> Theme:
    """A Theme from design-system tokens; unknown tokens are ignored and unsafe values
    keep the default."""
    values = {}
    for token, field in TOKENS.items():
        value = tokens.get(token)
        if isinstance(value, str) and _SAFE[_KIND[field]].match(value.strip()):
            values[field] = value.strip()
    return dataclasses.replace(DEFAULT_THEME, name=name, **values)


def theme_from_prompt(prompt: object) -> Theme | None:
    """The design system a `get_claude_design_prompt` answer describes, or None."""
    if not isinstance(prompt, str):
        return None
    found = _SECTION.search(prompt)
    if found is None:
        return None
    tokens: dict[str, str] = {}
    for line in prompt[found.end():].splitlines()[1:]:
        if line.startswith("#"):
            break
        match = _TOKEN_LINE.match(line.strip())
        if match:
            tokens[match.group(1)] = match.group(2)
    return theme_from_tokens(found.group(1).strip()[:120], tokens)


#: the least height a figure takes on a slide (CSS px, 30 % of the 720 px slide): a slide
#: whose other content leaves less overflows, and is fitted as any slide that overflows
FIGURE_MIN_HEIGHT = 216
#: a figure of the slide itself, or of one of its fragments
_FIGURE_HOLDERS = (".slide:has(>figure)", ".slide:has(>.fragment>figure)")


def figure_room() -> str:
    """The CSS that sizes a figure to the room the slide's other content leaves: a slide
    holding a figure is a column one slide high, the rest of its content keeps its size,
    and the figure (or the fragment holding it) takes what remains, at least
    FIGURE_MIN_HEIGHT, its picture contained in it (never cropped, never stretched out of
    shape). A column does not collapse margins, so its items keep their bottom margins
    only, as collapsed margins would show."""
    holders = ",".join(_FIGURE_HOLDERS)
    children = ",".join(f"{h}>*" for h in _FIGURE_HOLDERS)
    return (
        f"{holders}{{display:flex;flex-direction:column;height:100vh}}"
        f"{children}{{flex:none;margin-top:0}}"
        ".slide>figure,.slide>.fragment:has(>figure){flex:1 1 0;"
        f"min-height:{FIGURE_MIN_HEIGHT}px;display:flex;flex-direction:column}}"
        ".slide>.fragment>figure{flex:1 1 0;min-height:0;display:flex;flex-direction:column}"
        ".slide>figure img,.slide>.fragment>figure img{flex:1 1 0;min-height:0;"
        "max-height:none;width:100%;height:auto;margin:0;object-fit:contain}"
    )


#: a slide that shows a table (alone, or as a notebook's output) under its heading
_TABLE_HOLDERS = (".slide:not(.title):has(>table)", ".slide:not(.title):has(>.jdp-html>table)",
                  ".slide:not(.title):has(>.fragment>.jdp-html>table)")


def layout_css() -> str:
    """Laid out as a presenter would: a table is centred across the slide, and a slide
    whose table leaves room has it in the middle of the room under the heading (a
    column one slide high, the table's block between two equal spaces)."""
    holders = ",".join(_TABLE_HOLDERS)
    return (f"{holders}{{display:flex;flex-direction:column;height:100vh}}"
            ".slide>table,.jdp-html>table{margin-left:auto;margin-right:auto}"
            ".slide:not(.title):has(>table)>table,"
            ".slide:not(.title)>.jdp-html:has(>table),"
            ".slide:not(.title)>.fragment:has(>.jdp-html>table){margin-top:auto;"
            "margin-bottom:auto}")


def stylesheet(theme: Theme, before_own: str = "") -> str:
    """The CSS every slide of the deck carries inline (a slide is one self-contained page
    plus its image assets); `before_own` (a notebook slide's rules) comes before the
    person's own CSS file, so a rule of theirs wins over the deck's."""
    from .fit import fit_css

    t = theme
    return (
        # a PDF keeps every background and colour of the look (Chromium leaves them out
        # of a print unless told, in a frame even with `print_background`)
        "*{box-sizing:border-box;-webkit-print-color-adjust:exact;print-color-adjust:exact}"
        f"html,body{{margin:0;background:{t.background};color:{t.text};"
        f"font-family:{t.body_font};font-size:30px;line-height:1.4}}"
        f".slide{{padding:calc({t.spacing} * 6) calc({t.spacing} * 8);min-height:100vh}}"
        f"h1,h2,h3{{font-family:{t.heading_font};color:{t.primary};margin:0 0 {t.spacing}}}"
        "h1{font-size:60px}h2{font-size:50px}h3{font-size:38px}"
        f"a{{color:{t.primary}}}"
        f"code{{background:{t.accent}33;padding:0 4px;border-radius:{t.radius}}}"
        f"blockquote{{border-left:6px solid {t.accent};margin:0;padding-left:{t.spacing}}}"
        f"figure{{margin:{t.spacing} 0}}figure img{{max-width:100%;max-height:60vh;"
        f"object-fit:contain;border-radius:{t.radius}}}"
        "figcaption{font-size:20px;opacity:.75;flex:none}"
        + figure_room()
        + f"table{{border-collapse:collapse;font-size:26px;margin:{t.spacing} 0}}"
        f"th{{background:{t.primary};color:{t.background};text-align:left}}"
        f"th,td{{padding:4px 10px;border-bottom:1px solid {t.accent}}}"
        ".jdp-more-rows{font-size:20px;opacity:.75}"
        ".slide.title{display:flex;flex-direction:column;justify-content:center;"
        "align-items:center;text-align:center}"
        ".slide.title h1{font-size:72px}"
        ".jdp-continued{font-weight:normal}"
        + layout_css() + fit_css() + before_own + t.extra_css
    )
