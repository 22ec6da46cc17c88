"""The axe-core audit of the docs' rendered notebooks: the outputs of each example notebook,
as the docs site shows them after executing it, in the site's light and dark mode. Target:
no critical and no serious failure, contrast measured (the outputs' text colours follow the
site's mode through docs/_static/jdp-palette.css)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.axe_audit import audit, load_axe

pytestmark = pytest.mark.browser

NOTEBOOKS = ("quickstart", "projects_knowledge", "api_debugging", "agent_tools")
#: the outputs of the executed cells (myst-nb's markup)
OUTPUTS = "div.cell_output"


@pytest.fixture
def site(docs_site: Path) -> Path:
    """The docs site, built as `tasks.py docs` builds it, strictly, the notebooks executed
    (tests/conftest.py `docs_site`: once per worker, shared with tests/test_docs.py)."""
    return docs_site


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_the_docs_rendered_notebooks_have_no_critical_or_serious_failure(chromium, site,
                                                                         mode):
    context = chromium.new_context(viewport={"width": 1280, "height": 1600})
    page = context.new_page()
    found = {}
    try:
        for name in NOTEBOOKS:
            page.goto((site / "notebooks" / f"{name}.html").as_uri())
            page.evaluate("mode => { localStorage.setItem('theme', mode);"
                          " document.documentElement.dataset.theme = mode;"
                          " document.documentElement.dataset.mode = mode; }", mode)
            load_axe(page)
            result = audit(page, OUTPUTS)
            assert result.nodes > 0, name
            assert result.contrast_passes > 0, name
            found[name] = [(v.rule, v.impact, v.nodes, v.target, v.summary[-120:])
                           for v in result.severe()]
    finally:
        context.close()
    print(mode, found)
    assert all(not failed for failed in found.values()), found
