"""Paths in other scripts against the real reference service (issue 22 item 2, spec §7:
control and confusing characters are barred, letters are not): `café.html` and
`幻灯片/01.html` are written, on a card and under a verified grant; the card shows each
beside its escaped form; a confusable mix of scripts is refused before anything is sent."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from jupyter_design_projects.design.client import DesignClient
from jupyter_design_projects.errors import PermissionRefused
from jupyter_design_projects.settings import Settings
from tests.design.live_design import design_http

DEMO_NAMESPACE = uuid.UUID("0f4b6c1e-5d0a-4c58-9b7e-2a1d3c4e5f60")
DECK = str(uuid.uuid5(DEMO_NAMESPACE, "project:Quarterly Review Deck"))


@pytest_asyncio.fixture
async def client(service) -> AsyncIterator[DesignClient]:
    async with design_http(service) as http:
        await http.request("DELETE", service.base_url + "/v1/design/consent",
                           json={"consent": "agent_design_projects"})
        opened = DesignClient(http, Settings(api_base_url=service.base_url),
                              can_ask=lambda: True, operations=BY_NAME)
        yield opened
        await opened.close()


def write(path: str) -> dict:
    return {"project_id": DECK, "files": [{"path": path, "data": "<h1>Q4</h1>"}]}


async def paths_of(client: DesignClient) -> set[str]:
    outcome = await client.call("list_files", {"project_id": DECK, "depth": 5})
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error
    return {entry["path"] for entry in outcome.data}


@pytest.mark.asyncio
async def test_cafe_on_a_grant_card_then_a_chinese_path_under_the_verified_grant(client):
    tag = uuid.uuid4().hex[:6]
    cafe, slides = f"caf\u00e9-{tag}.html", f"\u5e7b\u706f\u7247-{tag}/01.html"
    await client.consent()
    card = await client.call("write_files", write(cafe))
    assert isinstance(card, PendingApproval) and card.request.kind == "grant"
    assert card.request.writes == (cafe,)
    assert f"  {cafe}  [caf\\u00e9-{tag}.html]" in card.request.text.splitlines()
    written = await client.resume(card, approved=True, durable=True)
    assert isinstance(written, DesignOutcome) and not written.is_error
    # the grant is verified now: the Chinese path rides on it, with no card
    under_grant = await client.call("write_files", write(slides))
    assert isinstance(under_grant, DesignOutcome) and not under_grant.is_error
    assert {cafe, slides} <= await paths_of(client)


@pytest.mark.asyncio
async def test_a_decomposed_accent_is_written_in_its_nfc_form(client):
    tag = uuid.uuid4().hex[:6]
    await client.consent()
    card = await client.call("write_files", write(f"Cafe\u0301-{tag}.html"))
    assert isinstance(card, PendingApproval)
    assert card.request.writes == (f"Caf\u00e9-{tag}.html",)
    written = await client.resume(card, approved=True)
    assert not written.is_error
    assert f"Caf\u00e9-{tag}.html" in await paths_of(client)


@pytest.mark.asyncio
@pytest.mark.parametrize(("path", "reason"), [
    ("p\u0430ypal.html", "path_mixed_script"),         # a Cyrillic а among Latin letters
    ("a\u202egnp.html", "path_invisible_character"),   # a bidi override
    ("a\u200bb.html", "path_invisible_character"),     # a zero-width space
    ("a\ue000.html", "path_invisible_character"),      # private use
    ("\uff0e\uff0e\uff0fx.html", "path_not_a_letter"),  # fullwidth dots and slash
])
async def test_confusing_paths_are_refused_and_nothing_is_written(client, path, reason):
    await client.consent()
    outcome = await client.call("write_files", write(path))
    assert isinstance(outcome, DesignOutcome) and isinstance(outcome.error, PermissionRefused)
    assert outcome.error.reason == reason
    assert path not in await paths_of(client)


@pytest.mark.asyncio
async def test_a_reserved_target_is_asked_as_one_call_not_denied_spec_s8(client):
    tag = uuid.uuid4().hex[:6]
    await client.consent()
    granted = await client.resume(await client.call("write_files", write(f"g-{tag}.html")),
                                  approved=True, durable=True)
    assert not granted.is_error
    card = await client.call("write_files", write(f"notes-{tag}/CLAUDE.md"))
    assert isinstance(card, PendingApproval)  # a card even under the verified grant
    assert (card.request.kind, card.request.reason) == ("operation", "reserved_target")
    assert not card.request.allows_durable
    outcome = await client.resume(card, approved=True)  # through a one-time plan
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error, outcome.error
    assert f"notes-{tag}/CLAUDE.md" in await paths_of(client)
    assert not client.engine.snapshot(can_ask=True, main_context=True,
                                      now_ms=0).plans  # nothing registered
