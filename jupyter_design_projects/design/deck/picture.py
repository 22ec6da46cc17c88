"""A slide as the service's picture of it: for a deck pushed from another notebook, a PNG
asset cannot be read back over PROTOCOL §3 (`read_file` is text only), so the export asks
the service to draw the slide (`render_preview`, its browser with every asset the project
holds) and shows that picture, edge to edge, described by the slide's heading. Its text is
part of the picture: the export names each such slide."""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable
from typing import Any


async def service_picture(call: Callable[[str, dict], Awaitable[Any]], project_id: str,
                           page: str) -> str | None:
    """The service's browser-drawn picture of `page` as a data: URI, or None (no browser
    there, or no picture in the answer)."""
    import json

    outcome = await call("render_preview", {"project_id": project_id, "path": page})
    blocks = getattr(outcome, "blocks", [])
    if getattr(outcome, "is_error", False):
        return None
    text = next((b.get("text", "") for b in blocks if b.get("type") == "text"), "")
    try:
        drawn_by = json.loads(text).get("renderer")
    except (ValueError, AttributeError):
        return None
    image = next((b for b in blocks if b.get("type") == "image"), None)
    if drawn_by != "chromium" or image is None:
        return None
    source = image.get("source") or {}
    return f"data:{source.get('media_type')};base64,{source.get('data')}"


def picture_page(title: str, uri: str, notes: str, width: int, height: int) -> str:
    """A slide page that is the service's picture of the slide, edge to edge (the notes
    kept beside it, hidden as a slide's are), `width` x `height` CSS px."""
    aside = f'<aside class="jdp-notes" hidden>{notes}</aside>' if notes else ""
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>html,body{{margin:0}}"
            f"img{{display:block;width:{width}px;height:{height}px}}</style>"
            f"</head><body><img alt=\"{html.escape(title, quote=True)}\" "
            f"src=\"{html.escape(uri, quote=True)}\">{aside}</body></html>\n")
