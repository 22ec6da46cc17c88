"""The magics in an IPython shell with a fake session: grammar to pipeline to outcome,
one-line UsageErrors, approval modes, and loading that changes nothing process-wide."""

from __future__ import annotations

import logging
import os
import sys
import warnings

import pytest
from IPython.core.error import UsageError

from jupyter_design_projects.errors import (
    AwaitingApproval,
    DocNotFound,
    PermissionDenied,
    ProjectsApiError,
    ServiceStartFailed,
)
from jupyter_design_projects.notebook.magics import DesignProjects, load, unload
from jupyter_design_projects.notebook.views.outcome import Outcome, PendingOutcome
from tests.fakes.session import FakeSession, pending


class FakeKernel:
    def __init__(self, allow_stdin):
        self.allow_stdin = allow_stdin

    def get_parent(self, channel=None):
        return {"content": {"allow_stdin": self.allow_stdin}}


@pytest.fixture
def kernel(shell):
    def attach(allow_stdin):
        shell.kernel = FakeKernel(allow_stdin)

    yield attach
    if "kernel" in vars(shell):
        del shell.kernel


def test_load_registers_both_magics_and_unload_removes_them_and_closes_the_session(shell):
    assert "design" in shell.magics_manager.magics["line"]
    assert "project" in shell.magics_manager.magics["cell"]
    instance = shell.magics_manager.registry["DesignProjects"]
    fake = FakeSession(instance.can_ask)
    instance.host.lifecycle.adopt(fake)
    unload(shell)
    assert fake.closed
    assert "design" not in shell.magics_manager.magics["line"]
    load(shell)  # the fixture unloads again


def test_loading_twice_keeps_one_instance(shell):
    first = shell.magics_manager.registry["DesignProjects"]
    load(shell)
    assert shell.magics_manager.registry["DesignProjects"] is first


def test_loading_changes_nothing_process_wide(shell):
    unload(shell)
    before = (list(sys.path), dict(os.environ), list(warnings.filters),
              list(logging.getLogger().handlers), sys.excepthook)
    load(shell)
    after = (list(sys.path), dict(os.environ), list(warnings.filters),
             list(logging.getLogger().handlers), sys.excepthook)
    assert after == before


def test_assigning_a_magic_gives_an_outcome(shell, magics):
    magics.session.projects.answers["project_search"] = {
        "rag": True, "hits": [{"name": "a.md", "doc_uuid": "d", "text": "retention"}]}
    assert shell.run_cell('x = %project search "retention"').success
    x = shell.user_ns["x"]
    assert isinstance(x, Outcome)
    assert x.df["name"].tolist() == ["a.md"]
    assert magics.session.projects.calls == [("project_search", {"query": "retention",
                                                                 "n": 5})]


def test_dollar_name_passes_a_notebook_variable(shell, magics):
    shell.user_ns["doc"] = "claude/notes.md"
    shell.run_line_magic("project", "read $doc")
    assert magics.session.projects.calls == [("project_read", {"path": "claude/notes.md"})]


def test_history(shell, magics):
    # writes, deletes and restores go through a card: test_change_cards.py, against a
    # real reference service
    assert shell.run_line_magic("project", "history").df["id"].tolist() == [2]


def test_help_prints_and_returns_none(shell, magics, capsys):
    assert shell.run_line_magic("project", "search --help") is None
    assert "usage: %project search" in capsys.readouterr().out
    assert magics.session.projects.calls == []


@pytest.mark.parametrize("error", [
    DocNotFound("x.md", ["a.md"]),
    ServiceStartFailed("exited", "Traceback (most recent call last):\n  boom\n"),
    ProjectsApiError("read", 502, "<html>\n<body>Bad gateway</body>\n</html>"),
])
def test_expected_failures_are_one_line_usage_errors(shell, magics, error):
    magics.session.projects.answers["project_read"] = error
    result = shell.run_cell("%project read x.md")
    from IPython.core.error import UsageError

    assert type(result.error_in_exec) is UsageError
    assert result.error_in_exec.__suppress_context__
    line = str(result.error_in_exec)
    assert "\n" not in line
    # the error's words, then its remedy worded as a magic, then where it is kept
    from jupyter_design_projects.notebook.remedies import as_magic

    assert line.startswith(" ".join(error.message.split()))
    assert f"Next: {as_magic(error.remedy)}." in line
    assert line.endswith("(The failed outcome: %project last.)")
    kept = shell.run_line_magic("project", "last")
    assert kept.is_error and type(kept.error) is type(error)


def test_a_bad_line_is_a_usage_error(shell, magics):
    from IPython.core.error import UsageError

    with pytest.raises(UsageError):
        shell.run_line_magic("design", "get_project {broken")


def test_design_list_returns_the_catalogue(shell, magics):
    out = shell.run_line_magic("design", "list")
    assert out.df["name"].tolist()[0] == "list_projects"
    assert out.widget.names()


def test_design_consent_status_and_trace(shell, magics):
    assert shell.run_line_magic("design", "consent").data == {"consent": True}
    assert shell.run_line_magic("design", "status").data["consent"] is True
    trace = shell.run_line_magic("design", "trace")
    assert trace.df["status"].tolist() == [200]


def test_design_call_passes_json_arguments(shell, magics):
    out = shell.run_line_magic("design", 'get_project {"project_id": "p-1"}')
    assert magics.session.design.calls == [("get_project", {"project_id": "p-1"})]
    assert out.data == {"ok": True}


def test_widget_mode_shows_a_card_and_returns_a_pending_outcome(shell, magics):
    magics.approval_mode = "widget"
    magics.session.design.script.append(pending("grant"))
    out = shell.run_line_magic("design", "write_files project_id=p-1")
    assert isinstance(out, PendingOutcome)
    assert not out.done
    with pytest.raises(AwaitingApproval):
        _ = out.is_error
    out.card.approve(durable=True)
    assert out.data == {"written": 1}
    assert out.done and out.is_error is False and out.error is None
    assert out.frame.__self__ is out.outcome  # every other attribute is the final one's
    assert magics.session.design.resumes == [("grant", True, True)]


def test_a_person_answering_a_card_can_be_asked_again(shell, magics, kernel):
    kernel(allow_stdin=True)
    magics.session.design.script.append(pending("consent", durable=False))
    magics.session.design.after.append(pending("grant"))
    out = shell.run_line_magic("design", "write_files project_id=p-1")
    kernel(allow_stdin=False)  # a click arrives as a comm message, not an execute request
    out.card.approve()
    assert out.card.pending is not None
    assert magics.session.design.asked == [True, True]


def test_deny_mode_fails_the_cell_and_keeps_the_outcome(shell, magics):
    magics.approval_mode = "deny"
    magics.session.design.script.append(pending("consent", durable=False))
    with pytest.raises(UsageError, match=r"%design last"):
        shell.run_line_magic("design", "write_files project_id=p-1")
    out = shell.run_line_magic("design", "last")
    assert isinstance(out, Outcome)
    assert out.is_error
    assert isinstance(out.error, PermissionDenied)
    assert magics.session.design.asked == [False]


def test_errors_outcome_returns_the_error_outcome_instead(shell, magics):
    magics.approval_mode = "deny"
    magics.errors = "outcome"
    magics.session.design.script.append(pending("consent", durable=False))
    out = shell.run_line_magic("design", "write_files project_id=p-1")
    assert isinstance(out, Outcome) and out.is_error
    assert shell.run_line_magic("design", "last") is out


def test_the_outcome_flag_returns_the_error_outcome_for_one_line(shell, magics):
    magics.approval_mode = "deny"
    magics.session.design.script.append(pending("consent", durable=False))
    out = shell.run_line_magic("design", "--outcome write_files project_id=p-1")
    assert isinstance(out, Outcome) and out.is_error
    magics.session.design.script.append(pending("consent", durable=False))
    with pytest.raises(UsageError):  # the next line without the flag raises again
        shell.run_line_magic("design", "write_files project_id=p-1")


def test_last_before_any_call_says_so(shell, magics):
    with pytest.raises(UsageError, match="no %project call has finished"):
        shell.run_line_magic("project", "last")


@pytest.mark.parametrize(("allow_stdin", "asks"), [(True, True), (False, False)])
def test_auto_mode_asks_only_where_stdin_is_allowed(shell, magics, kernel, allow_stdin, asks):
    kernel(allow_stdin)
    magics.session.design.script.append(pending("grant"))
    if asks:
        out = shell.run_line_magic("design", "write_files project_id=p-1")
        assert isinstance(out, PendingOutcome)  # a pending card is not a failure
    else:
        with pytest.raises(UsageError, match="nobody can answer"):
            shell.run_line_magic("design", "write_files project_id=p-1")
        out = shell.run_line_magic("design", "last")
        assert isinstance(out, Outcome) and out.is_error
    # (where a card shows, a read-only get_project first checks the project exists)
    assert magics.session.design.asked[0] is asks


def test_auto_mode_in_a_terminal_fails_closed(magics):
    assert magics.approval_mode == "auto"
    assert magics.can_ask() is False


def test_a_pending_approval_where_nobody_can_answer_is_refused(shell, magics):
    """Defence in depth: even if the client asked anyway, no card is shown."""

    async def asks_anyway(operation, arguments, *, agent_key="notebook"):
        return pending("grant")

    magics.approval_mode = "deny"
    magics.session.design.call = asks_anyway
    with pytest.raises(UsageError) as raised:
        shell.run_line_magic("design", "write_files project_id=p-1")
    # the refusal names the setting that turned the cards off
    assert "approval_mode = 'auto'" in str(raised.value)
    out = shell.run_line_magic("design", "last")
    assert isinstance(out.error, PermissionDenied)
    assert out.error.reason == "approval_mode_deny"


def test_traits_become_settings_overrides(monkeypatch):
    monkeypatch.delenv("JDP_API_BASE_URL", raising=False)
    magics = DesignProjects(shell=None)
    magics.api_base_url = "http://127.0.0.1:9"
    magics.http_trace = True
    magics.allow_projects_tool = False
    settings = magics.settings()
    assert settings.api_base_url == "http://127.0.0.1:9"
    assert settings.http_trace is True
    assert settings.allow_projects_tool is False


def test_no_trait_holds_a_secret():
    names = set(DesignProjects.class_own_traits())
    assert not {n for n in names if "token" in n and n != "oauth_token_url"}
    assert "session_jwt" not in names


def test_a_first_call_whose_background_start_settles_within_the_quiet_wait_shows_no_bar(
        shell, magics, kernel, capsys, monkeypatch):
    """Building the "connecting" bar imports ipywidgets: a start that is about to finish
    is waited for without one."""
    import threading
    from concurrent.futures import Future

    from jupyter_design_projects.notebook import host as module

    kernel(allow_stdin=False)
    monkeypatch.setattr(module, "QUIET_WAIT_S", 60.0)
    lifecycle = magics.host.lifecycle
    begun, lifecycle.current = lifecycle.current, None
    lifecycle.starting = Future()
    finishing = threading.Timer(0.2, lifecycle.starting.set_result, [begun])
    finishing.start()
    try:
        shell.run_line_magic("project", "info")
    finally:
        finishing.join()
    assert magics.session is begun
    assert "FloatProgress" not in capsys.readouterr().out


def test_a_first_call_whose_background_start_is_not_done_within_the_quiet_wait_shows_a_bar(
        shell, magics, kernel, capsys, monkeypatch):
    from concurrent.futures import Future

    from jupyter_design_projects.notebook import host as module

    class SettlesWhenWaitedFor(Future):
        """Not done when the call looks; done once the call waits on it."""

        def result(self, timeout=None):
            if not self.done():
                self.set_result(begun)
            return super().result(timeout)

    kernel(allow_stdin=False)
    monkeypatch.setattr(module, "QUIET_WAIT_S", 0.0)
    lifecycle = magics.host.lifecycle
    begun, lifecycle.current = lifecycle.current, None
    lifecycle.starting = SettlesWhenWaitedFor()
    shell.run_line_magic("project", "info")
    assert magics.session is begun
    assert "FloatProgress" in capsys.readouterr().out


def test_cell_magic_design_takes_json_from_the_body(shell, magics):
    shell.run_cell_magic("design", "get_project", '{"project_id": "p-2"}')
    assert magics.session.design.calls == [("get_project", {"project_id": "p-2"})]


def test_a_variable_local_to_a_function_is_found(shell, magics):
    shell.run_cell(
        "def lookup():\n"
        "    local_doc = 'claude/local.md'\n"
        "    return get_ipython().run_line_magic('project', 'read $local_doc')\n"
        "found = lookup()\n")
    assert magics.session.projects.calls == [("project_read", {"path": "claude/local.md"})]


def test_in_a_kernel_the_first_design_command_shows_a_transient_handshake_bar(
        shell, magics, kernel, capsys):
    kernel(allow_stdin=False)
    shell.run_line_magic("design", "status")
    first = capsys.readouterr().out
    shell.run_line_magic("design", "status")
    assert "FloatProgress" in first
    assert "FloatProgress" not in capsys.readouterr().out
