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

This module holds the magics class: its traits, the two magics and their help. The class
composes one `host.NotebookHost` (the session's lifecycle, sign-in, the deck, the last
outcomes, who can answer a card) and hands it to the run path (`commands.run`), which parses
a line, runs it through its row of the registry (`commands.registry`: each subcommand's
grammar, handler and view) and settles it; the run path loads with the first call (or on
the background start's thread), so that `%load_ext` stays light.
"""

from __future__ import annotations

import inspect
import sys
import threading
from typing import TYPE_CHECKING, Any

from IPython.core.magic import (
    Magics,
    line_cell_magic,
    magics_class,
    needs_local_scope,
    no_var_expand,
)
from traitlets import observe

from .host import NotebookHost
from .setting_traits import SETTING_TRAITS, SettingTraits

if TYPE_CHECKING:
    from ..settings import Settings


def with_usage(tool: str):
    """Decorator: the magic's help (`%tool?`) ends with the usage listing. IPython asks a
    magic's `getdoc()` before its docstring, so the listing, and the subcommand table it is
    built from, is made when help is asked for rather than at `%load_ext`."""
    def decorate(func):
        def getdoc() -> str:
            from .grammar.subcommands import usage

            return f"{inspect.cleandoc(func.__doc__ or '')}\n\n{usage(tool)}"

        func.getdoc = getdoc
        return func
    return decorate


def _load_call_path() -> None:
    """Begin loading what the first call needs on a thread of its own, and return at once:
    the background start goes straight on to open the session (with nothing configured,
    to start the reference service, whose process then starts on the other core while
    this one imports)."""
    threading.Thread(target=_import_call_path, name="jdp-first-call-imports",
                     daemon=True).start()


def _import_call_path() -> None:
    """The first call's modules: the line's path (the grammar, the registry, the
    views, the error tree), then the Projects pipeline and its HTTP stack (httpx without
    its command line, see `_import_httpx`; the asyncio backend its first connection
    loads). A failure here is left for the first call to meet and report."""
    try:
        from .commands import run  # noqa: F401

        _import_httpx()
        import anyio._backends._asyncio  # noqa: F401

        from ..projects import client  # noqa: F401
        from ..transport import auth, credential_manager, http  # noqa: F401
    except Exception:  # noqa: S110 - the first call imports these again and reports
        pass


def _import_httpx() -> None:
    """`import httpx`, without the command line its `__init__` imports when click, rich
    and pygments are installed (`from ._main import main`: ~90 modules, 40 % of httpx's
    import cost, never used in a kernel). The `None` in `sys.modules` makes that import
    fail, so httpx keeps its stub `main`; it is removed at once, so anyone may still
    `import httpx._main` afterwards."""
    if "httpx" in sys.modules or "httpx._main" in sys.modules:
        return
    modules: dict[str, Any] = sys.modules  # a None entry stops an import (the import system)
    modules["httpx._main"] = None
    try:
        import httpx  # noqa: F401
    finally:
        if sys.modules.get("httpx._main", False) is None:
            del sys.modules["httpx._main"]



@magics_class
class DesignProjects(SettingTraits, Magics):
    """%design and %project. Options: %config DesignProjects.<trait> = value.

    Each line is parsed (`grammar`), run through its registry row (`commands.registry`)
    and settled by `commands.run`, with the notebook host (`self.host`: the session's
    lifecycle, sign-in, the deck, the last outcomes, who can answer) as everything it works
    with."""

    # ------------------------------------------------------------ the setting traits

    # the three the notebook alone reads (`host.Options`), for the type checker: their
    # traits, like every setting's, are made from settings.py's declarations
    approval_mode: str
    errors: str
    login_timeout: float

    def setting_values(self) -> dict[str, Any]:
        """The setting traits' values: `Settings.resolve`'s overrides (the host reads them
        when it resolves the settings)."""
        return {name: getattr(self, name) for name in SETTING_TRAITS}

    @observe(*SETTING_TRAITS)
    def _setting_changed(self, change: Any) -> None:
        # (config applied while the instance is built sets traits before there is a host)
        host = getattr(self, "host", None)
        if host is not None:
            host.setting_changed(change["name"], change["new"])

    # ------------------------------------------------------------ the host

    def __init__(self, shell=None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        #: everything a call works with besides its line (`host.NotebookHost`)
        self.host = NotebookHost(shell, self, warm=_load_call_path)

    @property
    def session(self) -> Any:
        """The session: the one begun at `%load_ext`, or opened now."""
        return self.host.session

    def settings(self) -> Settings:
        """The settings a session of these traits resolves (environment, then traits)."""
        return self.host.settings()

    def can_ask(self) -> bool:
        """Whether a person can answer an approval card now."""
        return self.host.can_ask()

    def start_session(self) -> None:
        """Begin opening the session in the background (what `%load_ext` does)."""
        self.host.start_session()

    def close(self) -> None:
        """Close the session (a sign-in in progress is cancelled first)."""
        self.host.close()

    # ------------------------------------------------------------ the magics

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
        """One line through `commands.run.run` (parse, run, settle), imported on the first call
        so that `%load_ext` registers the magics without loading the call path."""
        from .commands.run import run

        return run(self.host, tool, line, cell, local_ns)


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
