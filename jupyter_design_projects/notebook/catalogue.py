"""The interactive catalogue of `%design list`: filter operations by name and by read-only /
destructive / needs-approval, pick one to see its description and input schema."""

from __future__ import annotations

import html
import json
from typing import Any

from . import tables

FLAGS = ("read_only", "destructive", "needs_approval")


def matches(row: dict[str, Any], text: str, flags: dict[str, bool]) -> bool:
    """A row passes when its name contains `text` (any case) and has every flag turned on."""
    if text and text.lower() not in str(row.get("name", "")).lower():
        return False
    return all(row.get(flag) is True for flag, on in flags.items() if on)


def detail_html(row: dict[str, Any] | None) -> str:
    if row is None:
        return "<em>Pick an operation to see its description and input schema.</em>"
    schema = row.get("input_schema")
    shown = json.dumps(schema, indent=2, ensure_ascii=False) if schema is not None else (
        "(not shown: run %design list --full)")
    flags = ", ".join(f for f in FLAGS if row.get(f)) or "none"
    return (f"<h4>{html.escape(str(row.get('name', '')))}</h4>"
            f"<div><b>flags:</b> {html.escape(flags)}</div>"
            f'<div style="white-space:pre-wrap">'
            f"{html.escape(str(row.get('description') or row.get('summary') or ''))}</div>"
            f'<pre style="max-height:24em;overflow:auto">{html.escape(shown)}</pre>')


class CatalogueView:
    """A VBox: a name filter and three toggles, a picker and its detail, the matching rows."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        import ipywidgets as w

        self.rows = rows
        self.name_filter = w.Text(placeholder="filter by name", description="Name")
        self.toggles = {
            flag: w.ToggleButton(value=False, description=flag.replace("_", " "))
            for flag in FLAGS
        }
        self.table = w.HTML()
        self.picker = w.Dropdown(description="Operation", options=[], value=None)
        self.detail = w.HTML(detail_html(None))
        # the picked operation's detail sits above the (long) table, where it is seen
        self.widget = w.VBox([
            w.HBox([self.name_filter, *self.toggles.values()]),
            self.picker, self.detail, self.table,
        ])
        self.name_filter.observe(self._refresh, names="value")
        for toggle in self.toggles.values():
            toggle.observe(self._refresh, names="value")
        self.picker.observe(self._show, names="value")
        self._refresh()

    def visible(self) -> list[dict[str, Any]]:
        flags = {flag: t.value for flag, t in self.toggles.items()}
        return [r for r in self.rows if matches(r, self.name_filter.value, flags)]

    def names(self) -> list[str]:
        return [r["name"] for r in self.visible()]

    def pick(self, name: str) -> None:
        self.picker.value = name

    def _refresh(self, _change=None) -> None:
        rows = self.visible()
        self.table.value = tables.html_table(
            rows, ("name", "summary", "read_only", "destructive", "needs_approval"))
        names = [r["name"] for r in rows]
        keep = self.picker.value if self.picker.value in names else None
        self.picker.options = names
        self.picker.value = keep
        self._show()

    def _show(self, _change=None) -> None:
        chosen = next((r for r in self.rows if r["name"] == self.picker.value), None)
        self.detail.value = detail_html(chosen)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.widget._repr_mimebundle_(include=include, exclude=exclude)
