"""A remedy worded for a notebook reader: the magic that does what it says
(`%design login`, `%config DesignProjects.project_uuid = …`). The magic boundary words
every failure with it (`views.error_text`); below `notebook/`, the same remedy is worded
as a Python call (`errors.calls`), which is what `str(error)` says."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..errors import JdpError
from ..errors.guidance import with_next
from ..errors.remedy import Remedy

#: the setting that turns approval cards back on (what `approval_mode = 'deny'` refusals name)
APPROVAL_MODE_ON = Remedy("set_setting", name="approval_mode", value="auto")
APPROVAL_MODE_DENY = (
    "it needs a person's approval and approval cards are off (DesignProjects.approval_mode "
    "is 'deny'). Set it to 'auto' (or 'widget') and run the call again.")
#: settings that only the environment sets (no trait carries them), by setting
_ENVIRONMENT_ONLY = {"project_uuid": "CLAUDE_PROJECT_UUID"}


def _login(r: Remedy) -> str:
    if r.get("paste"):
        return "%design login again, or %design login --paste to paste the code instead"
    return "%design login" + (" (with the first-party client)" if r.get("first_party") else "")


def _set_setting(r: Remedy) -> str:
    name, value = r.get("name"), r.get("value")
    if name in _ENVIRONMENT_ONLY:
        return f"set {_ENVIRONMENT_ONLY[name]} in the kernel's environment"
    if value is None:
        if name == "api_base_url":
            return ("%config DesignProjects.api_base_url = … (or unset it for the reference "
                    "service)")
        return f"%config DesignProjects.{name} = …"
    return f"%config DesignProjects.{name} = {value!r}"


def _finalize_plan(r: Remedy) -> str:
    if r.get("per_batch"):
        return "%design finalize_plan for each batch of writes"
    return ("%design finalize_plan project_id=… deletes=[…] (or writes=[…]), approve its "
            "card, then pass its plan_token")


def _operation_help(r: Remedy) -> str:
    operation = r.get("operation")
    if operation == "deck":
        return "%design deck --help"
    return f"%design {operation} --help (its fields), then run the call again"


def _run_again(r: Remedy) -> str:
    why = r.get("why")
    return "run the cell again" + (f" {why}" if why else "")


def _history(r: Remedy) -> str:
    if r.get("restore"):
        return "%project history (then %project restore ENTRY)"
    return "%project history (the entries and their ids)"


def _approve_elsewhere(r: Remedy) -> str:
    if r.get("agent"):
        return "give AgentTools an approve callback"
    if r.get("change"):  # a typed write, delete or restore: --yes is its explicit form
        return "run it in a live notebook, or add --yes to send it without a card"
    return "run it in a live notebook, or see the plan with --dry-run"


def _command_help(r: Remedy) -> str:
    command = r.get("command")
    return f"%{command} --help" if command else "%design --help"


#: each action of `errors.remedy.ACTIONS` → its words for a notebook reader
MAGICS: Mapping[str, Callable[[Remedy], str]] = {
    "login": _login,
    "reopen_session": lambda r: "%reload_ext jupyter_design_projects",
    "set_setting": _set_setting,
    "attach_project": lambda r: ("set CLAUDE_PROJECT_UUID in the kernel's environment (the "
                                 "embedded reference service sets it for you)"),
    "check_service": lambda r: ("check that the service is running and the URL is right "
                                "(%config DesignProjects.api_base_url / web_base_url; empty "
                                "means the built-in reference service), then run the cell "
                                "again"),
    "command_help": _command_help,
    "consent": lambda r: "%design consent",
    "list_operations": lambda r: "%design list",
    "operation_help": _operation_help,
    "list_projects": lambda r: "%design list_projects (the projects and their ids)",
    "finalize_plan": _finalize_plan,
    "answer_card": lambda r: ("click Approve or Deny on the card (from code: .card.approve() "
                              "/ .card.deny())"),
    "run_again": _run_again,
    "approve_elsewhere": _approve_elsewhere,
    "unstage_slide": lambda r: f"drop that slide first: %design slide {r.get('path')} --drop",
    "trace_on": lambda r: "%design trace on, then run the calls again",
    "make_a_call": lambda r: "run a %design or %project call, then ask again",
    "trace_list": lambda r: ("%design trace lists the exchanges (column n); --curl alone "
                             "takes the last"),
    "project_info": lambda r: "%project info",
    "project_help": lambda r: (f"%project {r.get('method')} --help" if r.get("method")
                               else "%project --help"),
    "project_history": _history,
    "project_delete": lambda r: (
        f"%project delete {r.get('path')}" if r.get("path")
        else "delete unused docs (%project delete PATH) or split the write"),
    "sync_dry_run": lambda r: "%project sync DIR --dry-run",
    "name_encoding": lambda r: "name its encoding (--encoding, or encoding=)",
    "upgrade_client": lambda r: "pip install --upgrade jupyter-design-projects",
    "advise": lambda r: str(r.get("text")),
}


def as_magic(remedy: Remedy | None) -> str | None:
    """The remedy in a notebook reader's words (None: nothing to do)."""
    return None if remedy is None else MAGICS[remedy.action](remedy)


def magic_text(error: JdpError, line: str | None = None) -> str:
    """The error's line (or `line`, its one-line form) and its remedy as a magic:
    "<line>. Next: <magic>."."""
    return with_next(error.message if line is None else line, as_magic(error.remedy))
