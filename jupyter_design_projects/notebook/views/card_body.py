"""An approval card's body as HTML: the title, the fields (the URL a link only when it is
https), the paths it writes and deletes (a non-ASCII path beside its escaped form), the
details and notes, and each button the card does not offer with the reason. Every value
is escaped."""

from __future__ import annotations

import html
from collections.abc import Sequence

from ...core.cards import ApprovalRequest
from ...core.letters import escaped
from .theme import colour


def _paths(title: str, paths: Sequence[str]) -> str:
    if not paths:
        return ""
    items = "".join(f"<li><code>{html.escape(str(p))}</code>{_escaped(str(p))}</li>"
                    for p in paths)
    return (f'<div style="margin-top:4px"><b>{html.escape(title)}</b> ({len(paths)})'
            f'<ul style="margin:2px 0">{items}</ul></div>')


def _escaped(path: str) -> str:
    """A non-ASCII path's escaped form, shown beside it (look-alikes cannot hide)."""
    if path.isascii():
        return ""
    return f' <code style="opacity:.7">[{html.escape(escaped(path))}]</code>'


def card_parts(request: ApprovalRequest) -> tuple[str, list[tuple[str, str]], list[str]]:
    """What a card shows besides its path lists: the title, the field rows, and the
    detail and note lines, each taken from the request's own fields."""
    rows = [(label, str(value)) for label, value in (
        ("Operation", request.operation), ("Project", request.project),
        ("Sharing", request.sharing), ("URL", request.url)) if value]
    lines = [line for line in (*request.details, *request.notes) if line.strip()]
    return request.title, rows, lines


def card_html(request: ApprovalRequest) -> str:
    """The card's body: every value escaped; the URL is a link only when it is https; each
    button the card does not offer is named with the reason."""
    title, rows, lines = card_parts(request)
    cells = []
    for label, value in rows:
        shown = html.escape(value)
        if label == "URL" and value.startswith("https://"):
            shown = (f'<a href="{html.escape(value, quote=True)}" target="_blank" '
                     f'rel="noopener noreferrer">{shown}</a>')
        cells.append(f'<tr><th style="text-align:left;padding-right:12px">'
                     f"{html.escape(label)}</th><td>{shown}</td></tr>")
    notes = "".join(f'<p style="margin:4px 0">{html.escape(line)}</p>' for line in lines)
    withheld = "".join(
        f'<p class="jdp-card-withheld" style="margin:4px 0;color:{colour("muted")}">'
        f"No &quot;{html.escape(button)}&quot;: {html.escape(why)}</p>"
        for button, why in request.withheld)
    return (
        f'<div class="jdp-card"><h4 style="margin:4px 0">{html.escape(title)}</h4>'
        f'<table>{"".join(cells)}</table>'
        f"{_paths('Writes', request.writes)}{_paths('Deletes', request.deletes)}"
        f"{notes}{withheld}</div>"
    )
