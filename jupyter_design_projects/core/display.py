"""Display safety: whether a path, project id, project name, sharing scope or URL can be
shown on an approval card exactly as it is, and the one normal form of a Design path.

A person approves what a card shows, so every string on a card must read as what it is:
no control, bidi, zero-width, tag or variation-selector characters, no look-alikes of `.`
and `/`, no mixed-script names, and no name written wholly in letters of another script
that read as Latin ones (a Cyrillic "Асе" is not "Ace"). Paths take their NFC form and
may hold letters, marks and digits of any script (`core/letters.py`: no invisible or
look-alike characters, no confusable script mix); a card shows a non-ASCII path beside its
escaped form. Names may use any one script but must be NFKC-stable and visible.
Functions answer with the name of the broken rule (or None), so callers can deny with a
reason and never truncate.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import unicodedata
from typing import Any
from urllib.parse import urlsplit

from . import letters

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
    "not_a_string", "empty", "too_long", "control_character", "backslash", "absolute",
    "empty_segment", "traversal", "edge_space", "reserved", "invisible_character",
    "not_a_letter", "not_normalised", "mixed_script", "whole_script_confusable",
})

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
_SCOPE = re.compile(r"[a-z][a-z_]{0,31}")
_HOST = re.compile(r"[A-Za-z0-9.-]{1,253}|\[[0-9a-fA-F:]{2,39}\]")
#: how many paths' verdicts are kept: a deck push asks about each of its paths a dozen
#: times (staging, plan cards, validation, the permission decision), a sync about each file
EXAMINED_KEPT = 4096


def _examine(path: object, max_chars: int) -> tuple[str | None, str | None]:
    """(normal form, None) for a displayable path, (normal form, "reserved") for a reserved
    one, else (None, the broken rule)."""
    if not isinstance(path, str):
        return None, "not_a_string"
    return _examine_text(path, max_chars)


@functools.lru_cache(maxsize=EXAMINED_KEPT)
def _examine_text(path: str, max_chars: int) -> tuple[str | None, str | None]:
    """`_examine` of a string: a pure function of its arguments, so its verdicts are kept."""
    if path == "":
        return None, "empty"
    path = unicodedata.normalize("NFC", path)
    if len(path) > max_chars:
        return None, "too_long"
    for char in path:
        code = ord(char)
        if code < 0x20 or 0x7F <= code <= 0x9F:
            return None, "control_character"
    if "\\" in path:
        return None, "backslash"
    if path.startswith("/"):
        return None, "absolute"
    kept: list[str] = []
    reserved = False
    for segment in path.split("/"):
        if segment == "":
            return None, "empty_segment"
        if segment == "..":
            return None, "traversal"
        if segment == ".":
            continue
        if segment != segment.strip():
            return None, "edge_space"
        foreign = letters.segment_rule(segment)
        if foreign:
            return None, foreign
        reserved = reserved or is_reserved_segment(segment)
        kept.append(segment)
    if not kept:
        return None, "empty"
    # named only once every other rule passed: a card may show such a path
    return "/".join(kept), "reserved" if reserved else None


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
    """The one normal form of a Design path (`./a/b` → `a/b`), or None if it has none (a
    reserved path among them: no plan or grant covers one)."""
    form, rule = _examine(path, max_chars)
    return form if rule is None else None


def written_form(path: object, max_chars: int = 1024) -> str | None:
    """The normal form a card shows and a one-time plan names, reserved paths included
    (`./CLAUDE.md` → `CLAUDE.md`), or None for a path no card may show."""
    return _examine(path, max_chars)[0]  # None for any rule but "reserved"


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


def with_escape(path: str) -> str:
    """A path as a card lists it: as written, and where it has non-ASCII characters its
    escaped form beside it (`café.html  [caf\\u00e9.html]`)."""
    return path if path.isascii() else f"{path}  [{letters.escaped(path)}]"


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
    for char in value:
        if letters.is_invisible(char):
            return "invisible_character"
    invisible = letters.marks_rule(value)
    if invisible:
        return invisible
    if any(unicodedata.category(c) == "Zs" and c != " " for c in value):
        return "unusual_space"
    if unicodedata.normalize("NFKC", value) != value:
        return "not_normalised"
    return letters.script_rule(value)


def url_rule(value: object, max_chars: int = MAX_URL_CHARS) -> str | None:
    """Project URLs: printable ASCII, https only (loopback too: the reference service's
    project URLs are https, and a grant card's URL is a link), a plain host, no userinfo
    and no backslash (parsers disagree on where the host of `a\\@b` is)."""
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
    return None if parts.scheme == "https" else "not_https"


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
