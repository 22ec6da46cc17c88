"""The notebook host on its own, with no magics instance: a line runs through `dispatch`
and its handlers with only the host, which reads the traits it needs when it needs them,
keeps the last outcomes and the deck, and ends what it holds when it closes."""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.error import UsageError

from jupyter_design_projects.notebook.commands import run as dispatch
from jupyter_design_projects.notebook.host import NotebookHost
from jupyter_design_projects.notebook.views.outcome import Outcome, PendingOutcome
from tests.fakes.session import FakeSession, pending


class PlainOptions:
    """Traits as plain attributes: the host needs only what `Options` names."""

    def __init__(self, **values: Any) -> None:
        self.approval_mode = values.get("approval_mode", "auto")
        self.errors = values.get("errors", "raise")
        self.login_timeout = values.get("login_timeout", 300.0)
        self.settings_read = 0

    def setting_values(self) -> dict[str, Any]:
        self.settings_read += 1
        return {}


@pytest.fixture
def host() -> NotebookHost:
    made = NotebookHost(None, PlainOptions())
    made.lifecycle.adopt(FakeSession(made.can_ask))
    return made


def test_a_line_runs_on_a_host_with_no_magics_and_is_kept_as_last(host):
    host.session.projects.answers["project_search"] = {
        "rag": True, "hits": [{"name": "a.md", "doc_uuid": "d", "text": "retention"}]}
    found = dispatch.run(host, "project", 'search "retention"', None, {})
    assert isinstance(found, Outcome) and found.df["name"].tolist() == ["a.md"]
    assert host.last == {"project": found}
    assert dispatch.run(host, "project", "last", None, {}) is found


def test_a_dollar_name_reads_the_cells_locals(host):
    dispatch.run(host, "project", "read $doc", None, {"doc": "claude/local.md"})
    assert host.session.projects.calls == [("project_read", {"path": "claude/local.md"})]


def test_the_host_reads_approval_mode_at_each_question(host):
    options = host.options
    assert host.can_ask() is False  # auto, and no kernel: nobody can click
    options.approval_mode = "widget"
    assert host.can_ask() is True
    options.approval_mode = "deny"
    assert host.can_ask() is False


def test_a_design_call_fixes_who_can_answer_for_its_duration(host):
    host.options.approval_mode = "widget"
    host.session.design.script.append(pending("grant"))
    card = dispatch.run(host, "design", "write_files project_id=p-1", None, {})
    assert isinstance(card, PendingOutcome)
    assert host.session.design.asked == [True]
    host.options.approval_mode = "deny"  # after the call: nobody is asked any more
    assert host.can_ask() is False


def test_nobody_to_click_fails_the_call_and_the_errors_option_returns_it(host):
    host.session.design.script.append(pending("grant"))
    with pytest.raises(UsageError):
        dispatch.run(host, "design", "write_files project_id=p-1", None, {})
    assert host.last["design"].is_error
    host.options.errors = "outcome"
    host.session.design.script.append(pending("grant"))
    returned = dispatch.run(host, "design", "write_files project_id=p-1", None, {})
    assert returned.is_error and returned is host.last["design"]


def test_help_opens_no_session(capsys):
    host = NotebookHost(None, PlainOptions())
    assert dispatch.run(host, "design", "get_project --help", None, {}) is None
    assert host.opened is None and host.options.settings_read == 0
    assert "get_project" in capsys.readouterr().out


class Cancellable:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def test_closing_cancels_the_sign_in_in_progress_and_closes_the_session(host):
    session, card = host.session, Cancellable()
    host.sign_in = card  # type: ignore[assignment]
    host.close()
    assert card.cancelled and host.sign_in is None
    assert session.closed and host.opened is None


def test_a_setting_changed_before_any_call_discards_the_begun_session():
    from concurrent.futures import Future

    host = NotebookHost(None, PlainOptions())
    begun, started = FakeSession(host.can_ask), Future()
    host.lifecycle.starting = started
    host.setting_changed("http_trace", True)
    assert host.lifecycle.starting is None and not begun.closed
    started.set_result(begun)  # its start ends after the change: it is closed, not kept
    assert begun.closed and host.opened is None


class LiveOptions(PlainOptions):
    """Options whose setting traits a test changes, as `%config` would."""

    def __init__(self, **values: Any) -> None:
        super().__init__()
        self.values = values

    def setting_values(self) -> dict[str, Any]:
        return dict(self.values)


def test_a_setting_only_the_notebook_reads_never_discards_the_begun_session():
    from concurrent.futures import Future

    host = NotebookHost(None, PlainOptions())
    started = Future()
    host.lifecycle.starting = started
    host.setting_changed("approval_mode", "widget")
    assert host.lifecycle.starting is started


def test_a_setting_that_applies_at_once_reaches_the_open_sessions_trace(capsys):
    options = LiveOptions()
    host = NotebookHost(None, options)
    host.lifecycle.adopt(FakeSession(host.can_ask))
    host.session.trace.enabled = True  # `%design trace on`
    options.values = {"trace_limit": 3}
    host.setting_changed("trace_limit", 3)
    trace = host.session.trace
    assert (trace.limit, trace.enabled, host.session.settings.trace_limit) == (3, True, 3)
    options.values = {"trace_limit": 3, "http_trace": True}
    host.setting_changed("http_trace", True)
    options.values = {"trace_limit": 3}
    host.setting_changed("http_trace", False)  # the setting itself changed: the trace follows
    assert trace.enabled is False and not host.session.closed
    assert "next session" not in capsys.readouterr().out


def test_a_setting_not_live_says_it_applies_to_the_next_session(host, capsys):
    host.setting_changed("client_platform", "lab_x")
    assert "applies to the next session" in capsys.readouterr().out
    assert host.session.trace.limit == 500
