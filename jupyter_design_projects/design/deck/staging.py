"""What a deck would write, before anything is sent: staged files by path, in the order
they were staged, each a slide page or one of its assets, and how each compares with what
the project held when it was last listed (new, replacing a file, or unchanged).

A slide too long for its page is fitted and continued as it is staged (`fit`): its
continuation pages are staged with it (they belong to it, as its assets do), and
`Stage.fitted` says what was done to each, for staging, the push card and the export to
name."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence

from ...core import display, slide_fit
from ...core.display import MAX_PATH_CHARS
from ...errors import InvalidArguments
from .fit import fit_page
from .slides import Asset

SLIDE_SUFFIXES = (".html", ".htm")
#: what the staged table's `change` column says (`unchanged`: the project holds it as
#: staged, so a push does not write it)
NEW, REPLACE, UNCHANGED = "new", "replace", "unchanged"


@dataclasses.dataclass(frozen=True)
class StagedFile:
    path: str
    #: "slide" (an HTML page) or "image" (an asset of a slide)
    kind: str
    data: bytes = dataclasses.field(repr=False)
    #: the slide this file belongs to (a slide belongs to itself)
    slide: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def checked_path(path: object, field: str = "path") -> str:
    """The path in its normal form, when an approval card can show it exactly (no
    invisible or look-alike characters, at most MAX_PATH_CHARS characters, no `..`,
    nothing reserved)."""
    rule = display.path_rule(path)
    normal = display.normal_form(path)
    if rule is not None or normal is None:
        why = (f"is longer than {MAX_PATH_CHARS} characters" if rule == "too_long"
               else f"cannot be shown on an approval card ({rule or 'no normal form'})")
        raise InvalidArguments("deck", field, f"{path!r} {why}")
    return normal


def slide_path(path: object) -> str:
    normal = checked_path(path)
    if not normal.lower().endswith(SLIDE_SUFFIXES):
        raise InvalidArguments("deck", "path", f"{normal!r} must end in .html")
    return normal


class Stage:
    """The staged files of one deck. Staging a slide again replaces it and its assets."""

    def __init__(self) -> None:
        self._files: dict[str, StagedFile] = {}
        #: slide path -> what fitting did, for each slide fitted or continued
        self.fitted: dict[str, slide_fit.Outcome] = {}

    def add_slide(self, path: str, page: str, assets: Sequence[Asset] = ()) -> StagedFile:
        """Stage the slide page at `path` (fitted, and continued on pages of its own when
        it is too long), with its assets; staging it again replaces them all."""
        path = slide_path(path)
        shown = fit_page(path, page)
        files = [StagedFile(slide_path(page_path), "slide", text.encode("utf-8"), path)
                 for page_path, text in shown.pages]
        for asset in assets:
            files.append(StagedFile(checked_path(asset.path, "asset"), asset.kind, asset.data,
                                    path))
        for staged in files:
            taken = self._files.get(staged.path)
            if taken is not None and taken.slide != path:
                raise InvalidArguments("deck", "path", f"{staged.path!r} is already staged "
                                       f"for the slide {taken.slide!r}")
        # a slide staged again keeps its place in the deck
        kept: dict[str, StagedFile] = {}
        for old in self._files.values():
            if old.slide != path:
                kept[old.path] = old
            elif path not in kept:
                kept.update((f.path, f) for f in files)
        kept.update((f.path, f) for f in files if f.path not in kept)
        self._files = kept
        self.fitted.pop(path, None)
        if shown.changed:
            self.fitted[path] = shown.outcome
        return files[0]

    def fit_summary(self, slides: Sequence[str] | None = None) -> str:
        """One line naming each staged slide (of `slides`, else all) fitted or continued,
        or ""."""
        return slide_fit.summary({path: outcome for path, outcome in self.fitted.items()
                                  if slides is None or path in slides})

    def title(self, path: str) -> str:
        """The heading of the staged page at `path` (its `<title>`), else its path."""
        import html
        import re

        staged = self._files.get(path)
        found = re.search(rb"<title>(.*?)</title>", staged.data, re.DOTALL) if staged else None
        return html.unescape(found.group(1).decode("utf-8", "replace")).strip() if found \
            else path

    def remove(self, slide: str) -> None:
        self.fitted.pop(slide, None)
        for old in [f for f in self._files.values() if f.slide == slide]:
            del self._files[old.path]

    @property
    def files(self) -> list[StagedFile]:
        return list(self._files.values())

    @property
    def slides(self) -> list[str]:
        return [f.path for f in self._files.values() if f.kind == "slide"]

    def units(self, files: Sequence[StagedFile] | None = None) -> list[list[str]]:
        """The given files' paths grouped by slide (assets first, then the page), in
        staging order: what should land in one plan together."""
        groups: dict[str, list[StagedFile]] = {}
        for staged in self.files if files is None else files:
            groups.setdefault(staged.slide, []).append(staged)
        return [[f.path for f in sorted(group, key=lambda f: f.kind == "slide")]
                for group in groups.values()]

    def rows(self, remote: Mapping[str, str | None]) -> list[dict[str, object]]:
        """One row per staged file: path, kind, bytes, and new or replace (against the
        project's files as last listed)."""
        return [{"path": f.path, "kind": f.kind, "bytes": len(f.data),
                 "change": REPLACE if remote.get(f.path) else NEW, "slide": f.slide}
                for f in self._files.values()]
