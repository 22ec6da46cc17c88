"""The path rules of a Project: normalising doc paths, the claude/ namespace for new bare
names, the characters a new doc's path may hold (letters of any script, NFC, nothing
invisible or confusable: `core/letters.py`), canonical UUIDs, and the safe local names of
downloaded files."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

from ..errors import PathRejected
from . import letters

MAX_PATH_CHARS = 255
#: new bare names are written under this namespace (spec §16)
DEFAULT_NAMESPACE = "claude"
#: a saved file keeps only these characters of the upload's name, and only the last 64
SAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]")
SAFE_NAME_MAX = 64

RULE_EMPTY = "is empty"
RULE_TOO_LONG = f"is longer than {MAX_PATH_CHARS} characters"
RULE_CONTROL = "contains control or invisible characters"
#: the phrase of each `letters.segment_rule` a new path breaks
RULE_LETTERS = {
    "invisible_character": RULE_CONTROL,
    "not_a_letter": "contains a character of another script that is not a letter, mark "
                    "or digit",
    "not_normalised": "contains a compatibility form (fullwidth, ligature …) of a letter",
    "mixed_script": "mixes look-alike scripts in one segment",
    "whole_script_confusable": "is written in letters of another script that read as Latin",
}
RULE_UPLOAD = "uploads can only be deleted in the web UI"

_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def normalize(path: str) -> str:
    """Strip every leading `./` and enforce 1–255 characters (read, write and delete)."""
    if not isinstance(path, str):
        raise PathRejected(repr(path), RULE_EMPTY)
    stripped = path
    while stripped.startswith("./"):
        stripped = stripped[2:]
    if not stripped:
        raise PathRejected(path, RULE_EMPTY)
    if len(stripped) > MAX_PATH_CHARS:
        raise PathRejected(path, RULE_TOO_LONG)
    return stripped


def check_writable(path: str) -> str:
    """A path about to be created must not hide characters from the people who read it:
    letters, marks and digits of any script are fine (in NFC, as `resolve_write_path`
    gives them), control, format, private-use and unassigned characters and confusable
    script mixes are not."""
    if any(letters.is_invisible(char) for char in path):
        raise PathRejected(path, RULE_CONTROL)
    for segment in path.split("/"):
        rule = letters.segment_rule(segment)
        if rule:
            raise PathRejected(path, RULE_LETTERS[rule])
    return path


def resolve_write_path(path: str, existing: Collection[str]) -> tuple[str, bool]:
    """Where a write lands, and whether it replaces a doc (spec §16).

    An existing exact path is replaced; a new path with an explicit namespace (a `/`) is
    kept; a new bare name becomes `claude/<name>` (which may itself exist: then that doc is
    replaced). Returns `(final_path, replaces_existing)`.
    """
    name = normalize(path)
    if name in existing:
        return name, True
    name = unicodedata.normalize("NFC", name)
    if name in existing:
        return name, True
    check_writable(name)
    if "/" not in name:
        name = f"{DEFAULT_NAMESPACE}/{name}"
        if len(name) > MAX_PATH_CHARS:
            raise PathRejected(path, RULE_TOO_LONG)
    return name, name in existing


def is_canonical_uuid(value: object) -> bool:
    """Only the canonical lowercase 8-4-4-4-12 form: no braces, urn:, upper case or bare hex."""
    return isinstance(value, str) and _CANONICAL_UUID.fullmatch(value) is not None


def safe_file_name(name: str) -> str:
    """Keep safe characters only, then their last 64; never empty, never a dot file."""
    kept = SAFE_NAME_CHARS.sub("", name)[-SAFE_NAME_MAX:].lstrip(".")
    return kept or "file"
