"""OAuth scope arithmetic: which scopes a login asks for and what a Projects expansion requests."""

from __future__ import annotations

from collections.abc import Iterable

BASE_SCOPES: tuple[str, ...] = (
    "user:profile",
    "user:inference",
    "user:mcp_servers",
    "user:file_upload",
)
DESIGN_SCOPES: tuple[str, ...] = ("user:design:read", "user:design:write")
PROJECT_SCOPES: tuple[str, ...] = ("user:projects:read", "user:projects:write")

#: existing scopes an expansion refresh keeps; anything else the credential held is dropped
PRESERVABLE_SCOPES: frozenset[str] = frozenset(BASE_SCOPES + DESIGN_SCOPES + PROJECT_SCOPES)

#: what `%design login` asks for: everything both pipelines can use
LOGIN_SCOPES: tuple[str, ...] = BASE_SCOPES + DESIGN_SCOPES + PROJECT_SCOPES


def _ordered_unique(scopes: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(s for s in scopes if s))


def parse_scope(text: str) -> tuple[str, ...]:
    """The space-separated wire form as a tuple, in order, without duplicates."""
    return _ordered_unique(text.split())


def format_scope(scopes: Iterable[str]) -> str:
    return " ".join(_ordered_unique(scopes))


def missing_project_scopes(scopes: Iterable[str]) -> tuple[str, ...]:
    held = set(scopes)
    return tuple(s for s in PROJECT_SCOPES if s not in held)


def expansion_scopes(existing: Iterable[str]) -> tuple[str, ...]:
    """The FULL list an expansion refresh sends: base, then the preservable existing
    scopes, then the project scopes (the token endpoint drops whatever is omitted)."""
    kept = [s for s in existing if s in PRESERVABLE_SCOPES]
    return _ordered_unique([*BASE_SCOPES, *kept, *PROJECT_SCOPES])
