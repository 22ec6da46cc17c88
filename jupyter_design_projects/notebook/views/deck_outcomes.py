"""What a deck's export and push say, drawn without widgets: the export's outcome (where
it went, as what, and everything not exported as the project holds it) and the grid of
previews of the slides a push wrote."""

from __future__ import annotations

import base64
import html
from typing import Any

from ...core import slide_fit
from .outcome import Outcome

#: width of one preview in the grid (px)
PREVIEW_WIDTH = 320


#: how many paths a push's status names before it counts the rest
LISTED_PATHS = 10


def listed(paths: list[str]) -> str:
    shown = ", ".join(paths[:LISTED_PATHS])
    more = len(paths) - LISTED_PATHS
    return shown + (f" and {more} more" if more > 0 else "") if paths else "none"


def preview_grid(previews: list[tuple[str, bytes, dict]]) -> str:
    """The previews side by side, each captioned with its path and what the page reported."""
    if not previews:
        return ""
    cells = []
    for path, png, data in previews:
        src = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        notes = []
        failed = data.get("failed_requests") or []
        if failed:
            notes.append(f"{len(failed)} failed request(s)")
        if data.get("fallback_reason"):
            notes.append(str(data["fallback_reason"]))
        note = f"<br><small>{html.escape('; '.join(notes))}</small>" if notes else ""
        cells.append(f'<figure class="jdp-deck-preview" style="margin:0">'
                     f'<img alt="{html.escape(str(data.get("title") or path), quote=True)}" '
                     f'src="{src}" '
                     f'style="width:100%;border:1px solid #9e9e9e">'
                     f"<figcaption><code>{html.escape(path)}</code>{note}</figcaption></figure>")
    return (f'<div class="jdp-deck-grid" style="display:grid;gap:12px;grid-template-columns:'
            f'repeat(auto-fill,minmax({PREVIEW_WIDTH}px,1fr))">{"".join(cells)}</div>')


def export_outcome(target: Any, data: bytes, read: Any, title: str, notes: bool,
                   printed: Any = None, kind: str = "PDF") -> Outcome:
    """What an export says: where it went, as what, and everything not exported as the
    project holds it (not read whole, pictured, missing, scaled, continued, cut, blocked)."""
    notice = (f"Wrote {target} ({len(data):,} bytes, {kind}): {len(read.slides)} slide(s) "
              f"of {title} as the project holds them"
              + (", with speaker notes" if notes else "") + ".")
    if read.partial:
        notice += (f" {len(read.partial)} file(s) NOT exported whole: "
                   f"{'; '.join(read.partial)}.")
    if read.pictured:
        notice += (f" {len(read.pictured)} image asset(s) cannot be read back over the "
                   "Design protocol (read_file is text only), so their slides are the "
                   f"service's picture of them: {'; '.join(read.pictured)}.")
    if read.missing:
        notice += (f" {len(read.missing)} asset(s) could not be read back from the project"
                   f" (shown as their alt text): {'; '.join(read.missing)}.")
    for said in (slide_fit.pictured_summary(read.pictures), slide_fit.summary(read.fitted)):
        notice += f" {said}" if said else ""
    fields: dict[str, Any] = {"path": str(target), "bytes": len(data),
                              "slides": [s.path for s in read.slides],
                              "missing": read.missing, "pictured": read.pictured,
                              "partial": read.partial, "kind": kind,
                              "pictures": dict(read.pictures),
                              "fitted": {p: slide_fit.describe(o) for p, o in read.fitted.items()}}
    if printed is not None:
        if printed.scaled:
            notice += (" Scaled down to fit a page: " + "; ".join(
                f"{p} to {s:.0%}" for p, s in printed.scaled.items()) + ".")
        if printed.continued:
            notice += (" Too tall for one page even at the smallest scale, so continued "
                       "over pages: " + "; ".join(f"{p} on {n} pages"
                                                  for p, n in printed.continued.items()) + ".")
        if printed.cut:
            notice += (" Wider than a page even at the smallest print scale, cut at the "
                       f"right edge: {'; '.join(printed.cut)}.")
        if printed.blocked:
            notice += (f" {printed.blocked} request(s) the pages tried to make were blocked "
                       "(a PDF loads nothing).")
        fields.update(scaled=printed.scaled, continued=printed.continued, cut=printed.cut,
                      blocked=printed.blocked)
    return Outcome("design deck export", fields, notice=notice)

