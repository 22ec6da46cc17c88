"""The Design inspector's Notifications pane: what the Design session's event stream kept
(log messages, `tools/list_changed`, …), newest first, every value escaped; it redraws as
each message arrives and on its Refresh button."""

from __future__ import annotations

import html
import json
from typing import Any

from ..views.theme import colour

#: what the pane shows of one message's data, at most
SHOWN_BODY_CHARS = 4_000

#: the newest notifications the pane draws (the store keeps more: `.records()`)
PANE_ROWS = 50


class NotificationsPane:
    """The Design session's notifications and log messages, newest first, escaped."""

    def __init__(self, stream: Any) -> None:
        import ipywidgets as w

        self.stream = stream
        self.html = w.HTML()
        self.refresh_button = w.Button(description="Refresh", icon="refresh")
        self.refresh_button.on_click(lambda _b: self.refresh())
        self.widget = w.Accordion(children=[w.VBox([self.refresh_button, self.html])])
        self.widget.set_title(0, "Notifications")
        self.widget.add_class("jdp-inspector-notifications")
        stream.on_record.append(lambda _record: self.refresh())
        self.refresh()

    def refresh(self) -> None:
        self.html.value = notifications_html(self.stream)


def notifications_html(stream: Any) -> str:
    """What the stream is doing and its newest records as a table, every value escaped."""
    records = stream.records()
    muted = colour("muted")
    head = (f"<div style=\"color:{muted}\">{html.escape(stream.status)}. "
            f"{html.escape(stream.store.dropped_words())}</div>")
    if not records:
        return head + "<div>No notification received yet.</div>"
    cells = ("n", "time", "kind", "level", "logger", "method")
    rows = []
    for record in reversed(records[-PANE_ROWS:]):
        data = record.get("data")
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(record.get(c) or ''))}</td>"
                                     for c in cells)
                    + f"<td><code>{html.escape(text[:SHOWN_BODY_CHARS])}</code></td></tr>")
    header = "".join(f"<th>{c}</th>" for c in (*cells, "data"))
    return (f"{head}<table class=\"jdp-notifications\"><tr>{header}</tr>"
            f"{''.join(rows)}</table>")
