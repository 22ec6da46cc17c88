"""A Design write whose targets cannot be listed (spec §8: "不可枚举路径 … 仍走 plan token
或逐批 ask"): one more row of the operation table whose service picks the paths, served
by the reference service. Under the project's grant an ordinary write is silent, but this
call is put to a person as one call — a card showing every argument and saying that no
plan or grant covers it; Approve sends it as written and the service writes; Deny sends
nothing; without a grant no card could offer an action that works, so it is refused
before anything is sent. The counts are of the tool calls that reached the service."""

from __future__ import annotations

import collections
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from jupyter_design_projects.core.cards import APPROVE, DENY, NOT_ENUMERABLE_NOTE
from jupyter_design_projects.core.design_operations import (
    DESIGN_OPERATIONS,
    DESTROY,
    PLAN_TOKEN,
    PROJECT_ID,
    Approval,
    DesignOperation,
    Input,
    Text,
    operation_table,
)
from jupyter_design_projects.core.plans import Targets
from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from jupyter_design_projects.design.client import DesignClient
from jupyter_design_projects.errors import PermissionRefused
from jupyter_design_projects.server.design.files import FileWrite
from jupyter_design_projects.server.design.operations import DesignOperations
from tests.server.design.harness import DECK_ID, Harness, build_harness, design_client


def chosen_by_the_service(arguments: Mapping[str, Any]) -> Targets | None:
    """The service picks the folders: the paths cannot be listed before the call."""
    return None


INDEXES = DesignOperation(
    "write_folder_indexes", "Write an index.html into every folder of the project.",
    DESTROY, True,
    (Input("project_id", PROJECT_ID, required=True), Input("title", Text()),
     Input("plan_token", PLAN_TOKEN)),
    Approval.GRANTABLE, chosen_by_the_service,
    "Write an index page into every folder of the Design project?")
TABLE = operation_table((*DESIGN_OPERATIONS, INDEXES))


class IndexingOperations(DesignOperations):
    def write_folder_indexes(self, user: str, project_id: str, title: str | None = None,
                             plan_token: str | None = None) -> dict[str, Any]:
        folders = sorted({e["path"].rsplit("/", 1)[0]
                          for e in self.files.listing(project_id, "", None)
                          if e["type"] == "file" and "/" in e["path"]})
        paths = [f"{folder}/index.html" for folder in folders]
        self._authorize_write(user, project_id, paths, plan_token)
        page = f"<h1>{title or 'Index'}</h1>".encode()
        self.files.write(project_id, [FileWrite(path, page) for path in paths])
        return {"written": paths}


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    with build_harness(tmp_path, design_operations=TABLE,
                       design_service=IndexingOperations) as harness:
        harness.consent()
        yield harness


async def run(h: Harness, steps: Any, *, can_ask: bool = True) -> Any:
    async with design_client(h, can_ask=can_ask, operations=TABLE) as (client, calls):
        return await steps(client, calls)


def indexes(h: Harness) -> set[str]:
    rows = h.ctx.db.read().execute("SELECT path FROM design_files WHERE project_id = ?",
                                   (DECK_ID,)).fetchall()
    return {row["path"] for row in rows if row["path"].endswith("/index.html")}


CALL = {"project_id": DECK_ID, "title": "Q4"}


@pytest.mark.asyncio
async def test_under_the_grant_an_ordinary_write_is_silent_and_the_unlisted_call_asks(h):
    h.grant(DECK_ID)

    async def steps(client: DesignClient, calls: collections.Counter[str]) -> None:
        ordinary = await client.call("write_files", {"project_id": DECK_ID, "files": [
            {"path": "notes/a.html", "data": "x"}]})
        assert isinstance(ordinary, DesignOutcome) and not ordinary.is_error
        assert calls["write_files"] == 1
        card = await client.call("write_folder_indexes", CALL)
        assert isinstance(card, PendingApproval)
        request = card.request
        assert (request.kind, request.reason) == ("operation", "targets_not_enumerable")
        assert request.buttons == (APPROVE, DENY)
        assert request.title == INDEXES.heading
        assert request.details == ("title: Q4",)
        assert NOT_ENUMERABLE_NOTE in request.notes
        assert calls["write_folder_indexes"] == 0  # asking sends nothing
        written = await client.resume(card, approved=True)
        assert isinstance(written, DesignOutcome) and not written.is_error, written.error
        assert calls["write_folder_indexes"] == 1
        assert "notes/index.html" in written.data["written"]
        # approved once is not approved again: the next one asks too
        assert isinstance(await client.call("write_folder_indexes", CALL), PendingApproval)

    assert not indexes(h)
    await run(h, steps)
    assert "notes/index.html" in indexes(h)


@pytest.mark.asyncio
async def test_deny_on_the_unlisted_card_sends_nothing(h):
    h.grant(DECK_ID)

    async def steps(client: DesignClient, calls: collections.Counter[str]) -> None:
        card = await client.call("write_folder_indexes", CALL)
        assert isinstance(card, PendingApproval)
        denied = await client.resume(card, approved=False)
        assert isinstance(denied.error, PermissionRefused)
        assert denied.error.reason == "denied_on_card"
        assert calls["write_folder_indexes"] == 0

    await run(h, steps)
    assert not indexes(h)


@pytest.mark.asyncio
async def test_without_a_grant_the_unlisted_call_is_refused_before_sending(h):
    async def steps(client: DesignClient, calls: collections.Counter[str]) -> None:
        refused = await client.call("write_folder_indexes", CALL)
        assert isinstance(refused, DesignOutcome)
        assert isinstance(refused.error, PermissionRefused)
        assert refused.error.reason == "targets_not_enumerable"
        assert "cannot be listed" in refused.error.explanation
        assert calls["write_folder_indexes"] == 0

    await run(h, steps)
    assert not indexes(h)


@pytest.mark.asyncio
async def test_with_nobody_to_ask_the_unlisted_call_is_refused_even_under_the_grant(h):
    h.grant(DECK_ID)

    async def steps(client: DesignClient, calls: collections.Counter[str]) -> None:
        refused = await client.call("write_folder_indexes", CALL)
        assert isinstance(refused, DesignOutcome)
        assert isinstance(refused.error, PermissionRefused)
        assert refused.error.reason == "nobody_can_approve"
        assert calls["write_folder_indexes"] == 0

    await run(h, steps, can_ask=False)
    assert not indexes(h)


@pytest.mark.asyncio
async def test_a_grant_revoked_while_the_card_waits_writes_nothing(h):
    h.grant(DECK_ID)

    async def steps(client: DesignClient, calls: collections.Counter[str]) -> None:
        card = await client.call("write_folder_indexes", CALL)
        assert isinstance(card, PendingApproval)
        assert h.rest("DELETE", f"/v1/design/grants/{DECK_ID}").status_code in (200, 204)
        outcome = await client.resume(card, approved=True)
        assert isinstance(outcome, DesignOutcome)
        assert isinstance(outcome.error, PermissionRefused)
        assert outcome.error.reason == "targets_not_enumerable"

    await run(h, steps)
    assert not indexes(h)
