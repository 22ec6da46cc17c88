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


#: characters of a service's error text quoted in a failure line
FAILURE_TEXT = 300


def failure_line(failed: JdpError | Outcome, tool: str) -> str:
    """The one line a failed cell shows: what went wrong and the next step; for a call
    that ran, where its outcome is kept (`%design last`)."""
    error = failed if isinstance(failed, JdpError) else failed.error
    if error is not None:
        text = one_line(error)
        step = error.next_step
        if step and step not in text:
            text = f"{text} Next: {step}."
    else:  # the service's own tool error: its text is the message
        assert isinstance(failed, Outcome)
        said = failed.data if isinstance(failed.data, str) else _json_line(failed.data)
        said = " ".join(said.split())
        if len(said) > FAILURE_TEXT:
            said = said[:FAILURE_TEXT] + "…"
        text = f"{failed.label.capitalize()} failed: {said}"
    if isinstance(failed, Outcome):
        text = f"{text} (The failed outcome: `%{tool} last`.)"
    return text


def _json_line(data: Any) -> str:
    import json

    return json.dumps(data, ensure_ascii=False, default=str)


def schema_fields(operation: str, schema: Mapping[str, Any] | None) -> str:
    """`%design OP --help`'s list of the operation's fields, from its input schema."""
    if not isinstance(schema, Mapping):
        return (f"\n{operation!r} is not a known operation here: `%design list` shows the "
                "catalogue.")
    properties = schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    required = set(schema.get("required") or ())
    if not properties:
        return f"\nFields of {operation}: none."
    lines = [f"\nFields of {operation} (from its input schema):"]
    width = max(len(name) for name in properties) + 2
    for name, spec in properties.items():
        spec = spec if isinstance(spec, Mapping) else {}
        kind = str(spec.get("type", "any"))
        if kind == "array" and isinstance(spec.get("items"), Mapping):
            kind = f"array of {spec['items'].get('type', 'any')}"
        need = "required" if name in required else "optional"
        about = spec.get("description")
        lines.append(f"  {name:<{width}}{kind}, {need}" + (f" — {about}" if about else ""))
    return "\n".join(lines)


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
    return Outcome(label, data, tables=found, body=body, budget=budget, notice=_notice(data))


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
