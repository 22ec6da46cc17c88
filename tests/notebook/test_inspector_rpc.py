"""`%design rpc` against a real reference service: any JSON-RPC method on the live session
with its headers, shown raw and redacted; tools/call still meets its approval card."""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.error import UsageError

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.notebook.commands.rpc_view import RpcOutcome
from jupyter_design_projects.notebook.views.outcome import PendingOutcome
from jupyter_design_projects.server.design.demo import DECK_ID


@pytest.fixture
def approval_mode() -> str:
    return "widget"  # every card shown, for the test to click


def no_secret_in(live, outcome: Any) -> None:
    shown = str(outcome.data) + outcome._repr_mimebundle_()["text/html"] + repr(outcome)
    secrets = [s.reveal() for s in live.session.secrets()]
    assert secrets
    assert not any(secret in shown for secret in secrets)


def test_ping_shows_the_raw_request_with_the_sessions_headers_and_the_answer(shell, live):
    pong = shell.run_line_magic("design", "rpc ping")
    assert isinstance(pong, RpcOutcome) and not pong.is_error
    request, answer = pong.data["request"], pong.data["answer"]
    assert request["body"]["method"] == "ping"
    assert request["body"]["jsonrpc"] == "2.0" and isinstance(request["body"]["id"], int)
    headers = {k.lower(): v for k, v in request["headers"].items()}
    assert headers["anthropic-version"] and headers["mcp-session-id"]
    assert headers["authorization"] == "Bearer [redacted-oauth-token]"
    assert answer["status"] == 200
    assert answer["body"]["result"] == {}
    no_secret_in(live, pong)


def test_tools_list_is_the_catalogue_as_served(shell, live):
    listed = shell.run_line_magic("design", "rpc tools/list")
    assert [t["name"] for t in listed.data["answer"]["body"]["result"]["tools"]] == list(
        BY_NAME)


@pytest.mark.parametrize("method", ["resources/list", "prompts/list"])
def test_the_other_lists_get_the_services_own_answer(shell, live, method):
    answer = shell.run_line_magic("design", f"--outcome rpc {method}").data["answer"]
    assert answer["status"] == 200
    body = answer["body"]
    assert ("result" in body) != ("error" in body)


def test_an_unknown_method_shows_the_json_rpc_error(shell, live):
    unknown = shell.run_line_magic("design", "--outcome rpc no/such_method")
    assert unknown.is_error
    assert unknown.data["answer"]["body"]["error"]["code"] == -32601


def test_params_come_quoted_on_the_line_or_from_the_cell(shell, live):
    paged = shell.run_line_magic("design", "rpc tools/list '{\"cursor\": null}'")
    assert paged.data["request"]["body"]["params"] == {"cursor": None}
    celled = shell.run_cell_magic("design", "rpc tools/list", "{}")
    assert celled.data["request"]["body"]["params"] == {}
    with pytest.raises(UsageError) as refused:
        shell.run_line_magic("design", "rpc tools/list '[1]'")
    assert "JSON object" in str(refused.value)


def test_a_notification_is_sent_without_an_id(shell, live):
    sent = shell.run_line_magic("design", "rpc notifications/initialized")
    assert "id" not in sent.data["request"]["body"]
    assert sent.data["answer"]["status"] == 202


def test_tools_call_through_rpc_still_meets_its_approval_card(shell, live):
    shell.run_line_magic("design", "consent")
    params = ('{"name": "write_files", "arguments": {"project_id": "' + DECK_ID
              + '", "files": [{"path": "slides/30-rpc.html", "data": "<p>x</p>"}]}}')
    pending = shell.run_cell_magic("design", "rpc tools/call", params)
    assert isinstance(pending, PendingOutcome)
    assert pending.card.pending.request.writes == ("slides/30-rpc.html",)
    pending.card.deny()
    listing = shell.run_line_magic("design", f"list_files project_id={DECK_ID}")
    assert "slides/30-rpc.html" not in {f["path"] for f in listing.data}


def test_tools_call_without_a_name_is_a_usage_error(shell, live):
    with pytest.raises(UsageError) as refused:
        shell.run_line_magic("design", "rpc tools/call '{\"arguments\": {}}'")
    assert "needs" in str(refused.value)
