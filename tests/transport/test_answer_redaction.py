"""`Answer.json()` is the transport boundary of redaction: the decoded answer comes back
with every secret the client knows replaced by value — except a credential the answer
itself issues (a new plan token), and except for the OAuth client, which reads the tokens
it asked for with `json(redacted=False)`."""

from __future__ import annotations

import json

import httpx
import pytest

from jupyter_design_projects.core.redaction import REDACTED, Secret
from jupyter_design_projects.transport.http import make_client, send
from jupyter_design_projects.transport.trace import HttpTrace

ACCESS = "at-live-token-0001"
REFRESHED = "at-refreshed-token-0002"
URL = "https://api.example/x"


class Known(httpx.Auth):
    """An auth that knows ACCESS, and REFRESHED once `refresh()` was called."""

    def __init__(self) -> None:
        self.secrets = [Secret(ACCESS)]

    def known_secrets(self) -> tuple[Secret, ...]:
        return tuple(self.secrets)

    def auth_flow(self, request):
        yield request


async def answer_to(body: dict, *, request_json=None, headers=None, auth=None,
                    during=None):
    """The Answer of one exchange whose service answers `body` (`during(auth)` runs while
    the request is being answered)."""
    auth = auth or Known()
    trace = HttpTrace(False, auth.known_secrets)

    def handler(request):
        if during is not None:
            during(auth)
        return httpx.Response(200, json=body)

    async with make_client(transport=httpx.MockTransport(handler), auth=auth,
                           event_hooks=trace.event_hooks()) as client:
        return await send(client, "POST", URL, action="a", max_bytes=100_000, deadline_s=5,
                          json=request_json, headers=headers)


@pytest.mark.asyncio
async def test_a_known_token_is_replaced_everywhere_in_the_decoded_answer() -> None:
    answer = await answer_to({"text": f"said {ACCESS}", ACCESS: [ACCESS]})
    assert answer.json() == {"text": f"said {REDACTED}", REDACTED: [REDACTED]}
    assert answer.json(redacted=False)["text"] == f"said {ACCESS}"


@pytest.mark.asyncio
async def test_take_json_is_redacted_too() -> None:
    answer = await answer_to({"text": ACCESS})
    assert answer.take_json() == {"text": REDACTED}


@pytest.mark.asyncio
async def test_a_plan_token_the_answer_issues_is_kept_and_an_older_one_is_not() -> None:
    auth = Known()
    first = await answer_to({"plan_token": "dpt-first-plan-0001"}, auth=auth)
    assert first.json() == {"plan_token": "dpt-first-plan-0001"}
    assert [s.reveal() for s in first.issued] == ["dpt-first-plan-0001"]
    # a second client session that saw the first plan go by: it is no longer issued
    trace = HttpTrace(False, auth.known_secrets)
    trace._learn(b'{"plan_token": "dpt-first-plan-0001"}')

    def handler(request):
        return httpx.Response(200, json={"plan_token": "dpt-second-plan-02",
                                         "note": "replaces dpt-first-plan-0001"})

    async with make_client(transport=httpx.MockTransport(handler), auth=auth,
                           event_hooks=trace.event_hooks()) as client:
        second = await send(client, "POST", URL, action="a", max_bytes=1000, deadline_s=5)
    assert second.json() == {"plan_token": "dpt-second-plan-02",
                             "note": f"replaces {REDACTED}"}


@pytest.mark.asyncio
async def test_a_plan_token_the_request_carried_is_never_issued_by_its_answer() -> None:
    answer = await answer_to({"plan_token": "dpt-sent-by-caller-01", "ok": True},
                             request_json={"plan_token": "dpt-sent-by-caller-01"})
    assert answer.issued == ()
    assert answer.json() == {"plan_token": REDACTED, "ok": True}


@pytest.mark.asyncio
async def test_a_token_the_auth_learned_during_the_exchange_is_never_issued() -> None:
    answer = await answer_to({"access_token": REFRESHED},
                             during=lambda auth: auth.secrets.append(Secret(REFRESHED)))
    assert answer.issued == ()
    assert answer.json() == {"access_token": REDACTED}


@pytest.mark.asyncio
async def test_a_bearer_the_caller_set_itself_is_redacted_from_its_answer() -> None:
    jwt = "eyJhbGciOi.session-jwt.value-0001"
    answer = await answer_to({"echo": jwt}, headers={"Authorization": f"Bearer {jwt}"})
    assert answer.json() == {"echo": REDACTED}
    assert jwt not in answer.text()


@pytest.mark.asyncio
async def test_the_oauth_client_reads_its_token_answer_whole() -> None:
    from jupyter_design_projects.transport.oauth import _json_of

    answer = await answer_to({"access_token": ACCESS, "refresh_token": "rt-same-0000001"})
    assert _json_of(answer)["access_token"] == ACCESS
    assert json.loads(json.dumps(answer.json()))["access_token"] == REDACTED
