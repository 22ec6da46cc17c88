"""A deck written to a local file: read back as the project holds it (`read_export`),
drawn as a PDF (`pdf`) or one HTML file (`html_deck`), and written (`export.write_export`);
`Exported` says where, as what, and what the read and the print could not keep."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from ...errors import PermissionRefused
from ...errors.remedy import Remedy
from ..approval import PendingApproval
from .deck import CONSENT_FIRST, Deck


@dataclasses.dataclass
class Exported:
    """One export: the file written, its bytes, its kind ("PDF", or the HTML kind
    `html_document` names), the deck's title, whether it has speaker notes, the read
    (`export.Export`: slides, and what was partial, pictured or missing) and, for a
    PDF, what printing scaled, continued, cut or blocked (`pdf.Printed`)."""

    path: Path
    data: bytes
    kind: str
    title: str
    notes: bool
    read: Any
    printed: Any = None

    @property
    def slides(self) -> list[str]:
        return [s.path for s in self.read.slides]


async def read_export(deck: Deck) -> Any:
    """The deck's slides as its project holds them, assets inlined (`export.read_deck`);
    the files this deck wrote and the project still holds as written are not read again."""
    from .export import read_deck

    listing = await deck.refresh()

    async def read(operation: str, arguments: dict) -> Any:
        result = await deck.client.call(operation, arguments)
        if isinstance(result, PendingApproval):  # only consent asks before a read
            raise PermissionRefused(operation, result.request.reason or "consent_not_given",
                                    CONSENT_FIRST, Remedy("consent"))
        return result

    local = {f.path: f.data for f in deck.stage.files
             if deck.pushed.get(f.path) == (f.sha256, listing.get(f.path))}
    return await read_deck(read, str(deck.project_id), listing, local, sizes=deck.sizes)


def export_deck(deck: Deck, run: Callable[[Coroutine[Any, Any, Any]], Any],
                path: str | os.PathLike[str], notes: bool = False) -> Exported:
    """Write `deck` as its project holds it to PATH.pdf or PATH.html (`run` runs the
    reads and the print on the session's loop). A bad path is refused before anything
    is read (`export.checked_target`)."""
    from . import export as exporting

    target, kind = exporting.checked_target(path)
    read = run(read_export(deck))
    title = read.slides[0].title if read.slides else (
        deck.project_name or deck.project_id or "deck")
    printed = None
    if kind == "pdf":
        from . import pdf

        printed = run(pdf.pdf_bytes(read, notes, title=title, author=read.author))
        data, kind = printed.data, "PDF"
    else:
        from .html_deck import html_document

        theme = "dark" if deck.theme.name.startswith("dark") else "light"
        document, kind = html_document(read, title, notes, theme)
        data = document.encode("utf-8")
    exporting.write_export(target, data)
    return Exported(target, data, kind, title, notes, read, printed)
