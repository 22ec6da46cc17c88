"""The echo switch (`server/faults/echo.py`): with faults on the service notes every token
its traffic carries; off until set (from loopback only), off again on reset; while on,
every string a person may be shown in a Design or Projects answer carries them all, in
several spellings, while ids, paths and token answers stay as they were."""

from __future__ import annotations

import json
from urllib.parse import quote, quote_plus

from starlette.testclient import TestClient

from jupyter_design_projects.server.faults.echo import Echo, EventEcho, spellings

TOKEN = "tok/with+odd=chars é-0001"


def test_spellings_are_raw_url_form_and_json_each_once() -> None:
    assert spellings(TOKEN) == [TOKEN, quote(TOKEN, safe=""), quote_plus(TOKEN),
                                json.dumps(TOKEN)[1:-1]]
    assert spellings("plain-token-abcdef") == ["plain-token-abcdef"]


def test_it_learns_the_bearer_form_fields_json_fields_and_text_blocks() -> None:
    echo = Echo()
    echo.learn_request([(b"authorization", b"Bearer access-token-0001")], b"")
    echo.learn_request([], b"grant_type=authorization_code&code=code-value-0001"
                           b"&code_verifier=verifier-value-0001&state=not-a-secret-0001")
    echo.learn_request([], json.dumps({"params": {"arguments": {
        "plan_token": "plan-token-0001", "path": "a.html"}}}).encode())
    echo.learn_answer(json.dumps({"result": {"content": [{"type": "text", "text": json.dumps(
        {"plan_token": "plan-token-0002"})}]}}).encode())
    echo.learn_answer(b'{"access_token": "short", "refresh_token": "refresh-token-0001"}')
    assert echo.tokens == ("access-token-0001", "code-value-0001", "verifier-value-0001",
                           "plan-token-0001", "plan-token-0002", "refresh-token-0001")


def test_it_keeps_the_newest_sixty_four_and_writes_the_newest_first() -> None:
    echo = Echo()
    for n in range(70):
        echo.learn_answer(json.dumps({"token": f"token-number-{n:04d}"}).encode())
    assert len(echo.tokens) == 64 and echo.tokens[0] == "token-number-0006"
    assert echo.payload().startswith(" [echo: token-number-0069 | token-number-0068")


def test_rewrite_fills_text_and_keeps_ids_paths_and_plans_usable() -> None:
    echo = Echo()
    assert echo.rewrite(b'{"name": "x"}') is None  # nothing known yet: nothing to echo
    echo.learn_request([], json.dumps({"refresh_token": TOKEN}).encode())
    body = {"id": "p1", "name": "Deck", "path": "a.html", "writes": ["a.html"],
            "plan_token": "dpt_1234567890", "url": "https://design.example/p/p1",
            "error": {"type": "not_found", "message": "no such file"}}
    tainted = json.loads(echo.rewrite(json.dumps(body).encode()))
    assert tainted["name"].startswith("Deck [echo: ")
    assert all(form in tainted["name"] for form in spellings(TOKEN))
    assert tainted["error"]["message"].startswith("no such file [echo: ")
    for kept in ("id", "path", "writes", "plan_token", "url"):
        assert tainted[kept] == body[kept]
    assert tainted["error"]["type"] == "not_found"
    assert echo.rewrite(b"not json") is None


def test_event_stream_messages_are_echoed_even_when_split() -> None:
    echo = Echo()
    echo.learn_request([(b"authorization", b"Bearer access-token-0001")], b"")
    message = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                          "params": {"level": "info", "data": {"message": "wrote"}}})
    stream = f"event: message\ndata: {message}\n\n".encode()
    events = EventEcho(echo)
    out = events.feed(stream[:30]) + events.feed(stream[30:]) + events.flush()
    data = json.loads(out.split(b"\n")[1].removeprefix(b"data: "))
    assert data["params"]["data"]["message"] == "wrote [echo: access-token-0001]"
    assert data["params"]["level"].startswith("info [echo:")
    assert out.startswith(b"event: message\n") and out.endswith(b"\n\n")


def test_the_switch_is_off_until_set_and_refuses_what_is_not_a_boolean(
        client, service_app, bearer, demo) -> None:
    headers = bearer()
    clean = client.get(demo.base + "/detail", headers=headers).json()
    assert service_app[1].faults.echo.on is False
    assert client.post("/_faults/echo-tokens", json={"on": "yes"}).status_code == 400
    switched = client.post("/_faults/echo-tokens", json={"on": True}).json()
    assert switched["echo"] is True and switched["tokens_known"] >= 1
    echoed = client.get(demo.base + "/detail", headers=headers).json()
    token = headers["authorization"].removeprefix("Bearer ")
    assert echoed["name"].startswith(clean["name"] + " [echo: ") and token in echoed["name"]
    assert echoed["uuid"] == clean["uuid"]
    client.post("/_faults/reset")
    assert client.get(demo.base + "/detail", headers=headers).json()["name"] == clean["name"]


def test_the_switch_refuses_non_loopback_clients(service_app) -> None:
    with TestClient(service_app[0], base_url="http://127.0.0.1",
                    client=("192.0.2.7", 5000)) as remote:
        assert remote.post("/_faults/echo-tokens", json={"on": True}).status_code == 404
    assert service_app[1].faults.echo.on is False
