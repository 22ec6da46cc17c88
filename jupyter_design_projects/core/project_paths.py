"""The path rules of a Project: normalising doc paths, the claude/ namespace for new bare
names, canonical UUIDs, and the safe local names of downloaded files."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

from ..errors import PathRejected

MAX_PATH_CHARS = 255
#: new bare names are written under this namespace (spec §16)
DEFAULT_NAMESPACE = "claude"
#: a saved file keeps only these characters of the upload's name, and only the last 64
SAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]")
SAFE_NAME_MAX = 64

RULE_EMPTY = "is empty"
RULE_TOO_LONG = f"is longer than {MAX_PATH_CHARS} characters"
RULE_CONTROL = "contains control or invisible characters"
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
    """A path about to be created must not hide characters from the people who read it."""
    for char in path:
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp"):
            raise PathRejected(path, RULE_CONTROL)
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
