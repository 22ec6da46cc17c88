"""Every secret a session holds or has seen — access, refresh and session tokens (the
provider's), a login's code and verifier and a plan token (seen in the traffic) — is
redacted wherever a hostile service or caller puts it: in a URL raw or encoded, a header,
a JSON string with a leading space, an error sentence that quotes it, a text that is not
JSON, a JSON text inside a JSON string. Checked through the trace table, the HAR (built
and written) and `--curl`, with tracing on when the secret went by and with it off."""

from __future__ import annotations

import json
import re
import traceback
from urllib.parse import quote, quote_plus

import httpx
import pytest

from jupyter_design_projects.core.curl import curl_command, curl_notes
from jupyter_design_projects.core.har import har_log
from jupyter_design_projects.core.redaction import REDACTED, Secret
from jupyter_design_projects.errors import JdpError
from jupyter_design_projects.notebook.views.trace import TraceOutcome, write_har
from jupyter_design_projects.transport.credential_manager import LoginAttempt
from jupyter_design_projects.transport.http import make_client, send
from jupyter_design_projects.transport.trace import HttpTrace
from tests.transport.transport_doubles import ORIGIN, build_rig

#: a hostile service mints tokens with every character an encoding changes
SECRET = "dpt_Zq/9+Xy=Wv~0123456789abcdef"
TOKEN_PATH, FINALIZE_PATH, ECHO_PATH = "/v1/oauth/token", "/v1/design/plan", "/v1/echo"


def lower_hex(encoded: str) -> str:
    """URL-encoding as some encoders write it: `%2f`, not `%2F`."""
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), encoded)


def spellings(value: str) -> set[str]:
    """Every form a file could hold it in (the secret's own distinctive middle, too)."""
    forms = {value, quote(value, safe=""), quote_plus(value), json.dumps(value)[1:-1],
             json.dumps(value)[1:-1].replace("/", "\\/")}
    forms |= {lower_hex(f) for f in forms}
    return forms | {"Zq/9+Xy", "Zq%2F9", "Zq%2f9"}


def finalize_answer(request: httpx.Request) -> httpx.Response:
    """A finalize_plan answer as the Design MCP endpoint gives it: the token in the text
    block (a JSON text in a string) and in structuredContent."""
    fields = {"plan_token": SECRET, "project_id": "p1", "expires_at": 1}
    return httpx.Response(200, json={"jsonrpc": "2.0", "id": 1, "result": {
        "content": [{"type": "text", "text": json.dumps(fields)}],
        "structuredContent": fields, "isError": False}})


def hostile_answer(request: httpx.Request) -> httpx.Response:
    """An answer that repeats the secret everywhere it can (not under a credential name)."""
    kind = request.url.params.get("kind", "json")
    headers = {"x-echo": f"plan '{SECRET}'", "x-encoded": quote(SECRET, safe="")}
    if kind == "text":
        return httpx.Response(400, content=f"token {SECRET} is spent".encode(),
                              headers=headers)
    if kind == "mcp":
        inner = json.dumps({"detail": f" {SECRET}", "why": f"plan token '{SECRET}' spent"})
        return httpx.Response(200, headers=headers, json={"jsonrpc": "2.0", "id": 2,
                              "result": {"content": [{"type": "text", "text": inner}],
                                         "isError": True}})
    return httpx.Response(409, headers=headers, json={
        "error": {"message": f"plan token '{SECRET}' is spent", "note": f" {SECRET}",
                  "url": f"{ORIGIN}/x?plan={lower_hex(quote(SECRET, safe=''))}"}})


def service(request: httpx.Request) -> httpx.Response:
    if request.url.path == TOKEN_PATH:
        return httpx.Response(200, json={"access_token": "at-fresh-000123456",
                                         "token_type": "Bearer", "expires_in": 60})
    if request.url.path == FINALIZE_PATH:
        return finalize_answer(request)
    return hostile_answer(request)


async def post(client, path: str, **kwargs) -> None:
    await send(client, "POST", ORIGIN + path, action="a", max_bytes=1_000_000,
               deadline_s=5, **kwargs)


async def sees_by_login(client) -> None:
    """A token request carries the code and the verifier (the secret as each)."""
    await post(client, TOKEN_PATH, json={"grant_type": "authorization_code", "code": SECRET,
                                         "code_verifier": "v" * 43, "client_id": "c"})
    await post(client, TOKEN_PATH, json={"grant_type": "authorization_code", "code": "c" * 20,
                                         "code_verifier": SECRET, "client_id": "c"})


async def sees_by_finalize(client) -> None:
    await post(client, FINALIZE_PATH, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                            "params": {"name": "finalize_plan"}})


async def sees_by_caller(client) -> None:
    """A caller passes a plan token of its own (another kernel's) to a write."""
    await post(client, FINALIZE_PATH, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                            "params": {"name": "write_files", "arguments": {
                                                "project_id": "p1", "plan_token": SECRET}}})


async def provided(client) -> None:
    """The provider knows it already (an access, refresh or session token)."""


#: how the trace comes to know the secret, and whether it is the provider's
KINDS = {
    "access-refresh-session token (provider)": (provided, True),
    "login code and verifier (token request)": (sees_by_login, False),
    "plan token (finalize_plan answer)": (sees_by_finalize, False),
    "plan token (a caller's, in a request)": (sees_by_caller, False),
}


async def hostile_exchanges(client) -> None:
    """The secret placed everywhere a service or caller can put it."""
    await post(client, ECHO_PATH, params={"kind": "json", "q": SECRET},
               headers={"x-note": f"for {SECRET}"}, json={"note": f" {SECRET}"})
    await post(client, ECHO_PATH + f"?kind=text&raw={SECRET}",
               json={"why": f"plan token '{SECRET}'"})
    await post(client, ECHO_PATH, params={"kind": "mcp"},
               json={"text": json.dumps({"note": f" {SECRET}"})})


def outputs(trace: HttpTrace, tmp_path) -> dict[str, str]:
    records = trace.records()
    path = tmp_path / "trace.har"
    write_har(trace, str(path))
    return {
        "trace table": json.dumps(TraceOutcome(records).data, default=str),
        "trace records": json.dumps(records),
        "HAR": json.dumps(har_log(records, creator="t", version="0")),
        "HAR file": path.read_text(),
        "curl": "\n".join(curl_command(r) + "\n" + "\n".join(curl_notes(r)) for r in records),
    }


@pytest.mark.asyncio
@pytest.mark.parametrize("traced_when_seen", [True, False], ids=["traced", "untraced"])
@pytest.mark.parametrize("kind", KINDS, ids=list(KINDS))
async def test_a_secret_never_reaches_the_trace_the_har_or_curl(kind, traced_when_seen,
                                                                tmp_path):
    seen_by, from_provider = KINDS[kind]
    trace = HttpTrace(traced_when_seen, lambda: [Secret(SECRET)] if from_provider else [])
    async with make_client(transport=httpx.MockTransport(service),
                           event_hooks=trace.event_hooks()) as client:
        await seen_by(client)
        trace.enabled = True
        await hostile_exchanges(client)
    found = outputs(trace, tmp_path)
    assert REDACTED in found["HAR file"]
    for where, text in found.items():
        for form in spellings(SECRET):
            assert form not in text, f"the secret ({kind}) leaked into the {where}"


@pytest.mark.asyncio
async def test_without_learning_a_plan_token_would_leak(tmp_path):
    """The counter-case: a trace told of no secret blanks only credential-named fields, so
    the placements above are what the learning catches."""
    trace = HttpTrace(True, lambda: [])
    async with make_client(transport=httpx.MockTransport(service),
                           event_hooks=trace.event_hooks()) as client:
        await hostile_exchanges(client)
    assert SECRET in json.dumps(trace.records())
    assert trace.seen_secrets() == ()


@pytest.mark.asyncio
async def test_a_plan_token_seen_is_redacted_in_an_answers_text_too():
    trace = HttpTrace(False, lambda: [])
    async with make_client(transport=httpx.MockTransport(service),
                           event_hooks=trace.event_hooks()) as client:
        await sees_by_finalize(client)
        answer = await send(client, "POST", ORIGIN + ECHO_PATH, action="a",
                            max_bytes=100_000, deadline_s=5)
    assert [s.reveal() for s in trace.seen_secrets()] == [SECRET]
    assert SECRET not in answer.text() and REDACTED in answer.text()


@pytest.mark.asyncio
async def test_an_error_kind_named_code_is_not_taken_for_a_secret():
    def answer(request):
        return httpx.Response(404, json={"error": "no such doc", "code": "document_missing"})

    trace = HttpTrace(True, lambda: [])
    async with make_client(transport=httpx.MockTransport(answer),
                           event_hooks=trace.event_hooks()) as client:
        await post(client, ECHO_PATH)
    assert trace.seen_secrets() == ()


# ---------------------------------------------------------------- a failed sign-in

CODE, VERIFIER = "login-code-0123456789", "verifier-" + "q" * 40


@pytest.mark.asyncio
async def test_a_failed_sign_in_shows_neither_code_nor_verifier_even_with_locals(tmp_path):
    rig = build_rig(tmp_path, None)
    rig.service.token_override = lambda r: httpx.Response(
        400, json={"error": "invalid_grant", "error_description": "the code was refused"})
    trace = HttpTrace(True, rig.manager.known_secrets)
    rig.http.event_hooks = trace.event_hooks()
    attempt = LoginAttempt(url="u", state="st", verifier=Secret(VERIFIER))
    async with rig.http:
        with pytest.raises(JdpError) as info:
            await rig.manager.finish_login(attempt, f"{CODE}#st")
    shown = {
        "traceback with locals": "".join(traceback.TracebackException.from_exception(
            info.value, capture_locals=True).format()),
        "trace": json.dumps(trace.records()),
    }
    assert "code_verifier" in shown["traceback with locals"]  # the body's frame is shown
    for where, text in shown.items():
        assert VERIFIER not in text, f"the verifier leaked into the {where}"
        assert CODE not in text, f"the code leaked into the {where}"
