"""The `%design` and `%project` magics: parse the line, call the pipeline on the session
that lives on this magics instance, render the outcome.

Loading registers the magics; `%load_ext` also begins opening the session in the
background (`start_session`: with no service configured that is the Jupyter server's
reference service, or one this process starts), so the first call finds it ready. The
session closes on unload and at exit; changing a setting trait before any call discards
the session begun in the background.

One error style for both pipelines: an expected failure or a refusal (a Design call that
needs a person where nobody can answer included) fails the cell with one `UsageError` line
that names the next step, so Run All, nbclient and papermill stop there. The failed outcome
stays reachable with `%design last` / `%project last`. `%config DesignProjects.errors =
'outcome'`, or `--outcome` as the first word of one line, returns error outcomes instead
(for notebooks that debug the API). A pending approval card is not a failure.

This module holds the magics class: its traits, the two magics and their help. What a
line does (parse, dispatch through `project_actions.PROJECT_ACTIONS` or
`design_actions.DESIGN_ACTIONS`, settle) is `dispatch`, loaded by the first call so that
`%load_ext` stays light; the session's lifecycle is in `lifecycle`, and sign-in in `login`.
"""

from __future__ import annotations

import inspect
from collections import ChainMap
from collections.abc import Mapping
from typing import Any

from IPython.core.magic import (
    Magics,
    line_cell_magic,
    magics_class,
    needs_local_scope,
    no_var_expand,
)
from traitlets import Enum, Float, observe

from .login import SignIn
from .setting_traits import SETTING_TRAITS, SettingTraits


def with_usage(tool: str):
    """Decorator: the magic's help (`%tool?`) ends with the usage listing. IPython asks a
    magic's `getdoc()` before its docstring, so the listing, and the subcommand table it is
    built from, is made when help is asked for rather than at `%load_ext`."""
    def decorate(func):
        def getdoc() -> str:
            from .subcommands import usage

            return f"{inspect.cleandoc(func.__doc__ or '')}\n\n{usage(tool)}"

        func.getdoc = getdoc
        return func
    return decorate


@magics_class
class DesignProjects(SignIn, SettingTraits, Magics):
    """%design and %project. Options: %config DesignProjects.<trait> = value.

    Each line is parsed (`grammar`), dispatched through the action tables
    (`project_actions.PROJECT_ACTIONS`, `design_actions.DESIGN_ACTIONS`) and settled by
    `dispatch`; the session's lifecycle is `lifecycle.SessionLifecycle`, sign-in
    `login.SignIn`."""

    approval_mode = Enum(
        ("auto", "widget", "deny"), "auto", config=True,
        help="How Design asks a person: 'widget' always shows approval cards, 'deny' never "
             "asks (fails closed), 'auto' shows cards only where someone can click (stdin "
             "allowed) and fails closed elsewhere (nbclient, papermill).",
    )
    login_timeout = Float(300.0, min=1.0, max=3600.0, config=True,
                          help="How long `%design login` keeps its one-time loopback "
                               "listener open for the sign-in page's redirect (seconds).")
    errors = Enum(
        ("raise", "outcome"), "raise", config=True,
        help="'raise': an expected failure or refusal fails the cell with one line naming "
             "the next step (Run All and papermill stop there); 'outcome': it returns the "
             "error outcome instead. Either way `%design last` / `%project last` has it.",
    )

    def __init__(self, shell=None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        self._init_lifecycle()
        self._init_sign_in()
        #: the notebook's deck (`%design deck open|new`)
        self._deck: Any = None
        #: each magic's last outcome, failed ones included (`%design last`, `%project last`)
        self._last: dict[str, Any] = {}

    @observe(*SETTING_TRAITS)
    def _setting_changed(self, change: Any) -> None:
        # (config applied while the instance is built sets traits before __init__ ends)
        if getattr(self, "_starting", None) is not None:  # begun before this setting
            self._discard_started()
        elif getattr(self, "_session", None) is not None:
            from .trace import apply_setting

            if apply_setting(self._session, change["name"], change["new"]):
                return
            print(f"DesignProjects.{change['name']} applies to the next session: run "
                  "%reload_ext jupyter_design_projects to start one.")

    # ------------------------------------------------------------ the magics

    def _namespace(self, local_ns: Any) -> ChainMap:
        return ChainMap(local_ns or {}, self.shell.user_ns if self.shell else {})

    def user_namespace(self) -> Mapping[str, Any]:
        """The notebook's variables (a deck's `$name`)."""
        return dict(getattr(self.shell, "user_ns", None) or {})

    @no_var_expand
    @needs_local_scope
    @line_cell_magic
    @with_usage("project")
    def project(self, line: str, cell: str | None = None, local_ns: Any = None):
        """The attached claude.ai Project (its knowledge, docs and uploads).

        Each returns an Outcome: .data, .df, .local_file, .to_tool_result(id).
        `$name` passes a Python variable. A failure fails the cell with one line naming
        the next step; `%project last` keeps its outcome (`--outcome` returns it).
        """
        return self._run("project", line, cell, local_ns)

    @no_var_expand
    @needs_local_scope
    @line_cell_magic
    @with_usage("design")
    def design(self, line: str, cell: str | None = None, local_ns: Any = None):
        """The remote Design canvas (its operations come from the service's catalogue).

        A call that needs approval shows a card (Approve / Approve for this project /
        Deny) and returns a PendingOutcome; where nobody can click it fails the cell with
        one line naming the explicit command (`%design last` keeps the outcome).
        """
        return self._run("design", line, cell, local_ns)

    def _run(self, tool: str, line: str, cell: str | None, local_ns: Any):
        """One line through `dispatch.run` (parse, run, settle), imported on the first call
        so that `%load_ext` registers the magics without loading the call path."""
        from .dispatch import run

        return run(self, tool, line, cell, local_ns)


def load(ipython) -> None:
    """Register the magics (once); nothing else changes."""
    if "DesignProjects" not in ipython.magics_manager.registry:
        ipython.register_magics(DesignProjects(shell=ipython))


def start_session(ipython) -> None:
    """Begin opening the session in the background (`%load_ext`; `load` alone does not)."""
    instance = ipython.magics_manager.registry.get("DesignProjects")
    if instance is not None:
        instance.start_session()


def unload(ipython) -> None:
    """Close the session and remove the magics."""
    manager = ipython.magics_manager
    instance = manager.registry.pop("DesignProjects", None)
    if instance is not None:
        instance.close()
    for kind in ("line", "cell"):
        for name in ("design", "project"):
            manager.magics[kind].pop(name, None)
