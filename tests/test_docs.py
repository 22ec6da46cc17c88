"""The docs site builds strictly (`python3 tasks.py docs`: warnings are errors, every internal
link and reference resolves), its generated parts follow the code, the notebooks are rendered
with the outputs they had when run against the embedded service, and a broken link fails
the build."""

from __future__ import annotations

import html
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_design_projects.notebook import subcommands

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def load_tasks():
    spec = importlib.util.spec_from_file_location("tasks", ROOT / "tasks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(source: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    command = [*load_tasks().sphinx_command(sys.executable, source, out), *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT)


def text_of(page: Path) -> str:
    """A page's text, with Sphinx's typographic quotes and dashes put back as typed."""
    text = html.unescape(re.sub(r"<[^>]+>", " ", page.read_text()))
    return " ".join(text.translate(str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"',
                                         "\u201d": '"', "\u2013": "--", "\u2014": "---"})).split())


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = build(DOCS, out)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return out


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


def test_a_broken_internal_link_fails_the_strict_build(tmp_path):
    """The same pages (notebooks not executed) build cleanly, and one link to a page that
    does not exist fails the build, naming it."""
    source = tmp_path / "docs"
    shutil.copytree(DOCS, source, ignore=shutil.ignore_patterns("_build", "notebooks"))
    (tmp_path / "bench").mkdir()
    shutil.copy(ROOT / "bench" / "README.md", tmp_path / "bench")  # a page includes it
    clean = build(source, tmp_path / "clean", "-D", "nb_execution_mode=off")
    assert clean.returncode == 0, clean.stderr[-4000:]
    page = source / "getting-started.md"
    page.write_text(page.read_text().replace("[](notebook.md)", "[](nowhere.md)"))
    broken = build(source, tmp_path / "broken", "-D", "nb_execution_mode=off")
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
