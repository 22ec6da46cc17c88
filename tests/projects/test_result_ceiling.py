"""The Projects result ceiling (300,000 characters of JSON) against the real reference
service: a doc small enough to read inline by bytes but over the ceiling once JSON-escaped
is saved whole to a 0600 file in the session's directory, and the result carries a preview
and the file's path; the boundary is exact (at the ceiling inline, one over spilled)."""

from __future__ import annotations

import stat
import uuid
from pathlib import Path

import pytest

from jupyter_design_projects.core.budgets import (
    INLINE_MAX_BYTES,
    RESULT_MAX_CHARS,
    RESULT_PREVIEW_CHARS,
    result_chars,
)

ROUTES = ["org", "remote-session"]


def unique() -> str:
    return f"team/ceiling-{uuid.uuid4().hex[:8]}.md"


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_an_escaped_doc_over_the_ceiling_is_saved_whole_and_previewed(
        service, open_projects, tmp_path, route) -> None:
    content = ('\t"q"\n' * (INLINE_MAX_BYTES // 5)).ljust(INLINE_MAX_BYTES, '"')
    assert len(content.encode()) == INLINE_MAX_BYTES  # inline by bytes …
    path = unique()
    async with open_projects(service, route) as client:
        await client.call("project_write", {"path": path, "content": content})
        result = await client.call("project_read", {"path": path})
    assert result["spilled"] is True and "content" not in result
    assert result["result_chars"] > RESULT_MAX_CHARS  # … over the ceiling as JSON
    saved = Path(result["local_file"])
    assert saved.parent == tmp_path / "downloads" and saved.suffix == ".md"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    with saved.open(encoding="utf-8", newline="") as f:
        assert f.read() == content  # whole: its end is recoverable
    assert result["preview"] == content[:RESULT_PREVIEW_CHARS]
    assert (result["path"], result["bytes"], result["method"]) == (
        path, INLINE_MAX_BYTES, "project_read")
    assert result_chars(result) <= RESULT_MAX_CHARS


@pytest.mark.asyncio
@pytest.mark.parametrize(("over", "spilled"), [(0, False), (1, True)])
async def test_the_ceiling_is_exact(service, open_projects, tmp_path, over, spilled) -> None:
    size = 200_000  # the same byte count (and so the same "bytes" field) in both reads
    path = unique()
    async with open_projects(service, "org") as client:
        await client.call("project_write", {"path": path, "content": "a" * size})
        probe = result_chars(await client.call("project_read", {"path": path}))
        quotes = RESULT_MAX_CHARS - probe + over  # each quote adds one escaped character
        content = '"' * quotes + "a" * (size - quotes)
        await client.call("project_write", {"path": path, "content": content})
        result = await client.call("project_read", {"path": path})
    if spilled:
        assert result["result_chars"] == RESULT_MAX_CHARS + 1
        assert Path(result["local_file"]).read_text(encoding="utf-8") == content
    else:
        assert result["content"] == content and "local_file" not in result
        assert result_chars(result) == RESULT_MAX_CHARS
        assert not any((tmp_path / "downloads").glob("project-doc-*"))
