"""A Design service that echoes the session's own secrets: every channel (a tool result, an
isError result, a JSON-RPC error message, a needs_project_grant prompt, the catalogue, an
HTTP error body, a notification or log message) × every kind of secret the session knows
(access and refresh tokens, a login code, a PKCE verifier, a plan token) × every spelling
the redactor knows. In each case the secret is absent from every surface: the outcome's
repr, data, text and HTML as the notebook shows it, its tool_result, the error's fields,
the call history, the trace and its HAR, the notifications kept.

Each secret carries a slash, a plus, a space, an equals sign and an é, so that its
spellings all differ. The plan token is the one the service issued in a finalize_plan
answer, which reaches the plan (`.data['plan_token']`) untouched: an answer's own issued
credential is the one thing not redacted."""

from __future__ import annotations

import json
from collections.abc import Callable
from urllib.parse import quote, quote_plus

import httpx
import pytest

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.core.har import har_log
from jupyter_design_projects.core.redaction import REDACTED, Secret
from jupyter_design_projects.design.call_history import CallHistory, shown_arguments
from jupyter_design_projects.design.client import DesignClient
from jupyter_design_projects.design.notification_stream import NotificationStream
from jupyter_design_projects.notebook.views.outcomes import design_outcome
from jupyter_design_projects.settings import Settings
from jupyter_design_projects.transport.trace import HttpTrace
from tests.fakes.design import BASE, P1, Clock, FakeDesign, answer, rpc

SECRETS = {
    "access": "at/Acc+ess tok=é~0001-live",
    "refresh": "rt/Ref+resh tok=é~0002-live",
    "code": "cd/Co+de val=é~0003-live",
    "verifier": "vf/Veri+fier v=é~0004-live",
    "plan": "pt/Pl+an tok=é~0005-live",
}


def _json_escaped(value: str) -> str:
    return json.dumps(value)[1:-1]


SPELLINGS: dict[str, Callable[[str], str]] = {
    "raw": lambda v: v,
    "url-encoded": lambda v: quote(v, safe=""),
    "url-encoded, lower-case hex": lambda v: quote(v, safe="").replace("%C3%A9", "%c3%a9")
    .replace("%2F", "%2f").replace("%2B", "%2b").replace("%3D", "%3d"),
    "form-encoded": quote_plus,
    "JSON-escaped": _json_escaped,
    "JSON-escaped, solidus too": lambda v: _json_escaped(v).replace("/", "\\/"),
    "JSON-escaped, not ASCII kept": lambda v: json.dumps(v, ensure_ascii=False)[1:-1],
}


def forms(value: str) -> set[str]:
    return {spell(value) for spell in SPELLINGS.values()} | {value}


class KnownAuth(httpx.Auth):
    """The session's auth as the redaction sees it: the tokens and login secrets it knows."""

    def known_secrets(self) -> tuple[Secret, ...]:
        return tuple(Secret(SECRETS[k]) for k in ("access", "refresh", "code", "verifier"))

    def auth_flow(self, request: httpx.Request):
        yield request


class EchoingDesign(FakeDesign):
    """The fake Design service, echoing `echoed` through `channel` once armed."""

    def __init__(self) -> None:
        super().__init__()
        self.tokens = iter([SECRETS["plan"]])
        self.channel: str | None = None
        self.echoed = ""

    def mcp(self, request, body):
        channel, echoed = self.channel, self.echoed
        method = body.get("method")
        if channel == "catalogue" and method == "tools/list":
            listed = json.loads(super().mcp(request, body).read())["result"]
            for tool in listed["tools"]:
                tool["description"] += f" (served for {echoed})"
            return rpc(body, listed)
        if channel is None or method != "tools/call" or body["params"]["name"] != "get_project":
            return super().mcp(request, body)
        if channel == "http error":
            return answer(500, {"detail": f"upstream said {echoed}"})
        if channel == "grant prompt":
            return answer(403, {"error": "needs_project_grant", "project_id": P1,
                                "prompt": f"Grant the token {echoed}?"})
        if channel == "rpc error":
            return answer(200, {"jsonrpc": "2.0", "id": body["id"], "error": {
                "code": -32000, "message": f"refused {echoed}", "data": {"seen": echoed}}})
        project = json.loads(json.loads(super().mcp(request, body).read())["result"]
                             ["content"][0]["text"])
        project["description"] = f"made with {echoed}"
        project[f"key {echoed}"] = 1
        content = [{"type": "text", "text": json.dumps(project)},
                   {"type": "text", "text": f"console: fetch failed for {echoed}"}]
        return rpc(body, {"content": content, "isError": channel == "error result"})


def rig() -> tuple[EchoingDesign, DesignClient, HttpTrace, CallHistory]:
    service = EchoingDesign()
    trace = HttpTrace(True, KnownAuth().known_secrets)
    http = httpx.AsyncClient(transport=httpx.MockTransport(service.handle), auth=KnownAuth(),
                             event_hooks=trace.event_hooks())
    history = CallHistory()
    client = DesignClient(http, Settings(api_base_url=BASE), can_ask=lambda: True,
                          clock_ms=Clock(), operations=BY_NAME, observers=[history])
    return service, client, trace, history


async def plan_issued(client: DesignClient) -> None:
    """A finalize_plan approved: the service issues the plan token, which reaches the plan
    whole (and from then on is a secret the session knows)."""
    pending = await client.call("finalize_plan", {"project_id": P1, "writes": ["a.html"]})
    finalized = await client.resume(pending, approved=True)
    assert finalized.data["plan_token"] == SECRETS["plan"]


def surfaces(outcome, trace: HttpTrace, history: CallHistory) -> dict[str, str]:
    shown = design_outcome(outcome)
    texts = {
        "repr": repr(outcome),
        ".data": json.dumps(outcome.data, ensure_ascii=False, default=repr),
        "to_tool_result": json.dumps(outcome.to_tool_result("toolu_1"), ensure_ascii=False),
        "notebook text and HTML": json.dumps(shown._repr_mimebundle_(), ensure_ascii=False,
                                             default=repr),
        "notebook str": str(shown),
        # as the history shows a result (its diff): the plan tokens a finalize_plan issued
        # are hidden there like any argument's
        "history": json.dumps([r.row() for r in history.records()] + [
            shown_arguments(r.result) for r in history.records()], ensure_ascii=False,
            default=repr),
        "trace": json.dumps(trace.records(), ensure_ascii=False),
        "HAR": json.dumps(har_log(trace.records(), creator="t", version="0"),
                          ensure_ascii=False),
    }
    if outcome.error is not None:
        texts["error"] = " ".join((str(outcome.error), repr(outcome.error),
                                   json.dumps(outcome.error.to_dict(), ensure_ascii=False)))
    return texts


def leaks(texts: dict[str, str]) -> list[tuple[str, str]]:
    return sorted({(where, kind) for where, text in texts.items()
                   for kind, value in SECRETS.items() for form in forms(value)
                   if form in text})


CHANNELS = ("tool result", "error result", "rpc error", "grant prompt", "catalogue",
            "http error")


@pytest.mark.parametrize("spelling", list(SPELLINGS))
@pytest.mark.parametrize("kind", list(SECRETS))
@pytest.mark.parametrize("channel", CHANNELS)
@pytest.mark.asyncio
async def test_an_echoed_secret_reaches_no_surface(channel, kind, spelling) -> None:
    service, client, trace, history = rig()
    await plan_issued(client)
    service.channel, service.echoed = channel, SPELLINGS[spelling](SECRETS[kind])
    if channel == "catalogue":
        outcome = await client.list(full=True)
        assert outcome.data["operations"][0]["description"].endswith(f"{REDACTED})")
    else:
        outcome = await client.call("get_project", {"project_id": P1})
    texts = surfaces(outcome, trace, history)
    assert leaks(texts) == []
    assert REDACTED in texts["to_tool_result"]  # the echo came back, redacted
    if channel in ("tool result", "error result"):
        assert outcome.is_error is (channel == "error result")
        assert outcome.data["description"] == f"made with {REDACTED}"


@pytest.mark.parametrize("spelling", list(SPELLINGS))
@pytest.mark.parametrize("kind", list(SECRETS))
@pytest.mark.asyncio
async def test_an_echoed_secret_in_a_notification_or_log_message_is_not_kept(
        kind, spelling) -> None:
    service, client, trace, _ = rig()
    await plan_issued(client)
    echoed = SPELLINGS[spelling](SECRETS[kind])
    messages = [{"jsonrpc": "2.0", "method": "notifications/message", "params": {
        "level": "info", "logger": f"design {echoed}", "data": {"note": f"wrote {echoed}"}}},
        {"jsonrpc": "2.0", "method": "notifications/progress",
         "params": {"message": echoed, echoed: True}}]
    events = "".join(f"event: message\ndata: {json.dumps(m)}\n\n" for m in messages)
    stream_http = httpx.AsyncClient(transport=httpx.MockTransport(
        lambda request: httpx.Response(200, headers={"content-type": "text/event-stream"},
                                       stream=httpx.ByteStream(events.encode()))))
    stream = NotificationStream(
        client.session, stream_http,
        secrets=lambda: (*KnownAuth().known_secrets(), *trace.seen_secrets()))
    with pytest.raises(Exception) as ended:  # the stream ended having carried events
        await stream._listen("s1", {})
    assert type(ended.value).__name__ == "_Heard"
    kept = json.dumps(stream.records(), ensure_ascii=False)
    assert len(stream.records()) == 2
    assert leaks({"notifications": kept}) == []
    assert REDACTED in kept


@pytest.mark.asyncio
async def test_a_plan_token_echoed_after_it_was_issued_is_redacted_but_the_plan_works() -> None:
    service, client, trace, _ = rig()
    await plan_issued(client)
    service.channel, service.echoed = "tool result", SECRETS["plan"]
    outcome = await client.call("get_project", {"project_id": P1})
    assert outcome.data["description"] == f"made with {REDACTED}"
    assert client.engine.holds_plan(SECRETS["plan"])  # registered from the issuing answer
