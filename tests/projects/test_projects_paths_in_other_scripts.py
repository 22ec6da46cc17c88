"""Projects paths in other scripts against the real reference service (issue 22 item 2):
a new doc may be named in letters of any script (in NFC), and a path that hides characters
or mixes look-alike scripts is refused before anything is sent."""

from __future__ import annotations

import uuid

import pytest

from jupyter_design_projects.agent_tools import projects_request
from jupyter_design_projects.errors import PathRejected

ROUTES = ["org", "remote-session"]


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(("given", "stored"), [
    ("notes/caf\u00e9-{}.md", "notes/caf\u00e9-{}.md"),
    ("\u5e7b\u706f\u7247-{}/01.md", "\u5e7b\u706f\u7247-{}/01.md"),
    ("notes/Cafe\u0301-{}.md", "notes/Caf\u00e9-{}.md"),  # decomposed: written in NFC
])
async def test_a_doc_named_in_another_script_is_written_and_read_back(
        service, open_projects, route, given, stored) -> None:
    tag = uuid.uuid4().hex[:6]
    async with open_projects(service, route) as client:
        written = await client.write(given.format(tag), content="bonjour")
        assert written["path"] == stored.format(tag)
        read = await client.read(stored.format(tag))
    assert read["content"] == "bonjour"


@pytest.mark.asyncio
@pytest.mark.parametrize("path", [
    "notes/p\u0430ypal.md",        # a Cyrillic а among Latin letters
    "notes/a\u202egnp.md",         # a bidi override
    "notes/a\u200bb.md",           # a zero-width space
    "notes/a\ue000.md",            # private use
    "notes/\uff0e\uff0e.md",       # fullwidth dots
])
async def test_a_confusing_new_path_is_refused_before_anything_is_sent(
        service, open_projects, path) -> None:
    async with open_projects(service, "org") as client:
        with pytest.raises(PathRejected):
            await client.write(path, content="x")
        assert all(d["path"] != path for d in (await client.info())["docs"])


def test_a_write_card_shows_a_non_ascii_path_beside_its_escaped_form() -> None:
    request = projects_request("project_write", {"path": "notes/caf\u00e9.md",
                                                 "content": "x"}, "p1")
    assert "  notes/caf\u00e9.md  [notes/caf\\u00e9.md]" in request.text.splitlines()
