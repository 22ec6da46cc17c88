"""The hostile-content switch (`server/faults/hostile.py`): off until set, set only from
loopback, off again on reset or without a payload; while on, the text a person may be
shown carries the payload and ids, tokens, URLs and times do not."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from jupyter_design_projects.server.faults.hostile import Hostile, applies, rewrite, taint

BAD = "<img src=x onerror=alert(1)>"


def test_the_switch_is_off_until_set(client, service_app, bearer, demo) -> None:
    assert service_app[1].faults.hostile is None
    answer = client.get(demo.base + "/detail", headers=bearer()).json()
    assert "<" not in json.dumps(answer)


def test_the_switch_refuses_non_loopback_clients(service_app) -> None:
    with TestClient(service_app[0], base_url="http://127.0.0.1",
                    client=("192.0.2.7", 5000)) as remote:
        assert remote.post("/_faults/hostile", json={"payload": BAD}).status_code == 404
    assert service_app[1].faults.hostile is None


def test_on_it_fills_names_and_paths_and_keeps_ids(client, bearer, demo) -> None:
    clean = client.get(demo.base + "/detail", headers=bearer()).json()
    assert client.post("/_faults/hostile", json={"payload": BAD}).status_code == 200
    tainted = client.get(demo.base + "/detail", headers=bearer()).json()
    assert tainted["name"] == clean["name"] + BAD
    assert tainted["uuid"] == clean["uuid"]
    docs = {d["uuid"]: d for d in clean["documents"]}
    for doc in tainted["documents"]:
        assert doc["file_name"] == docs[doc["uuid"]]["file_name"] + BAD
        assert doc["created_at"] == docs[doc["uuid"]]["created_at"]


@pytest.mark.parametrize("off", [{}, None])
def test_no_payload_or_a_reset_turns_it_off(client, service_app, off) -> None:
    client.post("/_faults/hostile", json={"payload": BAD})
    if off is None:
        client.post("/_faults/reset")
    else:
        client.post("/_faults/hostile", json=off)
    assert service_app[1].faults.hostile is None


@pytest.mark.parametrize("body", [
    {"payload": BAD, "names": "yes"},
    {"payload": BAD, "keep": "path"},
    {"payload": BAD, "keep": ["k"] * 33},
    {"payload": ""},
    {"payload": "x" * 16_385},
])
def test_bad_switch_requests_are_refused(client, service_app, body) -> None:
    assert client.post("/_faults/hostile", json=body).status_code == 400
    assert service_app[1].faults.hostile is None


def test_a_payload_of_the_longest_length_is_taken(client, service_app) -> None:
    assert client.post("/_faults/hostile", json={"payload": "x" * 16_384}).status_code == 200


@pytest.mark.parametrize(("path", "rewritten"), [
    ("/v1/design/mcp", True),
    ("/api/organizations/o/projects", True),
    ("/v2/ccr-sessions/-/chat-project", True),
    ("/v1/oauth/token", False),
    ("/oauth/authorize", False),
    ("/_faults/counts", False),
])
def test_it_applies_to_design_and_projects_routes_only(path, rewritten) -> None:
    assert applies(path) is rewritten


def test_tool_names_stay_clean_unless_asked_and_descriptions_carry_it() -> None:
    tool = {"name": "read_file", "title": "Read", "description": "Reads.",
            "inputSchema": {"type": "object", "required": ["path"],
                            "properties": {"path": {"type": "string",
                                                    "description": "Where."}}}}
    kept = taint(tool, Hostile(BAD))
    assert kept["name"] == "read_file"
    assert (kept["title"], kept["description"]) == ("Read" + BAD, "Reads." + BAD)
    schema = kept["inputSchema"]
    assert schema["type"] == "object" and schema["required"] == ["path"]
    assert schema["properties"]["path"] == {"type": "string", "description": "Where." + BAD}
    assert taint(tool, Hostile(BAD, names=True))["name"] == "read_file" + BAD


def test_json_inside_a_text_is_filled_inside() -> None:
    result = {"content": [{"type": "text", "text": json.dumps(
        [{"id": "p1", "name": "Deck", "url": "https://x.example/p1",
          "members": [{"email": "a@b.example"}]}])}]}
    inner = json.loads(taint(result, Hostile(BAD))["content"][0]["text"])
    assert inner == [{"id": "p1", "name": "Deck" + BAD, "url": "https://x.example/p1",
                      "members": [{"email": "a@b.example" + BAD}]}]


@pytest.mark.parametrize("value", [
    {"access_token": "t"}, {"plan_token": "t"}, {"project_id": "p"},
    {"doc_uuid": "d"}, {"open_url": "u"}, {"updated_at": "u"}, {"data": "QUJD"},
    {"etags": {"a.html": "e1"}}, {"mimeType": "image/png"},
    {"any": "3f2a1c9e-1b2c-4d5e-8f90-123456789abc"}, {"any": "https://x.example/"},
    {"any": "2026-01-01T00:00:00Z"},
])
def test_ids_tokens_urls_times_and_data_stay_clean(value) -> None:
    assert taint(value, Hostile(BAD)) == value


def test_keep_leaves_the_named_keys_clean() -> None:
    value = {"path": "a.md", "content": "text"}
    assert taint(value, Hostile(BAD, keep=frozenset({"path"}))) == {
        "path": "a.md", "content": "text" + BAD}


def test_a_body_that_is_not_json_is_left_alone() -> None:
    assert rewrite(b"\x89PNG", Hostile(BAD)) is None
    assert json.loads(rewrite(b'{"message": "No."}', Hostile(BAD))) == {"message": "No." + BAD}


def test_error_codes_stay_clean_and_their_messages_carry_it() -> None:
    value = {"error": "needs_project_grant", "prompt": "Allow?"}
    assert taint(value, Hostile(BAD)) == {"error": "needs_project_grant",
                                          "prompt": "Allow?" + BAD}
    envelope = {"type": "error", "error": {"type": "not_found_error", "message": "No."}}
    assert taint(envelope, Hostile(BAD))["error"] == {"type": "not_found_error",
                                                      "message": "No." + BAD}
