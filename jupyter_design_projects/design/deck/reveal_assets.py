"""reveal.js's files as the package ships them (copied from npm by `jlpm build` into
`reveal_assets/`), read for the HTML export, and the speaker view's inline script that the
export's Content-Security-Policy must allow by its hash.

The notes plugin opens the speaker view as a blank popup and writes a page into it with an
inline `<script>`; that popup inherits the deck's policy, so the script's hash goes into
`script-src`. The script is the text of a JavaScript template literal inside the plugin:
`speaker_view_script` reads it back the way a browser evaluates the literal.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import re
from importlib import resources

from ...errors import ConfigError

FOLDER = "reveal_assets"
#: --theme NAME → the reveal.js theme it starts from (its web fonts left out at build time)
THEMES = {"light": "theme-white.css", "dark": "theme-black.css"}
FILES = ("reveal.js", "reveal.css", "notes.js", "LICENSE", "VERSION", *THEMES.values())
NOT_BUILT = ("reveal.js's files are not in the package: build them with `python3 tasks.py "
             "test` (or `jlpm build` in labextension/), or install the wheel")
_BANNER = re.compile(r"\A/\*!.*?\*/\s*", re.DOTALL)
_WRITE = "document.write(`"
_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


@dataclasses.dataclass(frozen=True)
class RevealAssets:
    version: str
    script: str  # reveal.js (its banner comment left out: the licence is carried whole)
    stylesheet: str  # reveal.css
    notes_plugin: str  # plugin/notes.js
    themes: dict[str, str]  # "light" / "dark" → the theme's CSS
    licence: str

    @property
    def speaker_script(self) -> str:
        return speaker_view_script(self.notes_plugin)


def packaged_assets() -> RevealAssets:
    """The files in the installed package; ConfigError when they were never built."""
    folder = resources.files(__name__.rpartition(".")[0]).joinpath(FOLDER)
    try:
        text = {name: folder.joinpath(name).read_text(encoding="utf-8") for name in FILES}
    except OSError:
        raise ConfigError("HTML export", NOT_BUILT) from None
    return RevealAssets(
        version=text["VERSION"].strip(),
        script=_BANNER.sub("", text["reveal.js"], count=1),
        stylesheet=text["reveal.css"],
        notes_plugin=text["notes.js"],
        themes={name: text[file] for name, file in THEMES.items()},
        licence=text["LICENSE"],
    )


def csp_hash(script: str) -> str:
    """The CSP source that allows exactly this inline script: 'sha256-…'."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def speaker_view_script(notes_plugin: str) -> str:
    """The inline script of the page the notes plugin writes into its popup, as the browser
    sees it; ValueError when the plugin no longer has that shape (a reveal.js upgrade)."""
    start = notes_plugin.find(_WRITE)
    if start < 0 or notes_plugin.find(_WRITE, start + 1) >= 0:
        raise ValueError("the notes plugin does not write exactly one speaker view")
    page = _template_literal(notes_plugin, start + len(_WRITE))
    scripts = _SCRIPT.findall(page)
    if len(scripts) != 1:
        raise ValueError(f"the speaker view has {len(scripts)} inline scripts, not 1")
    return scripts[0]


def _template_literal(source: str, at: int) -> str:
    """The value of the JavaScript template literal whose text starts at `at` (just after
    its opening backtick); one with a `${…}` substitution is refused."""
    out: list[str] = []
    i = at
    while i < len(source):
        char = source[i]
        if char == "`":
            return "".join(out)
        if char == "$" and source.startswith("${", i):
            raise ValueError("the speaker view template has a substitution")
        if char != "\\":
            out.append(char)
            i += 1
            continue
        escaped, width = source[i + 1], 2
        if escaped == "x":
            out.append(chr(int(source[i + 2:i + 4], 16)))
            width = 4
        elif escaped == "u" and source[i + 2] == "{":
            end = source.index("}", i)
            out.append(chr(int(source[i + 3:end], 16)))
            width = end + 1 - i
        elif escaped == "u":
            out.append(chr(int(source[i + 2:i + 6], 16)))
            width = 6
        elif escaped == "\n":
            pass  # a line continuation
        elif escaped in _ESCAPES:
            out.append(_ESCAPES[escaped])
        else:
            out.append(escaped)  # \` \$ \\ \/ and other identity escapes
        i += width
    raise ValueError("the speaker view template does not end")
