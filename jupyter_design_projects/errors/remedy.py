"""What a person can do about an error, as data: an action and its arguments
(`Remedy("login")`, `Remedy("set_setting", name="api_base_url")`), never its words.

Each reader words a remedy its own way: plain Python as a call (`errors.calls`: what
`str(error)` says), the notebook as a magic (`notebook.remedies`, at the magic boundary).
`ACTIONS` is every action a remedy may name; both wordings cover each one (a test walks
them), so a new action cannot reach a reader unworded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: every action a remedy may name, and the arguments it takes
ACTIONS: Mapping[str, frozenset[str]] = {
    # signing in and the session
    # sign in (again); first_party: with the first-party client; paste: the code-pasting
    # flow, which needs no redirect to this machine
    "login": frozenset({"first_party", "paste"}),
    "reopen_session": frozenset(),             # the session was closed: open a new one
    "set_setting": frozenset({"name", "value"}),   # give a setting a value (value: optional)
    "attach_project": frozenset(),             # no Project is attached (CLAUDE_PROJECT_UUID)
    "check_service": frozenset(),              # nothing answered: is the service running?
    "command_help": frozenset({"command"}),    # a line that does not parse: its help
    # Design
    "consent": frozenset(),                    # give consent for agents
    "list_operations": frozenset(),            # read the service's catalogue
    "operation_help": frozenset({"operation"}),    # an operation's fields
    "list_projects": frozenset(),              # the Design projects and their ids
    "finalize_plan": frozenset({"per_batch"}),     # get a plan token (for each batch)
    "answer_card": frozenset(),                # a pending card waits for Approve or Deny
    "run_again": frozenset({"why"}),           # run the call again (why: to be asked again…)
    # nobody can approve here (agent: a model's call; change: a Projects write, delete, restore)
    "approve_elsewhere": frozenset({"agent", "change"}),
    "unstage_slide": frozenset({"path"}),      # take a staged slide out of the deck
    "trace_on": frozenset(),                   # turn the HTTP trace on
    "make_a_call": frozenset(),                # run a call, so the trace has something
    "trace_list": frozenset(),                 # the trace's exchanges and their numbers
    # Projects
    "project_info": frozenset(),               # the Project's docs and uploads
    "project_help": frozenset({"method"}),     # a Projects method's arguments
    "project_history": frozenset({"restore"}),     # the journal (then a restore)
    "project_delete": frozenset({"path"}),     # delete that doc (else: unused docs, or split)
    "sync_dry_run": frozenset(),               # see a sync's plan without sending it
    "name_encoding": frozenset(),              # a local file is not UTF-8: name its encoding
    "upgrade_client": frozenset(),             # this client is too old for the service
    # words that need no command, the same for every reader
    "advise": frozenset({"text"}),
}


class Remedy:
    """One remedy: `action` (a key of `ACTIONS`) and its arguments (`args`)."""

    __slots__ = ("action", "args")
    action: str
    args: Mapping[str, Any]

    def __init__(self, action: str, **args: Any) -> None:
        allowed = ACTIONS.get(action)
        if allowed is None:
            raise ValueError(f"Remedy: {action!r} is not an action")
        if set(args) - allowed:
            raise ValueError(f"Remedy {action!r}: no argument {sorted(set(args) - allowed)}")
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "args", dict(args))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Remedy is immutable")

    def get(self, name: str, default: Any = None) -> Any:
        return self.args.get(name, default)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Remedy) and other.action == self.action
                and other.args == self.args)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = "".join(f", {k}={v!r}" for k, v in self.args.items())
        return f"Remedy({self.action!r}{inner})"

    def to_dict(self) -> dict[str, Any]:
        """The remedy as JSON (a tool_result's `remedy`): the action and its arguments."""
        return {"action": self.action, **self.args}


def advise(text: str) -> Remedy:
    """Words that need no command, the same for every reader ("retry")."""
    return Remedy("advise", text=text)
