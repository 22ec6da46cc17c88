"""The reference service with its echo switch on (`server/faults/echo.py`): every token it
was given or issued — the session's access and refresh tokens, its sign-in code and PKCE
verifier, a plan token — comes back in every string of every Design and Projects answer
and of the Design event stream. Every surface a person or a model reads shows none of
them (the battery's leak check: outcomes, errors, tool_results, the trace, the logs, the
output; plus the notebook's rendering, AgentTools results, the HAR, the notifications
kept and the call history), and the echo is seen, redacted. Threat: a service that hands
the person's credentials back, so that a saved notebook would carry them into git."""

from __future__ import annotations

import json
import time

import pytest

from jupyter_design_projects.agent_tools import DESIGN_TOOL, PROJECTS_TOOL, AgentTools
from jupyter_design_projects.core.har import har_log
from jupyter_design_projects.core.redaction import REDACTED
from jupyter_design_projects.design import raw_rpc, wire
from jupyter_design_projects.design.call_history import shown_arguments
from jupyter_design_projects.errors import DesignRpcError, JdpError, NeedsProjectGrant
from jupyter_design_projects.notebook.views.outcomes import design_outcome


def shown(outcome) -> list[str]:
    """The notebook's rendering of a Design outcome (text and HTML)."""
    rendered = design_outcome(outcome)
    return [str(rendered), json.dumps(rendered._repr_mimebundle_(), default=repr)]


def use(tools: AgentTools, tool: str, **tool_input) -> dict:
    return tools.handle_tool_use({"type": "tool_use", "id": "toolu_echo", "name": tool,
                                  "input": tool_input})


@pytest.fixture
def echoing(live):
    """`live` signed in again through the service (so the session knows its own code and
    verifier too), with the echo switch on."""
    live.session.login_embedded()
    switched = live.faults.echo_tokens(True)
    assert switched["tokens_known"] >= 4  # access, refresh, code, verifier at least
    known = [s.reveal() for s in live.session.credentials.known_secrets()]
    assert len(known) >= 4
    yield live
    live.faults.echo_tokens(False)


def test_design_answers_that_echo_every_token_show_none(echoing) -> None:
    live, session = echoing, echoing.session
    projects = session.design_call("list_projects")
    assert not projects.is_error and REDACTED in json.dumps(projects.data)
    project_id = projects.data[0]["id"]
    found = session.design_call("get_project", {"project_id": project_id})
    missing = session.design_call("get_project", {"project_id": "no-such-project-00"})
    assert missing.is_error
    catalogue = live.run(session.design.list(full=True))
    assert REDACTED in json.dumps(catalogue.data)
    extra: list[str] = []
    for outcome in (projects, found, missing, catalogue):
        live.check(outcome=outcome)
        extra += shown(outcome)
    exchange = live.run(raw_rpc.send(session.design.session, "resources/list"))
    extra.append(json.dumps(exchange.to_dict()))
    envelope, _, answer = live.run(session.design.session.raw("resources/list"))
    with pytest.raises(DesignRpcError) as rpc_error:
        wire.rpc_result(answer, "resources/list", envelope["id"])
    assert REDACTED in rpc_error.value.message
    live.check(error=rpc_error.value, extra=extra)


def test_a_grant_prompt_that_echoes_every_token_shows_none(echoing) -> None:
    live, session = echoing, echoing.session
    project_id = session.design_call("list_projects").data[0]["id"]
    files = [{"path": "echo.html", "data": "<p>echo</p>"}]
    with pytest.raises(NeedsProjectGrant) as refused:
        live.run(session.design.session.call_tool(
            "write_files", {"project_id": project_id, "files": files}))
    assert REDACTED in refused.value.prompt
    live.check(error=refused.value)


def test_a_written_change_logs_and_notifies_without_a_token(echoing) -> None:
    live, session = echoing, echoing.session
    session.listen_for_notifications()
    project_id = session.design_call("list_projects").data[0]["id"]
    files = [{"path": "echoed.html", "data": "<p>echo</p>"}]
    live.answerable["now"] = True
    written = session.design_call("write_files", {"project_id": project_id, "files": files},
                                  approve=lambda request: "once")
    assert not written.is_error
    preview = session.design_call("render_preview", {"project_id": project_id,
                                                     "path": "echoed.html"})
    deadline = time.monotonic() + 30  # the stream delivers on its own time: bounded
    while len(session.design_notifications(listen=False)) < 2:
        assert time.monotonic() < deadline, "the write's log messages never arrived"
        time.sleep(0.05)
    kept = session.design_notifications(listen=False)
    assert [r["kind"] for r in kept][-2:] == ["log", "log"]  # the plan, then the write
    assert REDACTED in kept[-1]["logger"] and REDACTED in json.dumps(kept[-1]["data"])
    assert not preview.is_error and REDACTED in preview.data["text_content"]
    history = session.history.records()
    extra = [json.dumps(kept), *shown(written), *shown(preview),
             json.dumps([r.row() for r in history] + [shown_arguments(r.result)
                                                       for r in history], default=repr),
             json.dumps(har_log(session.trace.records(), creator="t", version="0"))]
    live.check(outcome=written, extra=extra)
    live.check(outcome=preview)


def test_agent_tools_results_that_echo_every_token_show_none(echoing) -> None:
    live, session = echoing, echoing.session
    tools = AgentTools(session, approve=lambda request: "once")
    results = [use(tools, DESIGN_TOOL, operation="list"),
               use(tools, DESIGN_TOOL, operation="list_projects"),
               use(tools, PROJECTS_TOOL, method="project_info"),
               use(tools, PROJECTS_TOOL, method="project_search", query="design"),
               use(tools, PROJECTS_TOOL, method="project_read", path="no/such/doc.md")]
    assert REDACTED in json.dumps(results[1])
    assert results[4]["is_error"] is True
    live.check(extra=[json.dumps(r) for r in results])


def test_projects_errors_and_results_that_echo_every_token_show_none(echoing) -> None:
    live, session = echoing, echoing.session
    info = session.project.info()
    assert REDACTED in json.dumps(info, default=repr)
    with pytest.raises(JdpError) as failed:
        session.project.read("no/such/doc.md")
    live.check(outcome=info, error=failed.value)


def test_the_models_first_list_is_whole_after_the_persons_and_the_inspectors(live) -> None:
    session = live.session
    person = live.run(session.design.list())
    again = live.run(session.design.list())
    assert "catalog_unchanged" not in person.data and again.data["catalog_unchanged"] is True
    model = AgentTools(session)
    first = json.loads(use(model, DESIGN_TOOL, operation="list")["content"][0]["text"])
    second = json.loads(use(model, DESIGN_TOOL, operation="list")["content"][0]["text"])
    other = json.loads(use(AgentTools(session), DESIGN_TOOL,
                           operation="list")["content"][0]["text"])
    assert "catalog_unchanged" not in first and "operations" in first
    assert second["catalog_unchanged"] is True
    assert "catalog_unchanged" not in other
