"""The docs site builds strictly (`python3 tasks.py docs`: warnings are errors, every internal
link and reference resolves), its generated parts follow the code, the notebooks are rendered
with the outputs they had when run against the embedded service, and a broken link fails
the build."""

from __future__ import annotations

import html
import re
import shutil
import sys
from pathlib import Path

import pytest

from jupyter_design_projects.notebook.grammar import subcommands
from tests.sphinx_site import DOCS, ROOT, build


def text_of(page: Path) -> str:
    """A page's text, with Sphinx's typographic quotes and dashes put back as typed."""
    text = html.unescape(re.sub(r"<[^>]+>", " ", page.read_text()))
    return " ".join(text.translate(str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"',
                                         "\u201d": '"', "\u2013": "--", "\u2014": "---"})).split())


@pytest.fixture
def site(docs_site: Path) -> Path:
    """The docs site built strictly, the notebooks executed (tests/conftest.py `docs_site`:
    once per worker)."""
    return docs_site


def test_every_page_of_the_toc_is_built(site):
    for page in ("index", "getting-started", "notebook", "approvals", "decks", "projects",
                 "configuration", "panel", "python", "api", "reference-service", "protocol",
                 "architecture", "choices", "benchmarks", "testing", "panel-api"):
        assert (site / f"{page}.html").is_file(), page


def test_the_table_of_magics_is_the_declared_one(site):
    page = text_of(site / "notebook.html")
    for tool in subcommands.SUBCOMMANDS:
        for usage, summary in subcommands.rows(tool):
            assert " ".join(usage.split()) in page, usage
            assert " ".join(summary.split()) in page, summary


def test_the_decision_table_is_what_decide_answers(site):
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        from decision_table import ROWS
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    page = " ".join(text_of(site / "approvals.html").replace("`", " ").split())
    assert len(ROWS) >= 10
    for row in ROWS:
        assert " ".join(row.situation.replace("`", " ").split()) in page
    for answer in ("allow", "ask", "deny"):
        assert answer in page


def test_the_notebooks_are_rendered_with_what_they_printed_against_the_service(site):
    quickstart = text_of(site / "notebooks" / "quickstart.html")
    assert "Knowledge budget" in quickstart  # `%project info` ran against the seeded service
    assert "offline reference service" in quickstart
    knowledge = text_of(site / "notebooks" / "projects_knowledge.html")
    assert "incident-runbook.md" in knowledge  # a search hit of its first query


def test_the_api_reference_documents_the_public_names(site):
    page = text_of(site / "api.html")
    for name in ("Session", "Settings", "ApprovalRequest", "AgentTools", "tool_definitions",
                 "JdpError"):
        assert name in page, name


def test_a_broken_internal_link_fails_the_strict_build(docs_build, tmp_path):
    """The same pages build cleanly (the session's strict build, `docs_build`, fails the
    test if not), and one link to a page that does not exist fails the build, naming it:
    Sphinx's incremental rebuild over a copy of that build rereads the changed page, as a
    writer's rebuild does (the page is put back afterwards: the sources are the
    session's)."""
    out = tmp_path / "html"
    shutil.copytree(docs_build.html, out)
    page = docs_build.source / "getting-started.md"
    text = page.read_text()
    assert "[](notebook.md)" in text
    try:
        page.write_text(text.replace("[](notebook.md)", "[](nowhere.md)"))
        broken = build(docs_build.source, out)
    finally:
        page.write_text(text)
    assert broken.returncode != 0
    assert "nowhere.md" in broken.stderr


README = ROOT / "README.md"
MAX_README_LINES = 300


def test_the_readme_is_a_front_door_of_at_most_300_lines():
    assert len(README.read_text().splitlines()) <= MAX_README_LINES


def test_every_link_in_the_readme_resolves_inside_the_clone():
    """Relative links and images point at files of this repository (none outside it, so a
    clone has no broken link); the docs pages it names exist."""
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README.read_text())
    local = [link for link in links if "://" not in link]
    assert len(local) >= 20
    for link in local:
        target = (ROOT / link).resolve()
        assert target.is_relative_to(ROOT), link
        assert target.exists(), link


def test_the_quickstart_renders_its_push_approved_as_a_person_approves_it(site):
    """The headline step shows what a person sees after Approve (the written slides and
    their previews), says how the build approved it, and never a red 'nobody can approve'."""
    page = (site / "notebooks" / "quickstart.html").read_text()
    quickstart = text_of(site / "notebooks" / "quickstart.html")
    assert "nobody can approve" not in quickstart and "nobody_can_approve" not in quickstart
    approved = quickstart.index("pushed.approve() is what its Approve button calls")
    assert "Pushed 4 file(s) in 1 plan(s)." in quickstart[approved:]
    after = page[page.index("is what its"):]
    assert after.count('src="data:image/png;base64,') >= 3  # the slides' previews
    assert "Create this doc in the attached Project?" in quickstart  # the write's card


def test_no_page_loads_a_script_from_elsewhere(site):
    for page in site.rglob("*.html"):
        sources = re.findall(r'<script[^>]*\bsrc="([^"]+)"', page.read_text())
        assert [s for s in sources if "://" in s] == [], page


def test_the_architecture_picture_is_drawn_or_says_why_not(site):
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import mermaid_svg
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    page = (site / "architecture.html").read_text()
    if mermaid_svg.mermaid_js() is not None and mermaid_svg.CHROMIUM.is_file():
        drawn = page[page.index('<div class="jdp-mermaid">'):]
        assert drawn[len('<div class="jdp-mermaid">'):].startswith("<svg")
        assert "flowchart TB" not in text_of(site / "architecture.html")
    else:
        assert "shown as its Mermaid source" in text_of(site / "architecture.html")


@pytest.mark.parametrize("page", ["index", "approvals", "architecture",
                                  "notebooks/quickstart"])
def test_the_sidebar_lists_the_site_on_every_page(site, page):
    sidebar = (site / f"{page}.html").read_text().split('aria-label="Site Navigation"')[1]
    sidebar = sidebar.split("</nav>")[0]
    for title in ("Getting started", "Approvals and permissions", "Architecture"):
        assert title in sidebar, title
