"""Hostile servers: hypothesis-generated JSON-RPC and Projects answers (wrong ids, wrong
types, missing fields, deep nesting, enormous strings, the client's own bearer reflected
back) served on loopback. The client never crashes (only its own errors, or an error
outcome), never runs past its deadline, and never shows a token. Threat: a compromised or
buggy service attacking the notebook through its answers."""

from __future__ import annotations

import json
import logging

import hypothesis.strategies as st
import pytest
from hypothesis import example, given

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.design.approval import DesignOutcome
from jupyter_design_projects.design.client import DesignClient
from jupyter_design_projects.errors import DeadlineExceeded, JdpError
from tests.reliability.hostile import McpScript, response

#: no call may take longer than this (the client's own deadlines are 60 s and 30 s: the
#: scripted answers below arrive at once, so anything near this is a hang)
DEADLINE_S = 20
REFLECT = "\x00REFLECT\x00"  # replaced by the request's Authorization header when served

scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2 ** 70), 2 ** 70),
                    st.floats(allow_nan=False, allow_infinity=False),
                    st.text(max_size=40), st.just(REFLECT))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)),
    max_leaves=16)


def tool_results() -> st.SearchStrategy:
    """Results that look like tool results, with every field possibly of the wrong type."""
    block = st.one_of(
        st.fixed_dictionaries({"type": st.just("text"), "text": st.one_of(st.text(), values)}),
        st.fixed_dictionaries({"type": st.just("image"),
                               "data": st.one_of(st.text(max_size=60), values),
                               "mimeType": st.one_of(st.just("image/png"), values)}),
        values)
    return st.one_of(
        st.fixed_dictionaries({"content": st.one_of(st.lists(block, max_size=4), values)},
                              optional={"isError": st.one_of(st.booleans(), values)}),
        values)


def envelopes(result: st.SearchStrategy) -> st.SearchStrategy:
    """(id kind, envelope-without-id) pairs: right id, wrong id, no id, a string id."""
    fields = st.fixed_dictionaries(
        {}, optional={"jsonrpc": st.one_of(st.just("2.0"), values), "result": result,
                      "error": st.one_of(values, st.fixed_dictionaries(
                          {"code": values, "message": values}))})
    return st.tuples(st.sampled_from(["same", "other", "none", "string", "absent"]), fields)


raw_bodies = st.one_of(
    st.integers(1, 200_000).map(lambda n: "[" * n + "]" * n),   # deep nesting
    st.integers(1, 200_000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.integers(1, 3_000_000).map(lambda n: json.dumps({"jsonrpc": "2.0", "id": 2, "result": {
        "content": [{"type": "text", "text": "x" * n}]}})),          # enormous strings
    st.integers(1, 200_000).map(lambda n: json.dumps({"jsonrpc": "2.0", "id": 2, "result": {
        "content": [{"type": "text", "text": "[" * n + "]" * n}]}})),  # nesting in a result
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),     # not JSON at all
)
DEEP_RESULT = json.dumps({"jsonrpc": "2.0", "id": 2, "result": {
    "content": [{"type": "text", "text": "[" * 100_000 + "]" * 100_000}]}})


def materialise(request, id_kind: str, envelope: dict, rpc_id) -> bytes:
    body = dict(envelope)
    if id_kind != "absent":
        body["id"] = {"same": rpc_id, "other": (rpc_id or 0) + 1000, "none": None,
                      "string": str(rpc_id)}[id_kind]
    text = json.dumps(body)
    bearer = request.headers.get("authorization", "")
    return text.replace(json.dumps(REFLECT)[1:-1], json.dumps(bearer)[1:-1]).encode()


@pytest.fixture
def hostile_mcp(scripted):
    mcp = McpScript(scripted.tools)
    case = scripted(mcp)
    case.mcp = mcp
    return case


@pytest.fixture
def hostile_projects(scripted):
    """One scripted Projects service for every example: `case.answer` is swapped."""
    holder: dict = {}
    case = scripted(lambda request: holder["case"].answer(request))
    holder["case"] = case
    return case


def design_call_survives(case, caplog) -> DesignOutcome:
    client = DesignClient(case.session.http, case.session.settings, can_ask=lambda: False,
                          operations=BY_NAME)
    try:
        outcome = case.session.run(client.call("list_projects", {}), timeout=DEADLINE_S)
        assert isinstance(outcome, DesignOutcome)
        case.live.check(outcome)
        return outcome
    finally:
        case.session.run(client.close(), timeout=DEADLINE_S)
        caplog.clear()


@pytest.mark.parametrize("stage", ["initialize", "tools/list", "tools/call"])
@given(data=st.data())
def test_generated_json_rpc_answers_never_crash_hang_or_leak__threat_hostile_server(
        hostile_mcp, caplog, stage, data):
    caplog.set_level(logging.DEBUG)
    result = {"initialize": values, "tools/list": st.one_of(
        values, st.fixed_dictionaries({"tools": st.lists(values, max_size=3)},
                                      optional={"nextCursor": values})),
              "tools/call": tool_results()}[stage]
    id_kind, envelope = data.draw(envelopes(result))
    hostile_mcp.mcp.override = {stage: lambda request, rpc_id: [
        ("send", response(200, materialise(request, id_kind, envelope, rpc_id),
                          headers={"Mcp-Session-Id": McpScript.SESSION_ID}))]}
    outcome = design_call_survives(hostile_mcp, caplog)
    # an answer that is not to this request is never taken as its result
    if id_kind != "same" and "error" not in envelope:
        assert outcome.is_error


@pytest.mark.parametrize("stage", ["initialize", "tools/list", "tools/call"])
@given(body=raw_bodies)
@example(body="[" * 100_000 + "]" * 100_000)
@example(body=DEEP_RESULT)
def test_raw_hostile_bodies_never_crash_hang_or_leak__threat_hostile_server(
        hostile_mcp, caplog, stage, body):
    caplog.set_level(logging.DEBUG)
    hostile_mcp.mcp.override = {stage: lambda request, rpc_id: [
        ("send", response(200, body, headers={"Mcp-Session-Id": McpScript.SESSION_ID}))]}
    design_call_survives(hostile_mcp, caplog)


details = st.one_of(values, st.fixed_dictionaries({
    "uuid": values, "name": st.one_of(st.text(), values), "documents": st.one_of(
        st.lists(st.one_of(values, st.fixed_dictionaries(
            {"uuid": values, "file_name": values}, optional={"estimated_token_count": values})),
            max_size=3), values),
    "files": values, "knowledge_stats": st.one_of(values, st.fixed_dictionaries(
        {"knowledge_size": values, "max_knowledge_size": values}))}))


@given(detail=details, status=st.sampled_from([200, 201, 400, 403, 404, 429, 500]),
       raw=st.one_of(st.none(), raw_bodies))
@example(detail=None, status=200, raw="[" * 100_000 + "]" * 100_000)
def test_generated_projects_answers_never_crash_hang_or_leak__threat_hostile_server(
        hostile_projects, caplog, detail, status, raw):
    caplog.set_level(logging.DEBUG)

    def answer(request):
        if raw is not None:
            return [("send", response(status, raw))]
        text = json.dumps(detail).replace(json.dumps(REFLECT)[1:-1], json.dumps(
            request.headers.get("authorization", ""))[1:-1])
        return [("send", response(status, text))]

    case = hostile_projects
    case.answer = answer
    try:
        result = case.session.run(case.session.projects.info(), timeout=DEADLINE_S)
    except JdpError as error:
        # the client's own deadline, not the battery's bound on the whole call
        assert not (isinstance(error, DeadlineExceeded) and error.action == "background call")
        case.live.check(error=error)
    else:
        case.live.check(result)
    finally:
        caplog.clear()
