"""`%design trace` in a notebook against the real reference service: on and off at any
time, --clear, the ring's size as a live setting, --har, --curl run by the real curl, and
one line (with its next step) for each bad input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from IPython.core.error import UsageError

from jupyter_design_projects.core.redaction import REDACTED
from jupyter_design_projects.notebook.views.trace import CurlOutcome, TraceOutcome

CURL = shutil.which("curl")


def failure(shell, line: str) -> str:
    with pytest.raises(UsageError) as raised:
        shell.run_line_magic("design", line)
    text = str(raised.value)
    assert "\n" not in text
    return text


def test_tracing_switched_on_after_the_first_call_records_the_next_ones(shell, live):
    shell.run_line_magic("project", "info")               # the session's first calls
    assert shell.run_line_magic("design", "trace").data == []
    on = shell.run_line_magic("design", "trace on")
    assert on.data == {"enabled": True} and "500" in on.body
    shell.run_line_magic("project", "info")
    table = shell.run_line_magic("design", "trace")
    assert isinstance(table, TraceOutcome)
    assert table.df["action"].tolist() == ["detail"] and table.df["n"].tolist() == [1]
    shell.run_line_magic("design", "trace off")
    shell.run_line_magic("project", "info")
    after = shell.run_line_magic("design", "trace")
    assert len(after.data) == 1 and "Tracing is off" in after.notice


def test_clear_forgets_what_the_trace_holds(shell, live):
    shell.run_line_magic("design", "trace on")
    shell.run_line_magic("project", "info")
    held = len(live.session.trace.records())
    cleared = shell.run_line_magic("design", "trace --clear")
    assert held >= 1 and cleared.data == {"cleared": held, "notifications": 0}
    assert shell.run_line_magic("design", "trace").data == []


def test_the_ring_size_is_a_live_setting_and_the_drops_are_shown(shell, live):
    shell.run_line_magic("project", "info")  # the session's first exchanges, untraced
    shell.run_line_magic("design", "trace on")
    shell.run_line_magic("config", "DesignProjects.trace_limit = 2")
    try:
        for _ in range(3):
            shell.run_line_magic("project", "info")
    finally:
        del shell.config.DesignProjects["trace_limit"]  # the shell is shared by later tests
    assert live.session.trace.limit == 2
    table = shell.run_line_magic("design", "trace")
    assert len(table.data) == 2 and table.dropped == 1
    assert "1 older one(s) dropped" in table.notice
    assert "trace_limit" in table.notice


def test_har_is_written_where_asked_and_equals_to_har(shell, live, tmp_path):
    shell.run_line_magic("design", "trace on")
    shell.run_line_magic("project", "info")
    written = shell.run_line_magic("design", "trace --har session.har")
    document = json.loads((tmp_path / "session.har").read_text())
    held = len(live.session.trace.records())
    assert written.data == {"path": "session.har", "entries": held}
    assert document == shell.run_line_magic("design", "trace").to_har()
    assert document["log"]["creator"]["name"] == "jupyter-design-projects"
    assert oct(os.stat(tmp_path / "session.har").st_mode & 0o777) == "0o600"


@pytest.mark.parametrize(("line", "reason", "next_step"), [
    ("trace --har nowhere/at/all.har", "its folder does not exist",
     "Next: create the folder"),
    ("trace --curl 99", "There is no exchange 99: the trace holds exchanges 1",
     "Next: %design trace lists the exchanges"),
    ("trace --curl 0", "There is no exchange 0", "Next: %design trace"),
])
def test_bad_input_gets_one_line_with_its_next_step(shell, live, line, reason, next_step):
    shell.run_line_magic("design", "trace on")
    shell.run_line_magic("project", "info")
    text = failure(shell, line)
    assert reason in text and next_step in text


@pytest.mark.parametrize("line", ["trace --har x.har", "trace --curl", "trace --curl 1"])
def test_with_tracing_off_and_nothing_recorded_the_line_says_turn_it_on(shell, live, line):
    text = failure(shell, line)
    assert text.startswith("The HTTP trace is off") and "Next: %design trace on" in text


def test_asking_for_two_things_at_once_is_a_usage_line(shell, live):
    assert "give one of" in failure(shell, "trace on --clear")


def run_curl(command: str, token: str) -> int:
    """Run a printed command in a shell with only the token in its environment, and
    return the HTTP status curl saw."""
    env = {"PATH": os.environ["PATH"], "JDP_TOKEN": token}
    done = subprocess.run(["bash", "-c", command + " -s -o /dev/null -w '%{http_code}'"],
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def test_curl_reproduces_the_exchange_with_the_token_from_the_environment(shell, live):
    if CURL is None:
        pytest.fail("curl is missing: install it (apt-get install curl; tasks.py test does)")
    shell.run_line_magic("design", "trace on")
    shell.run_line_magic("design", "consent")
    shell.run_line_magic("design", "list_projects")
    shell.run_line_magic("project", "info")
    records = live.session.trace.records()
    token = live.session.credentials.current().access_token.reveal()
    last = shell.run_line_magic("design", "trace --curl")
    assert isinstance(last, CurlOutcome) and last.data["n"] == records[-1]["n"]
    assert token not in last.command and "$JDP_TOKEN" in last.command
    assert run_curl(last.command, token) == records[-1]["status"] == 200
    actions = [r["action"] for r in records]
    mcp = next((r for r in records if r["action"] == "design list_projects"), None)
    assert mcp is not None, actions
    command = shell.run_line_magic("design", f"trace --curl {mcp['n']}").command
    assert "--data-binary" in command and "mcp-session-id" in command
    assert run_curl(command, token) == 200
    assert run_curl(command, "not-the-token") == 401  # the token really comes from $JDP_TOKEN
    shown = last._repr_mimebundle_()["text/plain"]
    assert shown.splitlines()[-1] == last.command and REDACTED not in last.command
