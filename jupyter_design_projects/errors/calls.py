"""A remedy worded for a plain-Python reader: the call of the public API (`Session`,
`session.project`, `session.design_call`, `Settings.resolve`) that does what it says.
This is what `str(error)` and `error.next_step` say below the notebook; the notebook words
the same remedy as a magic (`notebook.remedies`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .remedy import Remedy

_SIGN_IN = ("sign in: `url, attempt = session.auth.login_begin()`, open the url, then "
            "`session.auth.login_finish(attempt, code)` with the code the page shows")


def _login(r: Remedy) -> str:
    return _SIGN_IN + (" (with the first-party OAuth client)" if r.get("first_party") else "")


def _set_setting(r: Remedy) -> str:
    value = r.get("value")
    shown = "…" if value is None else repr(value)
    return (f"open a session with another value: `Session.open(Settings.resolve(os.environ, "
            f"{{{r.get('name')!r}: {shown}}}))`")


def _operation_help(r: Remedy) -> str:
    return (f"see the fields of {r.get('operation')} in "
            "`session.run(session.design.list(full=True))`, then call it again")


def _finalize_plan(r: Remedy) -> str:
    each = " for each batch of writes" if r.get("per_batch") else ""
    return ('get a plan token: `session.design_call("finalize_plan", {"project_id": …, '
            f'"writes": […]}}, approve=…)`{each}, then pass its plan_token')


def _history(r: Remedy) -> str:
    then = (", then `session.project.restore(entry_id, approve=…)`" if r.get("restore")
            else "")
    return f"see the journal: `session.project.history()`{then}"


def _run_again(r: Remedy) -> str:
    why = r.get("why")
    return "call it again" + (f" ({why})" if why else "")


#: each action of `remedy.ACTIONS` → its words for a Python reader
CALLS: Mapping[str, Callable[[Remedy], str]] = {
    "login": _login,
    "reopen_session": lambda r: "open a new session: `Session.open()`",
    "set_setting": _set_setting,
    "attach_project": lambda r: ("attach a Project: set CLAUDE_PROJECT_UUID, or "
                                 "`Session.open(Settings.resolve(os.environ, "
                                 "{'project_uuid': …}))`"),
    "check_service": lambda r: ("check that the service is running and the URL is right "
                                "(the api_base_url and web_base_url settings; empty means "
                                "the built-in reference service), then call it again"),
    "command_help": lambda r: "see the command's help, then write the line again",
    "consent": lambda r: "give consent: `session.run(session.design.consent())`",
    "list_operations": lambda r: "read the catalogue: `session.run(session.design.list())`",
    "operation_help": _operation_help,
    "list_projects": lambda r: ('see the projects and their ids: '
                                '`session.design_call("list_projects")`'),
    "finalize_plan": _finalize_plan,
    "answer_card": lambda r: ("answer the card: `pending.card.approve()` / "
                              "`pending.card.deny()`, or pass `approve=` to the call"),
    "run_again": _run_again,
    "approve_elsewhere": lambda r: (
        "give AgentTools an approve callback: `AgentTools(session, approve=…)`"
        if r.get("agent") else "pass an approve callback: `session.design_call(…, approve=…)`, "
        "`session.project.write(…, approve=…)`"),
    "unstage_slide": lambda r: f"take that slide out first: `deck.stage.remove({r.get('path')!r})`",
    "trace_on": lambda r: ("turn the trace on: `Session.open(Settings.resolve(os.environ, "
                           "{'http_trace': True}))`, then make the calls again"),
    "make_a_call": lambda r: "make a call, then look again",
    "trace_list": lambda r: "see the exchanges the trace holds: `session.trace.records()`",
    "project_info": lambda r: "see the Project's docs: `session.project.info()`",
    "project_help": lambda r: f"see `help(session.project.{r.get('method')})`",
    "project_history": _history,
    "project_delete": lambda r: (
        f"delete it: `session.project.delete({r.get('path')!r}, approve=…)`" if r.get("path")
        else "delete unused docs (`session.project.delete(path, approve=…)`) or split the write"),
    "sync_dry_run": lambda r: ("see the plan first: `session.project.sync(directory, "
                               "dry_run=True)`"),
    "name_encoding": lambda r: "name its encoding: `session.project.write(…, encoding=…)`",
    "upgrade_client": lambda r: "pip install --upgrade jupyter-design-projects",
    "advise": lambda r: str(r.get("text")),
}


def as_call(remedy: Remedy | None) -> str | None:
    """The remedy in a Python reader's words (None: nothing to do)."""
    return None if remedy is None else CALLS[remedy.action](remedy)
