"""The tables a result holds — catalogue, hits, docs, uploads, history, trace — as rows with
fixed columns, rendered as escaped HTML or (lazily importing pandas) as DataFrames."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ...core.catalogue import first_sentence
from ...projects.journal import RESTORE_WRITE_BACK, approved_words, restore_kind

#: the columns of each table, in display order
COLUMNS: Mapping[str, tuple[str, ...]] = {
    "catalogue": ("name", "summary", "read_only", "destructive", "needs_approval",
                  "description", "input_schema"),
    "hits": ("name", "doc_uuid", "text"),
    "docs": ("path", "doc_uuid", "estimated_token_count", "created_at"),
    "uploads": ("path", "file_uuid", "file_kind", "mime_type", "file_size_bytes",
                "created_at"),
    "history": ("id", "time", "action", "path", "approved", "doc_uuid", "bytes",
                "restored_from", "restorable"),
    "trace": ("n", "action", "method", "url", "status", "elapsed_ms", "request_bytes",
              "response_bytes", "error"),
    "sync": ("path", "local", "action", "result", "why", "bytes", "tokens", "knowledge_before",
             "knowledge_after"),
}

#: columns whose values are whole numbers (a nullable Int64 column: no float ids or sizes)
INT_COLUMNS = frozenset({"estimated_token_count", "file_size_bytes", "id", "bytes",
                         "restored_from", "status", "request_bytes", "response_bytes",
                         "n", "tokens", "knowledge_before", "knowledge_after"})
#: columns of true/false (a nullable boolean column)
BOOL_COLUMNS = frozenset({"read_only", "destructive", "needs_approval", "restorable"})
#: columns of ISO 8601 times (a UTC datetime column; shown to the second in HTML)
TIME_COLUMNS = frozenset({"created_at", "updated_at", "time"})

#: an HTML table shows at most this many rows (the DataFrame has them all)
HTML_ROW_LIMIT = 50
#: a cell shows at most this many characters in HTML
HTML_CELL_LIMIT = 300

_ALIASES = {
    "path": ("path", "file_name", "name"),
    "doc_uuid": ("doc_uuid", "uuid"),
    "text": ("text", "chunk"),
    "time": ("time", "at", "timestamp", "created_at"),
    "elapsed_ms": ("elapsed_ms", "duration_ms", "elapsed"),
    "id": ("id", "entry_id"),
}


def _pick(record: Mapping[str, Any], column: str) -> Any:
    for key in _ALIASES.get(column, (column,)):
        if key in record:
            value = record[key]
            if key == "chunk" and isinstance(value, Mapping):
                return value.get("text")
            return value
    return None


def project_rows(kind: str, records: Any) -> list[dict[str, Any]]:
    """Rows with exactly COLUMNS[kind], from the pipeline's records (missing → None)."""
    if not isinstance(records, Sequence) or isinstance(records, (str, bytes)):
        return []
    return [
        {c: _pick(r, c) for c in COLUMNS[kind]} for r in records if isinstance(r, Mapping)
    ]


def catalogue_rows(view: Any) -> list[dict[str, Any]]:
    """One row per operation of a `list` result: the full view lists operations, the
    unchanged view maps each name to its summary."""
    operations = view.get("operations", []) if isinstance(view, Mapping) else []
    if isinstance(operations, Mapping):
        operations = [{"name": name, "summary": summary}
                      for name, summary in operations.items()]
    rows = []
    for op in operations:
        if not isinstance(op, Mapping):
            continue
        description = str(op.get("description") or "")
        read_only = op.get("read_only")
        rows.append({
            "name": str(op.get("name", "")),
            "summary": op.get("summary") or first_sentence(description),
            "read_only": read_only,
            "destructive": op.get("destructive"),
            # anything that is not known to be read-only may need a person's approval
            "needs_approval": None if read_only is None else not read_only,
            "description": description,
            "input_schema": op.get("input_schema"),
        })
    return rows


def history_rows(entries: Any) -> list[dict[str, Any]]:
    rows = project_rows("history", entries)
    kept = [e for e in entries if isinstance(e, Mapping)]
    for row, entry in zip(rows, kept, strict=False):
        row["restorable"] = restore_kind(entry) == RESTORE_WRITE_BACK
        row["approved"] = approved_words(entry.get("approved_by"))
    return rows


def frame(kind: str, rows: list[dict[str, Any]]):
    """The rows as a pandas DataFrame with the table's columns (pandas loads here)."""
    import pandas as pd

    columns = list(rows[0]) if rows else list(COLUMNS.get(kind, ()))
    df = pd.DataFrame(rows, columns=columns)
    for column in df.columns:
        if column in INT_COLUMNS:
            df[column] = pd.to_numeric(df[column], errors="coerce").astype("Int64")
        elif column in BOOL_COLUMNS:
            df[column] = df[column].astype("boolean")
        elif column in TIME_COLUMNS:
            df[column] = pd.to_datetime(df[column], utc=True, errors="coerce", format="ISO8601")
    return df


def readable_time(value: Any) -> Any:
    """An ISO 8601 time as `2026-12-03 09:41:30 UTC`; anything else unchanged."""
    if not isinstance(value, str) or len(value) < 19 or value[10] != "T":
        return value
    zone = " UTC" if value.endswith(("Z", "+00:00")) else ""
    return f"{value[:10]} {value[11:19]}{zone}"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        value = json.dumps(value, ensure_ascii=False)
    text = str(value)
    if len(text) > HTML_CELL_LIMIT:
        text = text[: HTML_CELL_LIMIT - 1] + "…"
    return html.escape(text)


def html_table(rows: list[dict[str, Any]], columns: Sequence[str] | None = None) -> str:
    """An escaped HTML table of the first HTML_ROW_LIMIT rows; every value is data."""
    if not rows:
        return "<p><em>(no rows)</em></p>"
    # a column no row has (a sync's result before it ran) is left out
    columns = [c for c in columns or rows[0] if any(c in r for r in rows)]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(
            f"<td>{_cell(readable_time(r.get(c)) if c in TIME_COLUMNS else r.get(c))}</td>"
            for c in columns) + "</tr>"
        for r in rows[:HTML_ROW_LIMIT]
    )
    more = ""
    if len(rows) > HTML_ROW_LIMIT:
        more = (f"<p><em>{len(rows) - HTML_ROW_LIMIT} more rows: see .df</em></p>")
    # a wide table scrolls in its own box, which the keyboard can reach and scroll (WCAG
    # 2.1.1): focusable, a named region
    name = html.escape(f"Table of {', '.join(columns[:3])}{', …' if len(columns) > 3 else ''}"
                       " (scrolls sideways)", quote=True)
    return (f'<div class="jdp-table-scroll" role="region" tabindex="0" aria-label="{name}" '
            f'style="overflow-x:auto;max-width:100%">'
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{more}")
