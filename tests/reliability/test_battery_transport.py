"""Transport faults through both pipelines, by the Python API (Session) and by the magics:
each case proves the clear error (type and fields), that nothing unapproved was written,
and that no live token reached any output. Spec clauses: §3 (Design MCP framing, 404
re-initialize, SSE refused), §5 (401: one refresh, one retry), §0/§6 (identity encoding,
byte caps, deadlines), PROTOCOL §0 (429 retry-after, allowlist of origins)."""

from __future__ import annotations

import json
import secrets
import time

import pytest

from jupyter_design_projects.core.budgets import answer_max_bytes
from jupyter_design_projects.errors import (
    AuthError,
    DeadlineExceeded,
    DesignRpcError,
    JdpError,
    ProjectsApiError,
    ProjectsTransportFailed,
    ResponseTooLarge,
    TransportError,
    UnexpectedContentType,
)
from tests.reliability.hostile import LoopbackServer, McpScript, chunk, chunked_head, response

MCP = "/v1/design/mcp"
DESIGN_CAP = 2_080_000


def org_api(live) -> str:
    return f"/api/organizations/{live.service.org_uuid}/projects/{live.service.project_uuid}"


def design_list(live):
    """One Design call that needs the whole handshake (a DesignOutcome)."""
    return live.run(live.session.design.call("list_projects", {}))


def design_error(outcome) -> JdpError:
    assert outcome.is_error and outcome.error is not None, outcome.data
    return outcome.error


def counts_delta(live, before: dict, key: str) -> int:
    return live.faults.counts().get(key, 0) - before.get(key, 0)


def unique_name() -> str:
    return f"reliability/{secrets.token_hex(6)}.md"


# ---------------------------------------------------------------- MCP session faults


def test_session_dropped_mid_session_reinitializes_once__spec_s3(live):
    assert not design_list(live).is_error
    before = live.faults.counts()
    assert live.faults.drop_mcp_sessions() >= 1
    outcome = design_list(live)
    assert not outcome.is_error
    assert counts_delta(live, before, "mcp:initialize") == 1
    live.check(outcome)


def test_session_dropped_mid_session_through_the_magic__spec_s3(shell_live):
    first = shell_live.line("design", "list_projects")
    assert not first.is_error
    shell_live.live.faults.drop_mcp_sessions()
    again = shell_live.line("design", "list_projects")
    assert not again.is_error and again.data == first.data
    shell_live.live.check(again)


@pytest.mark.parametrize("rpc_method", ["tools/list", "tools/call"])
def test_404_once_on_list_or_call_reinitializes_and_succeeds__spec_s3(live, rpc_method):
    if rpc_method == "tools/call":
        assert not design_list(live).is_error
    before = live.faults.counts()
    live.faults.fail(MCP, status=404, rpc_method=rpc_method,
                     body={"jsonrpc": "2.0", "id": None,
                           "error": {"code": -32600, "message": "Session not found"}})
    outcome = design_list(live)
    assert not outcome.is_error
    assert counts_delta(live, before, "mcp:initialize") == (2 if rpc_method == "tools/list"
                                                             else 1)
    live.check(outcome)


@pytest.mark.parametrize("rpc_method", ["tools/list", "tools/call"])
def test_404_twice_on_list_or_call_is_a_clear_error__spec_s3(live, rpc_method):
    if rpc_method == "tools/call":
        assert not design_list(live).is_error
    before = live.faults.counts()
    live.faults.fail(MCP, status=404, rpc_method=rpc_method, count=2)
    error = design_error(design_list(live))
    assert type(error) is TransportError and error.status == 404
    # one re-initialize, no more (a first call also counts its own initialize)
    assert counts_delta(live, before, "mcp:initialize") == (2 if rpc_method == "tools/list"
                                                             else 1)
    live.check(error=error)


# ---------------------------------------------------------------- 401


def test_401_once_refreshes_retries_and_succeeds_for_design__spec_s5(live):
    assert not design_list(live).is_error
    before = live.faults.counts()
    live.faults.expire_tokens()
    outcome = design_list(live)
    assert not outcome.is_error
    assert counts_delta(live, before, "POST /v1/oauth/token") == 1
    live.check(outcome)


def test_401_once_refreshes_retries_and_succeeds_for_projects__spec_s5(live):
    live.run(live.session.projects.info())
    before = live.faults.counts()
    live.faults.expire_tokens()
    result = live.run(live.session.projects.call("project_search", {"query": "retention"}))
    assert result["hits"]
    assert counts_delta(live, before, "POST /v1/oauth/token") == 1
    live.check(result)


def test_401_twice_is_a_clear_auth_error_for_design__spec_s5(live):
    assert not design_list(live).is_error
    before = live.faults.counts()
    live.faults.fail(MCP, status=401, count=2, rpc_method="tools/call",
                     headers={"www-authenticate": 'Bearer scope="user:design:read"'})
    error = design_error(design_list(live))
    assert isinstance(error, AuthError) and error.reason == "unauthorized_after_refresh"
    assert counts_delta(live, before, "POST /v1/oauth/token") == 1  # one refresh only
    live.check(error=error)


def auth_reason(error: JdpError) -> str | None:
    """Why a credential was refused, whether the error is the AuthError itself or the
    Projects error that wraps it (spec §12)."""
    reason = getattr(error, "reason", None)
    if reason is None and isinstance(error.__cause__, AuthError):
        reason = error.__cause__.reason
    return reason


def test_401_twice_is_a_clear_error_and_writes_nothing_for_projects__spec_s5(live):
    live.run(live.session.projects.info())
    name = unique_name()
    docs = f"POST {org_api(live)}/docs"
    before = live.faults.counts()
    live.faults.fail(org_api(live) + "/docs", status=401, count=2, method="POST")
    error = live.fails(live.session.projects.write(name, content="never stored"))
    assert isinstance(error, (AuthError, ProjectsApiError))
    assert auth_reason(error) == "unauthorized_after_refresh"
    # one refresh, one retry: the route saw the first try and the retry, nothing more
    assert counts_delta(live, before, "POST /v1/oauth/token") == 1
    assert counts_delta(live, before, docs) == 2
    assert name not in live.docs()
    live.check(error=error)


def test_401_twice_through_the_magic_is_one_line__spec_s5(shell_live):
    live = shell_live.live
    shell_live.line("project", "info")
    search = f"GET {org_api(live)}/kb/search"
    before = live.faults.counts()
    live.faults.fail(org_api(live) + "/kb/search", status=401, count=2)
    error = shell_live.line("project", 'search "retention"')
    assert isinstance(error, (AuthError, ProjectsApiError))
    assert auth_reason(error) == "unauthorized_after_refresh"
    assert counts_delta(live, before, "POST /v1/oauth/token") == 1
    assert counts_delta(live, before, search) == 2


# ---------------------------------------------------------------- 429 / 5xx


@pytest.mark.parametrize("status", [429, 500, 503, 529])
def test_rate_limit_and_server_errors_surface_retry_after_for_design__spec_s0(live, status):
    assert not design_list(live).is_error
    live.faults.fail(MCP, status=status, rpc_method="tools/call",
                     headers={"retry-after": "17"})
    error = design_error(design_list(live))
    assert isinstance(error, TransportError)
    assert error.status == status and error.retry_after == 17
    live.check(error=error)


@pytest.mark.parametrize("status", [429, 500, 503, 529])
def test_rate_limit_and_server_errors_surface_retry_after_for_projects__spec_s0(live, status):
    live.run(live.session.projects.info())
    name = unique_name()
    live.faults.fail(org_api(live) + "/docs", status=status, method="POST",
                     headers={"retry-after": "17"})
    error = live.fails(live.session.projects.write(name, content="refused"))
    assert isinstance(error, ProjectsApiError)
    assert error.status == status and error.retry_after == 17
    assert name not in live.docs()
    # a 429, 503 or 529 says the request was not taken: nothing changed, nothing is
    # journaled; a 500 may have come after the change was made: it stays as unknown
    actions = [e["action"] for e in live.session.projects.history() if e["path"] == name]
    assert actions == (["create_unknown"] if status == 500 else [])
    live.check(error=error)


def test_429_without_retry_after_says_none__spec_s0(live):
    live.faults.fail(org_api(live) + "/detail", status=429)
    error = live.fails(live.session.projects.info())
    assert isinstance(error, ProjectsApiError)
    assert error.status == 429 and error.retry_after is None
    live.check(error=error)


def test_429_through_the_magic_keeps_retry_after__spec_s0(shell_live):
    live = shell_live.live
    live.faults.fail(org_api(live) + "/detail", status=429, headers={"retry-after": "3"})
    error = shell_live.line("project", "info")
    assert isinstance(error, ProjectsApiError) and error.retry_after == 3


# ---------------------------------------------------------------- bodies


@pytest.mark.parametrize("pipeline", ["design", "projects"])
def test_gzip_bomb_is_refused_without_inflating__threat_decompression(live, pipeline):
    if pipeline == "design":
        assert not design_list(live).is_error
        live.faults.gzip_bomb(MCP)
        error = design_error(design_list(live))
    else:
        live.faults.gzip_bomb(org_api(live) + "/detail")
        error = live.fails(live.session.projects.info())
    if pipeline == "design":
        assert type(error) is TransportError
    else:  # spec §12: a Projects transport failure names its route
        assert isinstance(error, ProjectsTransportFailed) and error.reason == "encoding"
        assert "gzip" in error.detail
    live.check(error=error)


@pytest.mark.parametrize(("size", "refused"), [(DESIGN_CAP, False), (DESIGN_CAP + 1, True)])
def test_design_content_length_at_and_over_the_cap__spec_s6(live, size, refused):
    assert not design_list(live).is_error
    live.faults.oversize(MCP, size=size)
    outcome = design_list(live)
    error = outcome.error
    if refused:
        assert isinstance(error, ResponseTooLarge) and error.limit == DESIGN_CAP
    else:  # read whole, then refused as not a JSON-RPC answer
        assert not isinstance(error, ResponseTooLarge) and isinstance(error, TransportError)
    live.check(outcome)


def test_projects_content_length_over_the_cap__spec_s6(live):
    cap = answer_max_bytes("detail")
    live.faults.oversize(org_api(live) + "/detail", size=cap + 1)
    error = live.fails(live.session.projects.info())
    assert isinstance(error, ProjectsTransportFailed)
    assert error.reason == "too_large" and error.limit == cap
    live.check(error=error)


def test_sse_answer_is_refused_unread__spec_s3(live):
    assert not design_list(live).is_error
    before = live.faults.counts()
    live.faults.sse(MCP, rpc_method="tools/call")
    error = design_error(design_list(live))
    assert isinstance(error, UnexpectedContentType)
    assert error.content_type == "text/event-stream"
    # refused, not retried and not taken for a lost session: one call, no re-initialize
    assert counts_delta(live, before, "mcp:tools/call:list_projects") == 1
    assert counts_delta(live, before, "mcp:initialize") == 0
    # and the session still works: the next call is answered as JSON
    assert not design_list(live).is_error
    assert counts_delta(live, before, "mcp:tools/call:list_projects") == 2
    live.check(error=error)


def test_an_sse_stream_that_never_ends_is_refused_without_reading_it__spec_s3(scripted):
    """Reading the body would wait on a stream that never ends (a deadline error); the
    refusal comes from the headers alone."""
    mcp = McpScript(scripted.tools)
    mcp.override["tools/call"] = lambda request, rpc_id: [
        ("send", chunked_head(content_type="text/event-stream")),
        ("send", chunk(b"event: message\n")), ("sleep", 600)]
    case = scripted(mcp)
    outcome = case.live.run(case.session.design.call("list_projects", {}), timeout=90)
    error = design_error(outcome)
    assert type(error) is UnexpectedContentType
    assert error.content_type == "text/event-stream"
    calls = [r for r in case.server.requests if (r.json() or {}).get("method") == "tools/call"]
    assert len(calls) == 1
    case.live.check(outcome)


def test_sse_answer_through_the_magic__spec_s3(shell_live):
    live = shell_live.live
    shell_live.line("design", "list_projects")
    live.faults.sse(MCP, rpc_method="tools/call")
    outcome = shell_live.line("design", "--outcome list_projects")
    assert outcome.is_error and isinstance(outcome.error, UnexpectedContentType)
    live.check(outcome)


def test_is_error_result_is_an_error_outcome_not_an_exception__spec_s3(live):
    projects = design_list(live).data
    outcome = live.run(live.session.design.call(
        "read_file", {"project_id": projects[0]["id"], "path": "no/such/file.html"}))
    assert outcome.is_error
    assert not isinstance(outcome.error, DesignRpcError)
    live.check(outcome)


@pytest.mark.parametrize("pipeline", ["design", "projects"])
def test_slow_drip_stops_at_the_deadline__spec_s6(live, monkeypatch, pipeline):
    if pipeline == "design":
        assert not design_list(live).is_error
        live.session.design.session._timeout_s = 1.5  # the bounded twin of the 60 s case
        live.faults.drip(MCP, bytes_per_tick=1, tick_ms=200)
        error = design_error(design_list(live))
    else:
        live.run(live.session.projects.info())
        monkeypatch.setattr("jupyter_design_projects.projects.api.DEADLINE_S", 1.5)
        live.faults.drip(org_api(live) + "/detail", bytes_per_tick=1, tick_ms=200)
        error = live.fails(live.session.projects.info())
    if pipeline == "design":
        assert isinstance(error, DeadlineExceeded) and error.seconds == 1.5
    else:  # spec §12: the deadline as the Projects transport failure's reason
        assert isinstance(error, ProjectsTransportFailed) and error.reason == "deadline"
    live.check(error=error)


@pytest.mark.slow
def test_slow_drip_stops_at_the_real_projects_deadline__spec_s6(live):
    live.run(live.session.projects.info())
    live.faults.drip(org_api(live) + "/detail", bytes_per_tick=1, tick_ms=500)
    started = time.monotonic()
    error = live.fails(live.session.projects.info(), timeout=90)
    assert isinstance(error, ProjectsTransportFailed) and error.reason == "deadline"
    assert time.monotonic() - started < 60
    live.check(error=error)


# ---------------------------------------------------------------- redirects


@pytest.mark.parametrize("pipeline", ["design", "projects"])
def test_redirect_to_another_origin_is_not_followed__threat_token_exfiltration(live, pipeline):
    with LoopbackServer(lambda r: [("send", response(200, {"stolen": True}))],
                        host="127.0.0.2") as elsewhere:
        target = {"location": elsewhere.base_url + "/collect"}
        if pipeline == "design":
            assert not design_list(live).is_error
            live.faults.fail(MCP, status=307, headers=target, rpc_method="tools/call")
            error = design_error(design_list(live))
        else:
            name = unique_name()
            live.faults.fail(org_api(live) + "/docs", status=307, headers=target,
                             method="POST")
            error = live.fails(live.session.projects.write(name, content="x"))
            assert name not in live.docs()
        assert elsewhere.requests == []
    assert isinstance(error, (TransportError, ProjectsApiError))
    assert error.status == 307
    live.check(error=error)


# ---------------------------------------------------------------- a scripted server


def projects_script(reply):
    """Every Projects request gets `reply(request)`."""
    return lambda request: reply(request)


BROKEN_BODIES = {
    "reset_before_body": lambda r: [("reset",)],
    "reset_during_body": lambda r: [
        ("send", response(200, {"documents": []}, length=5000)[:-10]), ("sleep", 0.05),
        ("reset",)],
    "truncated_body": lambda r: [
        ("send", response(200, '{"documents": [', length=400)), ("close",)],
    "chunked_over_cap": lambda r: [("send", chunked_head())] + [
        ("send", chunk(b" " * 1_048_576)) for _ in range(5)] + [("send", b"0\r\n\r\n")],
    "not_json": lambda r: [("send", response(200, "<html>maintenance</html>",
                                             content_type="text/html"))],
}


@pytest.mark.parametrize("fault", sorted(BROKEN_BODIES))
def test_broken_projects_answers_are_clear_errors__spec_s6(scripted, fault):
    case = scripted(projects_script(BROKEN_BODIES[fault]))
    error = case.live.fails(case.session.projects.info(), timeout=60)
    assert isinstance(error, ProjectsTransportFailed) or type(error).__name__ == \
        "MalformedProjectsAnswer"
    if fault == "chunked_over_cap":
        assert error.reason == "too_large" and error.limit == answer_max_bytes("detail")
    case.live.check(error=error)


@pytest.mark.parametrize("fault", sorted(BROKEN_BODIES))
def test_broken_design_answers_are_clear_errors__spec_s3(scripted, fault):
    mcp = McpScript(scripted.tools)
    mcp.override["tools/call"] = lambda request, rpc_id: BROKEN_BODIES[fault](request)
    case = scripted(mcp)
    outcome = case.live.run(case.session.design.call("list_projects", {}), timeout=90)
    error = design_error(outcome)
    assert isinstance(error, TransportError)
    if fault == "chunked_over_cap":
        assert isinstance(error, ResponseTooLarge) and error.limit == DESIGN_CAP
    if fault == "not_json":
        assert isinstance(error, UnexpectedContentType) and error.content_type == "text/html"
    case.live.check(outcome)


def test_json_rpc_error_is_a_design_rpc_error__spec_s3(scripted):
    mcp = McpScript(scripted.tools)
    mcp.override["tools/call"] = lambda request, rpc_id: [("send", response(200, {
        "jsonrpc": "2.0", "id": rpc_id, "error": {"code": -32000, "message": "exploded"}}))]
    case = scripted(mcp)
    error = design_error(case.live.run(case.session.design.call("list_projects", {})))
    assert isinstance(error, DesignRpcError)
    assert error.code == -32000 and error.operation == "list_projects"
    case.live.check(error=error)


def test_a_server_that_echoes_the_bearer_never_shows_it__threat_reflected_token(scripted):
    def echo(request):
        return [("send", response(500, {"type": "error", "error": {
            "type": "api_error",
            "message": f"bad {request.headers.get('authorization')} "
                       f"{json.dumps(request.headers.get('authorization'))}"}}))]

    case = scripted(projects_script(echo))
    error = case.live.fails(case.session.projects.info())
    assert isinstance(error, ProjectsApiError) and error.status == 500
    assert case.server.requests and case.server.requests[0].headers["authorization"] == \
        "Bearer " + case.access
    case.live.check(error=error)


# ---------------------------------------------------------------- the magics' own outputs


def test_a_cell_write_refused_by_a_503_writes_nothing__spec_s0(shell_live):
    live = shell_live.live
    name = unique_name()
    live.faults.fail(org_api(live) + "/docs", status=503, method="POST",
                     headers={"retry-after": "5"})
    error = shell_live.cell("project", f"write {name} --yes", "never stored\n")
    assert isinstance(error, ProjectsApiError) and (error.status, error.retry_after) == (503, 5)
    assert name not in live.docs()
    history = shell_live.line("project", "history")
    assert all(row["path"] != name for row in history.data)
    live.check(history)


def test_the_http_trace_after_refreshes_and_faults_shows_no_token__threat_trace_leak(
        shell_live):
    live = shell_live.live
    shell_live.line("design", "list_projects")
    live.faults.expire_tokens()
    shell_live.line("project", "info")  # a 401, a refresh, a retry
    live.faults.fail(MCP, status=500, rpc_method="tools/call")
    failed = shell_live.line("design", "--outcome list_projects")
    assert failed.is_error and failed.error.status == 500
    trace = shell_live.line("design", "trace")
    assert any(row.get("status") == 401 for row in trace.data)
    assert any(row.get("status") == 500 for row in trace.data)
    live.check(trace)
