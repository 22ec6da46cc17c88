"""A Design result over `maxResultSizeChars` (100,000) against the real reference service:
its text is saved whole to a 0600 file in the session's directory and the result carries a
preview and the file's path; a result at the limit comes back inline."""

from __future__ import annotations

import stat
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.core.results import PREVIEW_CHARS, RESULT_MAX_CHARS
from jupyter_design_projects.design.approval import DesignOutcome
from jupyter_design_projects.design.client import DesignClient
from jupyter_design_projects.projects.downloads import DownloadDir
from jupyter_design_projects.settings import Settings
from tests.design.live_design import design_http

DEMO_NAMESPACE = uuid.UUID("0f4b6c1e-5d0a-4c58-9b7e-2a1d3c4e5f60")
DECK = str(uuid.uuid5(DEMO_NAMESPACE, "project:Quarterly Review Deck"))


@pytest_asyncio.fixture
async def client(service, tmp_path: Path) -> AsyncIterator[DesignClient]:
    async with design_http(service) as http:
        opened = DesignClient(http, Settings(api_base_url=service.base_url),
                              can_ask=lambda: True,
                              save_text=DownloadDir(tmp_path / "session").save_text,
                              operations=BY_NAME)
        yield opened
        await opened.close()


async def read_back(client: DesignClient, data: str) -> DesignOutcome:
    """Write `data` to a new file of the demo deck (approved once), then read_file it."""
    await client.consent()
    path = f"spill-{uuid.uuid4().hex[:8]}.html"
    written = await client.resume(await client.call("write_files", {
        "project_id": DECK, "files": [{"path": path, "data": data}]}), approved=True)
    assert isinstance(written, DesignOutcome) and not written.is_error
    outcome = await client.call("read_file", {"project_id": DECK, "path": path})
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error
    return outcome


def texts(outcome: DesignOutcome) -> list[str]:
    return [b["text"] for b in outcome.blocks if b["type"] == "text"]


@pytest.mark.asyncio
async def test_a_read_over_100000_chars_is_saved_whole_with_a_preview_and_its_path(
        client, tmp_path) -> None:
    data = "x" * 119_990 + "the end\n"  # under read_file's 256 KiB, over 100,000
    outcome = await read_back(client, data)
    preview, notice = texts(outcome)
    saved = Path(notice.split("saved whole to ")[1].split(" (mode 0600)")[0])
    assert saved.parent == tmp_path / "session"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    whole = saved.read_text(encoding="utf-8")
    assert len(whole) > RESULT_MAX_CHARS
    assert data in whole and whole.endswith("</untrusted-project-content>")  # not cut
    assert preview == whole[:PREVIEW_CHARS]


@pytest.mark.asyncio
async def test_a_read_within_100000_chars_comes_back_inline_and_saves_nothing(
        client, tmp_path) -> None:
    data = "x" * 90_000
    outcome = await read_back(client, data)
    (inline,) = texts(outcome)
    assert data in inline
    assert not (tmp_path / "session").exists()
