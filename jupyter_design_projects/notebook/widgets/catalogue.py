"""The interactive catalogue of `%design list`: filter operations by name and by read-only /
destructive / needs-approval, pick one to see its description and input schema; and the
operations the magics' `--help` and did-you-mean name, read from the operation table the
session's Design client holds and the live catalogue it has listed."""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..views import tables

if TYPE_CHECKING:
    from ...core.design_operations import DesignOperation

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
        # checkboxes, not toggle buttons: a checkbox's state is read out ("checked"), an
        # ipywidgets ToggleButton exposes no pressed state
        self.toggles = {
            flag: w.Checkbox(value=False, description=flag.replace("_", " "), indent=False,
                             layout=w.Layout(width="auto"))
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
        self.widget.add_class("jdp-catalogue")
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


# ------------------------------------------------------------ the operations the magics name

#: how close a mistyped operation name must be to be suggested (difflib's ratio)
SUGGEST_CUTOFF = 0.6


def operations_of(session: Any) -> Mapping[str, DesignOperation]:
    """The operation table of `session`'s Design client, which `--help` and did-you-mean
    read; with no session yet, the table a session gives the client it builds."""
    if session is None:
        from ...core.design_operations import BY_NAME

        return BY_NAME
    table: Mapping[str, DesignOperation] = session.design.catalogue.table
    return table


def known_schema(table: Mapping[str, DesignOperation], entries: Iterable[Any],
                 operation: str) -> dict | None:
    """The input schema of `operation`: its row of `table`, else the live catalogue's
    (`entries`, once listed in this session; no call is made for --help)."""
    if operation in table:
        return table[operation].schema
    entry = next((e for e in entries if e.name == operation), None)
    return entry.input_schema if entry is not None else None


def closest_operation(name: str, table: Mapping[str, DesignOperation],
                      entries: Iterable[Any]) -> str | None:
    """The operation `name` was probably meant to be, among `table`'s rows and the live
    catalogue's `entries`, or None."""
    import difflib

    names = sorted({*table, *(e.name for e in entries)})
    close = difflib.get_close_matches(name, names, n=1, cutoff=SUGGEST_CUTOFF)
    return close[0] if close else None
