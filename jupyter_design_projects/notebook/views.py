"""Which `Outcome` each pipeline result becomes: the tables, meter, images and body a
Projects or Design result is shown with."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import JdpError
from . import tables
from .budget import budget_of
from .outcome import Outcome


def one_line(error: JdpError) -> str:
    """The error's message as the one line a `UsageError` shows: every run of whitespace,
    line breaks included (a service's log tail, an answer body), becomes one space."""
    return " ".join(str(error).split()) or error.kind


def _notice(data: Any) -> str | None:
    if isinstance(data, Mapping):
        for key in ("notice", "note"):
            if isinstance(data.get(key), str):
                return data[key]
    return None


def project_outcome(action: str, data: Any) -> Outcome:
    """A Projects result (`info`, `read`, `search`, `write`, `delete`, `restore`)."""
    label = f"project {action}"
    record = data if isinstance(data, Mapping) else {}
    found: dict[str, list[dict[str, Any]]] = {}
    body = None
    budget = None
    if action == "info":
        found["docs"] = tables.project_rows("docs", record.get("docs"))
        found["uploads"] = tables.project_rows("uploads", record.get("uploads"))
        budget = budget_of(record.get("knowledge_stats") or record.get("knowledge"))
    elif action == "search":
        if record.get("rag") is False:
            found["docs"] = tables.project_rows("docs", record.get("docs"))
            found["uploads"] = tables.project_rows("uploads", record.get("uploads"))
        else:
            found["hits"] = tables.project_rows("hits", record.get("hits"))
    elif action == "read" and isinstance(record.get("content"), str):
        body = record["content"]
    return Outcome(label, data, tables=found, body=body, budget=budget, notice=_notice(data),
                   images=_upload_image(record) if action == "read" else ())


#: image uploads a read shows inline (the verified download in the session's temp dir)
INLINE_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
INLINE_IMAGE_MAX_BYTES = 5 * 2**20


def _upload_image(record: Mapping[str, Any]) -> list[tuple[str, bytes]]:
    """An image upload's bytes, for `.images` and the inline picture."""
    mime, path = record.get("mime_type"), record.get("local_file")
    if (record.get("file_kind") != "image" or mime not in INLINE_IMAGE_TYPES
            or not isinstance(path, str)):
        return []
    with open(path, "rb") as file:
        blob = file.read(INLINE_IMAGE_MAX_BYTES + 1)
    return [(str(mime), blob)] if len(blob) <= INLINE_IMAGE_MAX_BYTES else []


def history_outcome(entries: Sequence[Mapping[str, Any]]) -> Outcome:
    return Outcome("project history", list(entries),
                   tables={"history": tables.history_rows(list(entries))})


def trace_outcome(records: Sequence[Mapping[str, Any]]) -> Outcome:
    """The HTTP trace, newest exchange first: the last calls are the ones being debugged."""
    rows = [dict(r) for r in reversed(records)]
    return Outcome("design trace", rows, tables={"trace": rows},
                   notice=None if rows else "No HTTP trace recorded: set %config "
                   "DesignProjects.http_trace = True before the first call.")


def design_outcome(result: Any, *, catalogue_widget=None) -> Outcome:
    """A `DesignOutcome`: the catalogue for `list`, a body for text, images inline."""
    operation = result.operation
    data = result.data
    found: dict[str, list[dict[str, Any]]] = {}
    body = None
    if operation == "list":
        found["catalogue"] = tables.catalogue_rows(data)
    elif isinstance(data, str):
        body = data
    elif isinstance(data, list) and data and all(isinstance(d, Mapping) for d in data):
        found["items"] = [dict(d) for d in data]
    error = getattr(result, "error", None)
    # a refusal's message already names the next step (core.permissions.explain)
    notice = str(error) if error is not None else None
    if operation == "list" and isinstance(data, Mapping) and data.get("catalog_unchanged"):
        notice = str(data.get("hint") or "The catalogue is unchanged: %design list --full "
                     "shows every schema again.")
    widget = None
    if catalogue_widget is not None and found.get("catalogue"):
        rows = found["catalogue"]
        widget = lambda: catalogue_widget(rows)  # noqa: E731 - built when displayed
    return Outcome(
        f"design {operation}", data, is_error=bool(result.is_error),
        error=error, tables=found, images=result.images or (),
        notice=notice, body=body, tool_result=result.to_tool_result, widget=widget,
    )


def failed_outcome(label: str, error: JdpError) -> Outcome:
    """A refusal shown in place of a result (e.g. fail-closed approval): is_error, no raise."""
    return Outcome(label, error.to_dict(), is_error=True, error=error,
                   notice=str(error))


def status_outcome(status: Mapping[str, Any], *, label: str = "design status") -> Outcome:
    return Outcome(label, dict(status))


def login_outcome(url: str) -> Outcome:
    """The sign-in link; the page shows a CODE#STATE to paste into `%design login CODE`."""
    return Outcome("design login", {"url": url, "next": "%design login CODE#STATE"},
                   body=f"Open {url} , sign in, then run: %design login CODE#STATE")
