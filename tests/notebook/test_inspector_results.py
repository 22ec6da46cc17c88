"""The inspector's result area against a real reference service: a record shows as the
collapsible JSON tree, a result shown as a line or a text also shows its whole data as a
tree, and a table stays a table."""

from __future__ import annotations

import html

from jupyter_design_projects.notebook.commands.run import inspect
from jupyter_design_projects.server.design.demo import DECK_ID


def shown_html(inspector) -> list[str]:
    return [out["data"]["text/html"] for out in inspector.output.outputs]


def test_a_record_result_shows_as_the_json_tree_with_its_paths(shell, live) -> None:
    shell.run_line_magic("design", "consent")
    inspector = inspect(live.host, "design")
    inspector.choose("get_project")
    inspector.form.editors["project_id"].input.value = DECK_ID
    inspector.run_button.click()
    outcome = inspector.last
    assert not outcome.is_error and isinstance(outcome.data, dict)
    (page,) = shown_html(inspector)  # the outcome only: it draws the tree itself
    assert 'class="jdp-json-tree"' in page
    for key in list(outcome.data)[:5]:
        assert html.escape(f'"{key}"') in page
    assert 'title="$"' in page


def test_a_read_shows_its_text_and_then_the_whole_result_as_a_tree(shell, live) -> None:
    inspector = inspect(live.host, "project")
    inspector.choose("project_search")
    inspector.form.editors["query"].input.value = "data retention"
    inspector.run_button.click()
    path = inspector.last.data["hits"][0]["name"]
    (table,) = shown_html(inspector)  # hits are a table: no tree
    assert "jdp-json-tree" not in table
    inspector.choose("project_read")
    inspector.form.editors["path"].input.value = path
    inspector.run_button.click()
    outcome = inspector.last
    assert isinstance(outcome.body, str)
    text, whole = shown_html(inspector)
    assert "jdp-json-tree" not in text
    assert "The whole result" in whole and 'title="$.content"' in whole
