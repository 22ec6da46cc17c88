"""Which `Outcome` each pipeline result becomes: the tables, meter, images and body a
Projects or Design result is shown with."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ...core.batch_progress import human_bytes
from ...core.results import MappedResult, to_tool_result
from ...errors import JdpError
from ...errors.guidance import with_next
from ..remedies import as_magic
from . import tables
from .budget import budget_of
from .outcome import Outcome


def one_line(error: JdpError) -> str:
    """The error's message as the one line a `UsageError` shows: every run of whitespace,
    line breaks included (a service's log tail, an answer body), becomes one space."""
    return " ".join(error.message.split()) or error.kind


#: characters of a service's error text quoted in a failure line
FAILURE_TEXT = 300


def error_text(error: JdpError) -> str:
    """An error on one line with its remedy worded as a magic: what a failed cell says."""
    return with_next(one_line(error), as_magic(error.remedy))


def error_notice(error: JdpError) -> str:
    """An error with its next step, as a refusal's or failure's notice shows it (its
    message as it is: a service's log tail keeps its lines)."""
    return with_next(error.message, as_magic(error.remedy))


def tool_error_step(label: str) -> str:
    """The next step after the service's own tool error: the operation's fields."""
    operation = label.removeprefix("design ")
    return f"%design {operation} --help (its fields), then run the call again"


def failure_line(failed: JdpError | Outcome, tool: str) -> str:
    """The one line a failed cell shows: what went wrong and the next step; for a call
    that ran, where its outcome is kept (`%design last`)."""
    error = failed if isinstance(failed, JdpError) else failed.error
    if error is not None:
        text = error_text(error)
    else:  # the service's own tool error: its text is the message
        assert isinstance(failed, Outcome)
        said = failed.data if isinstance(failed.data, str) else _json_line(failed.data)
        said = _clipped(" ".join(said.split()))
        step = (tool_error_step(failed.label) if failed.label.startswith("design ")
                else "retry")
        text = with_next(f"{failed.label.capitalize()} failed: {said}", step)
    if isinstance(failed, Outcome):
        text = f"{text} (The failed outcome: %{tool} last.)"
    return text


def _clipped(text: str) -> str:
    return text if len(text) <= FAILURE_TEXT else text[:FAILURE_TEXT] + "…"


def _json_line(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, default=str)


#: `--help` lists nested fields this many levels below the operation's own
NESTED_DEPTH = 3


def schema_fields(operation: str, schema: Mapping[str, Any] | None) -> str:
    """`%design OP --help`'s list of the operation's fields, from its input schema; the
    fields of an object (or of an array's objects) follow it, as `files[].path`."""
    if not isinstance(schema, Mapping):
        return (f"\n{operation!r} is not a known operation here: %design list shows the "
                "catalogue.")
    rows = list(_field_rows(schema, "", 0))
    if not rows:
        return f"\nFields of {operation}: none."
    lines = [f"\nFields of {operation} (from its input schema):"]
    width = max(len(name) for name, _ in rows) + 2
    lines += [f"  {name:<{width}}{about}" for name, about in rows]
    return "\n".join(lines)


def _field_rows(schema: Mapping[str, Any], prefix: str, depth: int):
    """(name, "type, required — description") for each field of an object schema, each
    followed by its own nested fields."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return
    required = schema.get("required")
    required = set(required) if isinstance(required, list) else set()
    for name, spec in properties.items():
        spec = spec if isinstance(spec, Mapping) else {}
        kind = str(spec.get("type", "any"))
        inner: Mapping[str, Any] = spec
        path = f"{prefix}{name}"
        if kind == "array" and isinstance(spec.get("items"), Mapping):
            inner = spec["items"]
            kind = f"array of {inner.get('type', 'any')}"
            path_inside = f"{path}[]."
        else:
            path_inside = f"{path}."
        enum = spec.get("enum")
        if isinstance(enum, list) and enum:
            kind += " (" + " or ".join(map(repr, enum)) + ")"
        need = "required" if name in required else "optional"
        about = spec.get("description")
        yield path, f"{kind}, {need}" + (f" — {about}" if about else "")
        if depth + 1 < NESTED_DEPTH:
            yield from _field_rows(inner, path_inside, depth + 1)


def _notice(data: Any) -> str | None:
    if isinstance(data, Mapping):
        for key in ("notice", "note"):
            if isinstance(data.get(key), str):
                return data[key]
    return None


def size_text(n_bytes: Any) -> str:
    """98 bytes, 4.2 KiB, 3.0 MiB: a byte count as a person reads it."""
    if not isinstance(n_bytes, int) or isinstance(n_bytes, bool) or n_bytes < 0:
        return "size unknown"
    return human_bytes(n_bytes)


def change_summary(action: str, record: Mapping[str, Any]) -> str | None:
    """One line for a write, delete or restore: what changed and how to undo it."""
    path, journal = record.get("path"), record.get("journal_id")
    undo = f"%project restore {journal}" if isinstance(journal, int) else None
    if action in ("write", "restore") and isinstance(path, str):
        verb = "Replaced" if record.get("replaced") else "Created"
        if action == "restore":
            verb = f"Restored (from entry {record.get('restored_from')})"
        if not record.get("replaced"):  # it created the doc: the undo is a delete
            undo = f"%project delete {path}"
        line = f"{verb} {path} ({size_text(record.get('bytes'))})"
    elif action == "delete" and isinstance(path, str):
        line = f"Deleted {path}"
    else:
        return None
    return f"{line} · to undo it: {undo}" if undo else line


def _shown_to_a_person(data: Any) -> Any:
    """The result without the agent framing paragraph (that goes to tool_result only)."""
    if isinstance(data, Mapping) and "framing" in data:
        return {k: v for k, v in data.items() if k != "framing"}
    return data


def _agent_result(data: Any):
    """tool_result(id) for the full result, framing included, as the agent receives it
    (serialised when asked for: most results are only looked at)."""
    def tool_result(tool_use_id: str) -> dict:
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False,
                                                             default=str)
        return to_tool_result(tool_use_id,
                              MappedResult([{"type": "text", "text": text}], False))
    return tool_result


def project_outcome(action: str, data: Any) -> Outcome:
    """A Projects result (`info`, `read`, `search`, `write`, `delete`, `restore`): a person
    sees tables, a meter, the content or a one-line summary; the agent framing stays in
    `.to_tool_result()`."""
    label = f"project {action}"
    full, data = data, _shown_to_a_person(data)
    record = data if isinstance(data, Mapping) else {}
    body = None
    budget = None
    if action == "info":
        budget = budget_of(record.get("knowledge_stats") or record.get("knowledge"))
    elif action == "read" and isinstance(record.get("content"), str):
        body = record["content"]
    summary = change_summary(action, record)
    if summary is not None:
        body = summary
    notice = _notice(data)
    if action == "search" and record.get("rag") is True:
        notice = SEARCH_HITS
    return Outcome(label, data, tables=lambda: _project_tables(action, record), body=body,
                   budget=budget, notice=notice,
                   images=_upload_image(record) if action == "read" else (),
                   tool_result=_agent_result(full))


#: what a search's hits are (its fallback, search off for the Project, says so itself)
SEARCH_HITS = ("Hits from the Project's knowledge search, best first; each shows the passage "
               "that matched (%project read NAME shows the whole doc).")


def _one_line(text: Any) -> Any:
    """A passage with every run of whitespace, line breaks included, as one space."""
    return " ".join(text.split()) if isinstance(text, str) else text


def _project_tables(action: str, record: Mapping[str, Any]) -> dict[str, list[dict]]:
    """The tables of a Projects result: docs and uploads for `info` (and for a search of a
    Project whose search is off), hits for a search."""
    if action == "info" or (action == "search" and record.get("rag") is False):
        return {"docs": tables.project_rows("docs", record.get("docs")),
                "uploads": tables.project_rows("uploads", record.get("uploads"))}
    if action == "search":  # each hit's passage on one line (`.data` keeps its breaks)
        return {"hits": [{**row, "text": _one_line(row.get("text"))}
                         for row in tables.project_rows("hits", record.get("hits"))]}
    return {}


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


def design_outcome(result: Any, *, catalogue_widget=None) -> Outcome:
    """A `DesignOutcome`: the catalogue for `list`, a body for text, images inline."""
    operation = result.operation
    data = result.data
    # the client's `list` (design.catalogue)
    catalogue = bool(getattr(result, "is_catalogue", False))
    body = None
    if catalogue or _is_items(data):
        pass  # a table (built when shown or read)
    elif isinstance(data, str):
        body = data
    else:
        body = result.summary
    error = getattr(result, "error", None)
    notice = error_notice(error) if error is not None else None
    if catalogue and isinstance(data, Mapping) and data.get("catalog_unchanged"):
        notice = str(data.get("hint") or "The catalogue is unchanged: %design list --full "
                     "shows every schema again.")
    if catalogue and isinstance(data, Mapping) and data.get("refused_names"):
        notice = (f"{data['refused_names']} operation(s) the service offered are not listed: "
                  "their names break the operation-name rule.")
    widget = None
    if catalogue_widget is not None and catalogue:
        def widget(found: Mapping[str, list[dict[str, Any]]]) -> Any:
            return catalogue_widget(found["catalogue"]) if found["catalogue"] else None
    return Outcome(
        f"design {operation}", data, is_error=bool(result.is_error),
        error=error, tables=lambda: _design_tables(catalogue, data),
        images=result.images or (), notice=notice, body=body,
        tool_result=result.to_tool_result, widget=widget,
    )


def _is_items(data: Any) -> bool:
    """Whether a Design result is a list of records (shown as the `items` table)."""
    return isinstance(data, list) and bool(data) and all(isinstance(d, Mapping)
                                                         for d in data)


def _design_tables(catalogue: bool, data: Any) -> dict[str, list[dict[str, Any]]]:
    """The catalogue of a `list`, or the records of a result that is a list of them."""
    if catalogue:
        return {"catalogue": tables.catalogue_rows(data)}
    if _is_items(data):
        return {"items": [dict(d) for d in data]}
    return {}


def failed_outcome(label: str, error: JdpError) -> Outcome:
    """A refusal shown in place of a result (e.g. fail-closed approval): is_error, no raise."""
    return Outcome(label, error.to_dict(), is_error=True, error=error,
                   notice=error_notice(error))


#: what `%design revoke` did, by whether there was a consent to withdraw
REVOKED = {True: "Consent withdrawn; approved plans and grants are forgotten in this session.",
           False: "There was no consent to withdraw; approved plans and grants are forgotten "
                  "in this session."}


def project_name(project_id: Any, names: Mapping[str, str | None]) -> str:
    """A project as a person reads it: "name (id)" when its name is known, else the id."""
    name = names.get(project_id) if isinstance(project_id, str) else None
    return f"{name} ({project_id})" if name else str(project_id)


def status_projects(status: Mapping[str, Any]) -> list[str]:
    """The project ids a status names (plans, grants), each once, for their names."""
    ids = [plan.get("project_id") for plan in status.get("approved_plans") or ()]
    ids += [*(status.get("verified_grants") or ()), *(status.get("grant_ineligible") or ())]
    return list(dict.fromkeys(i for i in ids if isinstance(i, str)))


def status_summary(status: Mapping[str, Any],
                   names: Mapping[str, str | None] | None = None) -> str:
    """Consent, plans and grants in a few lines a person reads; a project is named by
    `names` (id → display-safe name) where its name is known."""
    names = names or {}
    lines = []
    if "revoked" in status:
        lines.append(REVOKED[bool(status["revoked"])])
    if "consent" in status:
        consent = status["consent"]
        lines.append("Consent: " + ("given" if consent is True else "not given"
                                    if consent is False else "unknown (not asked yet)"))
    for plan in status.get("approved_plans") or ():
        changes = [f"{verb} {', '.join(plan.get(key) or ())}"
                   for verb, key in (("writes", "writes"), ("deletes", "deletes"))
                   if plan.get(key)]
        lines.append(f"Plan for {project_name(plan.get('project_id'), names)}: "
                     f"{'; '.join(changes) or 'no paths'}"
                     f" (expires in {_duration(plan.get('expires_in_s'))})")
    for key, words in (("verified_grants", "Projects approved for ordinary writes"),
                       ("grant_ineligible", "Projects that cannot hold a grant")):
        if key in status:
            shown = [project_name(p, names) for p in status[key]]
            lines.append(f"{words}: {', '.join(shown) or 'none'}")
    if status.get("signed_in") is True:
        lines.append("Signed in.")
    for key, value in status.items():
        if key not in ("consent", "approved_plans", "verified_grants", "grant_ineligible",
                       "revoked", "signed_in"):
            lines.append(f"{key.replace('_', ' ').capitalize()}: {value}")
    return "\n".join(lines)


def _duration(seconds: Any) -> str:
    if not isinstance(seconds, int):
        return "?"
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"


def status_outcome(status: Mapping[str, Any], *, label: str = "design status",
                   names: Mapping[str, str | None] | None = None) -> Outcome:
    return Outcome(label, dict(status), body=status_summary(status, names))


def login_outcome(url: str) -> Outcome:
    """The paste-the-code sign-in link: after Authorize the page shows a CODE#STATE to paste
    into `%design login CODE`."""
    return Outcome("design login", {"url": url, "next": "%design login CODE#STATE"},
                   body=f"Open {url} , click Authorize, then run: %design login CODE#STATE")
