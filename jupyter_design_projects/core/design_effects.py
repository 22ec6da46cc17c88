"""What one Design call does, read from its arguments and its answer: the paths it writes
and deletes, its card's lines, what the write journal records of it, and the one line a
person reads for its answer. A row of `core.design_operations` names the readers its
operation uses; nothing here switches on an operation's name.

Pure: each reader takes plain values (a call's arguments, an answer's JSON) and answers
None where the shape is not the one it reads, never raising.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from . import display
from .plans import Targets, strings_of

#: which paths a call writes and deletes (None: they cannot be enumerated)
TargetsOf = Callable[[Mapping[str, Any]], "Targets | None"]
#: a card's lines about a call's arguments (None: one cannot be shown exactly)
LinesOf = Callable[[Mapping[str, Any]], "tuple[str, ...] | None"]
#: what a call changes, path by path: `{path, change, bytes?, from?}` for the journal
ChangesOf = Callable[[Mapping[str, Any]], "list[dict[str, Any]]"]
#: the one line a person reads for an answer (None: the answer is shown as it is)
SummaryOf = Callable[[Mapping[str, Any]], "str | None"]

#: a write's summary names at most this many paths (the answer keeps them all)
NAMED_PATHS = 5
#: characters of a preview's page text quoted in its summary
EXCERPT_CHARS = 300
#: arguments the journal never records of a call that touches no paths
NOT_JOURNALED = ("project_id", "plan_token")
#: characters of such a call's arguments the journal keeps
JOURNAL_DETAIL_CHARS = 300


# ---------------------------------------------------------------- targets


def _entry_field(value: Any, field: str) -> tuple[str, ...] | None:
    if not isinstance(value, list):
        return None
    out = []
    for entry in value:
        if not isinstance(entry, Mapping) or not isinstance(entry.get(field), str):
            return None
        out.append(entry[field])
    return tuple(out)


def writes_of_entries(field: str, key: str) -> TargetsOf:
    """Targets: the `key` of each entry of `field` is written."""
    def targets(arguments: Mapping[str, Any]) -> Targets | None:
        writes = _entry_field(arguments.get(field), key)
        return None if writes is None else Targets(writes)
    return targets


def writes_of_path(field: str, default: str) -> TargetsOf:
    """Targets: the one path `field` (or `default`) is written."""
    def targets(arguments: Mapping[str, Any]) -> Targets | None:
        path = arguments.get(field, default)
        return Targets((path,)) if isinstance(path, str) else None
    return targets


def deletes_of_list(field: str) -> TargetsOf:
    """Targets: each path of the list `field` is deleted."""
    def targets(arguments: Mapping[str, Any]) -> Targets | None:
        deletes = strings_of(arguments.get(field))
        return None if deletes is None else Targets((), deletes)
    return targets


def moves_of_entries(field: str, source: str, dest: str) -> TargetsOf:
    """Targets: each entry of `field` writes its `dest` and deletes its `source` (a move)."""
    def targets(arguments: Mapping[str, Any]) -> Targets | None:
        value = arguments.get(field)
        sources, dests = _entry_field(value, source), _entry_field(value, dest)
        return None if sources is None or dests is None else Targets(dests, sources)
    return targets


def planned(writes: str, deletes: str) -> TargetsOf:
    """Targets: the path lists a plan registers (both optional)."""
    def targets(arguments: Mapping[str, Any]) -> Targets | None:
        written, deleted = strings_of(arguments.get(writes, [])), strings_of(
            arguments.get(deletes, []))
        return None if written is None or deleted is None else Targets(written, deleted)
    return targets


# ---------------------------------------------------------------- card lines


def copy_lines(arguments: Mapping[str, Any]) -> tuple[str, ...] | None:
    """A copy card's lines, one per entry ("copy src (from project P) -> dest"), or None
    when one cannot be shown exactly."""
    entries = arguments.get("files")
    if not isinstance(entries, list) or not all(isinstance(e, Mapping) for e in entries):
        return None
    lines = []
    for entry in entries:
        src, dest = entry.get("src"), entry.get("dest")
        source = entry.get("src_project_id")
        shown_src = display.written_form(src, display.MAX_PATH_CHARS)
        shown_dest = display.written_form(dest, display.MAX_PATH_CHARS)
        if shown_src is None or shown_dest is None:
            return None
        if source is not None and display.id_rule(source):
            return None
        origin = f" (from project {source})" if source else ""
        lines.append(f"  copy {shown_src}{origin} -> {shown_dest}")
    return tuple(lines)


# ---------------------------------------------------------------- the journal


def _b64_bytes(data: str) -> int:
    """The decoded size of base64 text, without decoding it."""
    return len(data.rstrip("=")) * 3 // 4


def _entries(value: Any) -> list[Mapping[str, Any]]:
    return [e for e in value if isinstance(e, Mapping)] if isinstance(value, list) else []


def written_entries(field: str) -> ChangesOf:
    """Journal: each entry of `field` ({path, data, encoding?, if_match?}) is created
    (`if_match` "0"), replaced (another etag) or written, with its size in bytes."""
    def changes(arguments: Mapping[str, Any]) -> list[dict[str, Any]]:
        out = []
        for entry in _entries(arguments.get(field)):
            raw = entry.get("data")
            data = raw if isinstance(raw, str) else ""
            size = (_b64_bytes(data) if entry.get("encoding") == "base64"
                    else len(data.encode("utf-8", "replace")))
            match = entry.get("if_match")
            change = ("created" if match == "0" else "replaced" if isinstance(match, str)
                      else "written")
            out.append({"path": str(entry.get("path")), "change": change, "bytes": size})
        return out
    return changes


def written_path(field: str, default: str) -> ChangesOf:
    """Journal: the one path `field` (or `default`) is written."""
    def changes(arguments: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [{"path": str(arguments.get(field) or default), "change": "written"}]
    return changes


def deleted_list(field: str) -> ChangesOf:
    """Journal: each path of the list `field` is deleted."""
    def changes(arguments: Mapping[str, Any]) -> list[dict[str, Any]]:
        paths = arguments.get(field)
        return [{"path": str(p), "change": "deleted"}
                for p in (paths if isinstance(paths, list) else ())]
    return changes


def moved_entries(field: str, source: str, dest: str, change: str,
                  project: str | None = None) -> ChangesOf:
    """Journal: each entry of `field` lands at its `dest` (`change`: copied, moved …)
    from its `source` (in the project its `project` names, when it names one)."""
    def changes(arguments: Mapping[str, Any]) -> list[dict[str, Any]]:
        out = []
        for entry in _entries(arguments.get(field)):
            other = entry.get(project) if project else None
            origin = f"{entry.get(source)}" + (f" (project {other})" if other else "")
            out.append({"path": str(entry.get(dest)), "change": change, "from": origin})
        return out
    return changes


def settings_change(operation: str, arguments: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Journal, for a call that touches no paths: one line of what it sets."""
    shown = {k: v for k, v in arguments.items() if k not in NOT_JOURNALED}
    return [{"change": operation,
             "detail": json.dumps(shown, sort_keys=True)[:JOURNAL_DETAIL_CHARS]}]


# ---------------------------------------------------------------- summaries


def clipped(text: str, limit: int = EXCERPT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _opened(data: Mapping[str, Any]) -> str:
    return f" · open: {data['url']}" if data.get("url") else ""


def _count(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    return len(value) if isinstance(value, (list, dict, str)) else 0


def wrote_files(data: Mapping[str, Any]) -> str | None:
    """"Wrote 2 file(s): a.html, b.css · open: URL" (the etags' paths, else the pages)."""
    if not isinstance(data.get("written"), int):
        return None
    etags = data.get("etags")
    paths = [str(p) for p in (etags if isinstance(etags, Mapping) else
                              data.get("pages_written") or [])]
    named = ", ".join(paths[:NAMED_PATHS]) + (" …" if len(paths) > NAMED_PATHS else "")
    return f"Wrote {data['written']} file(s)" + (f": {named}" if named else "") + _opened(data)


def created_project(data: Mapping[str, Any]) -> str | None:
    if not isinstance(data.get("project_id"), str):
        return None
    return f"Created Design project {data['project_id']}" + _opened(data)


def deleted_files(data: Mapping[str, Any]) -> str | None:
    return f"Deleted {data['deleted']} file(s)" if "deleted" in data else None


def plan_made(data: Mapping[str, Any]) -> str | None:
    if not isinstance(data.get("plan_token"), str):
        return None
    return (f"Plan approved for project {data.get('project_id')}: "
            f"{_count(data, 'writes')} write(s), {_count(data, 'deletes')} delete(s); the "
            "changes it lists can now be sent without another card")


def preview_made(data: Mapping[str, Any]) -> str | None:
    if "open_url" not in data:
        return None
    text = data.get("text_content")
    excerpt = f"\n{clipped(' '.join(text.split()))}" if isinstance(text, str) else ""
    return (f"Preview of {data['open_url']} · {_count(data, 'console_logs')} console log(s), "
            f"{_count(data, 'failed_requests')} failed request(s){excerpt}")
