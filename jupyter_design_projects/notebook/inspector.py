"""`%design inspect` and `%project inspect`: one widget with the live catalogue (filtered
by name or description), the chosen operation's form generated from its input schema
(`core.input_forms`, drawn by `form_widgets`), and Run.

Run goes through the magics' own path: the same action handler a `%%design OP` cell or
a `%project METHOD` line runs, the same permission decision, and an approval card shown
inline (event-driven: the card's buttons continue the call). Clicking Run shows that a
person is at the notebook, so a card may be shown (approval_mode 'deny' still fails
closed). The result shows as the magic's outcome shows it (tables, images, a collapsible
JSON tree for the rest, and the whole result as a tree under a summary line); a failure
also shows its wire exchanges from the HTTP trace when the trace is on.

Under the Design inspector, a Notifications pane shows what the Design session's event
stream kept (log messages, `tools/list_changed`, …), escaped; the inspector opens the
stream, and the pane redraws as each message arrives and on its Refresh button.
"""

from __future__ import annotations

import dataclasses
import html
import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..core import input_forms as forms
from ..errors import InvalidArguments, JdpError
from .notifications_pane import NotificationsPane
from .theme import colour

if TYPE_CHECKING:
    from .host import NotebookHost

#: run(operation, arguments) → the magic's outcome (an Outcome or a PendingOutcome)
Runner = Callable[[str, dict[str, Any]], Any]
#: what the wire shows of one exchange, at most (the trace keeps its own caps)
SHOWN_BODY_CHARS = 4_000


@dataclasses.dataclass(frozen=True)
class Operation:
    """One row of the inspector's catalogue."""

    name: str
    description: str
    #: the input schema as served (tools/list) or declared (the Projects methods)
    schema: Mapping[str, Any]
    #: the client's own schema of a known Design operation (its fields and content marks)
    local_schema: Mapping[str, Any] | None = None
    read_only: bool = True
    destructive: bool = False
    #: the client's byte cap on strings (the Design client's; None: the Projects client
    #: checks its own limits)
    client_cap: int | None = forms.STRING_MAX_BYTES

    def form(self) -> forms.FormSpec:
        return forms.form_of(self.name, self.schema, local_schema=self.local_schema,
                             description=self.description, string_cap=self.client_cap)

    @property
    def badge(self) -> str:
        return "read-only" if self.read_only else (
            "destructive" if self.destructive else "write")


# ---------------------------------------------------------------- the catalogues


def design_operations(session: Any) -> list[Operation]:
    """The live Design catalogue: tools/list run again (the gates checked first), each
    operation's served schema, hints merged over the client's floor."""
    from ..design.catalogue import INSPECTOR  # its own catalogue hash (spec §4)

    listed = session.run(session.design.list(full=True, agent_key=INSPECTOR))
    if listed.is_error:
        raise listed.error
    served = {t["name"]: t for t in session.run(session.design.session.tools())}
    table = session.design.catalogue.table
    out = []
    for row in listed.data["operations"]:
        name = row["name"]
        schema = served.get(name, {}).get("inputSchema")
        known = table.get(name)
        out.append(Operation(name, row["description"],
                             schema if isinstance(schema, dict) else row["input_schema"],
                             known.schema if known is not None else None,
                             row["read_only"], row["destructive"]))
    return out


def project_operations(session: Any) -> list[Operation]:
    """The five Projects methods (the gates and the attached Project checked first, as for
    a call), each with the arguments the client's method table gives it."""
    from ..core.projects_inputs import method_schema
    from ..projects.approval import PROJECTS_DESTRUCTIVE
    from ..projects.client import METHODS
    from .subcommands import SUBCOMMANDS

    session.projects.check_ready()
    out = []
    for name, (allowed, required) in METHODS.items():
        method = f"project_{name}"
        schema = method_schema(allowed, required)
        changes = method in PROJECTS_DESTRUCTIVE
        out.append(Operation(method, SUBCOMMANDS["project"][name].description, schema, schema,
                             not changes, changes, client_cap=None))
    return out


# ---------------------------------------------------------------- running as the magics do


def design_runner(host: NotebookHost) -> Runner:
    """A Design call as `%%design OP` with the arguments as JSON runs it (the action
    handler of the magics), a person present since they clicked Run."""
    def run(operation: str, arguments: dict[str, Any]) -> Any:
        from .grammar import Command

        command = Command("design", "call", {"operation": operation, "arguments": arguments})
        return _settled(host, "design", operation, lambda: host.run_command(command))
    return run


def project_runner(host: NotebookHost) -> Runner:
    """A Projects method as its `%project` line runs it (the same action handler)."""
    def run(method: str, arguments: dict[str, Any]) -> Any:
        from .grammar import Command

        action = method.removeprefix("project_")
        command = Command("project", action, dict(arguments))
        return _settled(host, "project", action, lambda: host.run_command(command))
    return run


def _settled(host: NotebookHost, tool: str, label: str, run: Callable[[], Any]) -> Any:
    from . import views

    with host.answering(host.options.approval_mode != "deny"):
        try:
            outcome = run()
        except JdpError as error:
            outcome = views.failed_outcome(f"{tool} {label}", error)
    host.last[tool] = outcome
    return outcome


# ---------------------------------------------------------------- the widget


class Inspector:
    """The catalogue, a filter, the chosen operation's form, Run and the result."""

    def __init__(self, tool: str, operations: Sequence[Operation], run: Runner, *,
                 trace: Any = None, history: Any = None) -> None:
        import ipywidgets as w

        self.tool = tool
        self.operations = {op.name: op for op in operations}
        self._run = run
        self._trace = trace
        self._history = history
        self.form: Any = None
        #: the Design session's notifications pane (None for the Projects inspector)
        self.notifications: NotificationsPane | None = None
        self.chosen: Operation | None = None
        #: the last Run's outcome (None before one, or when the form was refused)
        self.last: Any = None
        self.filter = w.Text(placeholder="filter by name or description",
                             layout=w.Layout(width="100%"))
        self.picker = w.Select(rows=min(10, max(2, len(self.operations))),
                               description="Operation", style={"description_width": "initial"},
                               layout=w.Layout(width="100%"))
        self.picker.add_class("jdp-inspector-picker")
        self.about = w.HTML()
        self.form_box = w.VBox()
        self.run_button = w.Button(description="Run", button_style="primary", icon="play")
        self.run_button.add_class("jdp-inspector-run")
        self.status = w.HTML()
        self.output = w.Output()
        self.output.add_class("jdp-inspector-output")
        #: an earlier call of this tool, loaded into the form to edit and Run again
        self.past = w.Dropdown(description="History", options=[("—", None)], value=None,
                               layout=w.Layout(width="100%"))
        self.past.add_class("jdp-inspector-history")
        #: True while `_past` refreshes the options (a refresh is not a choice)
        self._refreshing = False
        self.past.observe(lambda change: None if self._refreshing else self.load(
            change["new"]), names="value")
        self.filter.observe(lambda _c: self._list(), names="value")
        self.picker.observe(lambda change: self.choose(change["new"]), names="value")
        self.run_button.on_click(lambda _b: self.run())
        left = w.VBox([self.filter, self.picker, self.past], layout=w.Layout(width="34%"))
        right = w.VBox([self.about, self.form_box, w.HBox([self.run_button, self.status])],
                       layout=w.Layout(width="66%"))
        self.widget = w.VBox([w.HBox([left, right]), self.output])
        self.widget.add_class("jdp-inspector")
        self._list()
        self._past()
        if history is not None:  # calls made anywhere (a magic, a card's answer) show here
            history.watch(self._past)

    # ------------------------------------------------------------ catalogue

    def _list(self) -> None:
        needle = self.filter.value.strip().lower()
        shown = [op for op in self.operations.values()
                 if needle in op.name.lower() or needle in op.description.lower()]
        current = self.picker.value
        self.picker.options = [(f"{op.name}  [{op.badge}]", op.name) for op in shown]
        if current in [op.name for op in shown]:
            self.picker.value = current

    @property
    def shown(self) -> list[str]:
        """The operations the filter leaves in the list."""
        return [name for _label, name in self.picker.options]

    def choose(self, name: str | None) -> None:
        """Show `name`'s form (None: none)."""
        from .form_widgets import FormEditor

        if name is None or name not in self.operations:
            self.chosen, self.form = None, None
            self.form_box.children, self.about.value = (), ""
            return
        op = self.operations[name]
        self.chosen = op
        spec = op.form()
        self.form = FormEditor(spec)
        supplied = "".join(
            f"<div style=\"color:{colour('muted')}\">{html.escape(n)}: the client supplies "
            "it itself (not in the form)</div>" for n in spec.supplied)
        self.about.value = (f"<b>{html.escape(op.name)}</b> <i>[{op.badge}]</i>"
                            f"<div>{html.escape(op.description)}</div>{supplied}")
        self.form_box.children = (self.form.widget,)
        if self.picker.value != name:
            self.picker.value = name

    def _name_of(self, record: Any) -> str:
        return (f"project_{record.operation}" if self.tool == "project"
                else record.operation)

    def _past(self) -> None:
        """The history's calls of this tool, newest first, each with its state now; the
        call chosen stays chosen (and its form is not loaded again)."""
        if self._history is None:
            return
        calls = [r for r in reversed(self._history.records()) if r.tool == self.tool]
        options = [("—", None), *((f"#{r.n} {r.operation} ({r.status})", r.n)
                                  for r in calls)]
        if options == list(self.past.options):
            return
        chosen = self.past.value
        self._refreshing = True
        try:
            self.past.options = options
            self.past.value = chosen if any(n == chosen for _, n in options) else None
        finally:
            self._refreshing = False

    def load(self, n: int | None) -> None:
        """Choose call `n`'s operation and fill the form with its arguments (a replay:
        edit them, then Run)."""
        if n is None or self._history is None:
            return
        record = self._history.get(n)
        name = self._name_of(record)
        if name not in self.operations:
            self._say(f"{name} is not in the catalogue now.")
            return
        self.filter.value = ""
        self.choose(name)
        self.form.load(record.arguments)

    # ------------------------------------------------------------ running

    def run(self) -> Any:
        """Run the chosen operation with the form's arguments (the Run button)."""
        self.output.clear_output()  # in a kernel: what an earlier Run drew there
        self.output.outputs = ()
        self.status.value = ""
        self.last = None
        if self.chosen is None or self.form is None:
            self._say("Choose an operation first.")
            return None
        try:
            arguments = self.form.arguments()
        except InvalidArguments as refused:
            self._say(f"{refused.field} {refused.rule}")
            return None
        mark = _last_number(self._trace)
        with self.output:  # in a kernel, the approval card is drawn here, inline
            outcome = self._run(self.chosen.name, arguments)
        self.last = outcome
        self._past()
        if getattr(outcome, "card", None) is None:  # a card shows its own result
            self.output.append_display_data(outcome)
            whole = whole_result(outcome)
            if whole is not None:
                self.output.append_display_data(whole)
            if getattr(outcome, "is_error", False):
                self.output.append_display_data(_Html(self.exchanges_html(mark)))
        return outcome

    def exchanges_html(self, after: int) -> str:
        """The wire exchanges recorded since exchange `after`, or how to record them."""
        trace = self._trace
        if trace is None or not trace.enabled:
            return (f"<p style=\"color:{colour('muted')}\">The HTTP trace is off: "
                    f"<code>%design trace on</code> and Run again to see this call's "
                    "exchanges.</p>")
        rows = [r for r in trace.records() if r["n"] > after]
        return "".join(exchange_html(r) for r in rows)

    def _say(self, text: str) -> None:
        self.status.value = f"<span style=\"color:{colour('error')}\">{html.escape(text)}</span>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        return self.widget._repr_mimebundle_(include=include, exclude=exclude)


def whole_result(outcome: Any) -> Any:
    """The result's data as a JSON tree, under an outcome that shows a line or a text in
    its place (a write's summary, a read's content); None when the outcome shows the data
    itself (its tables, or the tree for the rest) or failed."""
    from .json_tree import JsonTree

    data = getattr(outcome, "data", None)
    if (getattr(outcome, "is_error", False) or getattr(outcome, "body", None) is None
            or getattr(outcome, "tables", None) or not isinstance(data, Mapping | list)):
        return None
    return JsonTree(data, label="The whole result", whole="the inspector's `.last.data`",
                    open_levels=1)


def _last_number(trace: Any) -> int:
    if trace is None:
        return 0
    rows = trace.records()
    return rows[-1]["n"] if rows else 0


def exchange_html(row: Mapping[str, Any]) -> str:
    """One recorded (already redacted) exchange as a collapsible block, escaped."""
    def body(text: Any) -> str:
        text = str(text or "")
        cut = text[:SHOWN_BODY_CHARS] + ("…" if len(text) > SHOWN_BODY_CHARS else "")
        return f"<pre style=\"white-space:pre-wrap\">{html.escape(cut)}</pre>"

    head = f"#{row['n']} {row['method']} {row['url']} → {row['status'] or row.get('error')}"
    headers = json.dumps(row.get("request_headers", {}), indent=1)
    return (f"<details><summary>{html.escape(head)}</summary>"
            f"<div>request headers</div>{body(headers)}<div>request</div>"
            f"{body(row.get('request_body'))}<div>answer</div>"
            f"{body(row.get('response_body'))}</details>")


class _Html:
    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_html_(self) -> str:
        return self.text


# ---------------------------------------------------------------- the subcommands


def inspect(host: NotebookHost, tool: str) -> Inspector:
    """`%design inspect` / `%project inspect`: the widget over the live catalogue."""
    session = host.session
    if tool == "project":
        return Inspector("project", project_operations(session),
                         project_runner(host), trace=session.trace,
                         history=session.history)
    inspector = Inspector("design", design_operations(session), design_runner(host),
                          trace=session.trace, history=session.history)
    if hasattr(session, "notifications"):
        session.notifications.listen()
        inspector.notifications = NotificationsPane(session.notifications.stream)
        inspector.widget.children = (*inspector.widget.children, inspector.notifications.widget)
    return inspector
