"""`%design calls`: the session's call history (`design.call_history`) as a table
(`.df`), and one call replayed (its arguments changed by a JSON object, through the same
registry row and permission decision as the magic), two calls' results diffed, or a
call copied as a `%%design` / `%project` cell, a Python line or the trace's curl."""

from __future__ import annotations

import html
import json
import shlex
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ...design.call_history import CallHistory, CallRecord, diff, shown_arguments
from ...errors import BadCommand
from ..grammar.parse import Command
from ..views.outcome import Outcome
from .call import Call

if TYPE_CHECKING:
    from ..host import NotebookHost

COMMAND = "design calls"
#: what `%design history`, the former name of `%design calls`, says above its answer
RENAMED = ("%design history is now %design calls (the call history of both pipelines); "
           "%project history is the journal of writes.")


#: the MIME type of code to copy: the labextension renders it with Copy and Insert-cell
#: buttons (labextension/src/code.ts); a frontend without it shows the HTML, no buttons
CODE_MIME = "application/vnd.jupyter-design-projects.code+json"


class CodeOutcome(Outcome):
    """Text to copy (code or a diff), shown whole in a <pre>. Code (`copyable`) also
    carries `CODE_MIME`, which the labextension draws with a Copy button, and an Insert
    button when the code runs as a cell (`insertable`): the buttons are drawn only where
    the code that makes them work is loaded."""

    def __init__(self, label: str, text: str, data: Mapping[str, Any], *,
                 copyable: bool = False, insertable: bool = False) -> None:
        super().__init__(label, dict(data), body=text)
        self.text = text
        self.copyable = copyable
        self.insertable = insertable

    def _text(self) -> str:
        return self.text

    def _html(self) -> str:
        return (f'<div class="jdp-outcome"><pre style="white-space:pre-wrap">'
                f"{html.escape(self.text)}</pre></div>")

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, Any]:
        bundle = super()._repr_mimebundle_(include, exclude)
        if self.copyable:
            bundle[CODE_MIME] = {"code": self.text, "insert": self.insertable}
        return bundle


def history_command(call: Call) -> Any:
    """One `%design calls` line: the table, or --replay / --diff / --copy (the cell body of
    `%%design calls --replay N` is the changes)."""
    args, cell = call.args, call.args.get("body")
    history: CallHistory = call.session.history
    chosen = [k for k in ("replay", "diff", "copy") if args.get(k) is not None]
    if len(chosen) > 1:
        raise BadCommand(COMMAND, "give one of --replay, --diff, --copy")
    if args.get("replay") is not None:
        edits = _edits(args.get("edits"), cell)
        return replay(call.again, _record(history, args["replay"]), edits)
    if cell is not None:
        raise BadCommand(COMMAND, "only %%design calls --replay N takes a cell body")
    if args.get("diff") is not None:
        first, second = (_record(history, n) for n in args["diff"])
        text = diff(first, second) or "The two results are the same."
        return CodeOutcome(f"{COMMAND} --diff", text, {"diff": text})
    if args.get("copy") is not None:
        form = args.get("as_") or "cell"
        return copy_as(call.host, _record(history, args["copy"]), form)
    return table(history)


def table(history: CallHistory) -> Outcome:
    rows = list(reversed(history.rows()))
    notice = None if rows else "No call yet in this session."
    return Outcome(COMMAND, rows, tables={"calls": rows}, notice=notice)


def _record(history: CallHistory, n: int) -> CallRecord:
    try:
        return history.get(int(n))
    except KeyError:
        raise BadCommand(COMMAND, f"the history holds no call {n}") from None


def _edits(line: str | None, cell: str | None) -> dict[str, Any]:
    if line is not None and cell is not None:
        raise BadCommand(COMMAND, "give the changes either with --with or as the cell body")
    text = (line if line is not None else cell or "").strip()
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise BadCommand(COMMAND, f"the changes are not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise BadCommand(COMMAND, "the changes must be a JSON object {…}")
    return value


# ---------------------------------------------------------------- replay


def replay(again: Callable[[Command], Any], record: CallRecord,
           edits: Mapping[str, Any]) -> Any:
    """Call `record` again with `edits` over its arguments (`core.replay_edits`: a key
    replaces an argument, null drops it, and a key with "/" is a JSON Pointer to one value
    inside one, `{"files/0/path": "b.html"}`), run `again` as its line runs (its registry
    row): the same checks, decision and cards."""
    from ...core.replay_edits import EditRejected, apply_edits

    try:
        arguments = apply_edits(record.arguments, edits)
    except EditRejected as refused:
        raise BadCommand(COMMAND, f"the change {refused.key!r} names nothing in call "
                                  f"{record.n}'s arguments: {refused.why}") from None
    arguments = {k: v for k, v in arguments.items() if v is not None}
    if record.tool == "project":
        return again(Command("project", record.operation, arguments))
    return again(Command("design", "call", {"operation": record.operation,
                                            "arguments": arguments}))


# ---------------------------------------------------------------- copy as code


def copy_as(host: NotebookHost, record: CallRecord, form: str) -> Outcome:
    if form == "curl":
        return _curl(host, record)
    text = (python_line(record) if form == "python" else cell_of(record))
    return CodeOutcome(f"{COMMAND} --copy {record.n}", text,
                       {"n": record.n, "form": form, "code": text},
                       copyable=True, insertable=True)


def cell_of(record: CallRecord) -> str:
    """The call as a cell: `%%design OP` with its JSON, or its `%project` line (the
    content of a write as the cell body). Plan tokens are shown as their mark."""
    arguments = shown_arguments(record.arguments)
    if record.tool == "design":
        return f"%%design {record.operation}\n" + json.dumps(arguments, indent=2,
                                                               ensure_ascii=False)
    from ..grammar.subcommands import SUBCOMMANDS

    sub = SUBCOMMANDS["project"][record.operation]
    words = []
    for arg in sub.args:
        value = arguments.get(arg.dest)
        if value is None:
            continue
        word = shlex.quote(str(value))
        words.append(word if not arg.flags[0].startswith("-") else f"{arg.flags[0]} {word}")
    line = " ".join([record.operation, *words])
    if "content" in arguments:
        return f"%%project {line}\n{arguments['content']}"
    return f"%project {line}"


def python_line(record: CallRecord) -> str:
    """The call as Python on a `Session` (`session.design_call`, `session.project.*`);
    a call that changes something passes `approve` (see docs/python.md)."""
    arguments = shown_arguments(record.arguments)
    if record.tool == "design":
        return (f"session.design_call({record.operation!r}, {arguments!r}, "
                "approve=approve)")
    from ...projects.approval import PROJECTS_DESTRUCTIVE

    words = [f"{k}={v!r}" for k, v in arguments.items()]
    if f"project_{record.operation}" in PROJECTS_DESTRUCTIVE:
        words.append("approve=approve")
    return f"session.project.{record.operation}({', '.join(words)})"


def _curl(host: NotebookHost, record: CallRecord) -> Outcome:
    """The trace's curl of the call's last exchange (its tools/call, or the request)."""
    from ..views.trace import curl_outcome

    if record.exchanges is None:
        raise BadCommand(
            COMMAND, f"call {record.n} made no exchange the trace recorded: "
                     "%design trace on, then replay it")
    return curl_outcome(host.session.trace, record.exchanges[1])
