"""The remote-session route against PROTOCOL §5: a session token binds org and project, the
body carries an op, answers match the org API, errors are flat {"error","code"}."""

from __future__ import annotations

import base64
import json

import pytest

from jupyter_design_projects.server.projects import remote_session

PATH = "/v2/ccr-sessions/-/chat-project"


@pytest.fixture
def session(service_app, demo) -> dict[str, str]:
    token = remote_session.mint_token(service_app[1], demo.org_uuid, demo.project_uuid)
    return {"authorization": f"Bearer {token}"}


def op(client, headers, **body):
    return client.post(PATH, headers=headers, json=body)


def test_detail_matches_the_org_api(client, session, bearer, demo) -> None:
    assert op(client, session, op="detail").json() == \
        client.get(demo.base + "/detail", headers=bearer()).json()


def test_kb_stats_and_search(client, session) -> None:
    assert op(client, session, op="kb-stats").json()["max_knowledge_size"] == 2_000_000
    hits = op(client, session, op="kb-search", query="raw event logs retention", n=3).json()
    assert hits["text_results"][0]["name"] == "data-retention-policy.md"


@pytest.mark.parametrize(("n", "status"), [(0, 400), (1, 200), (15, 200), (16, 400),
                                           ("3", 200), (True, 400)])
def test_kb_search_n_bounds(client, session, n, status) -> None:
    assert op(client, session, op="kb-search", query="policy", n=n).status_code == status


def test_write_read_and_delete_a_doc(client, session) -> None:
    written = op(client, session, op="write-doc", file_name="claude/summary.md", content="hi")
    assert written.status_code == 201
    doc = written.json()
    again = op(client, session, op="write-doc", file_name="claude/summary.md", content="hi")
    assert (again.status_code, again.json()["uuid"]) == (200, doc["uuid"])
    assert op(client, session, op="read-doc", doc_uuid=doc["uuid"]).json()["content"] == "hi"
    assert op(client, session, op="delete-doc", doc_uuid=doc["uuid"]).status_code == 204
    gone = op(client, session, op="read-doc", doc_uuid=doc["uuid"])
    assert gone.status_code == 404
    assert gone.json() == {"error": gone.json()["error"], "code": "not_found_error"}


def test_replace_is_delete_then_write(client, session) -> None:
    info = op(client, session, op="detail").json()
    old = next(d for d in info["documents"] if d["file_name"] == "glossary.md")
    assert op(client, session, op="write-doc", file_name="glossary.md",
              content="new").status_code == 400
    assert op(client, session, op="delete-doc", doc_uuid=old["uuid"]).status_code == 204
    assert op(client, session, op="write-doc", file_name="glossary.md",
              content="new").status_code == 201


def test_read_file_and_read_file_raw(client, session) -> None:
    files = op(client, session, op="detail").json()["files"]
    pdf = next(f for f in files if f["file_kind"] == "document")
    text = op(client, session, op="read-file", file_uuid=pdf["file_uuid"]).json()
    assert "Churn model v2" in text["content"]
    raw = op(client, session, op="read-file-raw", file_uuid=pdf["file_uuid"]).json()
    assert base64.b64decode(raw["data"]).startswith(b"%PDF-")


def test_search_disabled_is_403_flat(client, session, demo) -> None:
    client.post("/_faults/search", json={"project_uuid": demo.project_uuid, "enabled": False})
    answer = op(client, session, op="kb-search", query="policy", n=5)
    assert (answer.status_code, answer.json()["code"]) == (403, "permission_error")


@pytest.mark.parametrize("body", [
    {"op": "rename-doc"}, {"op": None}, {}, {"op": "read-doc"}, {"op": "read-doc", "doc_uuid": 5},
    {"op": "write-doc", "file_name": "../x.md", "content": "x"},
    {"op": "write-doc", "file_name": "x.md"}, {"op": "kb-search", "n": 3},
])
def test_bad_ops_are_flat_400(client, session, body) -> None:
    answer = client.post(PATH, headers=session, json=body)
    assert answer.status_code == 400
    assert set(answer.json()) == {"error", "code"}
    assert answer.json()["code"] == "invalid_request_error"


@pytest.mark.parametrize("raw", [b"{", b"[]", b"null", b"\xff"])
def test_malformed_bodies_are_flat_400(client, session, raw) -> None:
    answer = client.post(PATH, headers={**session, "content-type": "application/json"},
                         content=raw)
    assert (answer.status_code, answer.json()["code"]) == (400, "invalid_request_error")


def test_an_oauth_access_token_is_not_a_session_token(client, bearer) -> None:
    answer = op(client, bearer(), op="detail")
    assert (answer.status_code, answer.json()["code"]) == (401, "authentication_error")


def tamper(token: str, **claims) -> str:
    head, payload, signature = token.split(".")
    data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    data.update(claims)
    forged = base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")
    return f"{head}.{forged}.{signature}"


def test_a_tampered_session_token_is_401(client, session) -> None:
    token = session["authorization"].removeprefix("Bearer ")
    forged = tamper(token, project_uuid="00000000-0000-4000-8000-000000000000")
    answer = op(client, {"authorization": f"Bearer {forged}"}, op="detail")
    assert answer.status_code == 401


def test_an_expired_session_token_is_401(client, service_app, demo) -> None:
    ctx = service_app[1]
    token = remote_session.mint_token(ctx, demo.org_uuid, demo.project_uuid)
    ctx.clock = lambda: 4_000_000_000.0
    answer = op(client, {"authorization": f"Bearer {token}"}, op="detail")
    assert answer.status_code == 401


def test_a_session_token_survives_a_restart_of_the_same_data_dir(service_config, demo) -> None:
    from jupyter_design_projects.server.app import create_app

    first = create_app(service_config)
    token = remote_session.mint_token(first.state.ctx, demo.org_uuid, demo.project_uuid)
    second = create_app(service_config)
    principal = remote_session.verify_token(second.state.ctx, token)
    assert principal is not None and principal.project_uuid == demo.project_uuid


def test_a_session_token_only_opens_its_own_project_on_the_org_api(client, session,
                                                                   demo) -> None:
    other = "00000000-0000-4000-8000-000000000000"
    assert client.get(demo.base + "/detail", headers=session).status_code == 200
    answer = client.get(f"/api/organizations/{demo.org_uuid}/projects/{other}/detail",
                        headers=session)
    assert answer.status_code == 404
