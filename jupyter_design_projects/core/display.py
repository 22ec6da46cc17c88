"""Display safety: whether a path, project id, project name, sharing scope or URL can be
shown on an approval card exactly as it is, and the one normal form of a Design path.

A person approves what a card shows, so every string on a card must read as what it is:
no control, bidi, zero-width, tag or variation-selector characters, no look-alikes of `.`
and `/`, no mixed-script names, and no name written wholly in letters of another script
that read as Latin ones (a Cyrillic "Асе" is not "Ace"). Paths are printable ASCII (the
simple safe rule); names may use any one script but must be NFKC-stable and visible.
Functions answer with the name of the broken rule (or None), so callers can deny with a
reason and never truncate.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from typing import Any
from urllib.parse import urlsplit

#: longest path a plan card shows
MAX_PATH_CHARS = 80
#: longest project name / email / detail value a card shows
MAX_TEXT_CHARS = 120
#: longest project URL a card shows
MAX_URL_CHARS = 300
#: segment names no authorization ever covers, compared after folding (any depth, any case)
RESERVED_SEGMENTS = frozenset({"claude.md", ".claude"})
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
#: every rule `path_rule` can name
PATH_RULES = frozenset({
    "not_a_string", "empty", "too_long", "control_character", "non_ascii", "backslash",
    "absolute", "empty_segment", "traversal", "edge_space", "reserved",
})

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
_SCOPE = re.compile(r"[a-z][a-z_]{0,31}")
_HOST = re.compile(r"[A-Za-z0-9.-]{1,253}|\[[0-9a-fA-F:]{2,39}\]")
#: visible-looking blanks and fillers that unicodedata files under ordinary categories
_INVISIBLE = frozenset({0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x034F, 0x180E})
#: scripts whose letters pass for one another; a name may use at most one of them
_CONFUSABLE_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC"})
#: letters of those scripts that read as a Latin letter in common fonts (from Unicode's
#: confusables, UTS #39): a name made of nothing else reads as a Latin name it is not
_LATIN_LOOKALIKES = frozenset(
    "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0423\u0425"  # Cyrillic
    "\u0405\u0406\u0408\u04ae\u04ba\u04c0\u0500\u051a\u051c"
    "\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0455\u0456\u0458\u04bb\u04af"
    "\u04cf\u0501\u051b\u051d"
    "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4"  # Greek
    "\u03a5\u03a7\u03b1\u03b9\u03bd\u03bf\u03c1"
    "\u0570\u0578\u057d\u0566\u0585"                                          # Armenian
    "\u13a0\u13a2\u13aa\u13ab\u13ac\u13b3\u13b7\u13bb\u13c0\u13c3\u13d2\u13d9"  # Cherokee
    "\u13da\u13de\u13df\u13e2\u13e6\u13f4"
)
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp", "Me"})
#: combining marks in a row after a letter (vowel signs of Indic scripts need them)
_MAX_MARKS = 2


def _examine(path: object, max_chars: int) -> tuple[str | None, str | None]:
    """(normal form, None) for a displayable path, else (None, the broken rule)."""
    if not isinstance(path, str):
        return None, "not_a_string"
    if path == "":
        return None, "empty"
    if len(path) > max_chars:
        return None, "too_long"
    for char in path:
        code = ord(char)
        if code < 0x20 or code == 0x7F:
            return None, "control_character"
        if code > 0x7E:
            return None, "non_ascii"
    if "\\" in path:
        return None, "backslash"
    if path.startswith("/"):
        return None, "absolute"
    kept: list[str] = []
    for segment in path.split("/"):
        if segment == "":
            return None, "empty_segment"
        if segment == "..":
            return None, "traversal"
        if segment == ".":
            continue
        if segment != segment.strip():
            return None, "edge_space"
        if is_reserved_segment(segment):
            return None, "reserved"
        kept.append(segment)
    if not kept:
        return None, "empty"
    return "/".join(kept), None


def is_reserved_segment(segment: str) -> bool:
    """`CLAUDE.md`, `.claude` in any case, also as `CLAUDE.md.`, `.claude ` or `CLAUDE.md:x`."""
    folded = segment.split(":", 1)[0].rstrip(". ").casefold()
    return folded in RESERVED_SEGMENTS


def is_reserved_path(path: object) -> bool:
    """Whether any segment of `path` is reserved (checked on the raw text, any separator)."""
    if not isinstance(path, str):
        return False
    return any(is_reserved_segment(part) for part in re.split(r"[/\\]", path) if part)


def path_rule(path: object, max_chars: int = MAX_PATH_CHARS) -> str | None:
    """The path rule `path` breaks, or None when a card may show it."""
    return _examine(path, max_chars)[1]


def normal_form(path: object, max_chars: int = 1024) -> str | None:
    """The one normal form of a Design path (`./a/b` → `a/b`), or None if it has none."""
    return _examine(path, max_chars)[0]


def id_rule(value: object) -> str | None:
    """Project ids and account ids: short ASCII tokens (UUIDs in practice)."""
    if not isinstance(value, str):
        return "not_a_string"
    return None if _ID.fullmatch(value) else "unsafe_id"


def scope_rule(value: object) -> str | None:
    """Sharing scopes and link permissions: short lower-case words."""
    if not isinstance(value, str):
        return "not_a_string"
    return None if _SCOPE.fullmatch(value) else "unsafe_scope"


def _script(char: str) -> str | None:
    if not char.isalpha():
        return None
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0] if name else "UNKNOWN"


def _is_selector(code: int) -> bool:
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


def text_rule(value: object, max_chars: int = MAX_TEXT_CHARS) -> str | None:
    """Names and other free text: visible, NFKC-stable, single-script among look-alikes,
    and not wholly made of letters that read as Latin ones."""
    if not isinstance(value, str):
        return "not_a_string"
    if value.strip() == "":
        return "empty"
    if len(value) > max_chars:
        return "too_long"
    if value != value.strip():
        return "edge_space"
    scripts: set[str] = set()
    only_lookalikes = True
    marks = 0
    previous = " "
    for char in value:
        code = ord(char)
        category = unicodedata.category(char)
        if category in _REFUSED_CATEGORIES or code in _INVISIBLE or _is_selector(code):
            return "invisible_character"
        if category in ("Mn", "Mc"):
            marks += 1
            if marks > _MAX_MARKS or not (previous.isalpha() or marks > 1):
                return "invisible_character"
        else:
            marks = 0
        previous = char
        if category == "Zs" and char != " ":
            return "unusual_space"
        script = _script(char)
        if script in _CONFUSABLE_SCRIPTS:
            scripts.add(script)
        if script is not None and char not in _LATIN_LOOKALIKES:
            only_lookalikes = False
    if unicodedata.normalize("NFKC", value) != value:
        return "not_normalised"
    if len(scripts) > 1:
        return "mixed_script"
    if only_lookalikes and scripts and scripts != {"LATIN"}:
        return "whole_script_confusable"
    return None


def url_rule(value: object, max_chars: int = MAX_URL_CHARS) -> str | None:
    """Project URLs: printable ASCII, https (http only on loopback), a plain host, no
    userinfo and no backslash (parsers disagree on where the host of `a\\@b` is)."""
    if not isinstance(value, str):
        return "not_a_string"
    if not value or len(value) > max_chars:
        return "bad_length"
    if any(not 0x21 <= ord(c) <= 0x7E for c in value):
        return "non_printable_ascii"
    if "\\" in value:
        return "backslash"
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return "unparsable"
    if "@" in parts.netloc:
        return "userinfo"
    host_part = re.sub(r":[0-9]{1,5}$", "", parts.netloc)
    if not _HOST.fullmatch(host_part) or not parts.hostname:
        return "bad_host"
    host = parts.hostname
    if parts.scheme == "https":
        return None
    if parts.scheme == "http" and host in LOOPBACK_HOSTS:
        return None
    return "not_https"


@dataclasses.dataclass(frozen=True)
class ProjectIdentity:
    """What a grant card says about a project, every field display-safe."""

    project_id: str
    name: str
    scope: str
    link_permission: str | None
    url: str

    @property
    def sharing(self) -> str:
        """The sharing line of a grant card: `org`, or `org, link: view`."""
        link = f", link: {self.link_permission}" if self.link_permission else ""
        return self.scope + link


def project_identity(project_id: str, answer: Any) -> ProjectIdentity | str:
    """The identity a `get_project` answer gives, or the name of the rule it breaks (the
    grant card is then refused: a person must see whom they grant)."""
    if not isinstance(answer, dict):
        return "not_an_object"
    if answer.get("id", project_id) != project_id or id_rule(project_id):
        return "project_id_mismatch"
    sharing = answer.get("sharing")
    if not isinstance(sharing, dict):
        return "sharing_missing"
    link = sharing.get("link_permission")
    checks = (
        ("name", text_rule(answer.get("name"))),
        ("scope", scope_rule(sharing.get("scope"))),
        ("link_permission", None if link is None else scope_rule(link)),
        ("url", url_rule(answer.get("url"))),
    )
    for field, rule in checks:
        if rule:
            return f"{field}_{rule}"
    return ProjectIdentity(project_id, answer["name"], sharing["scope"], link, answer["url"])
